/*
 * traffic.h — traffic sources of [traffic.NAME] sections.
 *
 * Each section becomes one source (an element with its own RNG stream) that
 * posts messages through w->post (nic_post, or a test's recorder) at their
 * start times, keeping one pending event at a time. Sources are looked up
 * by type in one registry (traffic.c).
 *   flows        repeated `flow = SRC DST SIZE START`
 *   incast       every sender to one receiver, `size` each, at `start`
 *   permutation  each host to one other host (a random derangement), `size`
 *   all_to_all   every host to every other host, `size` each
 *   poisson      per host, exponential inter-arrivals at
 *                λ = load × host link rate / (8 × mean size), sizes from a
 *                CDF, destinations uniform among the other hosts
 *   multicast    one message to the members of a [multicast] group
 *                (traffic_multicast.c, mcast.h)
 *   collective   one collective (collective.h) over `gpus` or the GPUs of
 *                `hosts`, run `repeat` times back to back from `start`
 *                (traffic_collective.c)
 * Flows from these carry parallelism "bg" (poisson) or "micro" (the rest).
 */
#ifndef ROCESIM_TRAFFIC_H
#define ROCESIM_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "sim.h"

struct world;

struct traffic;
struct colls;

/* Creates a source per [traffic.NAME] section and schedules its first event.
 * Returns 0, or -1 with *err (malloc'd, located with cfg_error_at) for input
 * that only the built world can reject: unknown host names, a sender equal to
 * the receiver, a CDF file that cannot be read, poisson with no stop, ...
 * On failure nothing is left registered or scheduled. */
int traffic_setup(struct world *w, struct colls *cs, struct traffic **out, char **err);
void traffic_free(struct traffic *tr);
/* Total flows the static sources will post (0 when unknown, e.g. poisson). */
uint64_t traffic_flows_expected(const struct traffic *tr);
/* The section of cfg's first source that is not open loop (its messages
 * depend on the network's progress: collectives, multicast), NULL when
 * every one is: what a partitioned run can run on every rank alike. From
 * the configuration, so a partitioned run knows it before it builds. */
const char *traffic_closed_loop(const struct config *cfg);

/* ---- HPCC ns-3's flow.txt (traffic_hpcc.c) ----
 *   <N>
 *   <src> <dst> <priority> <dport> <size_bytes> <start_s>   (<N> lines, ascending start)
 *   e.g. "13 6 3 100 24375 2.000000962"
 * Read from memory (no NUL needed), safe on hostile input (fuzzed);
 * errors "NAME:LINE: what was found, what was expected". */
/* One line of flow.txt, ids as in the file (HPCC node ids). */
struct hpcc_flow {
	int src, dst;              /* HPCC node ids */
	int priority;              /* the file's priority group (HPCC: 3) */
	uint32_t dport;            /* the file's destination port */
	uint32_t sport;            /* HPCC's source port: 10000 + the number of earlier
				    * flows of the same (src, dst) in the file
				    * (third.cc, portNumder[src][dst]++) */
	uint64_t size_b;
	simtime_t start_ps;        /* start_s exactly in ps (decimal, not via double) */
	int line;                  /* line in the file, for later errors */
};

/* Parses flow.txt: *flows (malloc'd, *n entries, file order). Checks: the
 * count matches the lines, ids >= 0 (the caller checks them against its
 * topology), src != dst, size > 0, start >= 0 with at most 12 decimals
 * (ps), starts non-decreasing (HPCC reads the file sequentially and
 * requires it). 0, or -1 with *err, *flows NULL and *n 0. */
int hpcc_flows_parse(const char *name, const char *text, size_t len, struct hpcc_flow **flows,
		     size_t *n, char **err);

/* [traffic.NAME]: its type picks a kind of the registry (traffic.c),
 * whose keys follow it. */
extern const struct cfg_section traffic_section;
/* Flows the sections of cfg will post, for the memory estimate, on a
 * fabric of n_hosts hosts; *open set when some section's count is not
 * known before running (poisson, collectives). */
uint64_t traffic_flows_known(const struct config *cfg, int n_hosts, bool *open);

#endif
