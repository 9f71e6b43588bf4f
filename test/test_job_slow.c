/*
 * test_job_slow.c — stragglers ([job.NAME] slow, slow_random;
 * models/job/job_slow.c) and the critical-path columns they add to the
 * iteration row (slow_ps, critical_gpu), from whole runs:
 *   - data parallelism, dp = 4 on a 100G star, gradient reduction after
 *     the backward (no overlap): one GPU slowed by s stretches every
 *     iteration by (s − 1) × that GPU's compute per iteration (its
 *     program's compute steps plus the optimizer step, summed from the
 *     plan), within 1 ps per compute step (each stretched step is rounded
 *     to the picosecond); slow_ps is that stretch and critical_gpu names
 *     the GPU. With overlap_grad_reduce on, the stretch lies between
 *     (s − 1) × compute − the unslowed run's exposed DP time (the slow
 *     worker's longer gaps can hide reductions that were exposed) and
 *     (s − 1) × compute;
 *   - a 4-stage 1F1B pipeline of m = 8 micro-batches with free
 *     communication and stage 1 slowed by s = 2: the iteration equals an
 *     independent max-plus evaluation of Megatron's 1F1B order (warm-up
 *     p − k − 1 forwards, one forward one backward, cool-down backwards)
 *     with stage 1's times doubled, plus the doubled optimizer step,
 *     exactly; and lies between m × s(t_f + t_b) + (t_f + t_b) (the slow
 *     stage's own work, after stage 0's first forward and before its last
 *     backward) and the 1F1B bound (m + p − 1) × the slowest stage's
 *     per-micro-batch time (optimizer step aside); with a milder second
 *     straggler on the last stage, critical_gpu still names stage 1's; a
 *     run stopped half way writes a row whose parts add up to the stop;
 *   - slow_random: the draw's sample mean and second moment over 200000
 *     draws match 2 e^{σ²/2} Φ(σ) and 2 e^{2σ²} Φ(2σ) within 5 standard
 *     errors; a run is the same with the same seed and differs with
 *     another; with free communication each iteration's critical_gpu is
 *     the GPU that computed longest;
 *   - errors: unknown GPU (with a suggestion), factor below 1, a GPU the
 *     job does not use, a bad slow_random.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include "job.h"
#include "job_plan.h"
#include "job_slow.h"
#include "rng.h"
#include "run_fixture.h"
#include "fake_coll.h"
#include "plan_fixture.h"
#include "run.h"
#include "sqlutil.h"
#include "testutil.h"

/* Every finished iteration adds up with slow_ps. */
#define ADDS_UP "SELECT COUNT(*) FROM iteration WHERE end_ps IS NOT NULL AND " \
	"compute_ps + bubble_ps + exposed_comm_ps + slow_ps = end_ps - start_ps AND exposed_comm_ps = " \
	"exposed_tp_ps + exposed_pp_ps + exposed_dp_ps + exposed_ep_ps + exposed_cp_ps AND bubble_ps >= 0"

/* The plan's compute of stage st (ps): of its compute steps of direction
 * dir (-1: all) and micro-batch mb (-1: all), their count in *n_ops; and
 * the optimizer step in *t_opt. */
static long long plan_compute(const char *text, int st, int dir, int mb, int *n_ops, long long *t_opt)
{
	struct config cfg;
	struct job_spec s;
	plan_spec(text, &cfg, &s);
	long long sum = 0;
	int n = 0;
	for (int k = 0; k < s.prog[st].n; k++) {
		const struct job_op *op = &s.prog[st].op[k];
		if (op->kind == JOP_COMPUTE && (dir < 0 || op->dir == dir) && (mb < 0 || op->mb == mb)) {
			sum += (long long)op->val;
			n++;
		}
	}
	if (n_ops)
		*n_ops = n;
	if (t_opt)
		*t_opt = s.t_opt;
	job_spec_free(&s);
	config_free(&cfg);
	return sum;
}

/* ---- Data parallelism on a real fabric ---- */

static const char dp_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.dp]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 256\n"
	"global_batch = 8\ndp = 4\niterations = 2\nmfu = %s\n%s";

