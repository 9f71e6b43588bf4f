/*
 * test_job_place.c — several jobs on one fabric: the placement policies
 * (job_place.c) alone, and whole runs whose times are checked against the
 * ring all-reduce's closed form.
 *
 * Policies, on a hand-made k = 4 fat tree (16 hosts, 8 edge switches of 2
 * hosts, 4 pods of 2 switches):
 *   - packed uses ceil(n / 2) edge switches and ceil(n / 4) pods for every
 *     n, and on a partly taken fabric fills the fullest pod first;
 *   - spread uses min(n, 8) edge switches, and min(n, 4) pods;
 *   - random: the same stream gives the same hosts, another seed others,
 *     never a taken one;
 *   - fragmented: round(busy x free) hosts busy, the job only on free,
 *     not busy ones, in host order;
 *   - an explicit list that meets a taken host fails, naming it; in a
 *     scenario, the located error (exit 2) names the other job.
 *
 * Runs (cc = none with PFC, so that flows sharing a link get equal shares;
 * mtu 4096): DP all-reduces of S = 27,262,976 B (a 2-layer custom model's
 * fp32 gradients) over n = 4 hosts. A ring all-reduce moves 2(n-1)/n x S
 * through each rank's link, so it takes
 *     T = 2(n-1)/n x S x 8 / (R x share x 4096 / 4178)
 * (4178 B on the wire per 4096 B of payload: 58 B of RoCEv2 headers and
 * ICRC, 24 B of preamble, gap and FCS). Tolerances: 5% for one ring alone
 * on its links (the rest is the ring's step latencies), 7% for shared
 * links (PFC pauses of the shared class on top), 1% between runs that
 * must not differ.
 *   - two jobs packed on a leaf-spine with one spine (4 leaves x 2 hosts,
 *     100 Gb/s everywhere): each job on two leaves of its own, its
 *     collective as fast as alone (within 1%) and T at share 1;
 *   - the same jobs spread (interleaved: hosts 0, 2, 4, 6 and 1, 3, 5, 7):
 *     every leaf uplink carries one ring edge of each job, so share 1/2;
 *   - priorities 3 and 5: each job's flows carry its class in
 *     flow.priority; the ports' deficit round robin gives data classes
 *     equal quanta, so still share 1/2 each;
 *   - a job on class 5 beside an incast of class 3 on its NICs is not
 *     held by the incast's PFC pauses (class 3: 4971 us, class 5: 3695
 *     us when written; the check: class 3 at least 1.2x slower);
 *   - fragmented vs packed on a leaf-spine whose uplinks run at half the
 *     host rate (4 leaves x 4 hosts): packed keeps the ring on one leaf
 *     (share 1), fragmented puts ring edges on the uplinks; predicted from
 *     the ring edges the flow table shows, each edge's share being the
 *     least of rate / (ring edges on it) over its links;
 *   - random placement: the same seed gives the same flow table.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job_place.h"
#include "rng.h"
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

/* ---- Policies on a hand-made fat tree ---- */

enum { NH = 16 };
static int edge_of[NH], pod_of[NH];
static struct job_place_fabric fab = { NH, edge_of, pod_of };

static int all_hosts[NH];

static void fat_tree_k4(void)
{
	for (int h = 0; h < NH; h++) {
		all_hosts[h] = h;
		edge_of[h] = 100 + h / 2; /* node ids of the switches: any distinct values */
		pod_of[h] = 200 + h / 4;
	}
}

static int count_distinct(const int *key, const int *hosts, int n)
{
	int d = 0;
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen |= key[hosts[k]] == key[hosts[i]];
		d += !seen;
	}
	return d;
}

static void place_ok(enum job_place_policy pol, int need, double busy, gsl_rng *rng, unsigned char *taken,
		     int *out)
{
	int avail, clash;
	CU_ASSERT_EQUAL_FATAL(job_place(&fab, pol, all_hosts, NH, need, busy, rng, taken, out, &avail, &clash), 0);
}

