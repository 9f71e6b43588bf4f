/*
 * test_job_moe_routing.c — mixture-of-experts routing and runs
 * (models/job/workload_ep.c, moe_routing.c; the `--check` volumes against
 * Mixtral's closed forms are in test_job_moe.c):
 *   - folded experts (expert_tensor_parallel_size < tp) run end to end and
 *     move what their plan says, in the folded groups;
 *   - dropless by default; capacity drops; padding fills to capacity;
 *   - expert compute follows the tokens an expert got;
 *   - popularity persists with the configured correlation and differs per
 *     layer;
 *   - shared experts add a dense TP'd FFN;
 *   - a run: skewed routing makes the iteration slower than balanced, and
 *     every combine all-to-all starts when the GPU with the hottest experts
 *     finishes (the others wait for it).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "rng.h"
#include "run_fixture.h"
#include "plan_fixture.h"
#include "moe_fixture.h"
#include "sqlutil.h"
#include "testutil.h"
#include "workload.h"

/* A folded job run end to end: what it moves equals its --check plan, per
 * parallelism and iteration, and the groups are the folded ones. tp 2,
 * dp 8, ep 8, etp 1 on 16 GPUs: stage GPU q = t + 2d is EP rank q mod 8 of
 * expert-DP index q / 8; EP groups {0..7}, {8..15}; expert gradients
 * all-reduce between q and q + 8. The same with ZeRO-2 (a reduction per
 * micro-batch) and ZeRO-1 with overlapped parameter gathers (a worker
 * waits for its expert buckets' gathers of every EP index): the plan's
 * bytes, and the iteration's parts add up to it. */
static void test_folded_run(void)
{
	static const char text[] =
		"[simulation]\nprogress = off\nseed = 2\n"
		"[topology]\ntype = star\nhosts = 8\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.f]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 256\n"
		"experts = 8\ntop_k = 2\nglobal_batch = 16\ntp = 2\ndp = 8\nep = 8\nsequence_parallel = on\n"
		"expert_tensor_parallel_size = 1\niterations = 2\nmoe_skew = %s\n%s";
	static const char *const dp_extra[] = {
		"", "zero = 2\n", "zero = 1\noverlap_grad_reduce = on\noverlap_param_gather = on\ndp_bucket = 100000\n",
	};
	char buf[sizeof text + 128], *err = NULL;
	for (size_t x = 0; x < sizeof dp_extra / sizeof *dp_extra; x++) {
		snprintf(buf, sizeof buf, text, "0", dp_extra[x]);
		struct config cfg;
		struct job_spec s;
		CU_ASSERT_EQUAL_FATAL(load(buf, 16, &cfg, &s, &err), 0);
		struct job_plan_totals t;
		job_plan_totals(&s, &t);
		unload(&cfg, &s);
		sqlite3 *db = run_text(buf);
		CU_ASSERT_PTR_NOT_NULL_FATAL(db);
		for (int it = 0; it < 2; it++)
			plan_bytes_match(db, &t, it);
		CU_ASSERT(t.bytes[JOB_PAR_EP] > 0 && t.bytes[JOB_PAR_DP] > 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE compute_ps + bubble_ps + exposed_tp_ps + "
				    "exposed_pp_ps + exposed_dp_ps + exposed_ep_ps + exposed_cp_ps = end_ps - start_ps"), 2);
		/* GPU hostH.gpuG is q = 2H + G. EP flows stay inside {0..7} or {8..15};
		 * every one of the 8 ranks of a group sends to the 7 others. */
		CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE parallelism = 'ep' AND "
				    "(CAST(substr(src_gpu, 5, instr(src_gpu, '.') - 5) AS INTEGER) / 4) != "
				    "(CAST(substr(dst_gpu, 5, instr(dst_gpu, '.') - 5) AS INTEGER) / 4)"), 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(DISTINCT src_gpu || dst_gpu) FROM flow WHERE parallelism = 'ep'"),
				2 * 8 * 7);
		/* Expert gradients: all-reduces of 2 GPUs (edp = 2), between q and
		 * q + 8, i.e. hosts 4 apart with the same GPU index. */
		CU_ASSERT(q_int(db, "SELECT COUNT(*) FROM collective WHERE parallelism = 'dp' AND group_size = 2") > 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow f JOIN collective c USING (collective_id) "
				    "WHERE c.parallelism = 'dp' AND c.group_size = 2 AND NOT (substr(f.src_gpu, -1) = "
				    "substr(f.dst_gpu, -1) AND abs(CAST(substr(f.src_gpu, 5, instr(f.src_gpu, '.') - 5) AS INTEGER) - "
				    "CAST(substr(f.dst_gpu, 5, instr(f.dst_gpu, '.') - 5) AS INTEGER)) = 4)"), 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE end_ps > start_ps"), 2);
		sqlite3_close(db);
	}
	/* Skewed routing completes too. */
	snprintf(buf, sizeof buf, text, "1.2", "");
	sqlite3 *db = run_text(buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE end_ps > start_ps"), 2);
	sqlite3_close(db);
}

