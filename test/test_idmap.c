/*
 * test_idmap.c — kernel/idmap.h against a plain array (random puts, gets
 * and takes through several growths); ids that crowd a few home slots,
 * so that a probe run wraps past the table's end and deletions must move
 * entries back across it; and the empty map.
 */
#include <stdint.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include "idmap.h"
#include "testutil.h"

#define IDS 5000

static void test_empty(void)
{
	struct idmap m = { 0 };
	CU_ASSERT_PTR_NULL(idmap_get(&m, 7));
	CU_ASSERT_PTR_NULL(idmap_take(&m, 7));
	idmap_free(&m);
}

static void count(void *ctx, uint64_t id, void *v)
{
	(void)id;
	(void)v;
	(*(size_t *)ctx)++;
}

static void test_against_array(void)
{
	static void *ref[IDS + 1]; /* ref[id]: its value, NULL when absent */
	static int vals[IDS + 1];
	struct idmap m = { 0 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 1);
	size_t n = 0, bad = 0;
	for (int step = 0; step < 200000; step++) {
		uint64_t k = 1 + gsl_rng_uniform_int(r, IDS);
		uint64_t id = k;
		unsigned long op = gsl_rng_uniform_int(r, 3);
		if (op == 0) {
			idmap_put(&m, id, &vals[k]);
			n += !ref[k];
			ref[k] = &vals[k];
		} else if (op == 1) {
			void *v = idmap_take(&m, id);
			bad += v != ref[k];
			n -= ref[k] != NULL;
			ref[k] = NULL;
		} else {
			bad += idmap_get(&m, id) != ref[k];
		}
		bad += m.n != n;
	}
	CU_ASSERT_EQUAL(bad, 0);
	for (uint64_t k = 1; k <= IDS; k++)
		bad += idmap_get(&m, k) != ref[k];
	CU_ASSERT_EQUAL(bad, 0);
	size_t seen = 0;
	idmap_each(&m, count, &seen);
	CU_ASSERT_EQUAL(seen, n);
	CU_ASSERT(m.cap >= 2 * m.n);
	idmap_free(&m);
	gsl_rng_free(r);
}

/* 300 ids whose home slot (idmap.c's Fibonacci hash) is one of the last
 * 24 of the 1024: one run of slots that wraps past the end (checked).
 * Take every third, leaving holes across the wrap: each other one is
 * still found, and the taken ones are gone. */
static void test_wrapping_run(void)
{
	enum { N = 300, CAP = 1024 };
	static uint64_t id[N];
	static int v[N];
	int n = 0;
	for (uint64_t x = 1; n < N; x++)
		if (((x * 0x9E3779B97F4A7C15ull) & (CAP - 1)) >= CAP - 24)
			id[n++] = x;
	struct idmap m = { 0 };
	for (int i = 0; i < N; i++)
		idmap_put(&m, id[i], &v[i]);
	CU_ASSERT_EQUAL_FATAL(m.cap, CAP);
	CU_ASSERT(m.id[CAP - 1] && m.id[0] && m.id[N / 2]); /* the run wraps */
	for (int i = 0; i < N; i += 3)
		CU_ASSERT_PTR_EQUAL(idmap_take(&m, id[i]), &v[i]);
	size_t bad = 0;
	for (int i = 0; i < N; i++)
		bad += idmap_get(&m, id[i]) != (i % 3 ? &v[i] : NULL);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(m.n, (size_t)(N - (N + 2) / 3));
	idmap_free(&m);
}

TEST_MAIN("idmap",
	  { "empty", test_empty },
	  { "random puts, gets and takes against an array", test_against_array },
	  { "holes in a run that wraps", test_wrapping_run })
