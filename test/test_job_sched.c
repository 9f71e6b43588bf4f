/*
 * test_job_sched.c — pipeline schedules and the per-layer work of a
 * training job against closed forms (docs/protocol.md "Training jobs"):
 *   - Megatron's interleaved 1F1B order, and its bubble (p − 1)/(v·m)
 *     within 5% with free communication and on an idle fabric; the
 *     interleaved run moves exactly the bytes --check plans;
 *   - activation recompute: full adds one forward per layer (overhead
 *     t_f/(t_f + t_b) = 1/3 of the layers' compute) and one forward's TP
 *     traffic, selective the core attention's 4·b·s²·h FLOPs and no bytes;
 *   - pipeline tensors without sequence parallelism: the whole tensor from
 *     every TP rank (Megatron-Core), or 1/tp plus an all-gather (SC'21);
 *   - vocabulary padding, the optimizer step;
 *   - context parallelism: ring attention's KV bytes, TP per cp rank, DP over
 *     dp × cp, the compute split over cp;
 *   - GPT-3 175B TP8 PP8 DP4 with sequence parallelism: --check's TP, PP
 *     and DP bytes equal the Megatron formulas within 1%.
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
#include "workload.h"
#include "xalloc.h"

/* ---- Free communication (fake_coll.h) ---- */

/* Runs text (free communication when asked); returns the iteration's
 * length minus the optimizer step, and the plan's spec in *s. */
static double iter_ps(const char *text, bool free_comm, struct job_spec *s, struct job_plan_totals *t)
{
	struct job_plan_totals tt;
	plan_of(text, t ? t : &tt, s);
	sqlite3 *db = run_text_free(text, free_comm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	double T = (double)q_int(db, "SELECT end_ps - start_ps FROM iteration WHERE iteration = 0");
	sqlite3_close(db);
	return T - (double)s->t_opt;
}

/* ---- Interleaved 1F1B ---- */

static void test_interleaved_order(void)
{
	enum { P = 4, M = 8, V = 2 };
	struct wl_pp_slot sl[2 * M * V];
	wl_pp_schedule_interleaved(P, 0, M, V, sl);
	/* Stage 0: (p − 1)·2 + (v − 1)·p = 10 warm-up forwards: chunk 0 of
	 * micro-batches 0-3, chunk 1 of 0-3, chunk 0 of 4-5; then F(chunk 0,
	 * mb 6) B(chunk 1, mb 0). */
	for (int k = 0; k < 10; k++) {
		CU_ASSERT_EQUAL(sl[k].dir, JOB_FWD);
		CU_ASSERT_EQUAL(sl[k].chunk, k < 4 ? 0 : k < 8 ? 1 : 0);
		CU_ASSERT_EQUAL(sl[k].mb, k < 8 ? k % 4 : k - 4);
	}
	CU_ASSERT(sl[10].dir == JOB_FWD && sl[10].chunk == 0 && sl[10].mb == 6);
	CU_ASSERT(sl[11].dir == JOB_BWD && sl[11].chunk == 1 && sl[11].mb == 0);
	for (int st = 0; st < P; st++) {
		wl_pp_schedule_interleaved(P, st, M, V, sl);
		int seen[2][V][M] = { { { 0 } } }, next[2][V] = { { 0 } };
		for (int i = 0; i < 2 * M * V; i++) {
			int d = sl[i].dir, c = sl[i].chunk, mb = sl[i].mb;
			CU_ASSERT_FATAL(c >= 0 && c < V && mb >= 0 && mb < M);
			seen[d][c][mb]++;
			CU_ASSERT_EQUAL(mb, next[d][c]); /* each chunk's micro-batches in order */
			next[d][c]++;
			if (d == JOB_BWD) /* a backward after its forward */
				CU_ASSERT_EQUAL(seen[JOB_FWD][c][mb], 1);
		}
		for (int d = 0; d < 2; d++)
			for (int c = 0; c < V; c++)
				for (int mb = 0; mb < M; mb++)
					CU_ASSERT_EQUAL(seen[d][c][mb], 1);
	}
	/* v = 1 is the plain 1F1B order. */
	struct wl_pp_slot a[2 * M], b[2 * M];
	wl_pp_schedule_interleaved(P, 1, M, 1, a);
	wl_pp_schedule(P, 1, M, b);
	for (int i = 0; i < 2 * M; i++)
		CU_ASSERT(a[i].dir == b[i].dir && a[i].mb == b[i].mb && a[i].chunk == b[i].chunk);
}

/* p = 4 stages, 8 layers, m = 8, dp = tp = 1; the MLP dominates the
 * compute; v from the caller. */
static const char pipe_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.pipe]\nmodel = custom\nlayers = 8\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n"
	"ffn_hidden = 2000000\ngpu = a100\nmfu = 0.05\nglobal_batch = 8\npp = 4\n"
	"virtual_pipeline_stages = %d\n";