/* Expert TP groups inside a TP group: tp 4, etp 2, dp 4, ep 4 on 16 GPUs
 * (edp 2; an EP rendezvous spans 2 workers). Balanced: the plan equals what
 * the run moves; the expert blocks' TP collectives run over 2 GPUs with
 * the k·T·etp/tp = T routed copies of an EP rank, 256 × 256 × 2 B. */
static void test_folded_etp2_run(void)
{
	static const char text[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.f]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 256\n"
		"experts = 8\ntop_k = 2\nglobal_batch = 8\ntp = 4\ndp = 4\nep = 4\nsequence_parallel = on\n"
		"expert_tensor_parallel_size = 2\n";
	char *err = NULL;
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 16, &cfg, &s, &err), 0);
	CU_ASSERT_EQUAL(s.edp, 2);
	struct job_plan_totals t;
	job_plan_totals(&s, &t);
	unload(&cfg, &s);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	plan_bytes_match(db, &t, -1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(DISTINCT size_bytes) FROM collective WHERE parallelism = 'tp' "
			    "AND group_size = 2"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MAX(size_bytes) FROM collective WHERE parallelism = 'tp' "
			    "AND group_size = 2"), 2 * 256 * 256 / 2 * 2);
	sqlite3_close(db);
}

/* ---- Capacity, padding, dropless ---- */

/* T = 1000 tokens, k = 2, E = 8, ep = 4 (2 experts a rank), tp = 1. */
static const char small[] =
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.m]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 1000\n"
	"experts = 8\ntop_k = 2\nglobal_batch = 8\ndp = 4\nep = 4\nmoe_skew = 1.5\n%s";

/* Token copies processed per (layer, micro-batch), summed over the 4 ranks. */
static double processed(const char *extra, double *max_rank)
{
	char text[sizeof small + 200], *err = NULL;
	snprintf(text, sizeof text, small, extra);
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 4, &cfg, &s, &err), 0);
	struct wl_ep_routing *r = wl_ep_routing_new(&s);
	gsl_rng *rng = rng_stream(11, RNG_WORKLOAD, 0);
	wl_ep_routing_draw(r, &s, rng);
	double sum = 0;
	*max_rank = 0;
	for (int j = 0; j < 4; j++) {
		sum += wl_ep_tokens(r, 0, 0, 0, j);
		*max_rank = fmax(*max_rank, wl_ep_tokens(r, 0, 0, 0, j));
	}
	gsl_rng_free(rng);
	wl_ep_routing_free(r);
	unload(&cfg, &s);
	return sum;
}

static void test_capacity(void)
{
	double mx;
	/* Dropless (the default): all 4 sources × k·T = 8000 copies. */
	CU_ASSERT_EQUAL(processed("", &mx), 8000);
	CU_ASSERT(mx > 2000);
	/* capacity_factor 1: each expert keeps ⌈1 × 2000/8⌉ = 250 copies per
	 * source, at most 8 × 250 × 4 = 8000, and under Zipf 1.5 the popular
	 * experts overflow: fewer. No rank exceeds 2 experts × 250 × 4. */
	double kept = processed("capacity_factor = 1\n", &mx);
	printf("\n    capacity 1: %.0f of 8000 copies kept", kept);
	CU_ASSERT(kept < 8000 && mx <= 2000);
	/* Padding: every expert gets exactly its capacity from every source:
	 * ⌈1.25 × 2000/8⌉ = 313, so each rank processes 2 × 313 × 4 = 2504. */
	CU_ASSERT_EQUAL(processed("capacity_factor = 1.25\nmoe_pad_expert_input_to_capacity = on\n", &mx),
			4 * 2504);
	CU_ASSERT_EQUAL(mx, 2504);
}

