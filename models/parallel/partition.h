/*
 * partition.h — what the partitioner's files share (parallel.h is the
 * part's door): each method fills part[n_nodes] with ranks in [0, n_parts)
 * for a topology whose ports are numbered; partition.c checks the result
 * (every node assigned, every rank non-empty) and counts the cut.
 *
 * Each method returns 0, or -1 with *err (malloc'd) when the graph does
 * not fit it or n_parts exceeds what it can deal; partition.c has already
 * refused n_parts < 1 and n_parts > nodes, and handles n_parts == 1.
 */
#ifndef ROCESIM_PARTITION_H
#define ROCESIM_PARTITION_H

#include "parallel.h"
#include "topology.h"

/* pod, leaf and rail (partition_groups.c): groups of nodes dealt to ranks
 * in contiguous blocks of about equal hosts, then the other switches
 * placed tier by tier beside their neighbours. *n_groups: groups dealt. */
int partition_groups(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err);
/* Every switch with the hosts that hang off it alone, and every other
 * host by itself, dealt in turn (partition.c). */
int partition_round_robin(const struct topo *t, int n_parts, int *part, char **err);
/* METIS k-way (partition_metis.c); an error naming libmetis-dev in a
 * build without METIS. */
int partition_metis(const struct topo *t, int n_parts, int *part, char **err);
/* METIS k-way on groups of nodes: group[u] in [0, n_groups) is node u's
 * vertex, or -1 to leave node u (and its links) out, its part untouched;
 * every node of a group gets the group's rank. A host port weighs
 * host_weight switch ports. */
int partition_metis_grouped(const struct topo *t, const int *group, int n_groups, int host_weight, int n_parts,
			    int *part, char **err);
/* Every host on rank 0, the switches where they balance the load
 * (partition_hosts.c). */
int partition_hosts(const struct topo *t, int n_parts, int *part, char **err);
/* Whether this build has METIS. */
extern const int partition_have_metis;

/* The tier of each node as the methods see it, [n_nodes], malloc'd: the
 * topology's own when its switches span more than one tier; else (every
 * switch on one tier, as in a graph read from a file such as HPCC's
 * topology.txt) a switch's hop distance from the nearest host, so a fat
 * tree's ToRs, aggregation switches and cores come out as 1, 2 and 3
 * (a switch no host reaches: 1). Hosts are 0. */
int *partition_tiers(const struct topo *t);
/* The highest tier of a switch in tiers (0 when there is none). */
int partition_top_tier(const struct topo *t, const int *tiers);
/* Whether every host's ports all lead to one node. */
int partition_single_homed(const struct topo *t);

#endif
