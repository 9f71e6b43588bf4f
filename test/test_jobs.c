/*
 * test_jobs.c — whole runs of training jobs through run_scenario (the path
 * `sim` takes), checked with SQL over the result database:
 *   - --check's plan equals, per parallelism and iteration, the bytes and
 *     messages the simulation moved (dense 3D GPT job);
 *   - PP flows only between adjacent stages of one replica, TP flows only
 *     inside a TP group, the same TP/DP/PP traffic every iteration;
 *   - the 1F1B bubble: (T_iter − m(t_f + t_b)) / (m(t_f + t_b)) within 2% of
 *     (p − 1)/m, with free communication (a collective that completes at
 *     once) and with real, tiny pipeline messages;
 *   - two jobs on one fabric, `hosts` and `start` honoured;
 *   - MoE: skew 0 gives equal all-to-all pairs; skew > 0 unequal pairs and
 *     different volumes per iteration; the same seed the same flow table.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "run_fixture.h"
#include "fake_coll.h"
#include "plan_fixture.h"
#include "sim.h"
#include "sqlutil.h"
#include "testutil.h"
#include "xalloc.h"

static const char gpt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.gpt]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
	"global_batch = 8\ntp = 2\npp = 2\ndp = 2\niterations = 2\n";

static int gpu_id(const char *name)
{
	int h, g;
	return sscanf(name, "host%d.gpu%d", &h, &g) == 2 ? h * 2 + g : -1;
}

static void test_plan_equals_simulation(void)
{
	struct job_plan_totals t;
	plan_of(gpt, &t, NULL);
	sqlite3 *db = run_text(gpt);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	char q[300];
	for (int it = 0; it < 2; it++)
		for (int p = 0; p < JOB_NPAR; p++) {
			snprintf(q, sizeof q, "SELECT COALESCE(SUM(size_bytes), 0) FROM flow "
				 "WHERE job = 'gpt' AND iteration = %d AND parallelism = '%s'", it, job_par_name[p]);
			long long got = q_int(db, q);
			if ((uint64_t)got != t.bytes[p])
				printf("iteration %d %s: simulated %lld bytes, plan %llu\n", it, job_par_name[p], got,
				       (unsigned long long)t.bytes[p]);
			CU_ASSERT_EQUAL((uint64_t)got, t.bytes[p]);
			snprintf(q, sizeof q, "SELECT COUNT(*) FROM flow "
				 "WHERE job = 'gpt' AND iteration = %d AND parallelism = '%s'", it, job_par_name[p]);
			CU_ASSERT_EQUAL((uint64_t)q_int(db, q), t.messages[p]);
		}
	CU_ASSERT(t.bytes[JOB_PAR_TP] > 0 && t.bytes[JOB_PAR_PP] > 0 && t.bytes[JOB_PAR_DP] > 0);
	/* Ranks: tp innermost, then dp, then pp: GPU = tp + 2 dp + 4 stage. */
	sqlite3_stmt *st;
	CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "SELECT src_gpu, dst_gpu, parallelism FROM flow", -1, &st, NULL),
			      SQLITE_OK);
	int rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int a = gpu_id((const char *)sqlite3_column_text(st, 0));
		int b = gpu_id((const char *)sqlite3_column_text(st, 1));
		const char *par = (const char *)sqlite3_column_text(st, 2);
		rows++;
		if (!strcmp(par, "pp")) {        /* adjacent stages, same tp rank and replica */
			CU_ASSERT_EQUAL(abs(a / 4 - b / 4), 1);
			CU_ASSERT_EQUAL(a % 4, b % 4);
		} else if (!strcmp(par, "tp")) { /* one TP group: one host here */
			CU_ASSERT_EQUAL(a / 2, b / 2);
		} else if (!strcmp(par, "dp")) { /* same tp rank; same stage or the embedding pair */
			CU_ASSERT_EQUAL(a % 2, b % 2);
		}
	}
	sqlite3_finalize(st);
	CU_ASSERT(rows > 0);
	/* Identical dense traffic every iteration, pair by pair. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM (SELECT src_gpu, dst_gpu, parallelism, SUM(size_bytes) s "
			      "FROM flow WHERE iteration = 0 GROUP BY 1, 2, 3 EXCEPT SELECT src_gpu, dst_gpu, "
			      "parallelism, SUM(size_bytes) FROM flow WHERE iteration = 1 GROUP BY 1, 2, 3)"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE job = 'gpt' AND end_ps > start_ps "
			      "AND comm_ps >= exposed_comm_ps AND compute_ps > 0"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration a JOIN iteration b ON b.iteration = 1 "
			      "WHERE a.iteration = 0 AND b.start_ps = a.end_ps"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM run WHERE status = 'complete'"), 1);
	sqlite3_close(db);
}

/* ---- Free communication (fake_coll.h) ---- */

