/*
 * partition_fixture.h — what the partitioner's tests share: a topology's
 * partition made or the test failed, and what every partition must be
 * (test_partition.c, test_partition_rules.c).
 */
#ifndef ROCESIM_PARTITION_FIXTURE_H
#define ROCESIM_PARTITION_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autoconfig.h"
#include "config_fixture.h"
#include "parallel.h"
#include "testutil.h"
#include "topo_fixture.h"
#include "topology.h"


/* Whether this build has METIS (configure's HAVE_METIS). */
static inline int have_metis(void)
{
#ifdef HAVE_METIS
	return 1;
#else
	return 0;
#endif
}

/* Partitions keys' topology; fails the test when it cannot. */
static void part_of(const char *keys, int method, int n, struct topo *t, struct partition *p)
{
	CU_ASSERT_EQUAL_FATAL(topo_of(keys, t), 0);
	char *err = NULL;
	int rc = partition_compute(t, method, n, p, &err);
	if (rc)
		fprintf(stderr, "\n  %s by %s in %d: %s\n", keys, partition_method_name(method), n, err);
	free(err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* What every partition must be: ranks in range, none empty, the cut and
 * the per-rank counts as recounted here from part_of_node. */
static void check_common(const struct topo *t, const struct partition *p)
{
	int n = p->n_parts, cut = 0;
	CU_ASSERT_EQUAL(p->n_nodes, t->n_nodes);
	int *nodes = calloc((size_t)n, sizeof *nodes);
	for (int u = 0; u < t->n_nodes; u++) {
		CU_ASSERT_FATAL(p->part_of_node[u] >= 0 && p->part_of_node[u] < n);
		nodes[p->part_of_node[u]]++;
	}
	uint64_t sum = 0;
	for (int r = 0; r < n; r++) {
		CU_ASSERT(nodes[r] > 0);
		CU_ASSERT_EQUAL(p->nodes_of_part[r], (uint64_t)nodes[r]);
		CU_ASSERT_EQUAL(p->hosts_of_part[r] + p->switches_of_part[r], p->nodes_of_part[r]);
		sum += p->ports_of_part[r];
	}
	CU_ASSERT_EQUAL(sum, (uint64_t)t->port_off[t->n_nodes]);
	simtime_t la = SIMTIME_NEVER;
	for (int l = 0; l < t->n_links; l++)
		if (p->part_of_node[t->links[l].a] != p->part_of_node[t->links[l].b]) {
			cut++;
			if (t->links[l].delay_ps < la)
				la = t->links[l].delay_ps;
		}
	CU_ASSERT_EQUAL(p->n_cut_links, cut);
	CU_ASSERT_EQUAL(p->lookahead_ps, la);
	free(nodes);
}

/* Fat tree k by pod in n ranks. */

#endif