static void test_packed(void)
{
	fat_tree_k4();
	for (int n = 1; n <= NH; n++) {
		unsigned char taken[NH] = { 0 };
		int out[NH];
		place_ok(JOB_PLACE_PACKED, n, 0, NULL, taken, out);
		CU_ASSERT_EQUAL(count_distinct(edge_of, out, n), (n + 1) / 2);
		CU_ASSERT_EQUAL(count_distinct(pod_of, out, n), (n + 3) / 4);
		/* On an idle fabric: hosts 0, 1, 2, ... (the order before policies). */
		for (int i = 0; i < n; i++)
			CU_ASSERT_EQUAL(out[i], i);
	}
	/* Hosts 0, 4, 5, 8 taken: pods 0, 1, 2 have 3, 2, 3 free, pod 3 four:
	 * 4 hosts fit in pod 3 alone, 2 in its fullest edge switch. */
	unsigned char taken[NH] = { 0 };
	taken[0] = taken[4] = taken[5] = taken[8] = JOB_HOST_TAKEN;
	int out[NH];
	place_ok(JOB_PLACE_PACKED, 4, 0, NULL, taken, out);
	CU_ASSERT_EQUAL(count_distinct(pod_of, out, 4), 1);
	CU_ASSERT_EQUAL(pod_of[out[0]], 203);
	CU_ASSERT_EQUAL(count_distinct(edge_of, out, 4), 2);
	/* 6 more: pods of 3 and 3 free (fewest pods: 2), their full switches first. */
	place_ok(JOB_PLACE_PACKED, 6, 0, NULL, taken, out);
	CU_ASSERT_EQUAL(count_distinct(pod_of, out, 6), 2);
	CU_ASSERT_EQUAL(count_distinct(edge_of, out, 6), 4);
	for (int i = 0; i < 6; i++)
		CU_ASSERT(out[i] != 0 && out[i] != 4 && out[i] != 5 && out[i] != 8);
}

static void test_spread(void)
{
	fat_tree_k4();
	for (int n = 1; n <= NH; n++) {
		unsigned char taken[NH] = { 0 };
		int out[NH];
		place_ok(JOB_PLACE_SPREAD, n, 0, NULL, taken, out);
		CU_ASSERT_EQUAL(count_distinct(edge_of, out, n), n < 8 ? n : 8);
		CU_ASSERT_EQUAL(count_distinct(pod_of, out, n), n < 4 ? n : 4);
		CU_ASSERT_EQUAL(count_distinct(all_hosts, out, n), n); /* no host twice */
	}
	/* A second spread job interleaves with the first: one host of each
	 * on every switch. */
	unsigned char taken[NH] = { 0 };
	int a[8], b[8];
	place_ok(JOB_PLACE_SPREAD, 8, 0, NULL, taken, a);
	place_ok(JOB_PLACE_SPREAD, 8, 0, NULL, taken, b);
	CU_ASSERT_EQUAL(count_distinct(edge_of, b, 8), 8);
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 8; k++)
			CU_ASSERT(a[i] != b[k]);
}

static void test_random(void)
{
	fat_tree_k4();
	int out[3][6];
	for (int t = 0; t < 3; t++) {
		unsigned char taken[NH] = { 0 };
		taken[3] = taken[7] = JOB_HOST_TAKEN;
		gsl_rng *r = rng_stream(t < 2 ? 42 : 43, RNG_PLACEMENT, 0);
		place_ok(JOB_PLACE_RANDOM, 6, 0, r, taken, out[t]);
		gsl_rng_free(r);
		for (int i = 0; i < 6; i++)
			CU_ASSERT(out[t][i] != 3 && out[t][i] != 7);
		CU_ASSERT_EQUAL(count_distinct(all_hosts, out[t], 6), 6);
	}
	CU_ASSERT_EQUAL(memcmp(out[0], out[1], sizeof out[0]), 0);  /* same seed */
	CU_ASSERT_NOT_EQUAL(memcmp(out[0], out[2], sizeof out[0]), 0); /* another seed */
}

