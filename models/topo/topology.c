/*
 * topology.c — the registry of topology builders and the helpers they share.
 *
 * One table maps each `[topology] type` to its kind (topo_*.c: its name,
 * keys, struct and builder), so the names accepted, the keys documented
 * and the dispatch cannot drift apart; adding a topology is one new file
 * and one TOPO_KINDS line. The [topology] keys every type shares are declared here.
 *
 * Invariants after topology_build succeeds: nodes [0, n_hosts) are hosts;
 * every link joins two distinct existing nodes; port_off has n_nodes + 1
 * entries and ports one entry per link end, numbered per node in link
 * order; ports[port_off[u] + i].peer_port points back at (u, i); no node
 * has more than TOPO_MAX_PORTS ports; every host has exactly nics_per_host
 * ports (port i = NIC i). Building is done once per run, so
 * clarity wins over speed here except for topo_finalize's linear pass.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "xalloc.h"

/* The registry: the `struct topo_kind` of each topology file (topo_*.c),
 * NULL-terminated, in the order of TOPO_KINDS in models/topo/Makefile.inc
 * (topo_kinds.c is generated from it), which is the order `sim --keys`
 * lists them. */
extern const struct topo_kind *const topo_kinds[];

static const struct cfg_type *type_at(size_t i)
{
	for (size_t k = 0; topo_kinds[k]; k++)
		if (k == i)
			return &topo_kinds[k]->cfg;
	return NULL;
}

const struct topo_kind *topology_kind(const char *name)
{
	for (size_t i = 0; topo_kinds[i]; i++)
		if (strcmp(topo_kinds[i]->cfg.name, name) == 0)
			return topo_kinds[i];
	return NULL;
}

/* ---- [topology]: the keys every type shares ---- */

#define TOP(f) offsetof(struct topo_cfg, f)

static const struct cfg_key topo_keys[] = {
	{ "type", KT_TYPE, .required = true, .off = TOP(type), .help = "fabric shape" },
	{ "link_rate", KT_RATE, .required = true, CFG_POS, .off = TOP(link_rate_bps),
	  .help = "rate of every link" },
	{ "link_delay", KT_TIME, .required = true, .off = TOP(link_delay),
	  .help = "propagation delay of every link" },
	{ "host_link_rate", KT_RATE, .def_doc = "link_rate", CFG_POS,
	  .off = TOP(host_link_rate_bps), .help = "rate of host-to-switch links" },
	{ "switch_latency", KT_TIME, "0s", .off = TOP(switch_latency),
	  .help = "forwarding latency of a switch" },
	{ "gpus_per_host", KT_INT, "1", CFG_GE(1), .off = TOP(gpus_per_host), .help = "GPUs in a host" },
	{ "nics_per_host", KT_INT, "1", CFG_GE(1), .off = TOP(nics_per_host), .help = "NICs in a host" },
	{ "nvlink_rate", KT_RATE, "450GBps", CFG_POS, .off = TOP(nvlink_rate_bps),
	  .help = "NVLink rate per GPU per direction" },
	{ "nvlink_delay", KT_TIME, "200ns", .off = TOP(nvlink_delay), .help = "NVLink latency" },
	{ "derate", KT_CUSTOM, .def_doc = "none", .custom = &topo_derate_line, .off = TOP(derate),
	  .help = "repeated: HOST[:NIC] RATE: that host's link (or NIC's) runs at RATE, below the nominal" },
};

static int topo_rules(struct cfg_check *c)
{
	struct topo_cfg *t = c->data;
	if (!cfg_given(c, "host_link_rate"))
		t->host_link_rate_bps = t->link_rate_bps;
	return 0;
}

const struct cfg_section topo_section = {
	.name = "topology", .required = true, .help = "the fabric: its shape, links and hosts",
	CFG_KEYS(topo_keys), .size = sizeof(struct topo_cfg), .type_at = type_at, .rules = topo_rules,
};

const struct topo_cfg *topology_cfg(const struct config *cfg)
{
	return cfg_get(cfg, &topo_section);
}

static const struct topo_kind *kind_of(const struct config *cfg, const void **own)
{
	const struct cfg_inst *i = cfg_inst(cfg, &topo_section);
	*own = i->type_data;
	return (const struct topo_kind *)i->type;  /* cfg is the kind's first member */
}

const struct topo_kind *topology_kind_of(const struct config *cfg, const void **own)
{
	return kind_of(cfg, own);
}

const char *topology_type_name(const struct config *cfg)
{
	const void *own;
	return kind_of(cfg, &own)->cfg.name;
}