static void test_dp_one_slow(void)
{
	const double s = 1.5;
	char base[1024], slow[1024];
	snprintf(base, sizeof base, dp_fmt, "0.02", "");
	snprintf(slow, sizeof slow, dp_fmt, "0.02", "slow = host2.gpu0 1.5\n");
	int n_ops;
	long long t_opt, c = plan_compute(base, 0, -1, -1, &n_ops, &t_opt);
	long long per_iter = c + t_opt;          /* that GPU's compute per iteration */
	long long want = llround((s - 1) * (double)per_iter);
	sqlite3 *a = run_text(base), *b = run_text(slow);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT(q_int(a, "SELECT MIN(exposed_dp_ps) FROM iteration") > 0); /* the ring really runs */
	for (int it = 0; it < 2; it++) {
		char q[200];
		snprintf(q, sizeof q, "SELECT end_ps - start_ps FROM iteration WHERE iteration = %d", it);
		long long ta = q_int(a, q), tb = q_int(b, q);
		printf("\n    iteration %d: %lld ps -> %lld ps, stretch %lld ps, predicted (s-1) x %lld = %lld ps",
		       it, ta, tb, tb - ta, per_iter, want);
		CU_ASSERT(llabs(tb - ta - want) <= n_ops + 1);
		snprintf(q, sizeof q, "SELECT slow_ps FROM iteration WHERE iteration = %d", it);
		CU_ASSERT(llabs(q_int(b, q) - want) <= n_ops + 1);
	}
	CU_ASSERT_EQUAL(q_int(a, "SELECT COUNT(*) FROM iteration WHERE slow_ps = 0 AND critical_gpu IS NULL"), 2);
	CHECK_TEXT(b, "SELECT group_concat(DISTINCT critical_gpu) FROM iteration", "host2.gpu0");
	CU_ASSERT_EQUAL(q_int(a, ADDS_UP), 2);
	CU_ASSERT_EQUAL(q_int(b, ADDS_UP), 2);
	/* compute_ps stays the plan's: the slow-down is slow_ps, not compute */
	CU_ASSERT_EQUAL(q_int(b, "SELECT MIN(compute_ps) FROM iteration"), q_int(a, "SELECT MIN(compute_ps) FROM iteration"));
	sqlite3_close(a);
	sqlite3_close(b);
}

static void test_dp_overlap(void)
{
	const double s = 2;
	char base[1024], slow[1024];
	/* compute long enough to hide most of the reductions */
	snprintf(base, sizeof base, dp_fmt, "0.004", "overlap_grad_reduce = on\ndp_bucket = 200000\n");
	snprintf(slow, sizeof slow, dp_fmt, "0.004", "overlap_grad_reduce = on\ndp_bucket = 200000\nslow = host1.gpu0 2\n");
	long long t_opt, c = plan_compute(base, 0, -1, -1, NULL, &t_opt);
	long long most = llround((s - 1) * (double)(c + t_opt));
	sqlite3 *a = run_text(base), *b = run_text(slow);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT(q_int(a, "SELECT COUNT(DISTINCT collective_id) FROM flow WHERE parallelism = 'dp' AND iteration = 0") > 1);
	long long ta = q_int(a, "SELECT end_ps - start_ps FROM iteration WHERE iteration = 1");
	long long tb = q_int(b, "SELECT end_ps - start_ps FROM iteration WHERE iteration = 1");
	long long exposed = q_int(a, "SELECT exposed_dp_ps FROM iteration WHERE iteration = 1");
	printf("\n    overlap: %lld ps -> %lld ps, stretch %lld in [%lld, %lld]", ta, tb, tb - ta, most - exposed, most);
	CU_ASSERT(tb - ta <= most + 64);
	CU_ASSERT(tb - ta >= most - exposed - 64);
	CU_ASSERT(q_int(b, "SELECT MIN(slow_ps) FROM iteration") > 0);
	CU_ASSERT(q_int(b, "SELECT MAX(slow_ps) FROM iteration") <= most + 64);
	CHECK_TEXT(b, "SELECT group_concat(DISTINCT critical_gpu) FROM iteration", "host1.gpu0");
	CU_ASSERT_EQUAL(q_int(b, ADDS_UP), 2);
	sqlite3_close(a);
	sqlite3_close(b);
}

/* ---- A pipeline with a slow stage, free communication ---- */

static const char pipe_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.pipe]\nmodel = custom\nlayers = 8\nhidden = 64\nheads = 1\nvocab = 100\nseq_len = 16\n"
	"ffn_hidden = 2000000\ngpu = a100\nmfu = 0.05\nglobal_batch = 8\npp = 4\n%s";

enum { P = 4, M = 8 };

