/*
 * cdf.c — empirical flow-size distributions: loading, exact mean, sampling.
 *
 * A file lists points `<size bytes> <cumulative %>`; between two points the
 * distribution is uniform (the CDF is interpolated linearly, as the HPCC
 * traffic generator and the papers that publish these tables do). The first
 * point carries its cumulative probability as a point mass at its size, so
 * "0 0" opens a table with no mass and "100 5" means 5 % of flows are
 * exactly 100 bytes.
 *
 * Invariants after cdf_load: n >= 1; size[] strictly ascending, >= 0 and
 * <= CDF_MAX_SIZE_B (so the mean is finite and a sample converts to a
 * uint64_t byte count without overflow);
 * cum[] non-decreasing in [0,1] with cum[n-1] == 1 exactly; mean is the
 * exact mean of that piecewise-linear law (before rounding to bytes).
 * Sampling is the exact inverse transform of that law, then rounded to a
 * whole byte and clamped to at least 1 byte (a message has a size).
 */
#define _GNU_SOURCE /* getline */
#include "cdf.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Last cumulative percentage may be written as 99.99999 by a generator that
 * printed rounded values; anything closer to 100 than this is taken as 100. */
#define CDF_LAST_TOLERANCE_PCT 1e-6

/* Parses one number token; returns 0 on success. */
static int cdf_number(const char *tok, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(tok, &end);
	if (end == tok || *end != '\0' || errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int cdf_push(struct cdf *c, size_t *cap, double size, double cum)
{
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		double *s = realloc(c->size, ncap * sizeof *s);
		if (!s)
			return -1;
		c->size = s;
		double *p = realloc(c->cum, ncap * sizeof *p);
		if (!p)
			return -1;
		c->cum = p;
		*cap = ncap;
	}
	c->size[c->n] = size;
	c->cum[c->n] = cum;
	c->n++;
	return 0;
}

/* Mean of the law: the first point's mass at its size, then each segment
 * uniform on [s_a, s_b] with probability Δp, whose mean is (s_a + s_b) / 2. */
static double cdf_exact_mean(const struct cdf *c)
{
	double m = c->cum[0] * c->size[0];
	for (size_t i = 1; i < c->n; i++)
		m += (c->cum[i] - c->cum[i - 1]) * (c->size[i - 1] + c->size[i]) / 2.0;
	return m;
}

int cdf_load(struct cdf *c, const char *path, char **err)
{
	memset(c, 0, sizeof *c);
	*err = NULL;
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = str_printf("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	int rc = cdf_read(c, path, f, err);
	fclose(f);
	return rc;
}

int cdf_read(struct cdf *c, const char *path, FILE *f, char **err)
{
	memset(c, 0, sizeof *c);
	*err = NULL;
	char *line = NULL;
	size_t linecap = 0, cap = 0;
	int lineno = 0;
	while (getline(&line, &linecap, f) >= 0) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *save = NULL;
		char *t1 = strtok_r(line, " \t\r\n,", &save);
		if (!t1)
			continue; /* blank or comment-only line */
		char *t2 = strtok_r(NULL, " \t\r\n,", &save);
		char *t3 = t2 ? strtok_r(NULL, " \t\r\n,", &save) : NULL;
		double size, pct;
		if (!t2 || t3) {
			*err = str_printf("%s:%d: expected '<size bytes> <cumulative percent>'", path, lineno);
			goto fail;
		}
		if (cdf_number(t1, &size) < 0 || size < 0) {
			*err = str_printf("%s:%d: size '%s' is not a non-negative number", path, lineno, t1);
			goto fail;
		}
		if (size > CDF_MAX_SIZE_B) {
			*err = str_printf("%s:%d: size '%s' is above 2^53 bytes, the largest byte count sampled "
					"exactly (a flow's size is a 64-bit integer)", path, lineno, t1);
			goto fail;
		}
		if (cdf_number(t2, &pct) < 0 || pct < 0 || pct > 100) {
			*err = str_printf("%s:%d: cumulative percent '%s' is not a number in [0, 100]",
					path, lineno, t2);
			goto fail;
		}
		if (c->n > 0 && size <= c->size[c->n - 1]) {
			*err = str_printf("%s:%d: size %s is not above the previous size %.17g (sizes must ascend)",
					path, lineno, t1, c->size[c->n - 1]);
			goto fail;
		}
		if (c->n > 0 && pct / 100.0 < c->cum[c->n - 1]) {
			*err = str_printf("%s:%d: cumulative percent %s is below the previous %.17g (must not decrease)",
					path, lineno, t2, c->cum[c->n - 1] * 100.0);
			goto fail;
		}
		if (cdf_push(c, &cap, size, pct / 100.0) < 0) {
			*err = str_printf("%s:%d: out of memory", path, lineno);
			goto fail;
		}
	}
	if (ferror(f)) {
		*err = str_printf("%s:%d: read error: %s", path, lineno, strerror(errno));
		goto fail;
	}
	if (c->n == 0) {
		*err = str_printf("%s:%d: no data points (expected '<size bytes> <cumulative percent>' lines)",
				path, lineno);
		goto fail;
	}
	if (fabs(c->cum[c->n - 1] * 100.0 - 100.0) > CDF_LAST_TOLERANCE_PCT) {
		*err = str_printf("%s:%d: the last cumulative percent is %.17g, expected 100",
				path, lineno, c->cum[c->n - 1] * 100.0);
		goto fail;
	}
	c->cum[c->n - 1] = 1.0; /* exact, so every u in [0,1) finds a segment */
	c->mean = cdf_exact_mean(c);
	free(line);
	return 0;
fail:
	free(line);
	cdf_free(c);
	return -1;
}

void cdf_free(struct cdf *c)
{
	free(c->size);
	free(c->cum);
	memset(c, 0, sizeof *c);
}

double cdf_quantile(const struct cdf *c, double u)
{
	/* First point with cum > u (upper bound): points of equal cum are thus
	 * skipped, so a flat stretch of the CDF is never sampled and the
	 * division below never sees a zero width. cum[n-1] == 1 > u. */
	size_t lo = 0, hi = c->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->cum[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0)
		return c->size[0]; /* the first point's mass */
	double p0 = c->cum[lo - 1], p1 = c->cum[lo];
	double s0 = c->size[lo - 1], s1 = c->size[lo];
	return s0 + (u - p0) / (p1 - p0) * (s1 - s0);
}

double cdf_sample(const struct cdf *c, gsl_rng *r)
{
	double s = floor(cdf_quantile(c, gsl_rng_uniform(r)) + 0.5);
	return s < 1.0 ? 1.0 : s;
}
