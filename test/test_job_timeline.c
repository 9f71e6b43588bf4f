/*
 * test_job_timeline.c — the iteration's critical-path breakdown and the
 * compute_span table (models/job/job_timeline.c), from whole runs through
 * run_scenario, checked with SQL over the result database:
 *   - free communication (a collective that completes at once), p = 4
 *     stages, m = 8 micro-batches of equal compute but for the last
 *     stage's LM head (t_h forward, 2·t_h backward), then the optimizer
 *     step t_opt: the last stage never waits once it started, so the path
 *     is (p − 1)(t_f + t_b) + m(t_f + t_b + 3·t_h) + t_opt of compute, the
 *     busiest stage (the last) computes m(t_f + t_b + 3·t_h) + t_opt, so
 *     bubble = (p − 1)(t_f + t_b) = (p − 1)/m × ideal exactly, and
 *     nothing is exposed;
 *   - the compute spans equal the plan's compute: 2m spans per stage, a
 *     forward of layers_per_stage × (t_attn + t_mlp) (+ t_h on the last
 *     stage), a backward twice that, back to back inside each span when
 *     communication is free; one optimizer span per worker;
 *   - a 2-stage pipeline over a slow link: the stages' waits for each
 *     other's sends are exposed PP (the sendrecvs' own durations), the
 *     rest is compute and the (p − 1)/m bubble, nothing is "other";
 *   - dense 3D and MoE jobs on a real fabric: compute + bubble + the
 *     exposed parts add up to the iteration, exposed_comm_ps is their sum;
 *   - data parallelism: a communicator's queued reductions continue the
 *     chain of the one ahead (the path runs back through the queue),
 *     reductions after the backward follow a worker's whole compute, and
 *     ZeRO's gathers and waits (prefetched ZeRO-3 gathers, gathers after
 *     the reductions or at the next iteration's start) add up too;
 *   - interleaved 1F1B: the path's bubble is (p − 1)/(v·m) of the ideal;
 *     context parallelism's waited-for KV sends are exposed CP; a run
 *     stopped inside the optimizer step writes a row that adds up to the
 *     stop.
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

/* ---- Free communication (fake_coll.h) ---- */

/* The parts of the breakdown add up to the iteration, for every row. */
#define ADDS_UP "SELECT COUNT(*) FROM iteration WHERE end_ps IS NOT NULL AND " \
	"compute_ps + bubble_ps + exposed_tp_ps + exposed_pp_ps + exposed_dp_ps + exposed_ep_ps + exposed_cp_ps = " \
	"end_ps - start_ps AND exposed_comm_ps = exposed_tp_ps + exposed_pp_ps + exposed_dp_ps + exposed_ep_ps + " \
	"exposed_cp_ps " \
	"AND compute_ps > 0 AND bubble_ps >= 0"

/* Runs the scenario and checks that each of its `iterations` iterations
 * adds up (ADDS_UP); the database is the caller's to close. */
static sqlite3 *run_adding_up(const char *text, long long iterations)
{
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, ADDS_UP), iterations);
	return db;
}

/* p = 4 stages, m = 8 micro-batches, dp = tp = 1 (test_jobs.c's pipe). */
static const char pipe_text[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.pipe]\nmodel = custom\nlayers = 8\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n"
	"ffn_hidden = 2000000\ngpu = a100\nmfu = 0.05\nglobal_batch = 8\npp = 4\n";