/* p = 4 stages, m = 8 micro-batches, dp = tp = 1. */
static const char pipe_text[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.pipe]\nmodel = custom\nlayers = 8\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n"
	"ffn_hidden = 2000000\ngpu = a100\nmfu = 0.05\nglobal_batch = 8\npp = 4\n";

static void check_bubble(bool free_comm)
{
	struct job_plan_totals t;
	struct job_spec s;
	plan_of(pipe_text, &t, &s);
	sqlite3 *db = run_text_free(pipe_text, free_comm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	const double p = 4, m = 8;
	double t_f = (double)(s.layers_per_stage * (s.t_attn_f + s.t_mlp_f)), t_b = 2 * t_f;
	/* The optimizer step follows the last reduction; the LM head's logits
	 * (3·t_head per micro-batch, last stage only) can lengthen the
	 * pipeline by at most (m + p − 1) of them. */
	double t_opt = (double)s.t_opt, head = 3.0 * (double)s.t_head_f;
	double T = (double)q_int(db, "SELECT end_ps - start_ps FROM iteration") - t_opt;
	double bubble = (T - m * (t_f + t_b)) / (m * (t_f + t_b));
	printf("\n    bubble %.5f, (p-1)/m %.5f (t_f %.0f ps, T %.0f ps)\n", bubble, (p - 1) / m, t_f, T);
	CU_ASSERT(fabs(bubble / ((p - 1) / m) - 1) < 0.02);
	/* The critical path's compute (job_timeline.c) is at most the busiest
	 * stage's, the last one's (its LM head: 3·t_head per micro-batch), and
	 * the optimizer step: m(t_f + t_b + 3·t_head) + t_opt. With free
	 * communication the last stage never waits once it started, so the path
	 * holds all of it and the bubble is exactly (p − 1)(t_f + t_b). */
	long long busiest = (long long)(m * (t_f + t_b + head) + t_opt);
	CU_ASSERT(q_int(db, "SELECT compute_ps FROM iteration") <= busiest);
	if (free_comm) {
		CU_ASSERT_EQUAL(q_int(db, "SELECT compute_ps FROM iteration"), busiest);
		CU_ASSERT_EQUAL(q_int(db, "SELECT bubble_ps FROM iteration"), (long long)((p - 1) * (t_f + t_b)));
		CU_ASSERT(fabs(bubble - (p - 1) / m) <= (m + p - 1) * head / (m * (t_f + t_b)) + 1e-9);
		CU_ASSERT_EQUAL(q_int(db, "SELECT comm_ps FROM iteration"), 0);
		CU_ASSERT(fake_coll_calls > 0);
	}
	sqlite3_close(db);
}

static void test_bubble_free_comm(void) { check_bubble(true); }
static void test_bubble_real_comm(void) { check_bubble(false); }

/* Two jobs on one fabric, on their own hosts, the second starting later:
 * with free communication their iterations are equally long, back to back. */
static void test_two_jobs(void)
{
	static const char text[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.a]\nmodel = custom\nlayers = 2\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n"
		"global_batch = 4\npp = 2\nhosts = host0 host1\niterations = 3\n"
		"[job.b]\nmodel = custom\nlayers = 2\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n"
		"global_batch = 4\npp = 2\nhosts = host3 host2\niterations = 3\nstart = 1ms\n";
	sqlite3 *db = run_text_free(text, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration"), 6);
	CU_ASSERT_EQUAL(q_int(db, "SELECT start_ps FROM iteration WHERE job = 'b' AND iteration = 0"), 1000000000);
	CU_ASSERT_EQUAL(q_int(db, "SELECT start_ps FROM iteration WHERE job = 'a' AND iteration = 0"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(DISTINCT end_ps - start_ps) FROM iteration"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration x JOIN iteration y ON x.job = y.job "
			      "AND y.iteration = x.iteration + 1 WHERE y.start_ps = x.end_ps"), 4);
	sqlite3_close(db);
}

/* ---- MoE ---- */

static const char moe_text[] =
	"[simulation]\nprogress = off\nseed = %d\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.moe]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 1000\n"
	"experts = 8\ntop_k = 2\nglobal_batch = 8\ndp = 4\nep = 4\niterations = 2\nmoe_skew = %s\n";

static sqlite3 *run_moe(int seed, const char *skew)
{
	char text[sizeof moe_text + 64];
	snprintf(text, sizeof text, moe_text, seed, skew);
	return run_text(text);
}

static void test_moe_uniform_pairs(void)
{
	sqlite3 *db = run_moe(1, "0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT(q_int(db, "SELECT COUNT(*) FROM flow WHERE parallelism = 'ep'") > 0);
	/* every pair of every all-to-all carries the same bytes */
	CU_ASSERT_EQUAL(q_int(db, "SELECT MAX(n) FROM (SELECT COUNT(DISTINCT s) n FROM (SELECT collective_id, "
			      "src_gpu, dst_gpu, SUM(size_bytes) s FROM flow WHERE parallelism = 'ep' GROUP BY 1, 2, 3) "
			      "GROUP BY collective_id)"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(DISTINCT s) FROM (SELECT iteration, SUM(size_bytes) s FROM flow "
			      "WHERE parallelism = 'ep' GROUP BY 1)"), 1);
	sqlite3_close(db);
}

static char *flow_digest(sqlite3 *db)
{
	return q_text(db, "SELECT group_concat(src_gpu || dst_gpu || size_bytes || ':' || start_ps || ':' || "
			  "recv_end_ps, ',') FROM (SELECT * FROM flow ORDER BY flow_id)");
}

static void test_moe_skewed_runs(void)
{
	sqlite3 *a = run_moe(5, "1.2"), *b = run_moe(5, "1.2"), *c = run_moe(6, "1.2");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	/* unequal pairs inside some all-to-all */
	CU_ASSERT(q_int(a, "SELECT MAX(n) FROM (SELECT COUNT(DISTINCT s) n FROM (SELECT collective_id, "
			   "src_gpu, dst_gpu, SUM(size_bytes) s FROM flow WHERE parallelism = 'ep' GROUP BY 1, 2, 3) "
			   "GROUP BY collective_id)") > 1);
	/* a different volume each iteration */
	CU_ASSERT_EQUAL(q_int(a, "SELECT COUNT(DISTINCT s) FROM (SELECT iteration, SUM(size_bytes) s FROM flow "
			       "WHERE parallelism = 'ep' GROUP BY 1)"), 2);
	char *da = flow_digest(a), *db = flow_digest(b), *dc = flow_digest(c);
	CU_ASSERT_STRING_EQUAL(da, db);
	CU_ASSERT(strcmp(da, dc) != 0);
	free(da);
	free(db);
	free(dc);
	sqlite3_close(a);
	sqlite3_close(b);
	sqlite3_close(c);
}

/* endpoint_delay d: a collective sees each piece d after its last byte
 * arrived. One ring per collective and one piece per step (channels 1,
 * a chunk above the buffer): every piece after the first step leaves
 * exactly d after its sender received the one before, over NVLink (TP)
 * and the network (DP) alike, and the collective ends d after its last
 * piece arrived. Without the delay the same holds with d = 0. */
#define DELAYED_JOB(d) \
	"[simulation]\nprogress = off\n" \
	"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n" \
	"[job.r]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n" \
	"global_batch = 4\ntp = 2\ndp = 4\niterations = 1\nchannels = 1\nchunk = 1GiB\n" \
	"endpoint_delay = " d "\n"

/* Pieces after a collective's first step that did not leave d ps after
 * a piece reached their sender in that collective. */
static long long late_starts(sqlite3 *db, long long d)
{
	char q[600];
	snprintf(q, sizeof q, "SELECT COUNT(*) FROM flow f JOIN collective c USING (collective_id) "
		 "WHERE f.start_ps > c.start_ps AND NOT EXISTS (SELECT 1 FROM flow g WHERE "
		 "g.collective_id = f.collective_id AND g.dst_gpu = f.src_gpu AND g.recv_end_ps + %lld = f.start_ps)",
		 d);
	return q_int(db, q);
}

static void test_endpoint_delay(void)
{
	const long long d = 3000000; /* 3 us */
	sqlite3 *now = run_text(DELAYED_JOB("0s")), *late = run_text(DELAYED_JOB("3us"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(late);
	const char *later = "SELECT COUNT(*) FROM flow f JOIN collective c USING (collective_id) "
			    "WHERE f.start_ps > c.start_ps";
	const char *nvl = "SELECT COUNT(*) FROM flow f JOIN collective c USING (collective_id) "
			  "WHERE f.start_ps > c.start_ps AND f.parallelism = 'tp'";
	const char *net = "SELECT COUNT(*) FROM flow f JOIN collective c USING (collective_id) "
			  "WHERE f.start_ps > c.start_ps AND f.parallelism = 'dp'";
	CU_ASSERT(q_int(late, nvl) > 0);
	CU_ASSERT(q_int(late, net) > 0);
	CU_ASSERT_EQUAL(q_int(now, later), q_int(late, later));
	CU_ASSERT_EQUAL(late_starts(now, 0), 0);
	CU_ASSERT_EQUAL(late_starts(late, d), 0);
	CU_ASSERT_EQUAL(late_starts(late, 0), q_int(late, later)); /* none at the instant of an arrival */
	char q[300];
	snprintf(q, sizeof q, "SELECT COUNT(*) FROM collective c WHERE end_ps <> (SELECT MAX(recv_end_ps) + %lld "
		 "FROM flow f WHERE f.collective_id = c.collective_id) OR ideal_ps > end_ps - start_ps", d);
	CU_ASSERT_EQUAL(q_int(late, q), 0);
	CU_ASSERT_EQUAL(q_int(now, "SELECT COUNT(*) FROM collective c WHERE end_ps <> (SELECT MAX(recv_end_ps) "
				   "FROM flow f WHERE f.collective_id = c.collective_id)"), 0);
	CU_ASSERT(q_int(late, "SELECT end_ps FROM iteration") > q_int(now, "SELECT end_ps FROM iteration"));
	sqlite3_close(now);
	sqlite3_close(late);
}

TEST_MAIN("jobs",
	  { "plan equals the simulated bytes (dense 3D GPT)", test_plan_equals_simulation },
	  { "1F1B bubble, free communication", test_bubble_free_comm },
	  { "1F1B bubble, real tiny messages", test_bubble_real_comm },
	  { "two jobs, a later start, back-to-back iterations", test_two_jobs },
	  { "MoE skew 0: equal pairs", test_moe_uniform_pairs },
	  { "MoE skew > 0: unequal, per iteration, same seed same run", test_moe_skewed_runs },
	  { "endpoint_delay: each piece seen that late", test_endpoint_delay })
