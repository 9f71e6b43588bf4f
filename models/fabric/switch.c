/*
 * switch.c — forwarding, ECMP, buffer admission, PFC and ECN of a switch
 * (see switch.h), and the [switch] keys that configure them.
 */
#include <stddef.h>
#include <stdlib.h>
#include "config.h"
#include "ideal.h"
#include "log.h"
#include "mcast_tree.h"
#include "mmu.h"
#include "port.h"
#include "rng.h"
#include "units.h"
#include "routing.h"
#include "switch.h"
#include "switch_fwd.h"
#include "fabric.h"
#include "xalloc.h"

/* ---- [switch] ---- */

#define SW(f) offsetof(struct switch_cfg, f)
static const char *const v_ecmp[] = { "flow", "packet", NULL };

static const struct cfg_key switch_keys[] = {
	{ "buffer", KT_SIZE, "32MiB", CFG_POS, .off = SW(buffer_b), .help = "shared buffer" },
	{ "pfc", KT_BOOL, "on", .off = SW(pfc), .help = "priority flow control" },
	{ "pfc_alpha", KT_NUM_MAP, "0.125", CFG_POS, .off = SW(pfc_alpha),
	  .help = "dynamic threshold of the PFC XOFF limit" },
	{ "pfc_headroom", KT_SIZE_AUTO, "auto", .off = SW(headroom_b), .off2 = SW(headroom_auto),
	  .help = "headroom per ingress port and priority" },
	{ "ecn", KT_BOOL, "on", .off = SW(ecn), .help = "ECN marking" },
	{ "ecn_kmin", KT_SIZE_MAP, .def_doc = "100KB per 25Gbps of link rate, as HPCC",
	  .off = SW(ecn_kmin), .off2 = SW(ecn_kmin_default), .per_25g = 100000,
	  .help = "queue length where marking starts" },
	{ "ecn_kmax", KT_SIZE_MAP, .def_doc = "400KB per 25Gbps of link rate, as HPCC",
	  .off = SW(ecn_kmax), .off2 = SW(ecn_kmax_default), .per_25g = 400000,
	  .help = "queue length where marking reaches ecn_pmax" },
	{ "ecn_pmax", KT_NUM_MAP, "0.2", CFG_IN(0, 1), .off = SW(ecn_pmax),
	  .help = "marking probability at ecn_kmax" },
	{ "ecmp", KT_ENUM, "flow", .vocab = v_ecmp, .off = SW(ecmp),
	  .help = "per-flow hashing or per-packet spraying" },
};

static int switch_rules(struct cfg_check *c)
{
	const struct switch_cfg *sw = c->data;
	uint64_t rate;
	char r[64];
	if (!sw->ecn_kmin_default && !sw->ecn_kmax_default &&
	    !cfg_rate_map_le(&sw->ecn_kmin, &sw->ecn_kmax, &rate)) {
		units_format_rate(rate, r, sizeof r);
		return cfg_fail(c, "ecn_kmax", "a size >= ecn_kmin%s%s", rate ? " at " : "", rate ? r : "");
	}
	return 0;
}

const struct cfg_section switch_section = {
	.name = "switch", .help = "switches: shared buffer, PFC, ECN, ECMP",
	CFG_KEYS(switch_keys), .size = sizeof(struct switch_cfg), .rules = switch_rules,
};

int switch_path_ports(const struct fabric *f, int src, int dst, uint16_t sport, int64_t psn,
		      struct path_hop *hop, int max)
{
	int u = fabric_ep_host(f, src), i = fabric_ep_nic(f, src);
	for (int n = 0; n < max;) {
		hop[n++] = (struct path_hop){ u, i };
		const struct topo_port *tp = fabric_tport(f, u, i);
		const struct node *next = &f->nodes[tp->peer];
		if (next->kind != NODE_SWITCH)
			return fabric_tport_reaches_ep(f, tp, dst) ? n : -1;
		i = route_port(next, src, dst, sport, psn);
		if (i >= next->n_ports)
			return -1;   /* no route after failures */
		u = tp->peer;
	}
	return -1;
}

int switch_path(const struct fabric *f, int src, int dst, uint16_t sport, struct ideal_hop *h)
{
	struct path_hop hop[IDEAL_MAX_HOPS];
	int n = switch_path_ports(f, src, dst, sport, -1, hop, IDEAL_MAX_HOPS);
	for (int i = 0; i < n; i++)
		h[i] = fabric_hop(f, hop[i].node, hop[i].port);
	return n;
}

/* A port's per-rate settings ([switch] pfc_alpha, ecn_*) for a link of
 * rate_bps. 0, or -1 with *err naming a rate the maps lack. */
