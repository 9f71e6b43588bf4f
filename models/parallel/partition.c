/*
 * partition.c — giving the nodes of a fabric to ranks (parallel.h): the
 * methods' registry, `auto`, round robin, and the cut that a partition
 * makes (cut links, lookahead, per-rank counts).
 *
 * Invariants of a partition this file hands out: part_of_node[u] is in
 * [0, n_parts) for every node; every rank owns at least one node; the
 * result depends only on the graph (nodes' kinds and tiers, links, port
 * order), the method and n_parts, never on names or a seed, so every rank
 * of a run computes the same partition.
 *
 * `auto` picks from the shape of the graph, not from the topology's type
 * name, so a topology read from a file gets what its shape allows:
 *   a switch of tier >= 3 (a fat tree):       pod, else leaf, else metis;
 *   top tier 2, every host on one switch:      leaf (leaf-spine);
 *   top tier 2, hosts on several switches:     rail (rail-optimised);
 *   anything else (a ring, a dragonfly, ...):  metis;
 * each candidate that cannot serve n_parts (fewer pods than ranks) passes
 * to the next; metis is round_robin in a build without METIS, and the
 * last resort is rail (hosts in blocks), which serves up to one rank per
 * host on any graph.
 */
#include <stdlib.h>
#include <string.h>
#include "partition.h"
#include "xalloc.h"

/* One method of the registry. */
struct method_entry {
	const char *name;          /* its word in [parallel] partition */
	/* Fills part (partition.h); NULL for auto, which runs others. */
	int (*run)(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err);
};

static int run_groups(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	return partition_groups(t, method, n_parts, part, n_groups, err);
}

static int run_metis(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	(void)method;
	*n_groups = 0;
	return partition_metis(t, n_parts, part, err);
}

static int run_rr(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	(void)method;
	*n_groups = 0;
	return partition_round_robin(t, n_parts, part, err);
}

/* The registry: enum partition_method order. */
static const struct method_entry methods[PART_N_METHODS] = {
	[PART_AUTO] = { "auto", NULL },
	[PART_POD] = { "pod", run_groups },
	[PART_LEAF] = { "leaf", run_groups },
	[PART_RAIL] = { "rail", run_groups },
	[PART_METIS] = { "metis", run_metis },
	[PART_ROUND_ROBIN] = { "round_robin", run_rr },
};

const char *partition_method_name(int method)
{
	return method >= 0 && method < PART_N_METHODS ? methods[method].name : "?";
}

const char *partition_method_at(const void *arg, size_t i)
{
	(void)arg;
	return i < PART_N_METHODS ? methods[i].name : NULL;
}

int partition_top_tier(const struct topo *t)
{
	int top = 0;
	for (int u = t->n_hosts; u < t->n_nodes; u++)
		if (t->nodes[u].kind != NODE_HOST && t->nodes[u].tier > top)
			top = t->nodes[u].tier;
	return top;
}

int partition_single_homed(const struct topo *t)
{
	for (int h = 0; h < t->n_hosts; h++)
		for (int i = t->port_off[h] + 1; i < t->port_off[h + 1]; i++)
			if (t->ports[i].peer != t->ports[t->port_off[h]].peer)
				return 0;
	return 1;
}

/* Round robin: units are the switches in id order, each with the hosts
 * whose port 0 (NIC 0) leads to it, and the hosts whose port 0 leads to no
 * switch; unit i goes to rank i mod n_parts. Balanced in units, blind to
 * locality: the baseline, and `auto`'s last resort without METIS. */
int partition_round_robin(const struct topo *t, int n_parts, int *part, char **err)
{
	int units = 0;
	for (int u = 0; u < t->n_nodes; u++) {
		part[u] = -1;
		bool host = u < t->n_hosts;
		bool on_switch = host && topo_n_ports(t, u) > 0 &&
				 t->ports[t->port_off[u]].peer >= t->n_hosts;
		if (!host || !on_switch)
			part[u] = units++ % n_parts;
	}
	if (units < n_parts)
		return err_printf(err, "%d ranks but round_robin has only %d switch%s (with their hosts) "
				  "to deal; use fewer ranks", n_parts, units, units == 1 ? "" : "es");
	for (int h = 0; h < t->n_hosts; h++)
		if (part[h] < 0)
			part[h] = part[t->ports[t->port_off[h]].peer];
	return 0;
}

/* The candidates `auto` tries, in order, for this graph (file comment);
 * at most 5, each method once, into c[PART_N_METHODS]. */
static int auto_candidates(const struct topo *t, int *c)
{
	int n = 0, top = partition_top_tier(t);
	int graph = partition_have_metis ? PART_METIS : PART_ROUND_ROBIN;
	if (top >= 3) {
		c[n++] = PART_POD;
		c[n++] = PART_LEAF;
	} else if (top == 2) {
		c[n++] = partition_single_homed(t) ? PART_LEAF : PART_RAIL;
	}
	c[n++] = graph;
	if (graph == PART_METIS)
		c[n++] = PART_ROUND_ROBIN;   /* should METIS refuse */
	/* More ranks than switches (a star): hosts in blocks. */
	c[n++] = PART_RAIL;
	return n;
}