static void test_bubble_free(void)
{
	struct job_plan_totals t;
	struct job_spec s;
	plan_of(pipe_text, &t, &s);
	sqlite3 *db = run_text_free(pipe_text, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	const long long p = 4, m = 8;
	long long t_f = s.layers_per_stage * (s.t_attn_f + s.t_mlp_f), t_b = 2 * t_f, t_h = s.t_head_f;
	CU_ASSERT(t_h > 0 && s.t_opt > 0);
	/* bubble = (p − 1)(t_f + t_b) = (p − 1)/m × m(t_f + t_b) */
	CU_ASSERT_EQUAL(q_int(db, "SELECT bubble_ps FROM iteration"), (p - 1) * (t_f + t_b));
	CU_ASSERT_EQUAL(q_int(db, "SELECT compute_ps FROM iteration"), m * (t_f + t_b + 3 * t_h) + s.t_opt);
	/* T = (m + p − 1)(t_f + t_b) + 3m·t_h + t_opt: every part is compute or bubble */
	CU_ASSERT_EQUAL(q_int(db, "SELECT end_ps - start_ps FROM iteration"),
			(m + p - 1) * (t_f + t_b) + 3 * m * t_h + s.t_opt);
	CU_ASSERT_EQUAL(q_int(db, "SELECT exposed_comm_ps + exposed_tp_ps + exposed_pp_ps + exposed_dp_ps + "
			      "exposed_ep_ps FROM iteration"), 0);
	CU_ASSERT_EQUAL(q_int(db, ADDS_UP), 1);
	sqlite3_close(db);
}

static void test_spans_match_plan(void)
{
	struct job_plan_totals t;
	struct job_spec s;
	plan_of(pipe_text, &t, &s);
	sqlite3 *db = run_text_free(pipe_text, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	const long long p = 4, m = 8;
	long long t_f = s.layers_per_stage * (s.t_attn_f + s.t_mlp_f), t_b = 2 * t_f, t_h = s.t_head_f;
	/* 2m spans per stage, each micro-batch once each way, and one
	 * optimizer span per worker (t_opt, micro_batch NULL) */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE kind != 'optimizer'"), 2 * m * p);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(DISTINCT stage || kind || micro_batch) FROM compute_span"), 2 * m * p);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE kind = 'optimizer' AND micro_batch IS NULL "
			      "AND compute_ps = end_ps - start_ps"), p);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MAX(compute_ps) FROM compute_span WHERE kind = 'optimizer'"), s.t_opt);
	/* a forward span computes layers_per_stage × (t_attn + t_mlp), a
	 * backward twice that; the last stage's also its LM head (t_h, 2·t_h) */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE kind = 'fwd'"), m * p);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MIN(compute_ps) = MAX(compute_ps) FROM compute_span WHERE kind = 'fwd' "
			      "AND stage < 3"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MAX(compute_ps) FROM compute_span WHERE kind = 'fwd' AND stage < 3"), t_f);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MIN(compute_ps) FROM compute_span WHERE kind = 'fwd' AND stage = 3"), t_f + t_h);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MIN(compute_ps) = MAX(compute_ps) FROM compute_span WHERE kind = 'bwd' "
			      "AND stage < 3"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MAX(compute_ps) FROM compute_span WHERE kind = 'bwd' AND stage < 3"), t_b);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MAX(compute_ps) FROM compute_span WHERE kind = 'bwd' AND stage = 3"),
			t_b + 2 * t_h);
	/* free communication: nothing between the compute steps of a span */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE end_ps - start_ps != compute_ps"), 0);
	/* the first three stages compute m(t_f + t_b) each, spans never overlap */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(DISTINCT c) FROM (SELECT SUM(compute_ps) c FROM compute_span "
			      "WHERE kind != 'optimizer' AND stage < 3 GROUP BY stage)"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT SUM(compute_ps) FROM compute_span WHERE stage = 0 AND kind != 'optimizer'"),
			m * (t_f + t_b));
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span a JOIN compute_span b ON a.stage = b.stage AND "
			      "a.rowid != b.rowid WHERE a.start_ps < b.end_ps AND b.start_ps < a.end_ps"), 0);
	/* 1F1B: stage 3 (the last) starts micro-batch 0's forward after the
	 * three stages before it did theirs, at 3 t_f */
	CU_ASSERT_EQUAL(q_int(db, "SELECT start_ps FROM compute_span WHERE stage = 3 AND micro_batch = 0 AND kind = 'fwd'"),
			3 * t_f);
	/* stage st runs on host st (one GPU per host, placement tp,ep,dp,pp) */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE gpu != 'host' || stage || '.gpu0'"), 0);
	sqlite3_close(db);
}

/* Two stages on two hosts over a 1 Gb/s link, one micro-batch: the path is
 * F(stage 0), send, F and B (stage 1), send, B(stage 0), then the tied
 * embedding all-reduce between the two stages. */
