/*
 * parallel.h — the parallel part's public header: partitioning a fabric
 * across MPI ranks, the ranks' conservative synchronisation, and sweeps
 * (many scenario points run at once).
 */
#ifndef ROCESIM_PARALLEL_H
#define ROCESIM_PARALLEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "config.h"
#include "simtime.h"

struct topo;

/* ---- Partitioning (partition*.c, docs/parallel.md "Partitioning") ----
 *
 * A partition gives every node of a topology (a host with its NICs and
 * GPUs, or a switch) to one of n_parts ranks. It is a pure function of the
 * topology graph, the method and n_parts: no name, no seed and no clock
 * enters it, so every rank of a run computes the same one. Every rank gets
 * at least one node. A link whose two ends are on different ranks is cut:
 * its frames cross as messages, and the smallest propagation delay of a
 * cut link is the lookahead of the conservative synchronisation.
 */

/* The methods, in the order of the `[parallel] partition` vocabulary. */
enum partition_method {
	PART_AUTO,          /* the best of the others (partition.c) */
	PART_POD,           /* components left when the top tier is removed */
	PART_LEAF,          /* each edge switch with its hosts */
	PART_RAIL,          /* hosts in blocks; switches spread over them */
	PART_METIS,         /* METIS k-way on the node graph (when built with METIS) */
	PART_ROUND_ROBIN,   /* switches (with their hosts) dealt in turn */
	PART_N_METHODS
};

struct partition {
	int n_parts;               /* ranks, >= 1 */
	int requested;             /* the method asked for (PART_AUTO included) */
	int method;                /* the method used (never PART_AUTO) */
	int n_nodes;               /* entries of part_of_node (the topology's n_nodes) */
	int *part_of_node;         /* [n_nodes]: the rank owning each node */
	int n_groups;              /* pods, leaf groups or hosts the method dealt; 0 for
				    * metis and round_robin */
	int n_links;               /* links of the topology */
	int n_cut_links;           /* links whose two ends are on different ranks */
	simtime_t lookahead_ps;    /* least propagation delay of a cut link;
				    * SIMTIME_NEVER when no link is cut */
	uint64_t cut_rate_bps;     /* summed rate of the cut links (one direction) */
	uint64_t total_rate_bps;   /* summed rate of every link (one direction) */
	/* Per rank [n_parts]: its nodes, hosts, switches, ports (the load
	 * proxy: about one event per frame and port) and cut links (a cut
	 * link counts at both its ranks). */
	uint64_t *nodes_of_part, *hosts_of_part, *switches_of_part, *ports_of_part, *cut_of_part;
};

/* Partitions t (ports numbered) across n_parts ranks by method. 0 with
 * *out filled (partition_free), or -1 with *err (malloc'd, unlocated: the
 * caller says where the method came from) and *out empty: more ranks than
 * the method has groups to deal, a method the graph does not fit (pod on a
 * fabric without pods), metis in a build without METIS. */
int partition_compute(const struct topo *t, int method, int n_parts, struct partition *out, char **err);
void partition_free(struct partition *p);
/* --check's report: the method, per rank its nodes, hosts, switches,
 * ports and cut links, the cut links and the lookahead, and the share of
 * uniform host-to-host traffic that must cross ranks. */
void partition_describe(const struct partition *p, const struct topo *t, FILE *to);
/* Name of a method ("pod"); word i of the vocabulary, NULL past the last
 * (the key's vocab_fn). */
const char *partition_method_name(int method);
const char *partition_method_at(const void *arg, size_t i);

/* [parallel] (parallel_keys.c) */
struct parallel_cfg {
	int partition;             /* enum partition_method [auto] */
};
extern const struct cfg_section parallel_section;
/* partition_compute with the scenario's [parallel] partition; an error is
 * located at that key ("x.ini:7: [parallel] partition = 'pod': ..." or
 * "x.ini: [parallel] partition (default): ..."). */
int partition_scenario(const struct config *cfg, const struct topo *t, int n_parts, struct partition *out,
		       char **err);

#endif
