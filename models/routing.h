/*
 * routing.h — shortest-path forwarding tables with equal-cost sets.
 *
 * For every switch and every destination host: the set of ports on a
 * shortest path (by hop count) toward that host. Sets are interned per
 * switch, so a table costs 2 bytes per (switch, host) plus the distinct sets
 * (a fat-tree ToR has k/2 + 1 distinct sets). Hosts do not forward.
 */
#ifndef ROCESIM_ROUTING_H
#define ROCESIM_ROUTING_H

#include <stdint.h>
#include "topology.h"

struct route_table {
	int n_hosts;
	uint16_t *set_of_dst;   /* [n_hosts]: set id toward that host */
	uint32_t *set_off;      /* [n_sets]: first entry in ports */
	uint16_t *set_n;        /* [n_sets]: ports in the set (>= 1) */
	uint16_t *ports;        /* port indices, each set ascending */
	int n_sets;
};

/* Fills tables[u] for every switch u (hosts' entries are zeroed). Returns 0,
 * or -1 with *err (malloc'd) naming a switch and a host it cannot reach. */
int routing_build(const struct topo *t, struct route_table *tables, char **err);
void routing_free(struct route_table *tables, int n_nodes);

static inline int route_n(const struct route_table *rt, int dst_host)
{
	return rt->set_n[rt->set_of_dst[dst_host]];
}
static inline const uint16_t *route_ports(const struct route_table *rt, int dst_host)
{
	return rt->ports + rt->set_off[rt->set_of_dst[dst_host]];
}

#endif
