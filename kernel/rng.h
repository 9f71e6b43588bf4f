/*
 * rng.h — independent random streams derived from the scenario seed.
 *
 * A stream is named by (purpose, element): ECMP seeds per switch, arrivals per
 * host and traffic source, MoE routing per job, ... Each is seeded by hashing
 * (seed, purpose, element) with splitmix64, so changing one model's draws
 * never shifts another's and partitioning a run changes no draw.
 */
#ifndef ROCESIM_RNG_H
#define ROCESIM_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

enum rng_purpose {
	RNG_ECMP_SEED = 1,   /* per switch: seed of its ECMP hash */
	RNG_TRAFFIC = 2,     /* per traffic source (and host): arrivals, sizes, peers */
	RNG_PERMUTATION = 3, /* per traffic source: the permutation drawn */
	RNG_ECN = 4,         /* per port: RED marking draws */
	RNG_WORKLOAD = 5,    /* per job: MoE routing and similar */
	RNG_LINK_LOSS = 6,   /* per port (one direction of a link): frame corruption draws */
	RNG_PLACEMENT = 7,   /* per job: hosts drawn by placement random and fragmented */
	RNG_FAILURE = 8,     /* per link: random failure and repair times */
	RNG_STRAGGLER = 9,   /* per job: random compute slow-downs of its GPUs */
};

/* A 64-bit value unique to (seed, purpose, element). */
uint64_t rng_derive(uint64_t seed, enum rng_purpose purpose, uint64_t element);
/* A GSL generator (taus2: small state, good quality) seeded for the stream. */
gsl_rng *rng_stream(uint64_t seed, enum rng_purpose purpose, uint64_t element);

#endif