/* The plan of the padded job: every pair carries (E/e)·cap copies. */
static void test_padding_plan(void)
{
	char text[sizeof small + 200], *err = NULL;
	snprintf(text, sizeof text, small, "capacity_factor = 1.25\nmoe_pad_expert_input_to_capacity = on\n");
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 4, &cfg, &s, &err), 0);
	struct job_plan_totals tot;
	job_plan_totals(&s, &tot);
	/* 4 layers × m 2 × 4 all-to-alls × 4 sources × 3 peers × 2 × 313 × 512 B */
	CU_ASSERT_EQUAL(tot.bytes[JOB_PAR_EP], 4ULL * 2 * 4 * 4 * 3 * 2 * 313 * 512);
	unload(&cfg, &s);
}

/* ---- Expert compute by tokens ---- */

static void test_expert_compute(void)
{
	char text[sizeof small + 200], *err = NULL;
	snprintf(text, sizeof text, small, "gpu = a100\nmfu = 0.25\n");
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 4, &cfg, &s, &err), 0);
	struct wl_ep_routing *r = wl_ep_routing_new(&s);
	gsl_rng *rng = rng_stream(5, RNG_WORKLOAD, 0);
	wl_ep_routing_draw(r, &s, rng);
	/* Walk stage 0's program: every expert compute step, on every rank d,
	 * takes 2·(N_d·2hf + T·hE)·(1 or 2 backward) / (peak × mfu) with N_d the
	 * copies rank d's experts got (plain FFN: 2hf parameters per expert). */
	const double h = 256, f = 1024, T = 1000, E = 8, peak = 312e12 * 0.25;
	int steps = 0;
	for (int i = 0; i < s.prog[0].n; i++) {
		const struct job_op *op = &s.prog[0].op[i];
		if (op->kind != JOP_COMPUTE || !op->expert)
			continue;
		steps++;
		for (int d = 0; d < 4; d++) {
			double n = wl_ep_tokens(r, op->idx, op->mb, 0, d);
			double want = (op->dir == JOB_BWD ? 2 : 1) * 2 * (n * 2 * h * f + T * h * E) / peak * 1e12;
			double got = (double)wl_ep_op_val(&s, r, op, d, 0);
			CU_ASSERT(fabs(got - want) <= 2);
		}
	}
	CU_ASSERT_EQUAL(steps, 4 * 2 * 2); /* layers × micro-batches × directions */
	gsl_rng_free(rng);
	wl_ep_routing_free(r);
	unload(&cfg, &s);
}

/* ---- Popularity across iterations and layers ---- */

static double lag1_correlation(const char *rho, double *same_top)
{
	char text[sizeof small + 200], extra[100], *err = NULL;
	snprintf(extra, sizeof extra, "moe_skew_correlation = %s\n", rho);
	snprintf(text, sizeof text, small, extra);
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 4, &cfg, &s, &err), 0);
	struct wl_ep_routing *r = wl_ep_routing_new(&s);
	gsl_rng *rng = rng_stream(9, RNG_WORKLOAD, 0);
	double prev[4][8], sxy = 0, sxx = 0, syy = 0;
	int top_prev = -1, same = 0, n = 400, layers_differ = 0;
	for (int it = 0; it < n; it++) {
		wl_ep_routing_draw(r, &s, rng);
		for (int k = 0; k < 4; k++) {
			const double *z = wl_ep_scores(r, k);
			for (int e = 0; it && e < 8; e++) {
				sxy += z[e] * prev[k][e];
				sxx += prev[k][e] * prev[k][e];
				syy += z[e] * z[e];
			}
			memcpy(prev[k], z, sizeof prev[k]);
		}
		layers_differ += memcmp(wl_ep_scores(r, 0), wl_ep_scores(r, 1), sizeof prev[0]) != 0;
		int top = 0;
		for (int e = 1; e < 8; e++)
			top = prev[0][e] > prev[0][top] ? e : top;
		same += top == top_prev;
		top_prev = top;
	}
	CU_ASSERT_EQUAL(layers_differ, n);
	*same_top = (double)same / (n - 1);
	gsl_rng_free(rng);
	wl_ep_routing_free(r);
	unload(&cfg, &s);
	return sxy / sqrt(sxx * syy);
}

static void test_persistence(void)
{
	/* The scores follow z' = ρz + sqrt(1−ρ²)ε: consecutive iterations
	 * correlate with ρ (sample of 399 × 4 × 8 pairs: ± ~0.03). */
	static const char *const rhos[] = { "0", "0.5", "0.9" };
	for (int i = 0; i < 3; i++) {
		double top, c = lag1_correlation(rhos[i], &top);
		printf("\n    rho %s: lag-1 correlation %.3f, hottest expert kept %.2f", rhos[i], c, top);
		CU_ASSERT(fabs(c - atof(rhos[i])) < 0.06);
	}
	/* ρ = 1: the same popularity every iteration. */
	double top, c = lag1_correlation("1", &top);
	CU_ASSERT(fabs(c - 1) < 1e-12);
	CU_ASSERT_EQUAL(top, 1.0);
}