static const char slow_text[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 2\nlink_rate = 1Gbps\nlink_delay = 1us\n"
	"[job.pipe]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 1\nvocab = 100\nseq_len = 256\n"
	"ffn_hidden = 4096\ngpu = a100\nmfu = 0.05\nglobal_batch = 1\npp = 2\n";

static void test_slow_link_is_pp(void)
{
	struct job_plan_totals t;
	struct job_spec s;
	plan_of(slow_text, &t, &s);
	sqlite3 *db = run_text(slow_text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	long long t_f = s.layers_per_stage * (s.t_attn_f + s.t_mlp_f), t_b = 2 * t_f;
	long long T = q_int(db, "SELECT end_ps - start_ps FROM iteration");
	long long pp = q_int(db, "SELECT exposed_pp_ps FROM iteration");
	/* both sends are on the path: exposed PP is their durations */
	long long sends = q_int(db, "SELECT SUM(end_ps - start_ps) FROM collective WHERE parallelism = 'pp'");
	printf("\n    T %lld ps, exposed pp %lld ps, sends %lld ps, t_f %lld ps\n", T, pp, sends, t_f);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective WHERE parallelism = 'pp'"), 2);
	CU_ASSERT_EQUAL(pp, sends);
	/* a send of b·s·h × 2 B = 128 KiB takes at least its bits at 1 Gb/s */
	CU_ASSERT(pp >= 2 * (long long)(s.act_b * 8 * 1000));
	/* compute: the busiest stage (the last, with its LM head: 3·t_h) and
	 * the optimizer step; bubble (p − 1)/m of m(t_f + t_b); the tied
	 * embedding's all-reduce after the last backward is exposed DP */
	CU_ASSERT_EQUAL(q_int(db, "SELECT compute_ps FROM iteration"), t_f + t_b + 3 * s.t_head_f + s.t_opt);
	CU_ASSERT_EQUAL(q_int(db, "SELECT bubble_ps FROM iteration"), t_f + t_b);
	CU_ASSERT_EQUAL(q_int(db, "SELECT exposed_dp_ps FROM iteration"),
			q_int(db, "SELECT SUM(end_ps - start_ps) FROM collective WHERE parallelism = 'dp'"));
	CU_ASSERT_EQUAL(q_int(db, "SELECT exposed_tp_ps + exposed_ep_ps FROM iteration"), 0);
	CU_ASSERT_EQUAL(q_int(db, ADDS_UP), 1);
	/* the view leaves nothing in other_us */
	CU_ASSERT_EQUAL(q_int(db, "SELECT CAST(other_us * 1e6 AS INTEGER) FROM iteration_breakdown"), 0);
	sqlite3_close(db);
}

/* test_jobs.c's dense 3D job on 4 hosts of 2 GPUs: TP on NVLink, PP and DP
 * over the fabric. */
static const char gpt_text[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.gpt]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
	"global_batch = 8\ntp = 2\npp = 2\ndp = 2\niterations = 2\n";

static void test_dense_adds_up(void)
{
	sqlite3 *db = run_adding_up(gpt_text, 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE exposed_tp_ps > 0 AND exposed_pp_ps > 0 "
			      "AND exposed_dp_ps > 0 AND exposed_ep_ps = 0"), 2);
	/* spans: 2 workers per stage × 2 stages × 2m, m = 8 / (1 × 2) = 4 */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE iteration = 0 AND kind != 'optimizer'"),
			2 * 2 * 2 * 4);
	/* TP collectives lie inside the spans: a span is at least its compute */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE end_ps - start_ps < compute_ps"), 0);
	CU_ASSERT(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE end_ps - start_ps > compute_ps") > 0);
	sqlite3_close(db);
}

static const char moe_text[] =
	"[simulation]\nprogress = off\nseed = 3\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.moe]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 1000\n"
	"experts = 8\ntop_k = 2\nglobal_batch = 8\ndp = 4\nep = 4\niterations = 2\nmoe_skew = 1.2\n";

static void test_moe_adds_up(void)
{
	sqlite3 *db = run_adding_up(moe_text, 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE exposed_ep_ps > 0 AND bubble_ps = 0"), 2);
	sqlite3_close(db);
}

/* ---- Data parallelism and ZeRO (streams, gathers, waits) ---- */

/* test_job_zero.c's small dense job: 8 layers of 12h² parameters
 * (h = 256), dp 4, slow GPUs (mfu 0.02) so that compute and the
 * reductions are comparable. */
static const char dp_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.s]\nmodel = custom\nlayers = 8\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
	"dp = 4\nmfu = 0.02\nglobal_batch = %d\niterations = 2\n%s";

/* overlap_grad_reduce: the buckets are posted during the backward, one
 * stream runs them one after another. With reductions slower than the
 * compute that fills the buckets, each one waits in the queue for the one
 * ahead; that one's end is what let it start, so the critical path runs
 * back through the queue to the first reduction: its start is the path's
 * compute (every worker computes the same: no bubble), and the stream's
 * busy time from there to the optimizer step is exposed DP:
 *   compute_ps = start of the first reduction − iteration start + t_opt
 *   exposed_dp_ps = Σ durations of the reductions (the stream never idles)
 * (Chaining each reduction from its own posting would put the compute up
 * to the last bucket's posting on the path instead.) */
static void test_dp_stream_on_path(void)
{
	char text[1024];
	snprintf(text, sizeof text, dp_fmt, 8, "overlap_grad_reduce = on\ndp_bucket = 1966080\n");
	sqlite3 *db = run_adding_up(text, 2);
	for (int it = 0; it < 2; it++) {
		char q[400];
		snprintf(q, sizeof q, "SELECT MAX(end_ps) - MIN(start_ps) = SUM(end_ps - start_ps) FROM collective "
			 "WHERE parallelism = 'dp' AND iteration = %d", it);
		CU_ASSERT_EQUAL_FATAL(q_int(db, q), 1); /* the stream never idles once it started */
		snprintf(q, sizeof q, "SELECT (SELECT exposed_dp_ps FROM iteration WHERE iteration = %d) = "
			 "SUM(end_ps - start_ps) FROM collective WHERE parallelism = 'dp' AND iteration = %d", it, it);
		CU_ASSERT_EQUAL(q_int(db, q), 1);
		snprintf(q, sizeof q, "SELECT (SELECT compute_ps FROM iteration WHERE iteration = %d) = MIN(c.start_ps) "
			 "- (SELECT start_ps FROM iteration WHERE iteration = %d) + (SELECT MAX(compute_ps) FROM "
			 "compute_span WHERE kind = 'optimizer' AND iteration = %d) FROM collective c "
			 "WHERE parallelism = 'dp' AND iteration = %d", it, it, it, it);
		CU_ASSERT_EQUAL(q_int(db, q), 1);
		/* the path's compute is less than a worker's: the last buckets' compute is hidden */
		snprintf(q, sizeof q, "SELECT (SELECT compute_ps FROM iteration WHERE iteration = %d) < SUM(compute_ps) "
			 "FROM compute_span WHERE iteration = %d AND dp_index = 0", it, it);
		CU_ASSERT_EQUAL(q_int(db, q), 1);
		snprintf(q, sizeof q, "SELECT bubble_ps + exposed_tp_ps + exposed_pp_ps + exposed_ep_ps FROM iteration "
			 "WHERE iteration = %d", it);
		CU_ASSERT_EQUAL(q_int(db, q), 0);
	}
	sqlite3_close(db);
}

/* Without overlap_grad_reduce the reductions follow the backward: the
 * path is a worker's whole compute, then the stream's reductions:
 *   compute_ps = Σ a worker's compute, exposed_dp_ps = Σ durations. */
static void test_dp_after_backward(void)
{
	char text[1024];
	snprintf(text, sizeof text, dp_fmt, 8, "dp_bucket = 1966080\n");
	sqlite3 *db = run_adding_up(text, 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT exposed_dp_ps FROM iteration WHERE iteration = 0"),
			q_int(db, "SELECT SUM(end_ps - start_ps) FROM collective WHERE parallelism = 'dp' AND iteration = 0"));
	CU_ASSERT_EQUAL(q_int(db, "SELECT compute_ps FROM iteration WHERE iteration = 0"),
			q_int(db, "SELECT SUM(compute_ps) FROM compute_span WHERE iteration = 0 AND dp_index = 0"));
	sqlite3_close(db);
}

/* ZeRO-3's prefetched gathers (waited for by AG_WAIT), ZeRO-2's
 * reductions every micro-batch, ZeRO-1's gathers after the reductions and,
 * with overlap_param_gather, at the next iteration's start (waited for by
 * the first forward of each bucket): every iteration's parts add up (the
 * simulation checks it too), the gathers' waits are exposed DP, nothing
 * else is exposed in a dense job without TP or PP. With tp = 2, several
 * communicators run beside each other. */
static void test_zero_adds_up(void)
{
	static const char *const extra[] = {
		"zero = 3\n",
		"zero = 3\nzero3_prefetch = 0\n",
		"zero = 2\ndp_bucket = 1966080\n",
		"zero = 1\n",
		"zero = 1\noverlap_grad_reduce = on\noverlap_param_gather = on\ndp_bucket = 1966080\n",
		"zero = 1\noverlap_grad_reduce = on\noverlap_param_gather = on\ndp_bucket = 1966080\ngrad_reduce_dtype = bf16\n",
	};
	for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
		char text[1024];
		snprintf(text, sizeof text, dp_fmt, 16, extra[i]);
		sqlite3 *db = run_text(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(db);
		long long n = q_int(db, ADDS_UP);
		if (n != 2)
			printf("\n    %s: %lld of 2 iterations add up\n", extra[i], n);
		CU_ASSERT_EQUAL(n, 2);
		CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE exposed_dp_ps > 0 AND exposed_tp_ps = 0 "
				      "AND exposed_pp_ps = 0 AND exposed_ep_ps = 0 AND bubble_ps = 0"), 2);
		sqlite3_close(db);
	}
	/* tp = 2: two DP communicators per stage */
	char text[1024];
	snprintf(text, sizeof text, "[simulation]\nprogress = off\n"
		 "[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		 "[job.s]\nmodel = custom\nlayers = 8\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
		 "tp = 2\ndp = 4\nglobal_batch = 8\niterations = 2\nzero = 3\n");
	sqlite3 *db = run_adding_up(text, 2);
	sqlite3_close(db);
}

