/*
 * routing.h — least-cost forwarding tables with equal-cost sets.
 *
 * For every switch and every destination endpoint (a host's NIC, fabric.h:
 * endpoint h x nics_per_host + i sits behind host port i): the set of ports
 * on a path of least cost toward that endpoint (the sum of its links'
 * costs, topology.h: the hop count unless the topology gives some links
 * another cost, as a dragonfly does its global links), so traffic
 * addressed to NIC i of a host arrives on that host's port i, whichever NIC
 * is closer. Sets are interned per switch, so a table costs 2 bytes per
 * (switch, endpoint) plus the distinct sets (a fat-tree ToR has k/2 + 1
 * distinct sets). Hosts do not forward. In a graph built by hand
 * (topo.nics_per_host 0) each host is one endpoint reached on any port.
 */
#ifndef ROCESIM_ROUTING_H
#define ROCESIM_ROUTING_H

#include <stdint.h>
#include "topology.h"

/* A set as forwarding reads it: one load answers a single-port set. */
struct route_set {
	uint32_t off;           /* first entry in ports */
	uint16_t n;             /* ports in the set (>= 1; 0 only after failures: no route) */
	uint16_t port0;         /* ports[off]; ROUTE_UNREACHABLE when n == 0 */
};
/* The port of the empty set: past any switch's ports, so forwarding drops
 * the frame (switch_fwd.h). */
#define ROUTE_UNREACHABLE 0xFFFF

struct route_table {
	int n_eps;              /* destinations: topo_n_eps */
	uint16_t *set_of_dst;   /* [n_eps]: set id toward that endpoint */
	struct route_set *sets; /* [n_sets] */
	uint16_t *ports;        /* port indices, each set ascending */
	int n_sets;
};

/* Fills tables[u] for every switch u (hosts' entries are zeroed). Returns 0,
 * or -1 with *err (malloc'd) naming a switch and a host (and NIC) it cannot
 * reach. */
int routing_build(const struct topo *t, struct route_table *tables, char **err);
/* The same over the links that are up: down[l] != 0 leaves link l out
 * (failure.h). A switch that cannot reach an endpoint gets the empty set
 * toward it (n 0, port0 ROUTE_UNREACHABLE) instead of an error, and routes
 * longer than IDEAL_MAX_HOPS are allowed (walks give up on them). */
int routing_build_masked(const struct topo *t, struct route_table *tables, const uint8_t *down, char **err);
void routing_free(struct route_table *tables, int n_nodes);

static inline int route_n(const struct route_table *rt, int dst_ep)
{
	return rt->sets[rt->set_of_dst[dst_ep]].n;
}
static inline const uint16_t *route_ports(const struct route_table *rt, int dst_ep)
{
	return rt->ports + rt->sets[rt->set_of_dst[dst_ep]].off;
}

#endif