void topo_scale_rates(const struct config *cfg, uint64_t rates[2])
{
	const void *own;
	const struct topo_cfg *c = topology_cfg(cfg);
	if (kind_of(cfg, &own)->own_links && !c->link_rate_bps) {
		rates[0] = rates[1] = 0;
		return;
	}
	rates[0] = c->host_link_rate_bps;
	rates[1] = c->link_rate_bps;
}

int topo_reserve(struct topo *t, int n_nodes, int n_links)
{
	if (n_nodes < 0 || n_links < 0)
		return -1;
	if (n_nodes > t->nodes_cap) {
		struct topo_node *p = realloc(t->nodes, (size_t)n_nodes * sizeof *p);
		if (!p)
			return -1;
		t->nodes = p;
		t->nodes_cap = n_nodes;
	}
	if (n_links > t->links_cap) {
		struct topo_link *p = realloc(t->links, (size_t)n_links * sizeof *p);
		if (!p)
			return -1;
		t->links = p;
		t->links_cap = n_links;
	}
	return 0;
}

int topo_reserve_checked(struct topo *t, int64_t n_nodes, int64_t n_links, char **err, const char *fmt, ...)
{
	if (n_nodes <= TOPO_MAX_NODES && n_links <= INT32_MAX / 2)
		return topo_reserve(t, (int)n_nodes, (int)n_links);
	char keys[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(keys, sizeof keys, fmt, ap);
	va_end(ap);
	return err_printf(err, "[topology] %s: %lld nodes and %lld links; at most %d nodes and %d links "
			  "are supported", keys, (long long)n_nodes, (long long)n_links, TOPO_MAX_NODES,
			  INT32_MAX / 2);
}

int topo_add_node(struct topo *t, const char *name, enum node_kind kind, int tier)
{
	size_t len = strlen(name);
	if (len >= TOPO_NAME_MAX || t->n_nodes >= TOPO_MAX_NODES)
		return -1;
	if (t->n_nodes == t->nodes_cap &&
	    topo_reserve(t, t->nodes_cap ? 2 * t->nodes_cap : 16, t->links_cap) < 0)
		return -1;
	struct topo_node *n = &t->nodes[t->n_nodes];
	memcpy(n->name, name, len + 1);
	n->kind = kind;
	n->tier = tier;
	return t->n_nodes++;
}

int topo_add_named(struct topo *t, const char *prefix, int index, enum node_kind kind, int tier)
{
	char name[TOPO_NAME_MAX];
	int n = snprintf(name, sizeof name, "%s%d", prefix, index);
	if (n < 0 || n >= (int)sizeof name)
		return -1;
	return topo_add_node(t, name, kind, tier);
}

int topo_add_tier(struct topo *t, const char *prefix, int n, enum node_kind kind, int tier)
{
	int first = t->n_nodes;
	for (int i = 0; i < n; i++)
		if (topo_add_named(t, prefix, i, kind, tier) < 0)
			return -1;
	return first;
}

int topo_add_hosts(struct topo *t, int n)
{
	if (topo_add_tier(t, "host", n, NODE_HOST, 0) < 0)
		return -1;
	t->n_hosts = n;
	return 0;
}

int topo_add_link(struct topo *t, int a, int b, uint64_t rate_bps, simtime_t delay_ps)
{
	if (a < 0 || b < 0 || a >= t->n_nodes || b >= t->n_nodes || a == b)
		return -1;
	if (t->n_links == t->links_cap) {
		if (t->links_cap > INT32_MAX / 2)
			return -1;
		if (topo_reserve(t, t->nodes_cap, t->links_cap ? 2 * t->links_cap : 16) < 0)
			return -1;
	}
	struct topo_link *l = &t->links[t->n_links];
	l->a = a;
	l->b = b;
	l->rate_bps = rate_bps;
	l->delay_ps = delay_ps;
	l->cost = 1;
	return t->n_links++;
}

int topo_link_hosts(struct topo *t, int sw0, int per, uint64_t rate_bps, simtime_t delay_ps)
{
	for (int h = 0; h < t->n_hosts; h++)
		if (topo_add_link(t, h, sw0 + h / per, rate_bps, delay_ps) < 0)
			return -1;
	return 0;
}

void topo_finalize(struct topo *t)
{
	free(t->port_off);
	free(t->ports);
	t->port_off = NULL;
	t->ports = NULL;
	int *off = calloc((size_t)t->n_nodes + 1, sizeof *off);
	/* `fill` counts ports handed out so far per node; one extra slot keeps
	 * calloc's size non-zero for an empty topology. */
	int *fill = calloc((size_t)t->n_nodes + 1, sizeof *fill);
	struct topo_port *ports = malloc(((size_t)t->n_links * 2 + 1) * sizeof *ports);
	if (!off || !fill || !ports) {
		free(off);
		free(fill);
		free(ports);
		return;
	}
	for (int i = 0; i < t->n_links; i++) {
		off[t->links[i].a + 1]++;
		off[t->links[i].b + 1]++;
	}
	for (int u = 0; u < t->n_nodes; u++)
		off[u + 1] += off[u];
	/* Walking links in order gives each node its ports in link order, and
	 * both ends of a link learn each other's port index at once. */
	for (int i = 0; i < t->n_links; i++) {
		int a = t->links[i].a, b = t->links[i].b;
		int pa = fill[a]++, pb = fill[b]++;
		ports[off[a] + pa] = (struct topo_port){ .link = i, .peer = b, .peer_port = pb };
		ports[off[b] + pb] = (struct topo_port){ .link = i, .peer = a, .peer_port = pa };
	}
	free(fill);
	t->port_off = off;
	t->ports = ports;
}

int topo_find(const struct topo *t, const char *name)
{
	/* Linear: called while parsing traffic sections, not per packet. */
	for (int u = 0; u < t->n_nodes; u++)
		if (strcmp(t->nodes[u].name, name) == 0)
			return u;
	return -1;
}

/* Multi-homing of single-NIC builders: every host link becomes nics copies
 * in place (same ends, rate and delay), so link order, and with it every
 * port number, keeps the builder's layout with each host port widened to
 * nics consecutive ports. 0, or -1 when out of memory. */
static int topo_multi_home(struct topo *t, int nics)
{
	int64_t n = 0;
	for (int l = 0; l < t->n_links; l++)
		n += t->links[l].a < t->n_hosts ? nics : 1;
	if (n > INT32_MAX / 2)
		return -1;
	struct topo_link *links = malloc((size_t)n * sizeof *links);
	if (!links)
		return -1;
	int m = 0;
	for (int l = 0; l < t->n_links; l++)
		for (int i = t->links[l].a < t->n_hosts ? nics : 1; i > 0; i--)
			links[m++] = t->links[l];
	free(t->links);
	t->links = links;
	t->n_links = t->links_cap = m;
	return 0;
}

int topology_build(const struct config *cfg, struct topo *t, char **err)
{
	const void *own;
	const struct topo_kind *ty = kind_of(cfg, &own);
	const struct topo_cfg *c = topology_cfg(cfg);
	int nics = c->nics_per_host;
	memset(t, 0, sizeof *t);
	if (nics > 1 && ty->nics == TOPO_NICS_ONE)
		return err_printf(err, "[topology] nics_per_host = %d: %s supports one NIC per host",
				  nics, ty->cfg.name);
	*err = NULL;
	if (ty->build(c, own, t, err) < 0) {
		if (!*err)   /* an add failed (TOPO_TRY) */
			err_printf(err, "[topology] %s: out of memory building the topology", ty->cfg.name);
		goto fail;
	}
	t->nics_per_host = nics;
	if (nics > 1 && ty->nics == TOPO_NICS_SAME_SWITCH && topo_multi_home(t, nics) < 0) {
		err_printf(err, "[topology] nics_per_host = %d: out of memory or more than %d links "
			   "connecting every NIC", nics, INT32_MAX / 2);
		goto fail;
	}
	topo_finalize(t);
	if (!t->port_off) {
		err_printf(err, "[topology] out of memory numbering the ports of %d nodes", t->n_nodes);
		goto fail;
	}
	for (int u = 0; u < t->n_nodes; u++)
		if (topo_n_ports(t, u) > TOPO_MAX_PORTS) {
			err_printf(err, "[topology] %s would have %d ports; at most %d are supported%s",
				  t->nodes[u].name, topo_n_ports(t, u), TOPO_MAX_PORTS,
				  nics > 1 ? " (each host NIC takes a switch port)" : "");
			goto fail;
		}
	if (t->n_hosts <= 0) {
		err_printf(err, "[topology] %s: the topology has no hosts", ty->cfg.name);
		goto fail;
	}
	/* The endpoint contract (world.h): host port i is NIC i. */
	for (int h = 0; h < t->n_hosts; h++)
		if (topo_n_ports(t, h) != nics) {
			err_printf(err, "[topology] %s: %s has %d links, expected one per NIC "
				   "(nics_per_host = %d)", ty->cfg.name,
				   t->nodes[h].name, topo_n_ports(t, h), nics);
			goto fail;
		}
	if (topo_apply_derate(cfg, t, err) < 0)
		goto fail;
	return 0;
fail:
	topology_free(t);
	return -1;
}

void topology_free(struct topo *t)
{
	free(t->nodes);
	free(t->links);
	free(t->port_off);
	free(t->ports);
	free(t->hpcc_id);
	memset(t, 0, sizeof *t);
}
