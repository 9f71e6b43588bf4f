/*
 * test_traffic.c — the static traffic sources (flows, incast, permutation,
 * all_to_all) and traffic setup, run on the recording world of
 * traffic_harness.h, so the sources are tested without a fabric.
 *
 * Static sources: exactly the flows asked for, at their times, in a
 * deterministic order. Permutation: a derangement and a bijection, a pure
 * function of the seed, uniform over derangements. Failed setups leave
 * nothing behind. The Poisson source is tested in test_poisson.c.
 */
#include "traffic_harness.h"

/* ---- static sources ---- */

static void test_flows(void)
{
	struct harness h;
	h_init(&h, 4, 1,
	       "[traffic.f]\n"                          /* 1 */
	       "type = flows\n"                         /* 2 */
	       "flow = host0 host1 1000B 5us\n"         /* 3 */
	       "flow = host2 host3 2000B 1us\n"         /* 4 */
	       "flow = host3 host0 3000B 5us\n"         /* 5: ties with line 3, after it */
	       "flow = host1 host2 4000B 0s\n");        /* 6 */
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(h.tr), 4);
	CU_ASSERT_EQUAL_FATAL(n_recs, 4);
	const struct rec want[] = {
		{ 0, 1, 2, 4000, 0, 0 }, { 1 * SIMTIME_US, 2, 3, 2000, 0, 0 },
		{ 5 * SIMTIME_US, 0, 1, 1000, 0, 0 }, { 5 * SIMTIME_US, 3, 0, 3000, 0, 0 },
	};
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(recs[i].t, want[i].t);
		CU_ASSERT_EQUAL(recs[i].src, want[i].src);
		CU_ASSERT_EQUAL(recs[i].dst, want[i].dst);
		CU_ASSERT_EQUAL(recs[i].size_b, want[i].size_b);
		CU_ASSERT_STRING_EQUAL(recs[i].source, "traffic.f");
		CU_ASSERT_STRING_EQUAL(recs[i].par, "micro");
	}
	/* The source is one element of its own, after the fabric's. */
	CU_ASSERT_EQUAL(h.sim.n_elems, h.elems_built + 1);
	CU_ASSERT_STRING_EQUAL(h.sim.elem_names[h.elems_built], "traffic.f");
	h_free(&h);
}

/* Each bad `flow` line is reported at its own line: an unknown host, a
 * switch named as a host, a host sending to itself. */
static void test_flows_errors(void)
{
	static const struct {
		const char *text, *where, *what;
	} cases[] = {
		{ "[traffic.f]\ntype = flows\nflow = host0 host1 1000B 0s\nflow = host0 host9 1000B 0s\n",
		  "test.ini:4", "unknown host 'host9'" },
		{ "# a comment\n\n[traffic.f]\ntype = flows\nflow = sw0 host1 1000B 0s\n",
		  "test.ini:5", "unknown host 'sw0'" },
		{ "[traffic.f]\ntype = flows\n\nflow = host2 host2 1000B 0s\n",
		  "test.ini:4", "same host" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct harness h;
		h_init(&h, 4, 1, cases[i].text);
		expect_setup_error(&h, cases[i].where, cases[i].what);
		h_free(&h);
	}
}

static void test_incast(void)
{
	struct harness h;
	static const int senders[] = { 1, 2, 5, 7, 3 };
	h_init(&h, 8, 1,
	       "[traffic.in]\n"
	       "type = incast\n"
	       "senders = host1 host2 host5 host7 host3\n"
	       "receiver = host0\n"
	       "size = 64000B\n"
	       "start = 2us\n");
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(h.tr), 5);
	CU_ASSERT_EQUAL_FATAL(n_recs, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(recs[i].t, 2 * SIMTIME_US);
		CU_ASSERT_EQUAL(recs[i].src, senders[i]); /* in list order */
		CU_ASSERT_EQUAL(recs[i].dst, 0);
		CU_ASSERT_EQUAL(recs[i].size_b, 64000);
	}
	h_free(&h);

	/* `all`: every host but the receiver, known before the run (the
	 * memory estimate's count). */
	h_init(&h, 8, 1,
	       "[traffic.in]\ntype = incast\nsenders = all\nreceiver = host5\nsize = 1000B\n");
	bool open = false;
	CU_ASSERT_EQUAL(traffic_flows_known(&h.cfg, 8, &open), 7);
	CU_ASSERT_FALSE(open);
	setup_and_run(&h);
	CU_ASSERT_EQUAL_FATAL(n_recs, 7);
	for (int i = 0; i < 7; i++) {
		CU_ASSERT_EQUAL(recs[i].src, i < 5 ? i : i + 1);
		CU_ASSERT_EQUAL(recs[i].dst, 5);
		CU_ASSERT_EQUAL(recs[i].t, 0);
		CU_ASSERT_EQUAL(recs[i].size_b, 1000);
	}
	h_free(&h);

	/* Errors, located at the key. The receiver among the senders is the
	 * loader's rule (located at the receiver). */
	expect_load_error(8,
			  "[traffic.in]\ntype = incast\nsize = 1000B\nsenders = host1 host0\n"
			  "receiver = host0\n",
			  "test.ini:5: [traffic.in] receiver = 'host0'",
			  "expected a host that is not one of the senders");

	h_init(&h, 8, 1,
	       "[traffic.in]\ntype = incast\nsize = 1000B\nsenders = host1 hostX\nreceiver = host0\n");
	expect_setup_error(&h, "test.ini:4", "unknown host 'hostX'");
	h_free(&h);

	h_init(&h, 8, 1,
	       "[traffic.in]\ntype = incast\nsenders = host1 host2 host5 host7 host3\nsize = 1000B\n"
	       "receiver = host8\n");
	expect_setup_error(&h, "test.ini:5", "unknown host 'host8'");
	h_free(&h);
}