/* ---- Schedules: interleaving, recompute, context parallelism, the
 * optimizer step ---- */

/* test_job_sched.c's pipeline: p = 4 stages of 2 layers, m = 8, the MLP
 * dominating the compute; v model chunks per stage; extra keys. */
static const char sched_fmt[] =
	"[simulation]\nprogress = off\n%s"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.pipe]\nmodel = custom\nlayers = 8\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n"
	"ffn_hidden = 2000000\ngpu = a100\nmfu = 0.05\nglobal_batch = 8\npp = 4\n"
	"virtual_pipeline_stages = %d\n%s";

/* Interleaved 1F1B (v = 2) with free communication: the path's bubble is
 * the interleaved schedule's, (p − 1)/(v·m) of the ideal m(t_f + t_b),
 * i.e. (p − 1)(t_f + t_b)/v (SC'21), within 5% (the last stage's LM head
 * makes the stages slightly unequal); a compute span per pass, v per
 * micro-batch and direction. On the fabric, with full recompute, the parts
 * add up too. */
static void test_interleaved_path(void)
{
	char text[1024];
	struct job_plan_totals t;
	struct job_spec s;
	snprintf(text, sizeof text, sched_fmt, "", 2, "");
	plan_of(text, &t, &s);
	sqlite3 *db = run_text_free(text, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	const double p = 4, m = 8, v = 2;
	double t_f = (double)(s.layers_per_stage * (s.t_attn_f + s.t_mlp_f)), t_b = 2 * t_f;
	double bubble = (double)q_int(db, "SELECT bubble_ps FROM iteration"), want = (p - 1) * (t_f + t_b) / v;
	printf("\n    interleaved bubble %.0f ps, (p-1)(t_f+t_b)/v %.0f ps\n", bubble, want);
	CU_ASSERT(fabs(bubble / want - 1) < 0.05);
	CU_ASSERT_EQUAL(q_int(db, ADDS_UP), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT exposed_comm_ps FROM iteration"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE kind != 'optimizer'"),
			(long long)(2 * m * v * p));
	sqlite3_close(db);
	snprintf(text, sizeof text, sched_fmt, "", 2, "recompute = full\niterations = 2\n");
	db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, ADDS_UP), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE exposed_pp_ps > 0"), 2);
	sqlite3_close(db);
}