static void test_fragmented(void)
{
	fat_tree_k4();
	unsigned char taken[NH] = { 0 };
	taken[0] = taken[1] = JOB_HOST_TAKEN; /* an earlier job */
	unsigned char before[NH];
	memcpy(before, taken, NH);
	int out[4];
	gsl_rng *r = rng_stream(1, RNG_PLACEMENT, 1);
	place_ok(JOB_PLACE_FRAGMENTED, 4, 0.5, r, taken, out);
	gsl_rng_free(r);
	int busy = 0, mine = 0;
	for (int h = 0; h < NH; h++) {
		busy += taken[h] == JOB_HOST_BUSY;
		mine += taken[h] == JOB_HOST_TAKEN && !before[h];
		if (taken[h] == JOB_HOST_BUSY)
			CU_ASSERT_EQUAL(before[h], JOB_HOST_FREE);
	}
	CU_ASSERT_EQUAL(busy, 7);  /* round(0.5 x 14 free) */
	CU_ASSERT_EQUAL(mine, 4);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(before[out[i]], JOB_HOST_FREE);
		CU_ASSERT_EQUAL(taken[out[i]], JOB_HOST_TAKEN);
		if (i)
			CU_ASSERT(out[i] > out[i - 1]); /* free hosts in host order */
		/* every free, not busy host below out[i] is one of the job's */
		for (int h = 2; h < out[i]; h++)
			CU_ASSERT(taken[h] != JOB_HOST_FREE);
	}
	/* Too busy for the job: fails, marks nothing. */
	unsigned char t2[NH] = { 0 };
	int avail, clash, o2[16];
	r = rng_stream(1, RNG_PLACEMENT, 2);
	CU_ASSERT_EQUAL(job_place(&fab, JOB_PLACE_FRAGMENTED, all_hosts, NH, 9, 0.5, r, t2, o2, &avail, &clash), -1);
	gsl_rng_free(r);
	CU_ASSERT_EQUAL(avail, 8);
	for (int h = 0; h < NH; h++)
		CU_ASSERT_EQUAL(t2[h], JOB_HOST_FREE);
}

static void test_explicit_overlap(void)
{
	fat_tree_k4();
	unsigned char taken[NH] = { 0 };
	int list_a[] = { 2, 3, 4 }, list_b[] = { 5, 4, 6 }, out[3], avail, clash;
	CU_ASSERT_EQUAL(job_place(&fab, JOB_PLACE_HOSTS, list_a, 3, 3, 0, NULL, taken, out, &avail, &clash), 0);
	CU_ASSERT_EQUAL(job_place(&fab, JOB_PLACE_HOSTS, list_b, 3, 3, 0, NULL, taken, out, &avail, &clash), -1);
	CU_ASSERT_EQUAL(clash, 4);
	CU_ASSERT_EQUAL(taken[5], JOB_HOST_FREE); /* nothing marked */
}

/* ---- Runs ---- */

static const char job_text[] =
	"model = custom\nlayers = 2\nhidden = 512\nheads = 8\nvocab = 1000\nseq_len = 128\n"
	"global_batch = 4\ndp = 4\n";
static const double S_b = 27262976.0, n_ranks = 4;

/* The ring all-reduce of S over n ranks at rate_bps x share, in us. */
static double ring_us(double rate_bps, double share)
{
	return 2 * (n_ranks - 1) / n_ranks * S_b * 8 / (rate_bps * share * 4096.0 / 4178.0) * 1e6;
}

static char scen[4096];