/* Runs a permutation over n hosts with a seed; fills dst_of[src] (-1 when a
 * host sent nothing). */
static void run_permutation(int n, uint64_t seed, int *dst_of)
{
	struct harness h;
	h_init(&h, n, seed, "[traffic.p]\ntype = permutation\nsize = 1000000B\nstart = 7us\n");
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(h.tr), (uint64_t)n);
	for (int i = 0; i < n; i++)
		dst_of[i] = -1;
	for (size_t k = 0; k < n_recs; k++) {
		CU_ASSERT(recs[k].t == 7 * SIMTIME_US && recs[k].size_b == 1000000);
		CU_ASSERT(dst_of[recs[k].src] == -1); /* each host sends once */
		dst_of[recs[k].src] = recs[k].dst;
	}
	h_free(&h);
}

static void test_permutation(void)
{
	enum { N = 32 };
	int a[N], b[N], c[N];
	run_permutation(N, 1, a);
	CU_ASSERT_EQUAL(n_recs, N);
	int received[N] = { 0 };
	for (int i = 0; i < N; i++) {
		CU_ASSERT(a[i] >= 0 && a[i] < N);
		CU_ASSERT(a[i] != i);          /* no fixed point */
		if (a[i] >= 0 && a[i] < N)
			received[a[i]]++;
	}
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(received[i], 1); /* a bijection */
	run_permutation(N, 1, b);
	CU_ASSERT(memcmp(a, b, sizeof a) == 0); /* same seed, same mapping */
	run_permutation(N, 2, c);
	CU_ASSERT(memcmp(a, c, sizeof a) != 0); /* another seed, another one */

	/* Its draws come from its own stream (named by its position among
	 * the sections, not by element ids): a source after it changes
	 * nothing. */
	struct harness h;
	h_init(&h, N, 1,
	       "[traffic.p]\ntype = permutation\nsize = 1000000B\nstart = 7us\n"
	       "[traffic.a]\ntype = all_to_all\nsize = 10B\nstart = 1ms\n");
	setup_and_run(&h);
	CU_ASSERT_EQUAL_FATAL(n_recs, N + N * (N - 1));
	for (size_t k = 0; k < N; k++)
		CU_ASSERT(recs[k].t == 7 * SIMTIME_US && recs[k].dst == a[recs[k].src]);
	h_free(&h);

	/* A permutation takes every host (it has no `hosts` key: the format
	 * never had one for it). */
	expect_load_error(8, "[traffic.p]\ntype = permutation\nsize = 1000B\nhosts = host1 host3 host6\n",
			  "test.ini:4: [traffic.p] hosts", "expected a key of type permutation");

	/* One host cannot be deranged. */
	h_init(&h, 1, 3, "[traffic.p]\ntype = permutation\nsize = 1000B\n");
	expect_setup_error(&h, "test.ini:2", "at least 2 hosts");
	h_free(&h);
}