/* Context parallelism over a slow fabric (cp = 2, dp = 2 on four hosts of
 * one GPU at 1 Gb/s: each cp pair crosses the fabric): ring attention's KV
 * sends outlast the block compute they overlap, so the workers wait at
 * CP_WAIT and the path holds exposed CP; the parts add up. */
static void test_cp_on_path(void)
{
	static const char text[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 4\nlink_rate = 1Gbps\nlink_delay = 1us\n"
		"[job.c]\nmodel = custom\nlayers = 2\nhidden = 512\nheads = 8\nkv_heads = 2\nvocab = 512\n"
		"seq_len = 1024\nglobal_batch = 2\ndp = 2\ncp = 2\n";
	sqlite3 *db = run_adding_up(text, 1);
	CU_ASSERT(q_int(db, "SELECT COUNT(*) FROM collective WHERE parallelism = 'cp'") > 0);
	CU_ASSERT(q_int(db, "SELECT exposed_cp_ps FROM iteration") > 0);
	sqlite3_close(db);
}

/* A run stopped in the middle of the optimizer step: the unfinished row's
 * chain runs through the step up to the stop, so its parts add up to
 * stop − start exactly; every worker's spans before it are written. The
 * stop comes from a full run: its optimizer span's start + t_opt/2. */
static void test_stop_in_optimizer(void)
{
	char text[1024];
	snprintf(text, sizeof text, sched_fmt, "", 1, "");
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	long long o0 = q_int(db, "SELECT MIN(start_ps) FROM compute_span WHERE kind = 'optimizer'");
	long long opt = q_int(db, "SELECT MAX(compute_ps) FROM compute_span WHERE kind = 'optimizer'");
	long long spans = q_int(db, "SELECT COUNT(*) FROM compute_span WHERE kind != 'optimizer'");
	sqlite3_close(db);
	CU_ASSERT_FATAL(opt > 1);
	char stop[64];
	snprintf(stop, sizeof stop, "stop = %lldps\n", o0 + opt / 2);
	snprintf(text, sizeof text, sched_fmt, stop, 1, "");
	db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT status = 'stopped' FROM run"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE end_ps IS NULL"), 1);
	char q[400];
	snprintf(q, sizeof q, "SELECT compute_ps + bubble_ps + exposed_comm_ps = %lld - start_ps AND exposed_comm_ps = "
		 "exposed_tp_ps + exposed_pp_ps + exposed_dp_ps + exposed_ep_ps + exposed_cp_ps FROM iteration",
		 o0 + opt / 2);
	CU_ASSERT_EQUAL(q_int(db, q), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM compute_span WHERE kind != 'optimizer'"), spans);
	sqlite3_close(db);
}

TEST_MAIN("job_timeline",
	  { "free fabric: bubble = (p-1)/m x ideal, nothing exposed", test_bubble_free },
	  { "compute spans equal the plan's compute", test_spans_match_plan },
	  { "2-stage pipeline over a slow link: the wait is exposed PP", test_slow_link_is_pp },
	  { "dense 3D: the parts add up to the iteration", test_dense_adds_up },
	  { "MoE: the parts add up, the all-to-alls are exposed EP", test_moe_adds_up },
	  { "DP stream backlog: the path runs back through the queue", test_dp_stream_on_path },
	  { "DP after the backward: compute, then the reductions", test_dp_after_backward },
	  { "ZeRO-1/2/3 gathers and waits: the parts add up", test_zero_adds_up },
	  { "interleaved 1F1B: bubble (p-1)/(v m) on the path; recompute adds up", test_interleaved_path },
	  { "context parallelism: KV sends waited for are exposed CP", test_cp_on_path },
	  { "stopped during the optimizer step: the unfinished row adds up", test_stop_in_optimizer })
