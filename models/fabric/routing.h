/*
 * routing.h — least-cost forwarding tables with equal-cost sets.
 *
 * For every switch and every destination endpoint (a host's NIC, fabric.h:
 * endpoint h x nics_per_host + i sits behind host port i): the set of ports
 * on a path of least cost toward that endpoint (the sum of its links'
 * costs, topology.h: the hop count unless the topology gives some links
 * another cost, as a dragonfly does its global links), so traffic
 * addressed to NIC i of a host arrives on that host's port i, whichever NIC
 * is closer. Hosts do not forward.
 *
 * Tables are kept per destination *switch*, not per endpoint. In a built
 * topology each endpoint hangs off one switch (its attachment switch, at
 * one port of it), and every other switch reaches the endpoint through that
 * switch, by the same equal-cost set whichever of its endpoints it is. So
 * the endpoints are grouped by attachment switch (a group: a ToR's hosts, a
 * rail leaf's NICs), one array shared by all switches maps an endpoint to
 * its group and to the port facing it at its attachment switch
 * (struct route_ep), and each switch holds one 2-byte set id per group: a
 * k=64 fat tree's tables are 5,120 switches x 2,048 groups x 2 bytes
 * instead of x 65,536 endpoints. A switch's set toward its own group is the
 * local marker (off ROUTE_LOCAL): the port is the endpoint's own
 * (route_ep.port). Sets are interned per switch (a fat-tree ToR has its
 * marker and one upward set). In a graph built by hand
 * (topo.nics_per_host 0) each host is one endpoint reached on any port, and
 * is its own group.
 *
 * The forwarding decisions are exactly those of a table per endpoint: the
 * same ports, in the same (ascending) order, for every (switch, endpoint).
 */
#ifndef ROCESIM_ROUTING_H
#define ROCESIM_ROUTING_H

#include <stdint.h>
#include "topology.h"

/* A set as forwarding reads it: one load answers a single-port set. */
struct route_set {
	uint32_t off;           /* first entry in ports; ROUTE_LOCAL: the local marker */
	uint16_t n;             /* ports in the set (>= 1; 0 only after failures: no route;
				 * 1 for the local marker) */
	uint16_t port0;         /* ports[off]; ROUTE_UNREACHABLE when n == 0 or local */
};
/* The port of the empty set: past any switch's ports, so forwarding drops
 * the frame (switch_fwd.h). */
#define ROUTE_UNREACHABLE 0xFFFF
/* route_set.off of a switch's set toward its own endpoints: the port is
 * route_ep.port of the destination. */
#define ROUTE_LOCAL UINT32_MAX

/* Where an endpoint hangs: shared by every switch of one build. */
struct route_ep {
	uint32_t grp;           /* its group: index into each switch's set_of_grp */
	uint16_t port;          /* the port facing it at its attachment switch;
				 * ROUTE_UNREACHABLE when that link is down (or nics_per_host 0) */
	uint16_t unused;        /* padding: 8 bytes, one load */
};

/* The endpoint map of one build, shared by its switches' tables. */
struct route_dst {
	int refs;               /* tables pointing here; freed with the last */
	int n_eps, n_grps;
	struct route_ep *eps;   /* [n_eps] */
	int *grp_switch;        /* [n_grps]: the attachment switch of each group (-1: a host's
				 * own group, nics_per_host 0) */
};

struct route_table {
	int n_eps;              /* destinations: topo_n_eps */
	int n_grps;             /* groups: switches with endpoints (hosts with nics_per_host 0) */
	uint16_t *set_of_grp;   /* [n_grps]: set id toward that group */
	struct route_set *sets; /* [n_sets] */
	uint16_t *ports;        /* port indices, each set ascending */
	int n_sets;
	struct route_dst *dst;  /* shared endpoint map (NULL for hosts) */
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
/* Frees tables[0 .. n_nodes) (the shared map with the last table using it). */
void routing_free(struct route_table *tables, int n_nodes);
/* Bytes the tables of t will take, from its shape alone (estimate.h):
 * linear in the topology's size. */
uint64_t routing_estimate_b(const struct topo *t);

/* The set a switch's table holds toward endpoint dst_ep (possibly the
 * local marker: see route_n and route_ports). */
static inline const struct route_set *route_set_of(const struct route_table *rt, int dst_ep)
{
	return &rt->sets[rt->set_of_grp[rt->dst->eps[dst_ep].grp]];
}
static inline int route_n(const struct route_table *rt, int dst_ep)
{
	const struct route_set *rs = route_set_of(rt, dst_ep);
	if (rs->off == ROUTE_LOCAL)
		return rt->dst->eps[dst_ep].port != ROUTE_UNREACHABLE;
	return rs->n;
}
static inline const uint16_t *route_ports(const struct route_table *rt, int dst_ep)
{
	const struct route_set *rs = route_set_of(rt, dst_ep);
	if (rs->off == ROUTE_LOCAL)
		return &rt->dst->eps[dst_ep].port;
	return rt->ports + rs->off;
}

#endif
