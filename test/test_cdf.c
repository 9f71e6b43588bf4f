/*
 * test_cdf.c — flow-size CDFs: loading the built-in tables, the exact mean,
 * inverse-transform sampling against the piecewise-linear law, and located
 * errors for malformed files.
 *
 * Statistical checks use fixed seeds, so they are deterministic; the
 * tolerances are chosen so that a correct sampler would fail them only with
 * negligible probability under a fresh seed (reasoning next to each).
 */
#define _GNU_SOURCE /* asprintf */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cdf.h"
#include "rng.h"
#include "testutil.h"

static const char *const builtin[] = { "websearch", "hadoop", "alistorage2019", "googlerpc2008" };

static char *data_path(const char *name)
{
	char *p = NULL;
	const char *srcdir = getenv("SRCDIR");
	int rc = srcdir ? asprintf(&p, "%s/data/cdf/%s.cdf", srcdir, name)
			: asprintf(&p, "%s/cdf/%s.cdf", ROCESIM_SRCDATADIR, name);
	return rc < 0 ? NULL : p;
}

/* Writes text to a fresh temporary file; returns its malloc'd path. */
static char *temp_file(const char *text)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = NULL;
	if (asprintf(&path, "%s/test_cdf_XXXXXX", dir) < 0)
		return NULL;
	int fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	size_t len = strlen(text);
	ssize_t wr = write(fd, text, len);
	close(fd);
	if (wr != (ssize_t)len) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

