/*
 * fuzz_cdf.c — libFuzzer target: a flow-size CDF file (models/traffic/cdf.c,
 * `<size bytes> <cumulative %>` per line) read from memory through
 * cdf_read, the reader cdf_load uses.
 *
 * A table the reader accepts must hold the invariants cdf.c states and the
 * Poisson generator relies on (a finite positive-or-zero mean it divides
 * the offered load by, quantiles inside the table): n >= 1, sizes strictly
 * ascending in [0, 2^53], cumulative probabilities non-decreasing in [0, 1]
 * ending at exactly 1, the mean finite and between the first and last
 * size (to rounding), and cdf_quantile within [size[0], size[n-1]] for u in [0, 1). A
 * violation aborts, which libFuzzer records as a crash.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cdf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const struct cdf *c)
{
	fprintf(stderr, "fuzz_cdf: %s (n = %zu, mean = %.17g)\n", what, c->n, c->mean);
	abort();
}

static void check(const struct cdf *c)
{
	if (c->n < 1)
		fail("no points", c);
	for (size_t i = 0; i < c->n; i++) {
		if (!(c->size[i] >= 0 && c->size[i] <= CDF_MAX_SIZE_B) || (i && !(c->size[i] > c->size[i - 1])))
			fail("sizes not in [0, 2^53] and strictly ascending", c);
		if (!(c->cum[i] >= 0 && c->cum[i] <= 1) || (i && c->cum[i] < c->cum[i - 1]))
			fail("cumulative probabilities not non-decreasing in [0, 1]", c);
	}
	if (c->cum[c->n - 1] != 1.0)
		fail("last cumulative probability is not exactly 1", c);
	/* Every flow is at least size[0] and at most size[n-1]; the sum that
	 * gives the mean may round by a few ulps. */
	double lo = c->size[0] * (1 - 1e-12), hi = c->size[c->n - 1] * (1 + 1e-12);
	if (!isfinite(c->mean) || c->mean < lo || c->mean > hi)
		fail("mean not finite or outside the table", c);
	static const double u[] = { 0.0, 1e-12, 0.25, 0.5, 0.75, 0.999999, 0x1.fffffffffffffp-1 };
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
		double q = cdf_quantile(c, u[i]);
		if (!(q >= lo && q <= hi))
			fail("quantile outside the table", c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fmemopen refuses an empty buffer: give it one byte and read none. */
	static const char empty[1];
	FILE *f = fmemopen(size ? (void *)data : (void *)empty, size ? size : 1, "r");
	if (!f)
		abort();
	if (!size)
		fgetc(f);
	struct cdf c;
	char *err = NULL;
	if (cdf_read(&c, "fuzz.cdf", f, &err) == 0)
		check(&c);
	else if (!err || strncmp(err, "fuzz.cdf:", 9) != 0)
		abort();
	fclose(f);
	free(err);
	cdf_free(&c);
	return 0;
}