/* Megatron's 1F1B on p stages and m micro-batches, stage k's forward and
 * backward of a micro-batch taking tf[k] and tb[k], communication free:
 * each op starts when its stage is free and its input is there (the
 * forward of the stage before, the backward of the stage after). Returns
 * when the last op ends. */
static long long ref_1f1b(int p, int m, const long long *tf, const long long *tb)
{
	long long fend[P][M], bend[P][M], free_at[P] = { 0 };
	int order[P][2 * M][2], n_order[P] = { 0 }, next[P] = { 0 };
	for (int k = 0; k < p; k++) {
		int warm = p - k - 1 < m ? p - k - 1 : m, f = 0, b = 0;
		for (int i = 0; i < warm; i++, f++)
			order[k][n_order[k]][0] = 0, order[k][n_order[k]++][1] = f;
		for (int i = 0; i < m - warm; i++) {
			order[k][n_order[k]][0] = 0, order[k][n_order[k]++][1] = f++;
			order[k][n_order[k]][0] = 1, order[k][n_order[k]++][1] = b++;
		}
		while (b < m)
			order[k][n_order[k]][0] = 1, order[k][n_order[k]++][1] = b++;
		for (int i = 0; i < m; i++)
			fend[k][i] = bend[k][i] = -1;
	}
	for (bool moved = true; moved; ) {
		moved = false;
		for (int k = 0; k < p; k++)
			while (next[k] < n_order[k]) {
				int back = order[k][next[k]][0], i = order[k][next[k]][1];
				long long ready = back ? (k == p - 1 ? fend[k][i] : bend[k + 1][i])
						       : (k == 0 ? 0 : fend[k - 1][i]);
				if (ready < 0)
					break;
				long long start = ready > free_at[k] ? ready : free_at[k];
				free_at[k] = start + (back ? tb[k] : tf[k]);
				(back ? bend : fend)[k][i] = free_at[k];
				next[k]++;
				moved = true;
			}
	}
	long long end = 0;
	for (int k = 0; k < p; k++) {
		CU_ASSERT_EQUAL(next[k], n_order[k]);
		end = free_at[k] > end ? free_at[k] : end;
	}
	return end;
}