/* The cut and the counts of a complete assignment. */
static void count(const struct topo *t, struct partition *p)
{
	int np = p->n_parts;
	p->nodes_of_part = xcalloc((size_t)np, sizeof *p->nodes_of_part);
	p->hosts_of_part = xcalloc((size_t)np, sizeof *p->hosts_of_part);
	p->switches_of_part = xcalloc((size_t)np, sizeof *p->switches_of_part);
	p->ports_of_part = xcalloc((size_t)np, sizeof *p->ports_of_part);
	p->cut_of_part = xcalloc((size_t)np, sizeof *p->cut_of_part);
	for (int u = 0; u < t->n_nodes; u++) {
		int r = p->part_of_node[u];
		p->nodes_of_part[r]++;
		if (t->nodes[u].kind == NODE_HOST)
			p->hosts_of_part[r]++;
		else
			p->switches_of_part[r]++;
		p->ports_of_part[r] += (uint64_t)topo_n_ports(t, u);
	}
	p->n_links = t->n_links;
	p->n_cut_links = 0;
	p->lookahead_ps = SIMTIME_NEVER;
	p->cut_rate_bps = p->total_rate_bps = 0;
	for (int l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];
		int ra = p->part_of_node[k->a], rb = p->part_of_node[k->b];
		p->total_rate_bps += k->rate_bps;
		if (ra == rb)
			continue;
		p->n_cut_links++;
		p->cut_rate_bps += k->rate_bps;
		p->cut_of_part[ra]++;
		p->cut_of_part[rb]++;
		if (k->delay_ps < p->lookahead_ps)
			p->lookahead_ps = k->delay_ps;
	}
}

/* Every node on a rank in range and every rank non-empty: a method's
 * promise, checked once here; an internal failure if broken. */
static int verify(const struct topo *t, const struct partition *p, const char *method, char **err)
{
	for (int u = 0; u < t->n_nodes; u++)
		if (p->part_of_node[u] < 0 || p->part_of_node[u] >= p->n_parts)
			return err_printf(err, "partition %s left node %s without a rank (an internal error)",
					  method, t->nodes[u].name);
	for (int r = 0; r < p->n_parts; r++)
		if (p->nodes_of_part[r] == 0)
			return err_printf(err, "partition %s left rank %d without a node (an internal error)",
					  method, r);
	return 0;
}

int partition_compute(const struct topo *t, int method, int n_parts, struct partition *out, char **err)
{
	memset(out, 0, sizeof *out);
	if (method < 0 || method >= PART_N_METHODS)
		return err_printf(err, "no partition method %d", method);
	if (n_parts < 1)
		return err_printf(err, "%d ranks: at least 1 is needed", n_parts);
	if (n_parts > t->n_nodes)
		return err_printf(err, "%d ranks but the fabric has only %d nodes (hosts and switches); "
				  "use at most %d ranks", n_parts, t->n_nodes, t->n_nodes);
	int cand[PART_N_METHODS], n_cand;   /* auto_candidates: at most 5 */
	if (method == PART_AUTO) {
		n_cand = auto_candidates(t, cand);
	} else {
		cand[0] = method;
		n_cand = 1;
	}
	int *part = xmalloc((size_t)(t->n_nodes > 0 ? t->n_nodes : 1) * sizeof *part);
	int used = -1, n_groups = 0;
	char *why = NULL;
	for (int i = 0; i < n_cand && used < 0; i++) {
		free(why);
		why = NULL;
		const struct method_entry *m = &methods[cand[i]];
		if (n_parts == 1) {
			/* One rank owns everything, whatever the method; but a
			 * method the build lacks is refused all the same, so a
			 * scenario that says metis fails alike on 1 and 8 ranks. */
			if (cand[i] == PART_METIS && !partition_have_metis &&
			    m->run(t, cand[i], 1, part, &n_groups, &why) < 0)
				continue;
			memset(part, 0, (size_t)t->n_nodes * sizeof *part);
			n_groups = 0;
			used = cand[i];
		} else if (m->run(t, cand[i], n_parts, part, &n_groups, &why) == 0) {
			used = cand[i];
		}
	}
	if (used < 0) {
		free(part);
		*err = why;
		return -1;
	}
	free(why);
	out->n_parts = n_parts;
	out->requested = method;
	out->method = used;
	out->n_nodes = t->n_nodes;
	out->part_of_node = part;
	out->n_groups = n_groups;
	count(t, out);
	if (verify(t, out, methods[used].name, err) < 0) {
		partition_free(out);
		return -1;
	}
	return 0;
}

void partition_free(struct partition *p)
{
	free(p->part_of_node);
	free(p->nodes_of_part);
	free(p->hosts_of_part);
	free(p->switches_of_part);
	free(p->ports_of_part);
	free(p->cut_of_part);
	memset(p, 0, sizeof *p);
}