static void check_interleaved_bubble(bool free_comm)
{
	const double p = 4, m = 8;
	for (int v = 1; v <= 2; v++) {
		char text[sizeof pipe_fmt + 16];
		snprintf(text, sizeof text, pipe_fmt, v);
		struct job_spec s;
		double T = iter_ps(text, free_comm, &s, NULL);
		/* t_f, t_b: one stage's forward and backward of one micro-batch
		 * (all its chunks); ideal = m(t_f + t_b); bubble (p − 1)/(v·m). */
		double t_f = (double)(s.layers_per_stage * (s.t_attn_f + s.t_mlp_f)), t_b = 2 * t_f;
		double bubble = (T - m * (t_f + t_b)) / (m * (t_f + t_b)), want = (p - 1) / (v * m);
		printf("\n    v %d: bubble %.5f, (p-1)/(v m) %.5f", v, bubble, want);
		CU_ASSERT(fabs(bubble / want - 1) < 0.05);
	}
}

static void test_interleaved_bubble_free(void) { check_interleaved_bubble(true); }
static void test_interleaved_bubble_real(void) { check_interleaved_bubble(false); }

/* An interleaved 3D job moves what --check plans, and its pipeline flows
 * include the wrap from the last stage to the first (chunk to chunk). */
static void test_interleaved_plan_equals_run(void)
{
	static const char text[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.g]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
		"global_batch = 8\ntp = 2\npp = 2\ndp = 2\nvirtual_pipeline_stages = 2\n";
	struct job_plan_totals t;
	plan_of(text, &t, NULL);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	plan_bytes_match(db, &t, -1);
	/* PP: b·s·h·2 B per hop, 2 directions, (p·v − 1) hops, m = 4 micro-batches,
	 * d = 2 replicas, times t = 2 (no sequence parallelism: whole tensors). */
	CU_ASSERT_EQUAL(t.bytes[JOB_PAR_PP], 2ull * (2 * 2 - 1) * 4 * 2 * (128 * 256 * 2) * 2);
	/* Ranks tp, dp, pp: GPU = tp + 2 dp + 4 stage; stage 1 (GPUs 4-7) sends
	 * forward to stage 0 between chunks, and stage 0 backward to stage 1. */
	CU_ASSERT(q_int(db, "SELECT COUNT(*) FROM flow WHERE parallelism = 'pp' AND src_gpu LIKE 'host2%' "
			    "AND dst_gpu LIKE 'host0%'") > 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM run WHERE status = 'complete'"), 1);
	sqlite3_close(db);
}

static void test_interleaved_errors(void)
{
	static const char head[] = "[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 8\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.e]\nmodel = custom\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n";
	char text[512];
	snprintf(text, sizeof text, "%slayers = 8\nglobal_batch = 8\npp = 4\nvirtual_pipeline_stages = 3\n", head);
	run_expect_error(text, "virtual_pipeline_stages = '3'", "multiple of pp x virtual_pipeline_stages");
	snprintf(text, sizeof text, "%slayers = 8\nglobal_batch = 6\npp = 4\nvirtual_pipeline_stages = 2\n", head);
	run_expect_error(text, "global_batch = '6'", "multiple of pp");
	snprintf(text, sizeof text, "%slayers = 8\nglobal_batch = 8\nvirtual_pipeline_stages = 2\n", head);
	run_expect_error(text, "virtual_pipeline_stages = '2'", "needs pp > 1");
}

/* ---- Activation recompute ---- */

/* One host, tp = 2 over NVLink, pp = dp = 1, m = 4. */
static const char rc_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 1\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.r]\nmodel = custom\nlayers = 4\nhidden = 512\nheads = 8\nvocab = 128\nseq_len = 2048\n"
	"global_batch = 4\ntp = 2\ngpu = a100\nmfu = 0.05\nrecompute = %s\n";

