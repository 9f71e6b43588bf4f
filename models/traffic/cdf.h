/*
 * cdf.h — empirical flow-size distributions (`<size bytes> <cumulative %>`
 * per line, ascending; linear interpolation between points, the convention
 * of the generators that publish them; data/README).
 */
#ifndef ROCESIM_CDF_H
#define ROCESIM_CDF_H

#include <stddef.h>
#include <stdio.h>
#include <gsl/gsl_rng.h>

/* Largest size a table may hold: 2^53 bytes, below which a double holds
 * every whole byte count exactly and which a uint64_t holds. */
#define CDF_MAX_SIZE_B 9007199254740992.0

struct cdf {
	double *size;   /* bytes, ascending */
	double *cum;    /* cumulative probability in [0,1], non-decreasing, last = 1 */
	size_t n;
	double mean;    /* mean of the piecewise-linear distribution (bytes) */
};

/* Reads a file. Returns 0, or -1 with *err (malloc'd) "FILE:LINE: what". */
int cdf_load(struct cdf *c, const char *path, char **err);
/* The same from an open stream (left open), named path in errors. */
int cdf_read(struct cdf *c, const char *path, FILE *f, char **err);
void cdf_free(struct cdf *c);
/* A size drawn by inverse-transform sampling, rounded to whole bytes, >= 1. */
double cdf_sample(const struct cdf *c, gsl_rng *r);
/* The size at cumulative probability u in [0,1) of the piecewise-linear law
 * (not rounded): the inverse transform cdf_sample applies. */
double cdf_quantile(const struct cdf *c, double u);

#endif
