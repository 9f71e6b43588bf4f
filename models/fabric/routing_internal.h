/*
 * routing_internal.h — what routing.c (tables, interning, the search, hand-
 * built graphs) and routing_eps.c (built topologies, one search per class
 * of twin edge switches) share. Not for other files: they read tables
 * through routing.h.
 */
#ifndef ROCESIM_ROUTING_INTERNAL_H
#define ROCESIM_ROUTING_INTERNAL_H

#include <stdint.h>
#include "routing.h"

/* Growth state of one switch's table while sets are added. */
struct rt_grow {
	uint32_t *slots;           /* [slot_mask + 1]: set id + 1, 0 = empty */
	uint32_t slot_mask;
	uint32_t *set_hash;        /* [cap_sets]: hash of each set, for rehashing */
	uint32_t cap_sets;
	uint32_t n_ports, cap_ports;
	int local_sid;             /* the local marker's set id, -1 before it is added */
};

/* The search's state: dist per node (-1: not reached), the most links of
 * a least-cost path to it, and the nodes waiting at cost d in bucket d mod
 * (TOPO_MAX_COST + 1), doubly linked through next and prev. */
struct rt_search {
	int *dist, *links, *next, *prev;
	const uint8_t *down;    /* [n_links]: links to leave out (failures), or NULL */
	int head[TOPO_MAX_COST + 1];
};

/* One build: the topology, the tables being filled and the scratch. */
struct rt_build {
	const struct topo *t;
	struct route_table *tables; /* [n_nodes] */
	struct rt_grow *grow;       /* [n_nodes] */
	struct rt_search s;
	uint16_t *buf;              /* [TOPO_MAX_PORTS + 1]: a set being formed */
	struct route_dst *dst;      /* the shared endpoint map */
	int *first_ep;              /* [n_grps]: the group's lowest endpoint (error messages) */
};

/* Least-cost distances from src (expanded whatever it is). Other hosts are
 * reached but not expanded, or, with switches_only, not reached at all. */
void rt_search(const struct topo *t, int src, struct rt_search *s, int switches_only);
/* Refuses a least-cost route of more than IDEAL_MAX_HOPS links from any
 * switch toward root (plus `ends` host links). 0, or -1 with *err. */
int rt_check_length(const struct topo *t, const struct rt_search *s, int root, int ends, char **err);
/* Interns p[0..m) as switch u's set toward group g. 0, or -1 with *err. */
int rt_set(struct rt_build *b, int u, int g, const uint16_t *p, int m, char **err);
/* Makes group g's entry at switch u the local marker. 0, or -1 with *err. */
int rt_set_local(struct rt_build *b, int u, int g, char **err);
/* Built topologies (nics_per_host >= 1), routing_eps.c. 0, or -1 with *err. */
int rt_build_eps(struct rt_build *b, char **err);

static inline int rt_link_cost(const struct topo *t, int port)
{
	return t->links[t->ports[port].link].cost;
}
/* Whether the link at port is left out of routing (down). */
static inline int rt_link_out(const struct rt_search *s, const struct topo *t, int port)
{
	return s->down && s->down[t->ports[port].link];
}

#endif