static void test_recompute(void)
{
	char text[sizeof rc_fmt + 16];
	struct job_spec s;
	struct job_plan_totals t[3];
	double T[3][2];
	static const char *const mode[3] = { "none", "selective", "full" };
	for (int i = 0; i < 3; i++)
		for (int fc = 0; fc < 2; fc++) {
			snprintf(text, sizeof text, rc_fmt, mode[i]);
			T[i][fc] = iter_ps(text, fc, &s, &t[i]);
		}
	/* Per micro-batch and layer, forward t_f = t_attn + t_mlp, backward 2·t_f.
	 * Full: one more forward: overhead L·t_f / (3·L·t_f + 3·t_head).
	 * Selective: the core attention again, 4·b·s²·h FLOPs / tp at the GPU's
	 * speed: overhead L·t_core / (3·L·t_f + 3·t_head). */
	const double L = 4, b = 1, sq = 2048, h = 512, tp = 2, V = 256; /* 128 padded to 128·tp */
	double rate = 312e12 * 0.05 / 1e12;      /* FLOP per ps */
	double t_f = (double)(s.t_attn_f + s.t_mlp_f);
	double t_core = 4 * b * sq * sq * h / tp / rate, t_head = 2 * b * sq * h * V / tp / rate;
	CU_ASSERT(fabs((double)s.t_core_f / t_core - 1) < 1e-6);
	CU_ASSERT(fabs((double)s.t_head_f / t_head - 1) < 1e-6);
	double base = 3 * L * t_f + 3 * t_head;
	double want[3] = { 0, L * t_core / base, L * t_f / base };
	for (int i = 1; i < 3; i++)
		for (int fc = 0; fc < 2; fc++) {
			double got = T[i][fc] / T[0][fc] - 1;
			printf("\n    %s (%s): overhead %.4f, closed form %.4f", mode[i], fc ? "free comm" : "NVLink",
			       got, want[i]);
			CU_ASSERT(fabs(got / want[i] - 1) < 0.05);
		}
	/* Bytes: selective moves nothing more; full re-runs each layer's two
	 * forward all-reduces of b·s·h·2 B (2(t−1)·S each, ring), per micro-batch. */
	const uint64_t m = 4, act = 2048 * 512 * 2;
	CU_ASSERT_EQUAL(t[1].bytes[JOB_PAR_TP], t[0].bytes[JOB_PAR_TP]);
	CU_ASSERT_EQUAL(t[2].bytes[JOB_PAR_TP] - t[0].bytes[JOB_PAR_TP], m * 4 * 2 * 2 * (2 - 1) * act);
}

/* ---- Pipeline tensors without sequence parallelism ---- */

static void test_pp_without_sp(void)
{
	static const char fmt[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 2\ngpus_per_host = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.g]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
		"global_batch = 2\ntp = 4\npp = 2\n%s\n";
	const uint64_t t = 4, m = 2, act = 128 * 256 * 2;
	struct job_plan_totals full, sg, sp;
	char text[sizeof fmt + 64];
	snprintf(text, sizeof text, fmt, "");
	plan_of(text, &full, NULL);
	snprintf(text, sizeof text, fmt, "pp_scatter_gather = on");
	plan_of(text, &sg, NULL);
	snprintf(text, sizeof text, fmt, "sequence_parallel = on");
	plan_of(text, &sp, NULL);
	/* Megatron-Core: every tp rank sends the whole b·s·h·2 B tensor, per
	 * micro-batch, forward and backward, over the one boundary. */
	CU_ASSERT_EQUAL(full.bytes[JOB_PAR_PP], m * 2 * t * act);
	/* SC'21: each rank sends 1/t, and the receiver all-gathers ((t−1)·S, ring). */
	CU_ASSERT_EQUAL(sg.bytes[JOB_PAR_PP], m * 2 * act);
	CU_ASSERT_EQUAL(sg.bytes[JOB_PAR_TP] - full.bytes[JOB_PAR_TP], m * 2 * (t - 1) * act);
	/* Sequence parallelism: each rank holds and sends its 1/t. */
	CU_ASSERT_EQUAL(sp.bytes[JOB_PAR_PP], m * 2 * act);
	/* The run moves what the plan says with the scatter/gather. */
	snprintf(text, sizeof text, fmt, "pp_scatter_gather = on");
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL((uint64_t)q_int(db, "SELECT SUM(size_bytes) FROM flow WHERE parallelism = 'tp'"),
			sg.bytes[JOB_PAR_TP]);
	CU_ASSERT_EQUAL((uint64_t)q_int(db, "SELECT SUM(size_bytes) FROM flow WHERE parallelism = 'pp'"),
			sg.bytes[JOB_PAR_PP]);
	sqlite3_close(db);
}

