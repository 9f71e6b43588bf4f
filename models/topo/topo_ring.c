/*
 * topo_ring.c — a ring of switches with hosts under each: the smallest
 * fabric in which shortest-path routing under PFC can form a cyclic buffer
 * dependency (the PFC deadlock of Hu et al., "Deadlocks in Datacenter
 * Networks: Why Do They Form, and How to Avoid Them", HotNets 2016), which
 * scenarios/pfc_deadlock.ini reproduces and models/run/watchdog.c detects.
 *
 * Shape ([topology] keys): `switches` S >= 3, `hosts_per_switch` H.
 * Numbering, left to right (topology.h):
 *   nodes: host0..host{S*H-1}, sw0..sw{S-1} (tier 1); host h hangs off
 *          sw{h / H};
 *   links: every host link first (host order), then the ring links
 *          sw0-sw1, sw1-sw2, ..., sw{S-1}-sw0, which gives
 *   sw i:  ports 0..H-1 = its hosts; for i >= 1 port H = sw{i-1} and port
 *          H+1 = sw{i+1 mod S}; sw0's port H = sw1 and port H+1 = sw{S-1}
 *          (a cycle has no link order in which every switch meets its
 *          predecessor first).
 * Routing is routing.c's shortest path: a switch two hops away is reached
 * one way round when S >= 5; with S = 4 the opposite switch has two
 * equal-cost paths and ECMP picks one per flow.
 * Host links run at host_link_rate, ring links at link_rate.
 */
#include <stddef.h>
#include <stdint.h>

#include "topology.h"
#include "xalloc.h"

struct ring_cfg {
	int switches, hosts_per_switch;
};

static const struct cfg_key keys[] = {
	{ "switches", KT_INT, .required = true, CFG_GE(3), .off = offsetof(struct ring_cfg, switches),
	  .help = "switches around the ring" },
	{ "hosts_per_switch", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct ring_cfg, hosts_per_switch),
	  .help = "hosts under each ring switch" },
};

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct ring_cfg *o = own;
	int ns = o->switches, hps = o->hosts_per_switch;
	if ((int64_t)hps + 2 > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] hosts_per_switch = %d: a switch would have more "
				 "than %d ports", hps, TOPO_MAX_PORTS);
	int64_t nh = (int64_t)ns * hps;
	TOPO_TRY(topo_reserve_checked(t, nh + ns, nh + ns, err, "switches = %d, hosts_per_switch = %d",
				      ns, hps));
	TOPO_TRY(topo_add_hosts(t, (int)nh));
	int sw0 = topo_add_tier(t, "sw", ns, NODE_SWITCH, 1);
	TOPO_TRY(sw0);
	TOPO_TRY(topo_link_hosts(t, sw0, hps, c->host_link_rate_bps, c->link_delay));
	for (int i = 0; i < ns; i++) {
		int j = (i + 1) % ns;
		/* End a is the lower id (topology.h), so the closing link is sw0-sw{S-1}. */
		TOPO_TRY(topo_add_link(t, sw0 + (i < j ? i : j), sw0 + (i < j ? j : i), c->link_rate_bps,
				       c->link_delay));
	}
	return 0;
}

const struct topo_kind topo_ring = {
	.cfg = { .name = "ring", .help = "switches in a ring, hosts under each (PFC deadlock studies)", CFG_KEYS(keys),
		 .size = sizeof(struct ring_cfg) },
	.build = build, .nics = TOPO_NICS_SAME_SWITCH,
};
