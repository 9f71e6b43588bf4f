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
#include "sim.h"

struct world;

/* Creates every source of cfg->traffic and schedules its first event.
 * Returns 0, or -1 with *err (malloc'd, located with cfg_error_at) for input
 * that only the built world can reject: unknown host names, a sender equal to
 * the receiver, a CDF file that cannot be read, poisson with no stop, ...
 * On failure nothing is left registered or scheduled. */
int traffic_setup(struct world *w, char **err);
void traffic_free(struct world *w);
/* Total flows the static sources will post (0 when unknown, e.g. poisson). */
uint64_t traffic_flows_expected(const struct world *w);

/* ---- Shared by the source implementations (traffic*.c) only. ---- */

struct cfg_traffic;
struct traffic_src;

struct traffic_src_ops {
	/* Registers nothing, allocates nothing: schedules the first event (or
	 * ends the source at once when it has nothing to post). */
	void (*start)(struct traffic_src *s);
	void (*destroy)(struct traffic_src *s); /* frees s and what it owns */
};

/* What every source starts with; implementations embed it first. */
struct traffic_src {
	struct sim_elem elem;          /* the source as scheduler ("traffic.NAME") */
	struct world *w;
	const struct cfg_traffic *ct;  /* its section */
	size_t index;                  /* position in cfg->traffic: names its RNG streams */
	const char *source;            /* "traffic.NAME", owned by struct traffic */
	uint64_t flows_expected;       /* flows it will post; 0 when unbounded */
	bool unbounded;                /* poisson: the count is not known in advance */
	const struct traffic_src_ops *ops;
};

/* Creates a source of section ct (index in cfg->traffic, section name
 * "traffic.NAME"); NULL with *err (malloc'd, located) on bad input. */
typedef struct traffic_src *(*traffic_create_fn)(struct world *w, const struct cfg_traffic *ct,
						  size_t index, const char *section, char **err);

struct traffic_src *traffic_flows_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);
struct traffic_src *traffic_incast_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);
struct traffic_src *traffic_permutation_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);
struct traffic_src *traffic_all_to_all_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);
struct traffic_src *traffic_poisson_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);
/* A flow of a list known at setup (traffic_static.c). */
struct static_flow {
	simtime_t start;
	uint64_t size_b;
	int32_t src, dst;              /* host ids */
	const struct hpcc_flow *hpcc;  /* copied to the posted flow (NULL: none) */
};
/* A source posting n flows, filled in by the caller in ascending start
 * order (equal starts post in array order); it frees `keep` (what the
 * entries point into, or NULL) with itself. */
struct traffic_src *traffic_static_new(size_t n, struct static_flow **v, void *keep);
/* HPCC ns-3 flow.txt: traffic_hpcc.c. */
struct traffic_src *traffic_hpcc_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);
/* [traffic.X] type = multicast: traffic_multicast.c. */
struct traffic_src *traffic_multicast_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);
struct traffic_src *traffic_collective_create(struct world *w, const struct cfg_traffic *ct, size_t index, const char *section, char **err);

/* Host ids of a host-name list (key `key` of section), in list order; n = 0
 * or the single word "all" means every host, ascending. Unknown and
 * repeated names are located errors. Returns the count (>= 0) with *ids
 * malloc'd, or -1 with *err. */
int traffic_host_list(struct world *w, const char *section, const char *key,
		      char *const *names, size_t n, int **ids, char **err);

/* RNG element number of (source index, host id), host -1 for a stream of the
 * whole source. Stable across runs and independent of element ids, so
 * adding another element type never shifts a source's draws. */
static inline uint64_t traffic_stream_id(size_t index, int host)
{
	return ((uint64_t)index << 32) | (uint32_t)(host + 1);
}

#endif
