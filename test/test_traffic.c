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
	h_init(&h, 4, 1);
	struct cfg_traffic *t = h_traffic(&h, "f", TRAFFIC_FLOWS, 10);
	struct cfg_flow_spec fs[] = {
		{ "host0", "host1", 1000, 5 * SIMTIME_US, 11 },
		{ "host2", "host3", 2000, 1 * SIMTIME_US, 12 },
		{ "host3", "host0", 3000, 5 * SIMTIME_US, 13 }, /* ties with line 11: after it */
		{ "host1", "host2", 4000, 0, 14 },
	};
	t->flows = fs;
	t->n_flows = 4;
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(&h.w), 4);
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
	/* The source is one element of its own, after the kernel's. */
	CU_ASSERT_EQUAL(h.sim.n_elems, 2);
	h_free(&h);
}

/* Each bad `flow` line is reported at its own line: an unknown host, a
 * switch named as a host, a host sending to itself. */
static void test_flows_errors(void)
{
	static const struct {
		struct cfg_flow_spec spec[2];
		size_t n;
		int section_line;
		const char *origin_text, *where, *what;
	} cases[] = {
		{ { { "host0", "host1", 1000, 0, 11 }, { "host0", "host9", 1000, 0, 12 } }, 2, 10,
		  "host0 host1 1000B 0", "test.ini:12", "unknown host 'host9'" },
		{ { { "sw0", "host1", 1000, 0, 7 } }, 1, 6, "sw0 host1 1000B 0", "test.ini:7", "unknown host 'sw0'" },
		{ { { "host2", "host2", 1000, 0, 8 } }, 1, 6, "host2 host2 1000B 0", "test.ini:8", "same host" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct harness h;
		struct cfg_flow_spec spec[2];
		memcpy(spec, cases[i].spec, sizeof spec);
		h_init(&h, 4, 1);
		struct cfg_traffic *t = h_traffic(&h, "f", TRAFFIC_FLOWS, cases[i].section_line);
		h_origin(&h, "traffic.f", "flow", cases[i].origin_text, cases[i].spec[0].line);
		t->flows = spec;
		t->n_flows = cases[i].n;
		expect_setup_error(&h, cases[i].where, cases[i].what);
		h_free(&h);
	}
}

static void test_incast(void)
{
	struct harness h;
	char *senders[] = { "host1", "host2", "host5", "host7", "host3" };
	h_init(&h, 8, 1);
	struct cfg_traffic *t = h_traffic(&h, "in", TRAFFIC_INCAST, 3);
	t->senders = senders;
	t->n_senders = 5;
	t->receiver = "host0";
	t->size_b = 64000;
	t->start = 2 * SIMTIME_US;
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(&h.w), 5);
	CU_ASSERT_EQUAL_FATAL(n_recs, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(recs[i].t, 2 * SIMTIME_US);
		CU_ASSERT_EQUAL(recs[i].src, senders[i][4] - '0'); /* in list order */
		CU_ASSERT_EQUAL(recs[i].dst, 0);
		CU_ASSERT_EQUAL(recs[i].size_b, 64000);
	}
	h_free(&h);

	/* `all`: every host but the receiver. */
	char *all[] = { "all" };
	h_init(&h, 8, 1);
	t = h_traffic(&h, "in", TRAFFIC_INCAST, 3);
	t->senders = all;
	t->n_senders = 1;
	t->receiver = "host5";
	t->size_b = 1000;
	setup_and_run(&h);
	CU_ASSERT_EQUAL_FATAL(n_recs, 7);
	for (int i = 0; i < 7; i++) {
		CU_ASSERT_EQUAL(recs[i].src, i < 5 ? i : i + 1);
		CU_ASSERT_EQUAL(recs[i].dst, 5);
	}
	h_free(&h);

	/* Errors, located at the key. */
	char *with_rcv[] = { "host1", "host0" };
	h_init(&h, 8, 1);
	t = h_traffic(&h, "in", TRAFFIC_INCAST, 3);
	h_origin(&h, "traffic.in", "senders", "host1 host0", 4);
	t->senders = with_rcv;
	t->n_senders = 2;
	t->receiver = "host0";
	t->size_b = 1000;
	expect_setup_error(&h, "test.ini:4", "is the receiver");
	h_free(&h);

	char *unknown[] = { "host1", "hostX" };
	h_init(&h, 8, 1);
	t = h_traffic(&h, "in", TRAFFIC_INCAST, 3);
	h_origin(&h, "traffic.in", "senders", "host1 hostX", 4);
	t->senders = unknown;
	t->n_senders = 2;
	t->receiver = "host0";
	t->size_b = 1000;
	expect_setup_error(&h, "test.ini:4", "unknown host 'hostX'");
	h_free(&h);

	h_init(&h, 8, 1);
	t = h_traffic(&h, "in", TRAFFIC_INCAST, 3);
	h_origin(&h, "traffic.in", "receiver", "host8", 5);
	t->senders = senders;
	t->n_senders = 5;
	t->receiver = "host8";
	t->size_b = 1000;
	expect_setup_error(&h, "test.ini:5", "unknown host 'host8'");
	h_free(&h);
}

