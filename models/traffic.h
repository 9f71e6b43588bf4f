/*
 * traffic.h — traffic sources of [traffic.NAME] sections.
 *
 * Each section becomes one source (an element with its own RNG stream) that
 * posts messages through nic_post at their start times, keeping one pending
 * event at a time. Sources are looked up by type in one registry.
 *   flows        repeated `flow = SRC DST SIZE START`
 *   incast       every sender to one receiver, `size` each, at `start`
 *   permutation  each host to one other host (a random derangement), `size`
 *   all_to_all   every host to every other host, `size` each
 *   poisson      per host, exponential inter-arrivals at
 *                λ = load × host link rate / (8 × mean size), sizes from a
 *                CDF, destinations uniform among the other hosts
 * Flows from these carry parallelism "bg" (poisson) or "micro" (the rest).
 */
#ifndef ROCESIM_TRAFFIC_H
#define ROCESIM_TRAFFIC_H

#include <stdint.h>

struct world;

/* Creates every source of cfg->traffic and schedules its first event.
 * Returns 0, or -1 with *err (malloc'd, located with cfg_error_at) for input
 * that only the built world can reject: unknown host names, a sender equal to
 * the receiver, a CDF file that cannot be read, poisson with no stop, ...
 * Types whose models do not exist yet (hpcc, multicast, collective) are
 * rejected here with "not supported yet". */
int traffic_setup(struct world *w, char **err);
void traffic_free(struct world *w);
/* Total flows the static sources will post (0 when unknown, e.g. poisson). */
uint64_t traffic_flows_expected(const struct world *w);

#endif