/* Leaf-spine of one spine; the jobs' extra lines (placement, priority). */
static const char *two_jobs(int hosts_per_leaf, const char *uplink, const char *a, const char *b)
{
	int n = snprintf(scen, sizeof scen,
			 "[simulation]\nprogress = off\nseed = 1\n"
			 "[topology]\ntype = leaf_spine\nleaves = 4\nspines = 1\nhosts_per_leaf = %d\n"
			 "host_link_rate = 100Gbps\nlink_rate = %s\nlink_delay = 1us\n"
			 "[nic]\nmtu = 4096\ncc = none\n"
			 "[job.a]\n%s%s\n", hosts_per_leaf, uplink, job_text, a);
	if (b)
		snprintf(scen + n, sizeof scen - (size_t)n, "[job.b]\n%s%s\n", job_text, b);
	return scen;
}

static double coll_us(sqlite3 *db, const char *job)
{
	char q[200];
	snprintf(q, sizeof q, "SELECT (end_ps - start_ps) / 1e6 FROM collective WHERE job = '%s' AND op = 'allreduce'",
		 job);
	return q_real(db, q);
}

static bool within(const char *what, double got, double want, double tol)
{
	bool ok = fabs(got - want) <= tol * want;
	printf("  %s: %.1f us, predicted %.1f us (%+.2f%%, tolerance %.0f%%)%s\n", what, got, want,
	       100 * (got / want - 1), 100 * tol, ok ? "" : "  <-- FAIL");
	return ok;
}

