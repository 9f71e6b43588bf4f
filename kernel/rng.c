/*
 * rng.c — seeds of independent streams (see rng.h).
 */
#include "hash.h"
#include "log.h"
#include "rng.h"

uint64_t rng_derive(uint64_t seed, enum rng_purpose purpose, uint64_t element)
{
	uint64_t h = splitmix64(seed);
	h = splitmix64(h ^ ((uint64_t)purpose << 56));
	return splitmix64(h ^ element);
}

gsl_rng *rng_stream(uint64_t seed, enum rng_purpose purpose, uint64_t element)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	if (!r)
		die_internal("out of memory for a random stream");
	/* taus2 seeds are unsigned long; 0 selects GSL's default seed, avoid it. */
	unsigned long s = (unsigned long)rng_derive(seed, purpose, element);
	gsl_rng_set(r, s ? s : 1);
	return r;
}