static int port_settings(const struct switch_cfg *c, uint64_t rate_bps, struct mmu_port *mp, char **err)
{
	double v;
	/* A per-rate value with no entry for this link's rate is an error
	 * naming the rate (cfg_rate_map_get). */
	if (cfg_rate_map_get(&c->pfc_alpha, rate_bps, &mp->alpha, err) < 0)
		return -1;
	mp->ecn = c->ecn;
	if (c->ecn) {
		if (cfg_rate_map_get(&c->ecn_kmin, rate_bps, &v, err) < 0)
			return -1;
		mp->kmin_b = (uint64_t)v;
		if (cfg_rate_map_get(&c->ecn_kmax, rate_bps, &v, err) < 0)
			return -1;
		mp->kmax_b = (uint64_t)v;
		if (cfg_rate_map_get(&c->ecn_pmax, rate_bps, &mp->pmax, err) < 0)
			return -1;
	}
	return 0;
}

static char *buffer_error(const struct fabric *f, const char *name, int n_ports)
{
	return cfg_error_at(f->cfg, "switch", "buffer", 0,
			    "smaller than %s's headroom and reserves (%d ports): "
			    "raise buffer or lower pfc_headroom", name, n_ports);
}

int switch_check_buffers(const struct fabric *f, const struct topo *t, char **err)
{
	const struct switch_cfg *c = f->sw_cfg;
	uint8_t lossless = c->pfc ? f->params.lossless : 0;
	for (int u = t->n_hosts; u < t->n_nodes; u++) {
		if (t->nodes[u].kind != NODE_SWITCH)
			continue;
		uint64_t hdrm = 0;
		for (int i = 0; i < topo_n_ports(t, u); i++) {
			const struct topo_link *l = &t->links[fabric_tport(f, u, i)->link];
			struct mmu_port mp;
			if (port_settings(c, l->rate_bps, &mp, err) < 0)
				return -1;
			hdrm += c->headroom_auto ? fabric_headroom(f, u, i, f->params.max_frame_b)
						 : (uint32_t)c->headroom_b;
		}
		if (mmu_fixed_b(topo_n_ports(t, u), hdrm, lossless) >= c->buffer_b) {
			*err = buffer_error(f, t->nodes[u].name, topo_n_ports(t, u));
			return -1;
		}
	}
	return 0;
}

int switch_setup(struct fabric *f, struct node *sw, char **err)
{
	const struct switch_cfg *c = f->sw_cfg;
	struct mmu *m = xcalloc_lines(1, sizeof *m);
	/* Lossless: the NICs' data class when PFC is on (ACK/CNP ride a lossy
	 * strict class). */
	uint8_t lossless = c->pfc ? f->params.lossless : 0;
	uint32_t max_frame = f->params.max_frame_b;
	mmu_init(m, c->buffer_b, sw->n_ports, lossless, rng_derive(f->sim->seed, RNG_ECN, (uint64_t)sw->id),
		 (uint16_t)(max_frame < UINT16_MAX ? max_frame : UINT16_MAX));
	sw->mmu = m;
	for (int i = 0; i < sw->n_ports; i++) {
		struct port *p = &sw->ports[i];
		struct mmu_port *mp = &m->port[i];
		if (p->peer)
			mp->pass_copy = &p->peer->peer_pass;
		if (port_settings(c, p->rate_bps, mp, err) < 0)
			return -1;
		mp->hdrm_cap_b = c->headroom_auto ? fabric_headroom(f, sw->id, i, max_frame) : (uint32_t)c->headroom_b;
	}
	if (mmu_finalize(m) < 0) {
		*err = buffer_error(f, sw->name, sw->n_ports);
		return -1;
	}
	return 0;
}

void switch_free(struct node *sw)
{
	if (!sw->mmu)
		return;
	mmu_free(sw->mmu);
	free(sw->mmu);
	sw->mmu = NULL;
}

void switch_check_drained(struct node *sw)
{
	struct mmu *m = sw->mmu;
	if (!m)
		return;
	SIM_ASSERT(sw->fab->sim, &sw->elem, m->used_b == 0 && m->shared_used_b == 0,
		   "buffer not drained: %llu bytes held, %llu shared", (unsigned long long)m->used_b,
		   (unsigned long long)m->shared_used_b);
	for (int i = 0; i < m->n_ports; i++)
		for (int c = 0; c < MMU_CLASSES; c++)
			SIM_ASSERT(sw->fab->sim, &sw->elem, !m->port[i].ingress_b[c] && !m->port[i].hdrm_b[c],
				   "port %d class %d holds %u + %u bytes after drain", i, c,
				   m->port[i].ingress_b[c], m->port[i].hdrm_b[c]);
}

void switch_drop(struct sim *sim, struct fabric *f, struct port *out, struct packet *pkt)
{
	out->drops++;
	if (pkt->type == PKT_DATA)
		sim->packets_dropped++;
	fabric_pkt_put(f, pkt);
}

void switch_receive_special(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt)
{
	if (pkt->type == PKT_PFC) {
		port_pfc_receive(sim, in, pkt);
		pool_put(&sw->fab->pkt_pool, pkt);
		return;
	}
	mcast_switch_receive(sim, sw, in, pkt); /* replication and feedback aggregation */
}
