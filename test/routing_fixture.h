/*
 * routing_fixture.h — a topology with its forwarding tables for the
 * routing tests (test_routing.c, test_routing_reference.c): built from
 * [topology] keys (topo_fixture.h) or by hand, freed, and checked for
 * well-formed tables. Header-only.
 */
#ifndef ROCESIM_ROUTING_FIXTURE_H
#define ROCESIM_ROUTING_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include "routing.h"
#include "testutil.h"
#include "topo_fixture.h"

/* Topology plus tables, built or the test fails. The topology is given as
 * its [topology] keys (topo_fixture.h: 100 Gb/s links of 1 us, host links
 * at link_rate). */
struct net { struct topo t; struct route_table *rt; };

static inline int net_build(struct net *n, const char *keys)
{
	char *err = NULL;
	if (topo_of(keys, &n->t) < 0)
		return -1;
	n->rt = calloc((size_t)n->t.n_nodes, sizeof *n->rt);
	if (routing_build(&n->t, n->rt, &err) < 0) {
		fprintf(stderr, "\n  routing: %s\n", err);
		free(err);
		free(n->rt);
		topology_free(&n->t);
		return -1;
	}
	return 0;
}

static inline void net_free(struct net *n)
{
	routing_free(n->rt, n->t.n_nodes);
	free(n->rt);
	topology_free(&n->t);
}

static inline int peer_of(const struct topo *t, int u, int port)
{
	return t->ports[t->port_off[u] + port].peer;
}

/* Table well-formedness: sets non-empty, ascending, valid ports, distinct,
 * at most one local marker; every group and endpoint mapped; hosts'
 * tables zeroed. */
static inline void check_tables(const struct net *n)
{
	for (int u = 0; u < n->t.n_nodes; u++) {
		const struct route_table *rt = &n->rt[u];
		if (u < n->t.n_hosts) {
			CU_ASSERT_PTR_NULL(rt->set_of_grp);
			CU_ASSERT_EQUAL(rt->n_sets, 0);
			continue;
		}
		CU_ASSERT_EQUAL(rt->n_eps, topo_n_eps(&n->t));
		CU_ASSERT_PTR_NOT_NULL_FATAL(rt->dst);
		CU_ASSERT_EQUAL(rt->n_grps, rt->dst->n_grps);
		int markers = 0;
		for (int s = 0; s < rt->n_sets; s++) {
			if (rt->sets[s].off == ROUTE_LOCAL) {
				markers++;
				continue;
			}
			CU_ASSERT(rt->sets[s].n >= 1);
			CU_ASSERT_EQUAL(rt->sets[s].port0, rt->ports[rt->sets[s].off]);
			for (int i = 0; i < rt->sets[s].n; i++) {
				CU_ASSERT(rt->ports[rt->sets[s].off + i] < topo_n_ports(&n->t, u));
				if (i)
					CU_ASSERT(rt->ports[rt->sets[s].off + i - 1] < rt->ports[rt->sets[s].off + i]);
			}
			for (int s2 = 0; s2 < s; s2++)
				CU_ASSERT(rt->sets[s2].off == ROUTE_LOCAL || rt->sets[s].n != rt->sets[s2].n ||
					  memcmp(rt->ports + rt->sets[s].off, rt->ports + rt->sets[s2].off,
						 rt->sets[s].n * sizeof(uint16_t)) != 0);
		}
		CU_ASSERT(markers <= 1);
		for (int g = 0; g < rt->n_grps; g++)
			CU_ASSERT(rt->set_of_grp[g] < rt->n_sets);
		for (int e = 0; e < topo_n_eps(&n->t); e++)
			CU_ASSERT((int)rt->dst->eps[e].grp < rt->n_grps);
	}
}

#endif
