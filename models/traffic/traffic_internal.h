/*
 * traffic_internal.h — what the traffic sources (traffic_*.c) share with
 * the registry (traffic.c): a source's common state and ops, a kind's
 * registry entry, the engine of sources whose flows are known at setup,
 * host lists and RNG streams. Not for other parts (they see traffic.h).
 */
#ifndef ROCESIM_TRAFFIC_INTERNAL_H
#define ROCESIM_TRAFFIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "sim.h"
#include "traffic.h"

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
	struct colls *colls;           /* the run's collectives (collective sources) */
	const void *own;               /* its kind's struct (the section's keys) */
	size_t index;                  /* position among the [traffic.X] sections: names its RNG streams */
	const char *source;            /* "traffic.NAME", owned by struct traffic */
	uint64_t flows_expected;       /* flows it will post; 0 when unbounded */
	bool unbounded;                /* poisson: the count is not known in advance */
	const struct traffic_src_ops *ops;
};

/* Creates a source of a section whose kind's struct is own (index among
 * the [traffic.X] sections, section name "traffic.NAME"); NULL with *err
 * (malloc'd, located) on bad input. */
typedef struct traffic_src *(*traffic_create_fn)(struct world *w, const void *own, size_t index,
						  const char *section, char **err);

/* A kind of traffic: one file (traffic_*.c) and one line of the registry
 * (TRAFFIC_KINDS += in models/traffic/Makefile.inc). cfg names the type,
 * its keys and its struct. */
struct traffic_kind {
	struct cfg_type cfg;
	traffic_create_fn create;
	/* Flows it will post on a fabric of n_hosts hosts; false when not
	 * known before running. NULL: not known. */
	bool (*flows_known)(const void *own, int n_hosts, uint64_t *n);
	/* Closed loop: its sources post as the network progresses (a
	 * collective's next step, a multicast's repair), so a partitioned run
	 * keeps them with every host on one rank. Otherwise they post through
	 * w->post and read nothing of the network: a partitioned run runs
	 * them on every rank alike, each rank posting at its own hosts
	 * (parallel.h). */
	bool closed_loop;
};

/* The registry: each kind, NULL-terminated, in the order of TRAFFIC_KINDS
 * in models/traffic/Makefile.inc (traffic_kinds.c is generated from it),
 * which is the order `sim --keys` lists them. */
extern const struct traffic_kind *const traffic_kinds[];

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
/* Keeps only the first n flows of a static source. */
void traffic_static_truncate(struct traffic_src *s, size_t n);
/* Frees any source (its ops->destroy). */
static inline void traffic_src_destroy(struct traffic_src *s) { s->ops->destroy(s); }
/* The keys of the kinds whose flows all have one `size` and leave at one
 * `start` (permutation, all_to_all), and the struct they fill. */
struct traffic_burst_cfg {
	simtime_t start;               /* [0] */
	uint64_t size_b;               /* required */
};
extern const struct cfg_key traffic_burst_keys[2];
/* The hosts of a source (names, or all when n = 0), at least two ("WHAT
 * needs at least 2 hosts"); -1 with *err otherwise. */
int traffic_participants(struct world *w, char *const *names, size_t n, const char *section,
			 const char *what, int **ids, char **err);

/* RNG element number of (source index, host id), host -1 for a stream of the
 * whole source. Stable across runs and independent of element ids, so
 * adding another element type never shifts a source's draws. */
static inline uint64_t traffic_stream_id(size_t index, int host)
{
	return ((uint64_t)index << 32) | (uint32_t)(host + 1);
}

#endif