/* ---- Optimizer step ---- */

static void test_optimizer_step(void)
{
	static const char fmt[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.o]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
		"global_batch = 2\ndp = 2\nzero = %d\ngpu = h100\n%s";
	char text[sizeof fmt + 64];
	struct job_spec s;
	struct job_plan_totals t;
	/* Derived: 30 B per parameter whose optimizer state the GPU holds
	 * (12h² per layer + the tied embedding, V padded to 1024), over 3.35 TB/s;
	 * ZeRO-1 holds 1/dp of them. */
	double psi = 2 * 12.0 * 256 * 256 + 1024.0 * 256;
	for (int zero = 0; zero <= 1; zero++) {
		snprintf(text, sizeof text, fmt, zero, "");
		plan_of(text, &t, &s);
		double want = psi / (zero ? 2 : 1) * 30 / 3.35e12 * 1e12;
		CU_ASSERT(fabs((double)s.t_opt - want) <= 1);
	}
	/* Given: the iteration grows by exactly the difference (free communication). */
	snprintf(text, sizeof text, fmt, 0, "optimizer_step = 1ms\n");
	sqlite3 *a = run_text_free(text, true);
	snprintf(text, sizeof text, fmt, 0, "optimizer_step = 3ms\n");
	sqlite3 *b = run_text_free(text, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	const char *q = "SELECT end_ps - start_ps FROM iteration";
	CU_ASSERT_EQUAL(q_int(b, q) - q_int(a, q), 2000000000LL);
	CU_ASSERT_EQUAL(q_int(b, "SELECT compute_ps FROM iteration") - q_int(a, "SELECT compute_ps FROM iteration"),
			2000000000LL);
	sqlite3_close(a);
	sqlite3_close(b);
}

/* ---- Context parallelism ---- */

/* tp 2, cp 2, dp 2 on two hosts of 4 GPUs: rank = t + 2c + 4d, one
 * replica per host. GQA: 8 heads, 2 KV heads. */
static const char cp_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 2\ngpus_per_host = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.c]\nmodel = custom\nlayers = 2\nhidden = 512\nheads = 8\nkv_heads = 2\nvocab = 512\n"
	"seq_len = 1024\nglobal_batch = 4\ntp = 2\ndp = 2\ncp = %d\ngpu = a100\nmfu = 0.05\n";

static int gpu_no(const char *name)
{
	int h, g;
	return sscanf(name, "host%d.gpu%d", &h, &g) == 2 ? h * 4 + g : -1;
}

