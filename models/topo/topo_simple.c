/*
 * topo_simple.c — the small fixed topologies: star, dumbbell, leaf_spine.
 *
 * Each builder checks its shape keys, then adds hosts first and switches
 * tier by tier from the bottom, and adds every switch's down links before
 * its up links (topology.h), so port numbers are predictable:
 *   star:       sw0 port i = host i.
 *   dumbbell:   sw0 ports 0..L-1 = host0..host{L-1}, port L = sw1;
 *               sw1 ports 0..R-1 = host{L}..host{L+R-1}, port R = sw0.
 *               The bottleneck is the last port of each switch.
 *   leaf_spine: leaf i ports 0..hpl-1 = hosts i*hpl.., port hpl+s = spine s;
 *               spine s port i = leaf i.
 * Host links run at host_link_rate, switch-switch links at link_rate.
 */
#include <stdint.h>

#include "topology.h"
#include "xalloc.h"

/* A failed add is out of memory (names and ids here are always valid). */
static int topo_simple_oom(const char *type, char **err)
{
	return err_printf(err, "[topology] %s: out of memory building the topology", type);
}

int topo_build_star(const struct cfg_topology *c, uint64_t host_rate_bps, struct topo *t, char **err)
{
	if (c->hosts < 1)
		return err_printf(err, "[topology] hosts = %d: star needs at least 1 host", c->hosts);
	if (c->hosts > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] hosts = %d: sw0 would have more than %d ports",
				 c->hosts, TOPO_MAX_PORTS);
	TOPO_TRY(topo_reserve(t, c->hosts + 1, c->hosts));
	TOPO_TRY(topo_add_tier(t, "host", c->hosts, NODE_HOST, 0));
	t->n_hosts = c->hosts;
	int sw = topo_add_node(t, "sw0", NODE_SWITCH, 1);
	TOPO_TRY(sw);
	for (int h = 0; h < c->hosts; h++)
		TOPO_TRY(topo_add_link(t, h, sw, host_rate_bps, c->link_delay));
	return 0;
oom:
	return topo_simple_oom("star", err);
}

int topo_build_dumbbell(const struct cfg_topology *c, uint64_t host_rate_bps, struct topo *t, char **err)
{
	int nl = c->hosts_left, nr = c->hosts_right;
	if (nl < 1 || nr < 1)
		return err_printf(err, "[topology] hosts_left = %d, hosts_right = %d: "
				 "dumbbell needs at least 1 host on each side", nl, nr);
	/* Each switch also has the bottleneck port. */
	if (nl > TOPO_MAX_PORTS - 1 || nr > TOPO_MAX_PORTS - 1)
		return err_printf(err, "[topology] hosts_left = %d, hosts_right = %d: "
				 "a switch would have more than %d ports", nl, nr, TOPO_MAX_PORTS);
	int nh = nl + nr;
	TOPO_TRY(topo_reserve(t, nh + 2, nh + 1));
	TOPO_TRY(topo_add_tier(t, "host", nh, NODE_HOST, 0));
	t->n_hosts = nh;
	int sw0 = topo_add_node(t, "sw0", NODE_SWITCH, 1);
	int sw1 = topo_add_node(t, "sw1", NODE_SWITCH, 1);
	TOPO_TRY(sw0);
	TOPO_TRY(sw1);
	for (int h = 0; h < nh; h++)
		TOPO_TRY(topo_add_link(t, h, h < nl ? sw0 : sw1, host_rate_bps, c->link_delay));
	TOPO_TRY(topo_add_link(t, sw0, sw1, c->link_rate_bps, c->link_delay));
	return 0;
oom:
	return topo_simple_oom("dumbbell", err);
}

int topo_build_leaf_spine(const struct cfg_topology *c, uint64_t host_rate_bps, struct topo *t, char **err)
{
	int nl = c->leaves, ns = c->spines, hpl = c->hosts_per_leaf;
	if (nl < 1 || ns < 1 || hpl < 1)
		return err_printf(err, "[topology] leaves = %d, spines = %d, hosts_per_leaf = %d: "
				 "leaf_spine needs at least 1 of each", nl, ns, hpl);
	if ((int64_t)hpl + ns > TOPO_MAX_PORTS || nl > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] leaves = %d, spines = %d, hosts_per_leaf = %d: "
				 "a switch would have more than %d ports", nl, ns, hpl, TOPO_MAX_PORTS);
	int64_t nh64 = (int64_t)nl * hpl;
	int64_t links64 = nh64 + (int64_t)nl * ns;
	if (nh64 + nl + ns > TOPO_MAX_NODES || links64 > INT32_MAX / 2)
		return err_printf(err, "[topology] leaves = %d, spines = %d, hosts_per_leaf = %d: "
				 "more than %d nodes", nl, ns, hpl, TOPO_MAX_NODES);
	int nh = (int)nh64;
	TOPO_TRY(topo_reserve(t, nh + nl + ns, (int)links64));
	TOPO_TRY(topo_add_tier(t, "host", nh, NODE_HOST, 0));
	t->n_hosts = nh;
	int leaf0 = topo_add_tier(t, "leaf", nl, NODE_SWITCH, 1);
	TOPO_TRY(leaf0);
	int spine0 = topo_add_tier(t, "spine", ns, NODE_SWITCH, 2);
	TOPO_TRY(spine0);
	/* All host links first: every leaf's down ports precede its up ports. */
	for (int h = 0; h < nh; h++)
		TOPO_TRY(topo_add_link(t, h, leaf0 + h / hpl, host_rate_bps, c->link_delay));
	for (int i = 0; i < nl; i++)
		for (int s = 0; s < ns; s++)
			TOPO_TRY(topo_add_link(t, leaf0 + i, spine0 + s, c->link_rate_bps, c->link_delay));
	return 0;
oom:
	return topo_simple_oom("leaf_spine", err);
}