/* Uniform over derangements: 4 hosts have 9, each drawn by 1/9 of seeds.
 * Chi-square with 8 degrees of freedom over 4500 seeds (500 expected per
 * derangement); the 0.1 % critical value is 26.12. */
static void test_permutation_uniform(void)
{
	enum { N = 4, SEEDS = 4500 };
	unsigned count[256] = { 0 };
	int d[N];
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		run_permutation(N, seed, d);
		unsigned code = 0;
		for (int i = 0; i < N; i++)
			code = code * N + (unsigned)d[i];
		count[code]++;
	}
	int kinds = 0;
	double chi2 = 0, expected = SEEDS / 9.0;
	for (int c = 0; c < 256; c++) {
		if (!count[c])
			continue;
		kinds++;
		chi2 += (count[c] - expected) * (count[c] - expected) / expected;
	}
	fprintf(stderr, "\n  permutation of 4: %d derangements seen, chi-square %.2f (df 8, 0.1%% critical 26.12)\n",
		kinds, chi2);
	CU_ASSERT_EQUAL(kinds, 9);
	CU_ASSERT(chi2 < 26.12);
}

static void test_all_to_all(void)
{
	enum { N = 8 };
	struct harness h;
	h_init(&h, N, 1, "[traffic.a]\ntype = all_to_all\nsize = 4096B\nstart = 1ms\n");
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(h.tr), N * (N - 1));
	CU_ASSERT_EQUAL_FATAL(n_recs, N * (N - 1));
	size_t k = 0;
	for (int s = 0; s < N; s++)
		for (int d = 0; d < N; d++) {
			if (s == d)
				continue;
			CU_ASSERT(recs[k].src == s && recs[k].dst == d); /* by src, then dst */
			CU_ASSERT(recs[k].t == SIMTIME_MS && recs[k].size_b == 4096);
			k++;
		}
	h_free(&h);
}

static void test_failure_undoes_and_counts(void)
{
	/* A source that fails after a valid one: the failure must undo both
	 * (every traffic type has a model now; hpcc and multicast have their
	 * own tests). */
	struct harness h;
	h_init(&h, 4, 1,
	       "[traffic.a]\ntype = all_to_all\nsize = 100B\n"
	       "[traffic.x]\ntype = flows\nflow = host0 host1 10B 0s\nflow = host1 host9 10B 0s\n");
	expect_setup_error(&h, "test.ini:7", "unknown host 'host9'");
	h_free(&h);
	/* A size of 0 never gets that far: the loader refuses it. */
	expect_load_error(4, "[traffic.a]\ntype = all_to_all\nsize = 100B\n[traffic.x]\ntype = all_to_all\n"
			  "size = 0B\n", "test.ini:6: [traffic.x] size", NULL);

	/* Expected flows: the sum over static sources, 0 with a poisson one. */
	h_init(&h, 4, 1,
	       "[traffic.a]\ntype = all_to_all\nsize = 100B\n"
	       "[traffic.f]\ntype = flows\nflow = host0 host1 10B 0s\nflow = host1 host0 10B 0s\n");
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(h.tr), 4 * 3 + 2);
	CU_ASSERT_EQUAL(n_recs, 4 * 3 + 2);
	CU_ASSERT_EQUAL(h.sim.n_elems, h.elems_built + 2);
	h_free(&h);
}

TEST_MAIN("traffic",
	  { "flows: listed flows at their times", test_flows },
	  { "flows: located errors", test_flows_errors },
	  { "incast: senders to the receiver", test_incast },
	  { "permutation: a seeded derangement", test_permutation },
	  { "permutation: uniform over derangements", test_permutation_uniform },
	  { "all_to_all: n(n-1) flows", test_all_to_all },
	  { "a failing source undoes the others; expected counts", test_failure_undoes_and_counts })