static void test_cp_volumes(void)
{
	char text[sizeof cp_fmt + 16];
	snprintf(text, sizeof text, cp_fmt, 2);
	struct job_plan_totals t;
	struct job_spec s;
	plan_of(text, &t, &s);
	/* g: fp32 gradient reductions, grad_reduce_dtype's default with zero 0
	 * (Megatron-LM). */
	const uint64_t tp = 2, cp = 2, d = 2, L = 2, m = 2, b = 1, sq = 1024, h = 512, hkv = 512 * 2 / 8, g = 4;
	/* KV block: K and V of s/cp tokens, h_kv wide, bf16, per tp shard. */
	const uint64_t kv = 2 * b * (sq / cp) * hkv * 2 / tp;
	CU_ASSERT_EQUAL(s.kv_b, kv);
	/* Ring attention per layer and micro-batch: cp − 1 steps in which each
	 * of the cp ranks sends one block (forward) or a block and its gradient
	 * (backward), in each tp index and replica. */
	CU_ASSERT_EQUAL(t.bytes[JOB_PAR_CP], d * m * L * tp * (cp - 1) * cp * (kv + 2 * kv));
	/* TP: each cp rank's tp group reduces its b·(s/cp)·h·2 B activations:
	 * 4 all-reduces per layer, the embedding's and the LM head's, 2(t−1)·S
	 * each; the cross entropy's 3 all-reduces of b·(s/cp)·4 B. */
	const uint64_t act = b * (sq / cp) * h * 2;
	CU_ASSERT_EQUAL(t.bytes[JOB_PAR_TP], d * cp * m * 2 * (tp - 1) * ((4 * L + 2) * act + 3 * b * (sq / cp) * 4));
	/* DP: gradients all-reduced over the dp × cp ranks of each tp index:
	 * 2(dcp − 1)·S per group; S = per-tp-shard parameters: attention
	 * 2h² + 2h·h_kv, MLP 2h·4h, the tied embedding V·h (V = 512, already a
	 * multiple of 128·tp = 256). */
	const uint64_t per_layer = 2 * h * h + 2 * h * hkv + 8 * h * h, V = 512;
	CU_ASSERT_EQUAL(t.bytes[JOB_PAR_DP], 2 * (d * cp - 1) * g * (L * per_layer + V * h));
	/* The run moves exactly that, and each flow stays in its group. */
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	plan_bytes_match(db, &t, -1);
	sqlite3_stmt *st;
	CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "SELECT src_gpu, dst_gpu, parallelism FROM flow", -1, &st, NULL),
			      SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int x = gpu_no((const char *)sqlite3_column_text(st, 0)), y = gpu_no((const char *)sqlite3_column_text(st, 1));
		const char *par = (const char *)sqlite3_column_text(st, 2);
		if (!strcmp(par, "cp")) {        /* same tp index and replica, the other cp index */
			CU_ASSERT(x % 2 == y % 2 && x / 4 == y / 4 && x != y);
		} else if (!strcmp(par, "tp")) { /* same cp index and replica */
			CU_ASSERT(x / 2 == y / 2);
		} else if (!strcmp(par, "dp")) { /* same tp index */
			CU_ASSERT(x % 2 == y % 2);
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* CP with an interleaved pipeline and ZeRO-1: every per-rank path (sends
 * per tp × cp rank, the wrap between chunks, gathers over dp × cp) moves
 * what --check plans. */
static void test_cp_pipeline_plan_equals_run(void)
{
	static const char text[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.c]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 256\n"
		"global_batch = 4\ntp = 2\ncp = 2\npp = 2\ndp = 2\nvirtual_pipeline_stages = 2\n"
		"sequence_parallel = on\nzero = 1\nplacement = tp,cp,ep,dp,pp\n";
	struct job_plan_totals t;
	plan_of(text, &t, NULL);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	plan_bytes_match(db, &t, -1);
	for (int p = 0; p < JOB_NPAR; p++)
		CU_ASSERT(t.bytes[p] > 0 || p == JOB_PAR_EP);
	/* PP with SP: each of the t·c ranks sends its 1/t of its cp rank's
	 * b·(s/c)·h·2 B, so a hop moves b·s·h·2 B in all; 2 directions,
	 * p·v − 1 hops, m = 2 micro-batches, d = 2 replicas. */
	CU_ASSERT_EQUAL(t.bytes[JOB_PAR_PP], 2ull * (2 * 2 - 1) * 2 * 2 * (256 * 256 * 2));
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM run WHERE status = 'complete'"), 1);
	sqlite3_close(db);
}

/* With free communication every GPU computes 1/cp of the work: the
 * iteration (without the optimizer step, which does not shrink) halves. */
static void test_cp_compute(void)
{
	char text[sizeof cp_fmt + 16];
	struct job_spec s1, s2;
	snprintf(text, sizeof text, cp_fmt, 1);
	double t1 = iter_ps(text, true, &s1, NULL);
	snprintf(text, sizeof text, cp_fmt, 2);
	double t2 = iter_ps(text, true, &s2, NULL);
	printf("\n    cp 1: %.0f ps, cp 2: %.0f ps", t1, t2);
	CU_ASSERT(fabs(t2 / t1 - 0.5) < 1e-5);
}

static void test_cp_errors(void)
{
	static const char head[] = "[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 8\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.e]\nmodel = custom\nlayers = 2\nhidden = 64\nheads = 1\nvocab = 100\nglobal_batch = 8\n";
	char text[600];
	snprintf(text, sizeof text, "%sseq_len = 18\ncp = 4\n", head);
	run_expect_error(text, "cp = '4'", "multiple of 2 x cp");
	snprintf(text, sizeof text, "%sseq_len = 16\ncp = 2\nplacement = tp,ep,cp,dp,pp\n", head);
	run_expect_error(text, "placement", "cp (optional) right after tp");
	snprintf(text, sizeof text, "%sseq_len = 16\ncp = 16\n", head);
	run_expect_error(text, "tp x cp x pp x dp = 16 GPUs", "have 8");
	snprintf(text, sizeof text, "%sseq_len = 16\ncp = 2\nzero = 3\ndp = 2\n", head);
	run_expect_error(text, "cp = '2'", "zero < 3");
}

/* ---- GPT-3 175B TP8 PP8 DP4, sequence parallelism on: --check volumes ---- */

static void test_gpt3_volumes(void)
{
	static const char text[] =
		"[topology]\ntype = star\nhosts = 32\ngpus_per_host = 8\nlink_rate = 400Gbps\nlink_delay = 1us\n"
		"[job.gpt]\nmodel = gpt3-175b\ntp = 8\npp = 8\ndp = 4\nsequence_parallel = on\n"
		"global_batch = 64\ngrad_reduce_dtype = bf16\n";
	struct job_plan_totals t;
	struct job_spec s;
	plan_of(text, &t, &s);
	/* GPT-3: L = 96, h = 12288, s = 2048, V = 50257 padded to a multiple of
	 * 128·t = 1024: 51200; b = 1, m = 64 / (b·d) = 16, bf16 gradients
	 * (grad_reduce_dtype = bf16: the default is Megatron-LM's fp32). */
	const double tp = 8, p = 8, d = 4, L = 96, h = 12288, sq = 2048, b = 1, m = 16, g = 2, Vp = 51200;
	CU_ASSERT_EQUAL(s.model.vocab, (int64_t)Vp);
	CU_ASSERT_EQUAL(s.vocab_given, 50257);
	const double A = b * sq * h * 2;         /* one micro-batch's activations, bytes */
	/* TP (ring: an all-gather or reduce-scatter of S moves (t−1)·S in the
	 * group, an all-reduce 2(t−1)·S), per replica and micro-batch:
	 *   layers: 4 forward + 4 backward (AG, RS around attention and MLP): 8·L·(t−1)·A
	 *   input embedding: RS forward, AG backward: 2·(t−1)·A
	 *   LM head: AG forward, RS backward: 2·(t−1)·A
	 *   cross entropy: 3 all-reduces of b·s fp32: 3·2·(t−1)·4·b·s */
	double tp_want = d * m * ((8 * L + 4) * (tp - 1) * A + 6 * (tp - 1) * 4 * b * sq);
	/* PP: each of the t ranks sends A/t per micro-batch and hop, forward and
	 * backward, over p − 1 boundaries: 2·(p − 1)·m·d·A. */
	double pp_want = 2 * (p - 1) * m * d * A;
	/* DP: ring all-reduce 2(d−1)·S of every gradient, per tp shard and stage:
	 * Σ = 12h²·L + 2·Vp·h (the tied embedding on the first and the last
	 * stage), plus the first/last stage embedding all-reduce (2·(2−1)·Vp·h/t
	 * per tp rank and replica). */
	double dp_want = 2 * (d - 1) * g * (12 * h * h * L + 2 * Vp * h) + d * tp * 2 * (Vp * h / tp) * g;
	double got[3] = { (double)t.bytes[JOB_PAR_TP], (double)t.bytes[JOB_PAR_PP], (double)t.bytes[JOB_PAR_DP] };
	double want[3] = { tp_want, pp_want, dp_want };
	for (int i = 0; i < 3; i++) {
		printf("\n    %s: plan %.6g B, formula %.6g B, ratio %.5f", job_par_name[i], got[i], want[i],
		       got[i] / want[i]);
		CU_ASSERT(fabs(got[i] / want[i] - 1) < 0.01);
	}
	CU_ASSERT_EQUAL(t.bytes[JOB_PAR_EP], 0);
}

TEST_MAIN("job_sched",
	  { "interleaved 1F1B order", test_interleaved_order },
	  { "interleaved bubble (p-1)/(v m), free communication", test_interleaved_bubble_free },
	  { "interleaved bubble (p-1)/(v m), idle fabric", test_interleaved_bubble_real },
	  { "interleaved 3D job: plan equals the run", test_interleaved_plan_equals_run },
	  { "interleaved: located errors", test_interleaved_errors },
	  { "recompute: full and selective overheads and bytes", test_recompute },
	  { "pipeline tensors without sequence parallelism", test_pp_without_sp },
	  { "optimizer step: derived and given", test_optimizer_step },
	  { "context parallelism: ring attention, TP and DP volumes", test_cp_volumes },
	  { "context parallelism: compute split over cp", test_cp_compute },
	  { "context parallelism with an interleaved pipeline and ZeRO-1", test_cp_pipeline_plan_equals_run },
	  { "context parallelism: located errors", test_cp_errors },
	  { "GPT-3 175B TP8 PP8 DP4 SP: --check volumes", test_gpt3_volumes })
