/*
 * topo_fat_tree.c — the three-tier k-ary fat tree of Al-Fares, Loukissas
 * and Vahdat, "A Scalable, Commodity Data Center Network Architecture",
 * SIGCOMM 2008.
 *
 * k pods, each with k/2 ToRs (tier 1) and k/2 aggregation switches (tier 2);
 * (k/2)^2 cores (tier 3). ToR j of pod p links to every agg of pod p; agg i
 * of pod p links to cores i*(k/2) .. i*(k/2)+k/2-1, so core c sees one agg
 * of every pod. Each ToR has hpt = (k/2) * oversubscription hosts (a whole
 * number >= 1); at oversubscription 1 every switch has exactly k ports and
 * there are k^3/4 hosts.
 *
 * Numbering, left to right: host h under tor h / hpt; tor p*(k/2)+j,
 * agg p*(k/2)+i, core c. Links are added host-ToR (host order), then
 * ToR-agg (pod, tor, agg), then agg-core (pod, agg, core), which gives:
 *   tor:  ports 0..hpt-1 = its hosts, hpt+i = agg i of its pod;
 *   agg:  ports 0..k/2-1 = ToR j of its pod, k/2+m = core i*(k/2)+m;
 *   core: port p = the agg of pod p.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "topology.h"
#include "xalloc.h"

struct fat_tree_cfg {
	int k;                     /* even, >= 2 */
	double oversubscription;   /* [1] */
};

static const struct cfg_key keys[] = {
	{ "k", KT_INT, .required = true, .range = CFG_R_MIN | CFG_R_EVEN, .lo = 2,
	  .off = offsetof(struct fat_tree_cfg, k), .help = "fat-tree arity (k^3/4 hosts)" },
	{ "oversubscription", KT_NUMBER, "1", CFG_POS, .off = offsetof(struct fat_tree_cfg, oversubscription),
	  .help = "ToR downlink to uplink capacity ratio" },
};

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct fat_tree_cfg *f = own;
	int k = f->k;   /* even, >= 2 (the key's range) */
	if (k > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] k = %d: a switch would have more than %d ports",
				 k, TOPO_MAX_PORTS);
	int half = k / 2;
	double os = f->oversubscription;
	double hpt_f = half * os;
	/* A ToR's host count must be whole; allow for the decimal rounding of
	 * values such as 1.5 or 0.1 * 10 in the scenario file. */
	double hpt_r = nearbyint(hpt_f);
	if (!isfinite(hpt_f) || fabs(hpt_f - hpt_r) > 1e-9 * (1 + fabs(hpt_f)) || hpt_r < 1)
		return err_printf(err, "[topology] oversubscription = %g: with k = %d a ToR would have "
				 "%g hosts; (k/2) x oversubscription must be a whole number >= 1",
				 os, k, hpt_f);
	if (hpt_r + half > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] oversubscription = %g: a ToR would have more than %d ports",
				 os, TOPO_MAX_PORTS);
	int hpt = (int)hpt_r;
	int64_t n_tor = (int64_t)k * half;       /* also the number of aggs */
	int64_t n_core = (int64_t)half * half;
	int64_t n_host = n_tor * hpt;
	TOPO_TRY(topo_reserve_checked(t, n_host + 2 * n_tor + n_core, n_host + 2 * n_tor * half, err,
				      "k = %d, oversubscription = %g", k, os));

	TOPO_TRY(topo_add_hosts(t, (int)n_host));
	int tor0 = topo_add_tier(t, "tor", (int)n_tor, NODE_SWITCH, 1);
	TOPO_TRY(tor0);
	int agg0 = topo_add_tier(t, "agg", (int)n_tor, NODE_SWITCH, 2);
	TOPO_TRY(agg0);
	int core0 = topo_add_tier(t, "core", (int)n_core, NODE_SWITCH, 3);
	TOPO_TRY(core0);

	TOPO_TRY(topo_link_hosts(t, tor0, hpt, c->host_link_rate_bps, c->link_delay));
	for (int p = 0; p < k; p++)
		for (int j = 0; j < half; j++)
			for (int i = 0; i < half; i++)
				TOPO_TRY(topo_add_link(t, tor0 + p * half + j, agg0 + p * half + i,
						      c->link_rate_bps, c->link_delay));
	for (int p = 0; p < k; p++)
		for (int i = 0; i < half; i++)
			for (int m = 0; m < half; m++)
				TOPO_TRY(topo_add_link(t, agg0 + p * half + i, core0 + i * half + m,
						      c->link_rate_bps, c->link_delay));
	return 0;
}

/* k, and what oversubscription did: more hosts per ToR on the same k/2
 * uplinks (it adds hosts; it never removes uplinks). */
static void describe(const void *own, const struct topo *t, char *buf, size_t n)
{
	const struct fat_tree_cfg *f = own;
	int half = f->k / 2;
	int hpt = (int)nearbyint(half * f->oversubscription);
	if (hpt == half)
		snprintf(buf, n, "k = %d: %d pods, %d cores", f->k, f->k, half * half);
	else
		snprintf(buf, n, "k = %d, oversubscription = %g: %d hosts per tor on its k/2 = %d uplinks, "
			 "%d hosts in all instead of k^3/4 = %d", f->k, f->oversubscription, hpt, half,
			 t->n_hosts, f->k * f->k * f->k / 4);
}

const struct topo_kind topo_fat_tree = {
	.cfg = { .name = "fat_tree", .help = "three-tier k-ary fat tree (Al-Fares et al.)",
		 CFG_KEYS(keys), .size = sizeof(struct fat_tree_cfg) },
	.build = build, .nics = TOPO_NICS_SAME_SWITCH, .describe = describe,
};