/* ---- Shared experts ---- */

static void test_shared_experts(void)
{
	static const char text0[] =
		"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.m]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 1000\n"
		"experts = 8\ntop_k = 2\nglobal_batch = 8\ntp = 2\ndp = 4\nep = 4\nsequence_parallel = on\n%s";
	char text[sizeof text0 + 100], *err = NULL;
	struct config cfg;
	struct job_spec s;
	struct job_plan_totals base, shared;
	snprintf(text, sizeof text, text0, "");
	CU_ASSERT_EQUAL_FATAL(load(text, 8, &cfg, &s, &err), 0);
	job_plan_totals(&s, &base);
	int64_t psi0 = job_model_params(&s.model);
	unload(&cfg, &s);
	snprintf(text, sizeof text, text0, "moe_shared_expert_intermediate_size = 512\n");
	CU_ASSERT_EQUAL_FATAL(load(text, 8, &cfg, &s, &err), 0);
	job_plan_totals(&s, &shared);
	/* Parameters: 2·h·f_shared more per MoE layer (plain FFN). */
	CU_ASSERT_EQUAL(job_model_params(&s.model) - psi0, 4 * 2 * 256 * 512);
	/* TP: per layer and micro-batch an all-gather and a reduce-scatter of
	 * S = b·s·h·2 forward and backward, (t−1)·S each, in each of d = 4 TP
	 * groups: 4 layers × m 2 × 4 × 4 × 1 × 512000 B. */
	CU_ASSERT_EQUAL(shared.bytes[JOB_PAR_TP] - base.bytes[JOB_PAR_TP], 4ULL * 2 * 4 * 4 * 512000);
	CU_ASSERT_EQUAL(shared.bytes[JOB_PAR_EP], base.bytes[JOB_PAR_EP]);
	CU_ASSERT(shared.bytes[JOB_PAR_DP] > base.bytes[JOB_PAR_DP]);
	unload(&cfg, &s);
}

/* ---- Errors ---- */

static void test_errors(void)
{
	static const struct { const char *extra; const char *want; } c[] = {
		{ "moe_pad_expert_input_to_capacity = on\n", "moe_pad_expert_input_to_capacity" },
		{ "moe_skew_correlation = 1.5\n", "moe_skew_correlation" },
		{ "tp = 2\n", "needs sequence_parallel = on" },
		{ "tp = 2\nsequence_parallel = on\nexpert_tensor_parallel_size = 3\n", "a divisor of tp (2)" },
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char text[sizeof small + 200], *err = NULL;
		struct config cfg;
		struct job_spec s;
		snprintf(text, sizeof text, small, c[i].extra);
		CU_ASSERT_EQUAL(load(text, 8, &cfg, &s, &err), -1);
		const char *want[] = { c[i].want, "moe.ini:", NULL };
		CU_ASSERT(msg_has_all(err, want));
		free(err);
	}
}

/* ---- A run: the hot expert's GPU is the straggler ---- */

/* One GPU per host, ep = dp = 4, tp = pp = 1; compute-heavy experts (a
 * slow GPU) so the routing shows in the iteration time. */
static const char run_moe[] =
	"[simulation]\nprogress = off\nseed = 4\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.moe]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 1000\n"
	"ffn_hidden = 4096\nexperts = 8\ntop_k = 2\nglobal_batch = 8\ndp = 4\nep = 4\ngpu = a100\nmfu = 0.05\n"
	"moe_skew = %s\n";