static void test_load_builtin(void)
{
	for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
		char *path = data_path(builtin[i]), *err = NULL;
		struct cdf c;
		CU_ASSERT_FATAL(path != NULL);
		int rc = cdf_load(&c, path, &err);
		if (rc != 0)
			fprintf(stderr, "\n%s\n", err);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT(c.n >= 2);
		CU_ASSERT_EQUAL(c.cum[c.n - 1], 1.0);
		for (size_t k = 1; k < c.n; k++) {
			CU_ASSERT(c.size[k] > c.size[k - 1]);
			CU_ASSERT(c.cum[k] >= c.cum[k - 1]);
		}
		CU_ASSERT(c.mean > c.size[0] && c.mean < c.size[c.n - 1]);
		cdf_free(&c);
		free(path);
	}
	/* websearch by hand: Σ Δp × (s_a + s_b)/2 over its 11 segments
	 * = 750 + 750 + 2500 + 4000 + 8450 + 9800 + 60000 + 150000 + 350000
	 *   + 525000 + 600000 bytes. */
	char *path = data_path("websearch"), *err = NULL;
	struct cdf c;
	CU_ASSERT_EQUAL_FATAL(cdf_load(&c, path, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(c.mean, 1711250.0, 1e-6);
	cdf_free(&c);
	free(path);
}

static void test_mean_closed_form(void)
{
	struct cdf c;
	char *err = NULL;
	/* Uniform on [a, b]: mean (a + b) / 2. Comments and blank lines allowed. */
	char *p = temp_file("# uniform\n\n100 0\n   \n1100 100   # end\n");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL_FATAL(cdf_load(&c, p, &err), 0);
	CU_ASSERT_EQUAL(c.n, 2);
	CU_ASSERT_DOUBLE_EQUAL(c.mean, 600.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cdf_quantile(&c, 0.25), 350.0, 1e-9);
	cdf_free(&c);
	unlink(p);
	free(p);

	/* A first point with mass: 20 % exactly at a, the rest uniform on
	 * [a, b]: mean 0.2 a + 0.8 (a + b) / 2. */
	p = temp_file("100 20\n1100 100\n");
	CU_ASSERT_EQUAL_FATAL(cdf_load(&c, p, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(c.mean, 0.2 * 100 + 0.8 * 600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cdf_quantile(&c, 0.1), 100.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(cdf_quantile(&c, 0.6), 600.0, 1e-9);
	cdf_free(&c);
	unlink(p);
	free(p);

	/* A flat stretch (no mass between 10 and 20) is never sampled: the
	 * quantile jumps from 10 to 20 at u = 0.5. */
	p = temp_file("0 0\n10 50\n20 50\n30 100\n");
	CU_ASSERT_EQUAL_FATAL(cdf_load(&c, p, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(c.mean, 0.5 * 5 + 0.5 * 25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cdf_quantile(&c, 0.5), 20.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cdf_quantile(&c, 0.25), 5.0, 1e-9);
	CU_ASSERT(cdf_quantile(&c, 0.4999999) < 10.0);
	/* Draws are whole bytes, at least 1. */
	gsl_rng *r = rng_stream(7, RNG_TRAFFIC, 0);
	for (int i = 0; i < 10000; i++) {
		double s = cdf_sample(&c, r);
		CU_ASSERT(s >= 1.0 && s <= 30.0 && s == floor(s));
		CU_ASSERT(!(s > 10.0 && s < 20.0));
	}
	gsl_rng_free(r);
	cdf_free(&c);
	unlink(p);
	free(p);
}

/* The piecewise-linear CDF at x, evaluated directly (not through the
 * sampler's inverse), for the Kolmogorov statistic. */
static double law_cdf(const struct cdf *c, double x)
{
	if (x < c->size[0])
		return 0;
	for (size_t i = 1; i < c->n; i++)
		if (x < c->size[i])
			return c->cum[i - 1] + (x - c->size[i - 1]) / (c->size[i] - c->size[i - 1]) *
						       (c->cum[i] - c->cum[i - 1]);
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define N_DRAWS 100000

static void test_sampling_websearch(void)
{
	char *path = data_path("websearch"), *err = NULL;
	struct cdf c;
	CU_ASSERT_EQUAL_FATAL(cdf_load(&c, path, &err), 0);
	free(path);
	double *x = malloc(N_DRAWS * sizeof *x);
	CU_ASSERT_FATAL(x != NULL);
	gsl_rng *r = rng_stream(1, RNG_TRAFFIC, 42);
	double sum = 0, sum2_law = c.size[0] * c.size[0] * c.cum[0];
	for (int i = 0; i < N_DRAWS; i++) {
		x[i] = cdf_sample(&c, r);
		sum += x[i];
	}
	gsl_rng_free(r);
	/* E[S²] of the law: each segment is uniform on [a, b], whose second
	 * moment is (a² + ab + b²) / 3. */
	for (size_t i = 1; i < c.n; i++) {
		double a = c.size[i - 1], b = c.size[i];
		sum2_law += (c.cum[i] - c.cum[i - 1]) * (a * a + a * b + b * b) / 3.0;
	}
	double mean = sum / N_DRAWS;
	double sd_of_mean = sqrt((sum2_law - c.mean * c.mean) / N_DRAWS);
	/* Tolerance: websearch is heavy-tailed (E[S²]/E[S]² ≈ 6.37, so a
	 * coefficient of variation ≈ 2.32), and the sample mean of 10^5 draws
	 * has a relative standard error of ≈ 0.73 %; 2 % is ≈ 2.7 standard
	 * errors, which a correct sampler exceeds with probability ≈ 0.6 %
	 * under a fresh seed (the seed here is fixed, so the test is
	 * deterministic), while a wrong law — a step instead of linear
	 * interpolation shifts the mean by tens of percent — fails at once. */
	double rel = fabs(mean - c.mean) / c.mean;
	fprintf(stderr, "\n  websearch: law mean %.1f B, sample mean %.1f B (%.3f%%, %.2f sd)\n",
		c.mean, mean, 100 * rel, fabs(mean - c.mean) / sd_of_mean);
	CU_ASSERT(rel < 0.02);

	/* Kolmogorov distance between the empirical CDF of the draws and the
	 * law. For n = 10^5 the 0.1 % critical value is 1.95/√n ≈ 0.0062, so
	 * 0.01 (≈ 3.2/√n, p ≈ 10^-9) leaves a wide margin; rounding draws to
	 * whole bytes moves the CDF by < 10^-5 here. */
	qsort(x, N_DRAWS, sizeof *x, cmp_double);
	double d = 0;
	for (int i = 0; i < N_DRAWS; i++) {
		double f = law_cdf(&c, x[i]);
		double lo = fabs(f - (double)i / N_DRAWS), hi = fabs(f - (double)(i + 1) / N_DRAWS);
		d = fmax(d, fmax(lo, hi));
	}
	/* And at the listed points themselves: fraction of draws <= size[i]. */
	double d_pts = 0;
	for (size_t i = 0; i < c.n; i++) {
		size_t k = 0;
		while (k < N_DRAWS && x[k] <= c.size[i])
			k++;
		d_pts = fmax(d_pts, fabs((double)k / N_DRAWS - c.cum[i]));
	}
	fprintf(stderr, "  websearch: Kolmogorov D = %.5f, max deviation at listed points = %.5f\n",
		d, d_pts);
	CU_ASSERT(d < 0.01);
	CU_ASSERT(d_pts < 0.01);
	free(x);
	cdf_free(&c);
}

/* cdf_load of text must fail with an error starting "PATH:LINE:". */
static void expect_error(const char *text, int line, const char *what)
{
	char *p = temp_file(text), *err = NULL, *prefix = NULL;
	struct cdf c;
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(cdf_load(&c, p, &err), -1);
	CU_ASSERT_FATAL(err != NULL);
	CU_ASSERT_FATAL(asprintf(&prefix, "%s:%d: ", p, line) > 0);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
		fprintf(stderr, "\n  unexpected error: %s (wanted %s... %s)\n", err, prefix, what);
	CU_ASSERT(strncmp(err, prefix, strlen(prefix)) == 0);
	CU_ASSERT(strstr(err, what) != NULL);
	CU_ASSERT(c.size == NULL && c.cum == NULL && c.n == 0);
	free(prefix);
	free(err);
	unlink(p);
	free(p);
}

static void test_malformed(void)
{
	expect_error("0 0\n200 50\n100 100\n", 3, "ascend");
	expect_error("0 0\n100 50\n100 100\n", 3, "ascend");
	expect_error("0 0\n100 60\n# note\n200 50\n300 100\n", 4, "decrease");
	expect_error("0 0\n100 101\n", 2, "[0, 100]");
	expect_error("0 -1\n100 100\n", 1, "[0, 100]");
	expect_error("0 0\n100 50\n", 2, "expected 100");
	expect_error("0 0\n100 50\n\n# trailing\n", 4, "expected 100");
	expect_error("0 0\n1OO 100\n", 2, "size '1OO'");
	expect_error("0 0\n100\n", 2, "expected '<size bytes> <cumulative percent>'");
	expect_error("0 0\n100 100 7\n", 2, "expected '<size bytes> <cumulative percent>'");
	expect_error("-5 0\n100 100\n", 1, "non-negative");
	expect_error("# nothing\n\n", 2, "no data points");
	/* Found by test/fuzz/fuzz_cdf: the mean of these sizes overflowed to
	 * inf (and a sample would not fit a uint64_t); refused above 2^53 B. */
	expect_error("1e308 50\n1.7e308 100\n", 1, "above 2^53 bytes");
	expect_error("0 0\n9007199254740994 100\n", 2, "above 2^53 bytes");

	char *err = NULL;
	struct cdf c;
	/* 2^53 itself is the largest size taken: uniform on [0, 2^53], mean 2^52. */
	char *p = temp_file("0 0\n9007199254740992 100\n");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL_FATAL(cdf_load(&c, p, &err), 0);
	CU_ASSERT_EQUAL(c.mean, 4503599627370496.0);
	cdf_free(&c);
	unlink(p);
	free(p);
	CU_ASSERT_EQUAL(cdf_load(&c, "/nonexistent/x.cdf", &err), -1);
	CU_ASSERT(err && strncmp(err, "/nonexistent/x.cdf: ", 20) == 0);
	free(err);
}

TEST_MAIN("cdf",
	  { "load the built-in CDFs", test_load_builtin },
	  { "mean and quantile in closed form", test_mean_closed_form },
	  { "websearch sampling: mean and Kolmogorov distance", test_sampling_websearch },
	  { "malformed files give FILE:LINE errors", test_malformed })