/* Runs a permutation over n hosts with a seed; fills dst_of[src] (-1 when a
 * host sent nothing). */
static void run_permutation(int n, uint64_t seed, int *dst_of)
{
	struct harness h;
	h_init(&h, n, seed);
	struct cfg_traffic *t = h_traffic(&h, "p", TRAFFIC_PERMUTATION, 3);
	t->size_b = 1000000;
	t->start = 7 * SIMTIME_US;
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(&h.w), (uint64_t)n);
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

	/* `hosts` restricts the participants. */
	struct harness h;
	char *hosts[] = { "host1", "host3", "host6" };
	h_init(&h, 8, 3);
	struct cfg_traffic *t = h_traffic(&h, "p", TRAFFIC_PERMUTATION, 3);
	t->hosts = hosts;
	t->n_hosts = 3;
	t->size_b = 1000;
	setup_and_run(&h);
	CU_ASSERT_EQUAL_FATAL(n_recs, 3);
	int got = 0;
	for (size_t k = 0; k < n_recs; k++) {
		int s = recs[k].src, d = recs[k].dst;
		CU_ASSERT((s == 1 || s == 3 || s == 6) && (d == 1 || d == 3 || d == 6) && s != d);
		got |= 1 << d;
	}
	CU_ASSERT_EQUAL(got, (1 << 1) | (1 << 3) | (1 << 6));
	h_free(&h);

	/* One host cannot be deranged. */
	char *one[] = { "host2" };
	h_init(&h, 8, 3);
	t = h_traffic(&h, "p", TRAFFIC_PERMUTATION, 3);
	h_origin(&h, "traffic.p", "hosts", "host2", 4);
	t->hosts = one;
	t->n_hosts = 1;
	t->size_b = 1000;
	expect_setup_error(&h, "test.ini:4", "at least 2 hosts");
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
	h_init(&h, N, 1);
	struct cfg_traffic *t = h_traffic(&h, "a", TRAFFIC_ALL_TO_ALL, 3);
	t->size_b = 4096;
	t->start = SIMTIME_MS;
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(&h.w), N * (N - 1));
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
	h_init(&h, 4, 1);
	struct cfg_traffic *t = h_traffic(&h, "a", TRAFFIC_ALL_TO_ALL, 3);
	t->size_b = 100;
	h_traffic(&h, "x", TRAFFIC_ALL_TO_ALL, 9); /* size 0 */
	expect_setup_error(&h, "test.ini", "size must be at least 1 byte");
	h_free(&h);

	/* Expected flows: the sum over static sources, 0 with a poisson one. */
	struct cfg_flow_spec fs[] = { { "host0", "host1", 10, 0, 5 }, { "host1", "host0", 10, 0, 6 } };
	h_init(&h, 4, 1);
	t = h_traffic(&h, "a", TRAFFIC_ALL_TO_ALL, 3);
	t->size_b = 100;
	t = h_traffic(&h, "f", TRAFFIC_FLOWS, 4);
	t->flows = fs;
	t->n_flows = 2;
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(&h.w), 4 * 3 + 2);
	CU_ASSERT_EQUAL(n_recs, 4 * 3 + 2);
	CU_ASSERT_EQUAL(h.sim.n_elems, 3);
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