static void test_skewed_run(void)
{
	char text[sizeof run_moe + 16], *err = NULL;
	snprintf(text, sizeof text, run_moe, "0");
	sqlite3 *bal = run_text(text);
	snprintf(text, sizeof text, run_moe, "1.5");
	sqlite3 *skw = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bal);
	CU_ASSERT_PTR_NOT_NULL_FATAL(skw);
	long long t_bal = q_int(bal, "SELECT end_ps - start_ps FROM iteration");
	long long t_skw = q_int(skw, "SELECT end_ps - start_ps FROM iteration");
	printf("\n    iteration: balanced %.3f ms, skewed %.3f ms", t_bal / 1e9, t_skw / 1e9);
	CU_ASSERT(t_skw > t_bal);

	/* The same routing the run drew (job 0's RNG_WORKLOAD stream, seed 4,
	 * one draw for iteration 0). */
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 4, &cfg, &s, &err), 0);
	struct wl_ep_routing *r = wl_ep_routing_new(&s);
	gsl_rng *rng = rng_stream(4, RNG_WORKLOAD, 0);
	wl_ep_routing_draw(r, &s, rng);
	/* The EP collectives in program order: dispatch, [experts], combine.
	 * A combine starts when its last member arrives: when the rank with the
	 * most copies finishes its experts, max_d t_d after the dispatch ended;
	 * the other ranks wait for it. */
	sqlite3_stmt *st;
	CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(skw, "SELECT start_ps, end_ps FROM collective WHERE parallelism = 'ep' "
						 "ORDER BY start_ps, collective_id", -1, &st, NULL), SQLITE_OK);
	long long disp_end = -1;
	int checked = 0, hot_waits = 0;
	for (int i = 0; i < s.prog[0].n; i++) {
		const struct job_op *op = &s.prog[0].op[i];
		if (op->kind == JOP_EP) {
			CU_ASSERT_EQUAL_FATAL(sqlite3_step(st), SQLITE_ROW);
			if (disp_end < 0) { /* the first EP step of a block */
				disp_end = sqlite3_column_int64(st, 1);
				continue;
			}
			long long start = sqlite3_column_int64(st, 0);
			const struct job_op *c = &s.prog[0].op[i - 1]; /* the expert compute (tp = 1) */
			CU_ASSERT_FATAL(c->kind == JOP_COMPUTE && c->expert);
			uint64_t hot = 0, cool = UINT64_MAX;
			for (int d = 0; d < 4; d++) {
				uint64_t v = wl_ep_op_val(&s, r, c, d, 0);
				hot = v > hot ? v : hot;
				cool = v < cool ? v : cool;
			}
			CU_ASSERT_EQUAL(start - disp_end, (long long)hot);
			hot_waits += hot > cool + cool / 4;
			checked++;
			disp_end = -1;
		}
	}
	sqlite3_finalize(st);
	printf("\n    %d combines start when the hottest rank's experts finish (%d with it >25%% slower)",
	       checked, hot_waits);
	CU_ASSERT_EQUAL(checked, 2 * 2 * 2); /* MoE layers × micro-batches × directions */
	CU_ASSERT(hot_waits > 0);
	/* The critical path (iteration.compute_ps): every combine waits for the
	 * hottest rank, so the path's compute is, step by step, the longest
	 * any rank took (the others' steps are equal):
	 *   compute_ps = Σ_steps max_d t_step(d) + t_opt
	 * and with one stage none of it is a bubble. */
	long long path = 0;
	for (int i = 0; i < s.prog[0].n; i++) {
		const struct job_op *op = &s.prog[0].op[i];
		uint64_t most = 0;
		for (int d = 0; op->kind == JOP_COMPUTE && d < 4; d++) {
			uint64_t v = op->expert ? wl_ep_op_val(&s, r, op, d, 0) : op->val;
			most = v > most ? v : most;
		}
		path += (long long)most;
	}
	/* ... and the optimizer step after the reductions (every GPU at once). */
	CU_ASSERT_EQUAL(q_int(skw, "SELECT compute_ps FROM iteration"), path + s.t_opt);
	CU_ASSERT_EQUAL(q_int(skw, "SELECT bubble_ps FROM iteration"), 0);
	CU_ASSERT(q_int(skw, "SELECT compute_ps FROM iteration") > q_int(bal, "SELECT compute_ps FROM iteration"));
	gsl_rng_free(rng);
	wl_ep_routing_free(r);
	unload(&cfg, &s);
	sqlite3_close(bal);
	sqlite3_close(skw);
}

TEST_MAIN("job_moe_routing",
	  { "folded experts run: plan equals the simulation, folded groups", test_folded_run },
	  { "folded experts, etp 2 under tp 4: plan equals the simulation", test_folded_etp2_run },
	  { "dropless default, capacity drops, padding fills", test_capacity },
	  { "padded plan", test_padding_plan },
	  { "expert compute by the tokens a rank got", test_expert_compute },
	  { "popularity: correlation across iterations, per layer", test_persistence },
	  { "shared experts", test_shared_experts },
	  { "errors", test_errors },
	  { "run: skewed slower, the hot expert's GPU holds the combine", test_skewed_run })