static void test_pipeline_slow_stage(void)
{
	char base[1024], slow[1024];
	snprintf(base, sizeof base, pipe_fmt, "");
	snprintf(slow, sizeof slow, pipe_fmt, "slow = host1.gpu0 2\n"); /* stage 1 runs on host1 */
	long long tf[P], tb[P], t_opt = 0;
	for (int k = 0; k < P; k++) {
		tf[k] = plan_compute(base, k, JOB_FWD, 0, NULL, &t_opt);
		tb[k] = plan_compute(base, k, JOB_BWD, 0, NULL, NULL);
	}
	/* the reference reproduces the unslowed run (test_job_timeline's closed form) */
	long long ref0 = ref_1f1b(P, M, tf, tb) + t_opt;
	tf[1] *= 2;
	tb[1] *= 2;
	long long ref = ref_1f1b(P, M, tf, tb) + 2 * t_opt;
	sqlite3 *a = run_text_free(base, true), *b = run_text_free(slow, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	long long ta = q_int(a, "SELECT end_ps - start_ps FROM iteration");
	long long t = q_int(b, "SELECT end_ps - start_ps FROM iteration");
	long long unit = tf[0] + tb[0], slowest = tf[1] + tb[1];
	printf("\n    unslowed %lld ps (reference %lld); stage 1 x2: %lld ps (reference %lld); "
	       "t - 2 t_opt = %lld in [%lld, %lld]", ta, ref0, t, ref, t - 2 * t_opt, M * slowest + unit,
	       (long long)(M + P - 1) * slowest);
	CU_ASSERT_EQUAL(ta, ref0);
	CU_ASSERT_EQUAL(t, ref);
	CU_ASSERT(t - 2 * t_opt >= M * slowest + unit);
	CU_ASSERT(t - 2 * t_opt <= (long long)(M + P - 1) * slowest);
	CHECK_TEXT(b, "SELECT critical_gpu FROM iteration", "host1.gpu0");
	/* on the path: at most stage 1's extra compute and the optimizer's */
	CU_ASSERT(q_int(b, "SELECT slow_ps FROM iteration") > 0);
	CU_ASSERT(q_int(b, "SELECT slow_ps FROM iteration") <= M * (slowest / 2) + t_opt);
	CU_ASSERT_EQUAL(q_int(b, ADDS_UP), 1);
	/* the slow worker's spans: twice the plan's compute */
	CU_ASSERT_EQUAL(q_int(b, "SELECT SUM(compute_ps) FROM compute_span WHERE stage = 1 AND kind != 'optimizer'"),
			M * slowest);
	sqlite3_close(a);
	sqlite3_close(b);
	/* a second, milder straggler on the last stage: the path's slow time
	 * is mostly stage 1's, which critical_gpu still names */
	snprintf(slow, sizeof slow, pipe_fmt, "slow = host1.gpu0 2\nslow = host3.gpu0 1.2\n");
	b = run_text_free(slow, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CHECK_TEXT(b, "SELECT critical_gpu FROM iteration", "host1.gpu0");
	CU_ASSERT_EQUAL(q_int(b, ADDS_UP), 1);
	sqlite3_close(b);
	/* stopped half way, the bottleneck stage 1 inside a slowed step: the
	 * unfinished row's parts add up to the stop, its step split between
	 * compute and slow time */
	char stopped[1100];
	snprintf(slow, sizeof slow, pipe_fmt, "slow = host1.gpu0 2\n");
	snprintf(stopped, sizeof stopped, "[simulation]\nstop = %lldps\n%s", ref / 2, slow + strlen("[simulation]\n"));
	b = run_text_free(stopped, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	char q[300];
	snprintf(q, sizeof q, "SELECT end_ps IS NULL AND compute_ps + bubble_ps + exposed_comm_ps + slow_ps = %lld - start_ps "
		 "AND slow_ps > 0 AND critical_gpu = 'host1.gpu0' FROM iteration", ref / 2);
	CU_ASSERT_EQUAL(q_int(b, q), 1);
	sqlite3_close(b);
}

/* ---- Random stragglers ---- */

/* Sample mean and second moment of exp(σ|Z|) against the closed forms,
 * within 5 standard errors (the SE from the closed-form moments). */
static void check_draws(double sigma)
{
	const int n = 200000;
	gsl_rng *r = rng_stream(7, RNG_STRAGGLER, 0);
	double s1 = 0, s2 = 0, least = INFINITY;
	for (int i = 0; i < n; i++) {
		double f = job_slow_draw(r, sigma);
		s1 += f;
		s2 += f * f;
		least = f < least ? f : least;
	}
	gsl_rng_free(r);
	double m1 = 2 * exp(sigma * sigma / 2) * gsl_cdf_ugaussian_P(sigma);
	double m2 = 2 * exp(2 * sigma * sigma) * gsl_cdf_ugaussian_P(2 * sigma);
	double m4 = 2 * exp(8 * sigma * sigma) * gsl_cdf_ugaussian_P(4 * sigma);
	double se1 = sqrt((m2 - m1 * m1) / n), se2 = sqrt((m4 - m2 * m2) / n);
	printf("\n    sigma %.2f: mean %.5f (closed form %.5f, SE %.5f), E[f^2] %.5f (%.5f, SE %.5f), "
	       "variance %.5f (%.5f)", sigma, s1 / n, m1, se1, s2 / n, m2, se2, s2 / n - (s1 / n) * (s1 / n),
	       m2 - m1 * m1);
	CU_ASSERT(fabs(s1 / n - m1) < 5 * se1);
	CU_ASSERT(fabs(s2 / n - m2) < 5 * se2);
	CU_ASSERT(least >= 1);
}

static void test_draw_moments(void)
{
	check_draws(0.1);
	check_draws(0.3);
	check_draws(1.0);
}

static void test_random_deterministic(void)
{
	char text[1024], text2[1100];
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow_random = lognormal 0.2\n");
	snprintf(text2, sizeof text2, "[simulation]\nseed = 2\n%s", text + strlen("[simulation]\n"));
	sqlite3 *a = run_twice_same(text, "SELECT * FROM iteration ORDER BY iteration", 40);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(q_int(a, "SELECT COUNT(*) FROM iteration WHERE slow_ps > 0 AND critical_gpu IS NOT NULL"), 2);
	CU_ASSERT_EQUAL(q_int(a, ADDS_UP), 2);
	/* another seed draws other factors */
	char *da = run_dump(a, "SELECT slow_ps FROM iteration ORDER BY iteration");
	sqlite3_close(a);
	sqlite3 *b = run_text(text2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	char *db = run_dump(b, "SELECT slow_ps FROM iteration ORDER BY iteration");
	CU_ASSERT(strcmp(da, db) != 0);
	free(da);
	free(db);
	sqlite3_close(b);
}

/* With free communication and dp = 4, an iteration is the slowest
 * worker's compute: critical_gpu is the GPU whose spans computed longest,
 * and slow_ps its compute beyond the plan. */
static void test_random_critical(void)
{
	char text[1024];
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow_random = lognormal 0.3\n");
	long long t_opt, c = plan_compute(text, 0, -1, -1, NULL, &t_opt);
	sqlite3 *db = run_text_free(text, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	for (int it = 0; it < 2; it++) {
		char q[400], *want, *got;
		snprintf(q, sizeof q, "SELECT gpu FROM compute_span WHERE iteration = %d AND kind != 'optimizer' "
			 "GROUP BY gpu ORDER BY SUM(compute_ps) DESC LIMIT 1", it);
		want = q_text(db, q);
		snprintf(q, sizeof q, "SELECT critical_gpu FROM iteration WHERE iteration = %d", it);
		got = q_text(db, q);
		CU_ASSERT_STRING_EQUAL(got, want);
		free(want);
		free(got);
		/* slowest worker's compute + the optimizer at the job's largest factor */
		snprintf(q, sizeof q, "SELECT MAX(c) FROM (SELECT SUM(compute_ps) c FROM compute_span WHERE iteration = %d "
			 "GROUP BY gpu)", it);
		long long most = q_int(db, q);
		snprintf(q, sizeof q, "SELECT end_ps - start_ps FROM iteration WHERE iteration = %d", it);
		CU_ASSERT_EQUAL(q_int(db, q), most);
		snprintf(q, sizeof q, "SELECT slow_ps FROM iteration WHERE iteration = %d", it);
		CU_ASSERT_EQUAL(q_int(db, q), most - c - t_opt);
	}
	CU_ASSERT_EQUAL(q_int(db, ADDS_UP), 2);
	sqlite3_close(db);
}

/* ---- Errors ---- */

static void test_errors(void)
{
	char text[1024];
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow = hots2.gpu0 1.5\n");
	run_expect_error(text, "unknown GPU 'hots2.gpu0'", "did you mean 'host2.gpu0'");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow = host2.gpu3 1.5\n");
	run_expect_error(text, "[job.dp] slow", "unknown GPU 'host2.gpu3'");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow = host2.gpu0 0.5\n");
	run_expect_error(text, "slow = 'host2.gpu0 0.5'", "1 <= FACTOR <= 1000");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow = host2.gpu0 1e300\n");
	run_expect_error(text, "slow = 'host2.gpu0 1e300'", "1 <= FACTOR <= 1000");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow = host2.gpu0 fast\n");
	run_expect_error(text, "slow = 'host2.gpu0 fast'", "FACTOR a number");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow = host2.gpu0 2\nslow = host2.gpu0 3\n");
	run_expect_error(text, "a GPU not slowed before", "line");
	/* a job of two GPUs: */
	snprintf(text, sizeof text,
		 "[simulation]\nprogress = off\n"
		 "[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		 "[job.dp]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 256\n"
		 "global_batch = 8\ndp = 2\nhosts = host0, host1\nslow = host3.gpu0 2\n");
	run_expect_error(text, "GPU 'host3.gpu0' is not one of the job's 2 GPUs", "[job.dp] slow");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow_random = gaussian 0.1\n");
	run_expect_error(text, "slow_random = 'gaussian 0.1'", "lognormal SIGMA");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow_random = lognormal 1.5\n");
	run_expect_error(text, "slow_random", "0 < SIGMA <= 1");
	snprintf(text, sizeof text, dp_fmt, "0.02", "slow_random = lognormal 0\n");
	run_expect_error(text, "slow_random", "0 < SIGMA");
}

TEST_MAIN("job_slow",
	  { "DP, no overlap: one slow GPU stretches every iteration by (s-1) x its compute", test_dp_one_slow },
	  { "DP with overlap: the stretch within [(s-1)C - exposed DP, (s-1)C]", test_dp_overlap },
	  { "1F1B with a slow stage: the max-plus reference and the 1F1B bounds", test_pipeline_slow_stage },
	  { "slow_random draws: mean and second moment match the closed forms", test_draw_moments },
	  { "slow_random: same seed same rows, another seed other rows", test_random_deterministic },
	  { "slow_random, free communication: critical_gpu computed longest", test_random_critical },
	  { "errors: unknown GPU, bad factor, GPU outside the job", test_errors })
