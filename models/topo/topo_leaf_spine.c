/*
 * topo_leaf_spine.c — a two-tier leaf-spine (folded Clos): every leaf
 * links to every spine.
 *
 * Hosts first, then leaves, then spines; every switch's down links before
 * its up links (topology.h): leaf i ports 0..hpl-1 = hosts i*hpl.., port
 * hpl+s = spine s; spine s port i = leaf i. Host links run at
 * host_link_rate, leaf-spine links at link_rate.
 */
#include <stddef.h>
#include <stdint.h>

#include "topology.h"
#include "xalloc.h"

struct leaf_spine_cfg {
	int leaves, spines, hosts_per_leaf;
};

static const struct cfg_key keys[] = {
	{ "leaves", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct leaf_spine_cfg, leaves),
	  .help = "leaf switches" },
	{ "spines", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct leaf_spine_cfg, spines),
	  .help = "spine switches" },
	{ "hosts_per_leaf", KT_INT, .required = true, CFG_GE(1),
	  .off = offsetof(struct leaf_spine_cfg, hosts_per_leaf), .help = "hosts under a leaf" },
};

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct leaf_spine_cfg *o = own;
	int nl = o->leaves, ns = o->spines, hpl = o->hosts_per_leaf;
	if ((int64_t)hpl + ns > TOPO_MAX_PORTS || nl > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] leaves = %d, spines = %d, hosts_per_leaf = %d: "
				 "a switch would have more than %d ports", nl, ns, hpl, TOPO_MAX_PORTS);
	int64_t nh = (int64_t)nl * hpl;
	TOPO_TRY(topo_reserve_checked(t, nh + nl + ns, nh + (int64_t)nl * ns, err,
				      "leaves = %d, spines = %d, hosts_per_leaf = %d", nl, ns, hpl));
	TOPO_TRY(topo_add_hosts(t, (int)nh));
	int leaf0 = topo_add_tier(t, "leaf", nl, NODE_SWITCH, 1);
	TOPO_TRY(leaf0);
	int spine0 = topo_add_tier(t, "spine", ns, NODE_SWITCH, 2);
	TOPO_TRY(spine0);
	/* All host links first: every leaf's down ports precede its up ports. */
	TOPO_TRY(topo_link_hosts(t, leaf0, hpl, c->host_link_rate_bps, c->link_delay));
	for (int i = 0; i < nl; i++)
		for (int s = 0; s < ns; s++)
			TOPO_TRY(topo_add_link(t, leaf0 + i, spine0 + s, c->link_rate_bps, c->link_delay));
	return 0;
}

const struct topo_kind topo_leaf_spine = {
	.cfg = { .name = "leaf_spine", .help = "two tiers: every leaf links to every spine",
		 CFG_KEYS(keys), .size = sizeof(struct leaf_spine_cfg) },
	.build = build, .nics = TOPO_NICS_SAME_SWITCH,
};