static void test_two_jobs_packed_vs_spread(void)
{
	sqlite3 *solo = run_text(two_jobs(2, "100Gbps", "placement = packed\n", NULL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(solo);
	double t_solo = coll_us(solo, "a");
	sqlite3_close(solo);
	CU_ASSERT(within("a alone", t_solo, ring_us(100e9, 1), 0.05));

	sqlite3 *packed = run_text(two_jobs(2, "100Gbps", "placement = packed\n", "placement = packed\n"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(packed);
	/* Each job on leaves of its own. */
	CU_ASSERT_EQUAL(q_int(packed, "SELECT count(*) FROM flow WHERE job = 'a' AND "
				      "(CAST(substr(src, 5) AS INT) >= 4 OR CAST(substr(dst, 5) AS INT) >= 4)"), 0);
	CU_ASSERT(within("a packed beside b", coll_us(packed, "a"), t_solo, 0.01));
	CU_ASSERT(within("b packed beside a", coll_us(packed, "b"), t_solo, 0.01));
	sqlite3_close(packed);

	sqlite3 *spread = run_text(two_jobs(2, "100Gbps", "placement = spread\n", "placement = spread\n"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(spread);
	/* Interleaved: a on even hosts, b on odd ones. */
	CU_ASSERT_EQUAL(q_int(spread, "SELECT count(*) FROM flow WHERE transport = 'network' AND "
				      "CAST(substr(src, 5) AS INT) % 2 != (job = 'b')"), 0);
	CU_ASSERT(within("a interleaved with b", coll_us(spread, "a"), ring_us(100e9, 0.5), 0.07));
	CU_ASSERT(within("b interleaved with a", coll_us(spread, "b"), ring_us(100e9, 0.5), 0.07));
	sqlite3_close(spread);
}

static void test_priorities(void)
{
	sqlite3 *db = run_text(two_jobs(2, "100Gbps", "placement = spread\npriority = 3\n",
					"placement = spread\npriority = 5\n"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE transport = 'network' AND "
				  "priority != CASE job WHEN 'a' THEN 3 ELSE 5 END"), 0);
	CU_ASSERT(q_int(db, "SELECT count(*) FROM flow WHERE job = 'b' AND priority = 5") > 0);
	CU_ASSERT(within("a (class 3) beside b (class 5)", coll_us(db, "a"), ring_us(100e9, 0.5), 0.07));
	CU_ASSERT(within("b (class 5) beside a (class 3)", coll_us(db, "b"), ring_us(100e9, 0.5), 0.07));
	CU_ASSERT_EQUAL(q_int(db, "SELECT packets_dropped FROM run"), 0); /* both classes lossless */
	sqlite3_close(db);
}

/* A job beside an incast on its hosts' NICs: 3 x 20 MB into host0 from
 * host1..host3 (class 3), PFC pausing class 3 at the senders, and a
 * 2-host DP job on host1 and host2. On class 3 the job's frames wait out
 * the incast's pauses with it; on class 5 its queue pairs keep sending
 * while class 3 is paused (the NIC skips paused classes), so its
 * all-reduce ends sooner, its flows carry class 5, no class-5 pause
 * happens and nothing is dropped. */
static const char hol_text[] =
	"[simulation]\nprogress = off\nseed = 1\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[nic]\nmtu = 4096\ncc = none\n"
	"[traffic.incast]\ntype = incast\nsenders = host1 host2 host3\nreceiver = host0\nsize = 20MB\nstart = 0us\n"
	"[job.a]\nmodel = custom\nlayers = 2\nhidden = 512\nheads = 8\nvocab = 1000\nseq_len = 128\n"
	"global_batch = 2\ndp = 2\nhosts = host1 host2\npriority = %d\n";

static void test_priority_not_paused(void)
{
	double t[2];
	for (int i = 0; i < 2; i++) {
		snprintf(scen, sizeof scen, hol_text, i ? 5 : 3);
		sqlite3 *db = run_text(scen);
		CU_ASSERT_PTR_NOT_NULL_FATAL(db);
		t[i] = coll_us(db, "a");
		CU_ASSERT_EQUAL(q_int(db, "SELECT packets_dropped FROM run"), 0);
		CU_ASSERT(q_int(db, "SELECT count(*) FROM pfc_pause WHERE priority = 3") > 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM pfc_pause WHERE priority != 3"), 0);
		char q[200];
		snprintf(q, sizeof q, "SELECT count(*) FROM flow WHERE transport = 'network' AND job = 'a' AND priority != %d",
			 i ? 5 : 3);
		CU_ASSERT_EQUAL(q_int(db, q), 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE job IS NULL AND priority != 3"), 0);
		sqlite3_close(db);
	}
	printf("  all-reduce beside the incast: %.1f us on class 3, %.1f us on class 5\n", t[0], t[1]);
	CU_ASSERT(t[0] > 1.2 * t[1]);
}

/* The ring's bottleneck share from its edges in the flow table: an edge
 * between leaves crosses the source leaf's uplink and the destination's
 * downlink, each at half the host rate and shared by every edge on it. */
static double ring_share(sqlite3 *db, int hosts_per_leaf)
{
	sqlite3_stmt *st;
	CU_ASSERT_FATAL(sqlite3_prepare_v2(db, "SELECT DISTINCT CAST(substr(src, 5) AS INT), CAST(substr(dst, 5) AS INT) "
					   "FROM flow WHERE transport = 'network'", -1, &st, NULL) == SQLITE_OK);
	int e[16][2], ne = 0, up[4] = { 0 }, down[4] = { 0 };
	while (sqlite3_step(st) == SQLITE_ROW && ne < 16) {
		e[ne][0] = sqlite3_column_int(st, 0) / hosts_per_leaf;
		e[ne][1] = sqlite3_column_int(st, 1) / hosts_per_leaf;
		if (e[ne][0] != e[ne][1]) {
			up[e[ne][0]]++;
			down[e[ne][1]]++;
		}
		ne++;
	}
	sqlite3_finalize(st);
	CU_ASSERT_EQUAL(ne, 4); /* a ring of 4 */
	double share = 1;
	for (int i = 0; i < ne; i++)
		if (e[i][0] != e[i][1]) {
			int k = up[e[i][0]] > down[e[i][1]] ? up[e[i][0]] : down[e[i][1]];
			share = fmin(share, 0.5 / k);
		}
	return share;
}

static void test_fragmented_vs_packed(void)
{
	sqlite3 *packed = run_text(two_jobs(4, "50Gbps", "placement = packed\n", NULL));
	sqlite3 *frag = run_text(two_jobs(4, "50Gbps", "placement = fragmented\n", NULL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(packed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(frag);
	CU_ASSERT_DOUBLE_EQUAL(ring_share(packed, 4), 1, 1e-12); /* one leaf */
	double share = ring_share(frag, 4);
	CU_ASSERT(share < 1); /* the seed's draw spreads it over leaves */
	double tp = coll_us(packed, "a"), tf = coll_us(frag, "a");
	CU_ASSERT(within("packed on one leaf", tp, ring_us(100e9, 1), 0.05));
	CU_ASSERT(within("fragmented over leaves", tf, ring_us(100e9, share), 0.07));
	CU_ASSERT(tf > 1.5 * tp);
	/* The iteration stretches by the communication it exposes. */
	CU_ASSERT(q_real(frag, "SELECT end_ps - start_ps FROM iteration") >
		  q_real(packed, "SELECT end_ps - start_ps FROM iteration") + 0.9 * (tf - tp) * 1e6);
	sqlite3_close(packed);
	sqlite3_close(frag);
}

static void test_random_deterministic(void)
{
	const char *t = two_jobs(2, "100Gbps", "placement = random\n", "placement = random\n");
	char text[4096];
	snprintf(text, sizeof text, "%s", t);
	sqlite3 *a = run_text(text), *b = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	const char *q = "SELECT group_concat(job || src || dst || start_ps || end_ps || priority, ',') FROM "
			"(SELECT * FROM flow ORDER BY flow_id)";
	char *fa = q_text(a, q), *fb = q_text(b, q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
	CU_ASSERT_STRING_EQUAL(fa, fb);
	free(fa);
	free(fb);
	sqlite3_close(a);
	sqlite3_close(b);
}

static void test_overlap_rejected(void)
{
	int rc;
	sqlite3 *db = run_text_rc(two_jobs(2, "100Gbps", "hosts = host0 host1 host2 host3\n",
					   "hosts = host3 host4 host5 host6\n"), &rc);
	CU_ASSERT_PTR_NULL(db);
	CU_ASSERT_EQUAL(rc, EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "[job.b] hosts"));
	CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "host 'host3' is already used by [job.a]"));
	/* An explicit list is placed before the policies: b's hosts stay b's. */
	db = run_text(two_jobs(2, "100Gbps", "placement = packed\n", "hosts = host0 host1 host2 host3\n"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE job = 'a' AND CAST(substr(src, 5) AS INT) < 4"), 0);
	sqlite3_close(db);
	/* More than the fabric has free: a takes all 4 hosts. */
	db = run_text_rc(two_jobs(1, "100Gbps", "placement = packed\n", "placement = packed\n"), &rc);
	CU_ASSERT_EQUAL(rc, EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "[job.b] placement"));
}

TEST_MAIN("job_place",
	  { "packed: fewest edge switches and pods", test_packed },
	  { "spread: one host per edge switch in turn", test_spread },
	  { "random: seeded, free hosts only", test_random },
	  { "fragmented: busy hosts drawn, free ones in order", test_fragmented },
	  { "explicit lists that overlap fail", test_explicit_overlap },
	  { "two jobs packed vs interleaved: ring all-reduce closed form", test_two_jobs_packed_vs_spread },
	  { "priorities: classes in flow.priority, equal DWRR shares", test_priorities },
	  { "priority: a job on its own class is not paused with another", test_priority_not_paused },
	  { "fragmented vs packed: ring edges on half-rate uplinks", test_fragmented_vs_packed },
	  { "random placement: same seed, same flows", test_random_deterministic },
	  { "overlapping hosts and too few free hosts: located errors", test_overlap_rejected })
