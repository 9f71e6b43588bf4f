/*
 * topo_rail_optimized.c — the rail-optimised fabric of GPU clusters: NIC i of every
 * host on leaf ("rail") i, every leaf linked to every spine (docs/protocol.md "Collectives";
 * NVIDIA DGX SuperPOD reference architecture). Traffic between NICs of one
 * rail crosses one leaf; traffic between rails climbs to a spine, with
 * `spines` equal-cost choices.
 *
 * Shape ([topology] keys): `hosts` H, `spines` S, `nics_per_host` N, so N
 * leaves. Numbering, left to right (topology.h):
 *   nodes: host0..host{H-1}, leaf0..leaf{N-1} (tier 1), spine0..spine{S-1}
 *          (tier 2);
 *   links: host h NIC i - leaf i in (host, NIC) order, then leaf i -
 *          spine s in (leaf, spine) order, which gives
 *   host h: port i = leaf i (its NIC i, endpoint h x N + i);
 *   leaf i: ports 0..H-1 = NIC i of host0..host{H-1}, port H+s = spine s;
 *   spine s: port i = leaf i.
 * Host links run at host_link_rate, leaf-spine links at link_rate.
 */
#include <stddef.h>
#include <stdint.h>

#include "topology.h"
#include "xalloc.h"

struct rail_cfg {
	int hosts, spines;
};

static const struct cfg_key keys[] = {
	{ "spines", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct rail_cfg, spines),
	  .help = "spine switches" },
	{ "hosts", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct rail_cfg, hosts), .help = "hosts" },
};

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct rail_cfg *o = own;
	int nh = o->hosts, ns = o->spines, nl = c->nics_per_host;
	if ((int64_t)nh + ns > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] hosts = %d, spines = %d: a leaf would have %lld ports "
				 "(one per host and one per spine); at most %d are supported",
				 nh, ns, (long long)nh + ns, TOPO_MAX_PORTS);
	if (nl > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] nics_per_host = %d: a spine would have more than %d ports",
				 nl, TOPO_MAX_PORTS);
	TOPO_TRY(topo_reserve_checked(t, (int64_t)nh + nl + ns, (int64_t)nh * nl + (int64_t)nl * ns, err,
				      "hosts = %d, spines = %d, nics_per_host = %d", nh, ns, nl));
	TOPO_TRY(topo_add_hosts(t, nh));
	int leaf0 = topo_add_tier(t, "leaf", nl, NODE_SWITCH, 1);
	TOPO_TRY(leaf0);
	int spine0 = topo_add_tier(t, "spine", ns, NODE_SWITCH, 2);
	TOPO_TRY(spine0);
	/* Host links first, host by host: host port i is NIC i, and every
	 * leaf's down ports precede its up ports. */
	for (int h = 0; h < nh; h++)
		for (int i = 0; i < nl; i++)
			TOPO_TRY(topo_add_link(t, h, leaf0 + i, c->host_link_rate_bps, c->link_delay));
	for (int i = 0; i < nl; i++)
		for (int s = 0; s < ns; s++)
			TOPO_TRY(topo_add_link(t, leaf0 + i, spine0 + s, c->link_rate_bps, c->link_delay));
	return 0;
}

const struct topo_kind topo_rail_optimized = {
	.cfg = { .name = "rail_optimized", .help = "NIC i of every host on leaf (rail) i, leaves to every spine", CFG_KEYS(keys),
		 .size = sizeof(struct rail_cfg) },
	.build = build, .nics = TOPO_NICS_BUILDER,
};
