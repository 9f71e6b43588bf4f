/*
 * test_job_zero.c — data parallelism and ZeRO as the frameworks run them:
 *   - --check's DP bytes for LLaMA-2 7B, dp 16, ZeRO-1, -2 and -3 at m = 1
 *     and m = 4, against the closed forms (ring reduce-scatter and
 *     all-gather put (d−1)/d × S on the wire per rank) and against the
 *     figures they give for Ψ = 6.74e9 (63.2 GB, 151.6 GB per GPU);
 *   - the stage programs: gradients reduced every micro-batch with ZeRO-2/3,
 *     after the backward without overlap_grad_reduce, ZeRO-3 gathers issued
 *     ahead of their use; bucket counts from dp_bucket and the defaults;
 *   - runs: the DP collectives of one communicator never overlap in time
 *     (those of two communicators do), a bucket's bus bandwidth is within
 *     10% of the same collective alone on the fabric, the iteration without
 *     overlap_grad_reduce is compute + the serial reductions, and the
 *     overlap flags and ZeRO-3 prefetch shorten the iteration;
 *   - grad_reduce_dtype and its errors.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "run_fixture.h"
#include "plan_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

static const char star4[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 16\nlink_rate = 100Gbps\nlink_delay = 1us\n";

/* DP bytes per GPU of one iteration of LLaMA-2 7B over dp 16 (--check's
 * plan: the sum over all GPUs, / 16). */
static double llama_dp_per_gpu(int zero, int m, const char *extra, double *psi)
{
	char text[1024];
	struct job_plan_totals t;
	struct job_spec s;
	snprintf(text, sizeof text, "%s[job.l]\nmodel = llama2-7b\ndp = 16\nglobal_batch = %d\nzero = %d\n%s",
		 star4, 16 * m, zero, extra);
	plan_of(text, &t, &s);
	CU_ASSERT_EQUAL(s.m, m);
	*psi = (double)job_model_params(&s.model);
	return (double)t.bytes[JOB_PAR_DP] / 16;
}

static void near(double got, double want, const char *what)
{
	if (fabs(got / want - 1) >= 0.01)
		printf("\n    %s: %.4g, want %.4g\n", what, got, want);
	CU_ASSERT(fabs(got / want - 1) < 0.01);
}

static void test_llama_zero_volumes(void)
{
	const double d = 16, f = (d - 1) / d; /* a ring RS or AG: (d−1)/d × S per rank */
	for (int m = 1; m <= 4; m += 3) {
		double psi, got;
		/* ZeRO-1, Megatron-LM's distributed optimizer (default fp32
		 * reduction): one reduce-scatter of 4 B gradients after the last
		 * micro-batch, one all-gather of 2 B parameters: f·Ψ·(4 + 2). */
		got = llama_dp_per_gpu(1, m, "", &psi);
		near(got, f * psi * (4 + 2), "zero 1 fp32");
		/* ZeRO-1 reducing bf16 (DeepSpeed): f·Ψ·(2 + 2), whatever m. */
		got = llama_dp_per_gpu(1, m, "grad_reduce_dtype = bf16\n", &psi);
		near(got, f * psi * (2 + 2), "zero 1 bf16");
		near(got, 25.3e9, "zero 1 bf16, 25.3 GB");
		/* ZeRO-2 (DeepSpeed, bf16): a reduce-scatter every micro-batch,
		 * one all-gather: f·Ψ·2·(m + 1); m = 4: 15/16 × 6.74e9 × 10 = 63.2 GB. */
		got = llama_dp_per_gpu(2, m, "", &psi);
		near(got, f * psi * 2 * (m + 1), "zero 2");
		near(got, 0.9375 * 6.74e9 * 2 * (m + 1), "zero 2, Psi = 6.74e9");
		if (m == 4)
			near(got, 63.2e9, "zero 2, m = 4: 63.2 GB");
		/* ZeRO-3: per micro-batch a gather before the forward, one before
		 * the backward and a reduce-scatter: f·Ψ·2·3m; m = 4: 151.6 GB. */
		got = llama_dp_per_gpu(3, m, "", &psi);
		near(got, f * psi * 2 * 3 * m, "zero 3");
		if (m == 4)
			near(got, 151.6e9, "zero 3, m = 4: 151.6 GB");
		/* Plain DP, fp32: one all-reduce, 2f·Ψ·4. */
		got = llama_dp_per_gpu(0, m, "", &psi);
		near(got, 2 * f * psi * 4, "zero 0");
	}
	double psi;
	/* The Ψ the figures above assume. */
	llama_dp_per_gpu(0, 1, "", &psi);
	near(psi, 6.74e9, "LLaMA-2 7B parameters");
}

/* ---- Programs and buckets ---- */

/* custom: 8 layers of 12h² parameters (h = 256: 786432), tied embedding
 * V·h = 1024 × 256 (1000 padded to a multiple of 128), dp 4, m =
 * global_batch / 4. */
static const char small_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.s]\nmodel = custom\nlayers = 8\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
	"dp = 4\nglobal_batch = %d\n%s";

static void small(char *out, size_t n, int gb, const char *extra)
{
	snprintf(out, n, small_fmt, gb, extra);
}

static struct config scfg;

static int load_spec(const char *text, struct job_spec *s)
{
	char path[300], *err = NULL;
	snprintf(path, sizeof path, "%s/spec.ini", run_tmpdir);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	if (scenario_load(&scfg, path, NULL, 0, &err) < 0) {
		printf("load: %s\n", err);
		free(err);
		return -1;
	}
	const struct cfg_inst *job = cfg_next(&scfg, &job_section, NULL);
	if (job_spec_init(s, &scfg, job->name, job->data, 1 << 20, &err) < 0) {
		printf("spec: %s\n", err);
		free(err);
		config_free(&scfg);
		return -1;
	}
	return 0;
}

static void unload_spec(struct job_spec *s)
{
	job_spec_free(s);
	config_free(&scfg);
}

static int count_ops(const struct job_prog *p, enum job_op_kind k)
{
	int n = 0;
	for (int i = 0; i < p->n; i++)
		n += p->op[i].kind == k;
	return n;
}

static int last_op(const struct job_prog *p, enum job_op_kind k)
{
	int at = -1;
	for (int i = 0; i < p->n; i++)
		if (p->op[i].kind == k)
			at = i;
	return at;
}

static int first_op(const struct job_prog *p, enum job_op_kind k)
{
	for (int i = 0; i < p->n; i++)
		if (p->op[i].kind == k)
			return i;
	return -1;
}

static void test_programs(void)
{
	char text[1024];
	struct job_spec s;
	/* The vocabulary, 1000, padded to a multiple of 128 (tp = 1): 1024. */
	const uint64_t layer = 12 * 256 * 256, emb = 1024 * 256;
	/* Megatron default, overlap off: one bucket (bucket_size None), all
	 * of the stage's gradients; its GRAD after the last compute. */
	small(text, sizeof text, 8, "");
	CU_ASSERT_EQUAL_FATAL(load_spec(text, &s), 0);
	CU_ASSERT_EQUAL(s.n_buckets, 1);
	CU_ASSERT_EQUAL(s.bucket[0].params, 8 * layer + emb);
	CU_ASSERT_EQUAL(count_ops(&s.prog[0], JOP_GRAD), 1);
	CU_ASSERT(last_op(&s.prog[0], JOP_GRAD) > last_op(&s.prog[0], JOP_COMPUTE));
	unload_spec(&s);
	/* dp_bucket = 2.5 layers: a bucket closes at >= 2.5 layers, so layers
	 * 7-5, 4-2, then 1, 0 and the embedding: 3 buckets; with overlap the
	 * first two GRADs precede compute (the rest of the backward). */
	small(text, sizeof text, 8, "overlap_grad_reduce = on\ndp_bucket = 1966080\n");
	CU_ASSERT_EQUAL_FATAL(load_spec(text, &s), 0);
	CU_ASSERT_EQUAL(s.n_buckets, 3);
	CU_ASSERT_EQUAL(s.bucket[0].params, 3 * layer);
	CU_ASSERT_EQUAL(s.bucket[2].params, 2 * layer + emb);
	CU_ASSERT(first_op(&s.prog[0], JOP_GRAD) < last_op(&s.prog[0], JOP_COMPUTE));
	unload_spec(&s);
	/* Megatron default with overlap: max(4e7, 1e6·4) = 4e7 > Ψ: one bucket. */
	small(text, sizeof text, 8, "overlap_grad_reduce = on\n");
	CU_ASSERT_EQUAL_FATAL(load_spec(text, &s), 0);
	CU_ASSERT_EQUAL(s.n_buckets, 1);
	unload_spec(&s);
	/* ZeRO-2, m = 2: every micro-batch reduces: 2 GRADs per bucket. */
	small(text, sizeof text, 8, "zero = 2\ndp_bucket = 1966080\n");
	CU_ASSERT_EQUAL_FATAL(load_spec(text, &s), 0);
	CU_ASSERT_EQUAL(s.m, 2);
	CU_ASSERT_EQUAL(count_ops(&s.prog[0], JOP_GRAD), 2 * 3);
	CU_ASSERT_EQUAL(s.cfg->grad_bytes, 2);
	unload_spec(&s);
	/* ZeRO-3, m = 2: per pass the embedding and 8 layers gathered (9
	 * slots, 4 passes); with prefetch gather k + 1 is issued before the
	 * wait for gather k; with zero3_prefetch = 0 each gather is waited
	 * for at once. */
	for (int pf = 0; pf < 2; pf++) {
		small(text, sizeof text, 8, pf ? "zero = 3\n" : "zero = 3\nzero3_prefetch = 0\n");
		CU_ASSERT_EQUAL_FATAL(load_spec(text, &s), 0);
		const struct job_prog *p = &s.prog[0];
		CU_ASSERT_EQUAL(p->n_slots, 4 * 9);
		CU_ASSERT_EQUAL(count_ops(p, JOP_ZERO_AG), 4 * 9);
		CU_ASSERT_EQUAL(count_ops(p, JOP_AG_WAIT), 4 * 9);
		int issued_ahead = 0;
		for (int i = 0; i < p->n; i++)
			if (p->op[i].kind == JOP_AG_WAIT) {
				bool ahead = false;
				for (int k = 0; k < i; k++)
					ahead |= p->op[k].kind == JOP_ZERO_AG && p->op[k].idx == p->op[i].idx + 1;
				issued_ahead += ahead;
			}
		/* Every wait but the last of each pass has the next gather in flight. */
		CU_ASSERT_EQUAL(issued_ahead, pf ? 4 * 8 : 0);
		unload_spec(&s);
	}
}

/* ---- Runs ---- */

/* Pairs of DP collectives of one communicator that overlap in time. The
 * communicator of a collective: its job and the tp index of its GPUs
 * (gpuN of any of its flows; the DP groups of one tp index). */
static const char same_comm[] =
	"WITH c AS (SELECT collective_id, start_ps, end_ps, "
	"  (SELECT substr(src_gpu, instr(src_gpu, '.gpu')) FROM flow f WHERE f.collective_id = x.collective_id "
	"   LIMIT 1) AS comm FROM collective x WHERE parallelism = 'dp') "
	"SELECT COUNT(*) FROM c a JOIN c b ON a.collective_id < b.collective_id AND a.comm %s b.comm "
	"WHERE a.start_ps < b.end_ps AND b.start_ps < a.end_ps";

static long long overlaps(sqlite3 *db, bool same)
{
	char q[700];
	snprintf(q, sizeof q, same_comm, same ? "=" : "<>");
	return q_int(db, q);
}

static void test_serial_buckets_busbw(void)
{
	char text[1024];
	/* 3 buckets of all-reduces, fp32: 6.3 MB per 2.5-layer... (3 layers: 9.4 MB). */
	small(text, sizeof text, 8, "overlap_grad_reduce = on\ndp_bucket = 1966080\niterations = 2\n");
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective WHERE parallelism = 'dp'"), 2 * 3);
	CU_ASSERT_EQUAL(overlaps(db, true), 0);
	/* Each full bucket (3 layers × 4 B) against the same all-reduce alone. */
	long long size = 3 * 12 * 256 * 256 * 4;
	char q[300];
	snprintf(q, sizeof q, "SELECT AVG(busbw_GB_s) FROM collective_busbw WHERE parallelism = 'dp' "
		 "AND size_bytes = %lld", size);
	double job_busbw = q_real(db, q);
	snprintf(q, sizeof q, "SELECT MIN(busbw_GB_s) FROM collective_busbw WHERE parallelism = 'dp' "
		 "AND size_bytes = %lld", size);
	double job_min = q_real(db, q);
	sqlite3_close(db);
	snprintf(text, sizeof text, "[simulation]\nprogress = off\n"
		 "[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		 "[traffic.iso]\ntype = collective\nop = allreduce\nsize = %lldB\n", size);
	db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	double iso = q_real(db, "SELECT busbw_GB_s FROM collective_busbw");
	sqlite3_close(db);
	printf("\n    bucket busbw %.2f GB/s (min %.2f), alone %.2f GB/s\n", job_busbw, job_min, iso);
	CU_ASSERT(job_min > 0.9 * iso && job_busbw < 1.1 * iso);
}

/* tp = 2 on hosts of 2 GPUs: two DP communicators (tp index 0 and 1),
 * each serial, running beside each other. */
static void test_two_communicators(void)
{
	static const char text[] =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[job.s]\nmodel = custom\nlayers = 8\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
		"tp = 2\ndp = 4\nglobal_batch = 8\noverlap_grad_reduce = on\ndp_bucket = 983040\n";
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective WHERE parallelism = 'dp'"), 2 * 3);
	CU_ASSERT_EQUAL(overlaps(db, true), 0);
	CU_ASSERT(overlaps(db, false) > 0);
	sqlite3_close(db);
}

/* Iteration time, compute of the reference worker (stage 0, dp index 0:
 * its compute spans; iteration.compute_ps is the critical path's) and the
 * sum of the DP collectives' durations of iteration 0. */
static void iter_of(const char *text, double *T, double *compute, double *dp_sum)
{
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	*T = q_real(db, "SELECT end_ps - start_ps FROM iteration WHERE iteration = 0");
	*compute = q_real(db, "SELECT SUM(compute_ps) FROM compute_span WHERE iteration = 0 AND stage = 0 "
			  "AND dp_index = 0");
	*dp_sum = q_real(db, "SELECT SUM(end_ps - start_ps) FROM collective WHERE parallelism = 'dp' "
		       "AND iteration = 0");
	sqlite3_close(db);
}

/* Slow GPUs (mfu 0.02) so that compute and the reductions are comparable. */
static void test_overlap_flags(void)
{
	char text[1024];
	double T_off, T_on, c_off, c_on, dp_off, dp_on;
	/* Without overlap_grad_reduce the reductions follow the backward, one
	 * after another: T = compute + Σ durations. */
	small(text, sizeof text, 8, "mfu = 0.02\ndp_bucket = 1966080\n");
	iter_of(text, &T_off, &c_off, &dp_off);
	printf("\n    overlap off: T %.0f, compute %.0f, dp %.0f ps\n", T_off, c_off, dp_off);
	CU_ASSERT(fabs((c_off + dp_off) / T_off - 1) < 0.01);
	small(text, sizeof text, 8, "mfu = 0.02\ndp_bucket = 1966080\noverlap_grad_reduce = on\n");
	iter_of(text, &T_on, &c_on, &dp_on);
	printf("    overlap on: T %.0f, compute %.0f, dp %.0f ps\n", T_on, c_on, dp_on);
	CU_ASSERT_EQUAL(c_on, c_off);
	CU_ASSERT(T_on < T_off);
	/* The distributed optimizer's gathers: after the reductions, or
	 * overlapping the next forward (started at the iteration's start). */
	double T_g0, T_g1, c, d;
	small(text, sizeof text, 8, "mfu = 0.02\ndp_bucket = 1966080\noverlap_grad_reduce = on\nzero = 1\n");
	iter_of(text, &T_g0, &c, &d);
	small(text, sizeof text, 8, "mfu = 0.02\ndp_bucket = 1966080\noverlap_grad_reduce = on\nzero = 1\n"
	      "overlap_param_gather = on\n");
	iter_of(text, &T_g1, &c, &d);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MIN(start_ps) FROM collective WHERE op = 'allgather'"), 0);
	sqlite3_close(db);
	printf("    zero 1 gathers after: T %.0f, overlapping the forward: %.0f ps\n", T_g0, T_g1);
	CU_ASSERT(T_g1 < T_g0);
	/* ZeRO-3: prefetching the next layer's gather shortens the iteration. */
	double T_p0, T_p1;
	small(text, sizeof text, 8, "mfu = 0.02\nzero = 3\nzero3_prefetch = 0\n");
	iter_of(text, &T_p0, &c, &d);
	small(text, sizeof text, 8, "mfu = 0.02\nzero = 3\n");
	iter_of(text, &T_p1, &c, &d);
	printf("    zero 3 without prefetch: T %.0f, with: %.0f ps\n", T_p0, T_p1);
	CU_ASSERT(T_p1 < T_p0);
	/* Same bytes either way: the plan does not depend on the overlap. */
	struct job_plan_totals a, b;
	small(text, sizeof text, 8, "zero = 1\noverlap_grad_reduce = on\n");
	plan_of(text, &a, NULL);
	small(text, sizeof text, 8, "zero = 1\noverlap_grad_reduce = on\noverlap_param_gather = on\n");
	plan_of(text, &b, NULL);
	CU_ASSERT_EQUAL(a.bytes[JOB_PAR_DP], b.bytes[JOB_PAR_DP]);
}

/* The simulation moves what --check plans, with ZeRO-2 and -3 over two
 * micro-batches and overlapped gathers (tp 2: several communicators). */
static void test_plan_equals_run(void)
{
	static const char *const extra[] = {
		"zero = 2\ndp_bucket = 1966080\n",
		"zero = 3\n",
		"zero = 1\noverlap_grad_reduce = on\noverlap_param_gather = on\ndp_bucket = 1966080\n",
	};
	for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
		char text[1024];
		snprintf(text, sizeof text, "[simulation]\nprogress = off\n"
			 "[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\n"
			 "link_delay = 1us\n[job.s]\nmodel = custom\nlayers = 8\nhidden = 256\nheads = 4\n"
			 "vocab = 1000\nseq_len = 128\ntp = 2\ndp = 4\nglobal_batch = 8\niterations = 2\n%s",
			 extra[i]);
		struct job_plan_totals t;
		plan_of(text, &t, NULL);
		sqlite3 *db = run_text(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(db);
		for (int it = 0; it < 2; it++) {
			char q[200];
			snprintf(q, sizeof q, "SELECT COALESCE(SUM(size_bytes), 0) FROM flow WHERE iteration = %d "
				 "AND parallelism = 'dp'", it);
			long long got = q_int(db, q);
			if ((uint64_t)got != t.bytes[JOB_PAR_DP])
				printf("\n    %s iteration %d: simulated %lld, plan %llu\n", extra[i], it, got,
				       (unsigned long long)t.bytes[JOB_PAR_DP]);
			CU_ASSERT_EQUAL((uint64_t)got, t.bytes[JOB_PAR_DP]);
		}
		CU_ASSERT_EQUAL(overlaps(db, true), 0);
		sqlite3_close(db);
	}
}

static void test_dtype(void)
{
	char text[1024];
	struct job_plan_totals a, b;
	/* fp32 reductions move twice the bytes of bf16 ones (zero 0: all DP bytes are gradients). */
	small(text, sizeof text, 8, "grad_reduce_dtype = fp32\n");
	plan_of(text, &a, NULL);
	small(text, sizeof text, 8, "grad_reduce_dtype = bf16\n");
	plan_of(text, &b, NULL);
	CU_ASSERT_EQUAL(a.bytes[JOB_PAR_DP], 2 * b.bytes[JOB_PAR_DP]);
	/* grad_bytes alone still says the width. */
	small(text, sizeof text, 8, "grad_bytes = 2\n");
	plan_of(text, &a, NULL);
	CU_ASSERT_EQUAL(a.bytes[JOB_PAR_DP], b.bytes[JOB_PAR_DP]);
	small(text, sizeof text, 8, "grad_bytes = 2\ngrad_reduce_dtype = fp32\n");
	run_expect_error(text, "grad_bytes = '2'", "grad_reduce_dtype = fp32");
	small(text, sizeof text, 8, "zero = 3\noverlap_param_gather = on\n");
	run_expect_error(text, "overlap_param_gather", "zero = 1 or 2");
	small(text, sizeof text, 8, "zero = 1\noverlap_param_gather = on\n");
	run_expect_error(text, "overlap_param_gather", "overlap_grad_reduce = on");
	small(text, sizeof text, 8, "grad_reduce_dtype = fp16\n");
	run_expect_error(text, "grad_reduce_dtype = 'fp16'", "bf16");
	/* ZeRO-3 with pp or ep: refused, located, saying why. */
	static const char *const z3[] = { "zero = 3\npp = 2\n", "zero = 3\nexperts = 4\nep = 2\n" };
	for (int i = 0; i < 2; i++) {
		small(text, sizeof text, 8, z3[i]);
		char path[300], *err = NULL;
		snprintf(path, sizeof path, "%s/z3.ini", run_tmpdir);
		FILE *f = fopen(path, "w");
		fputs(text, f);
		fclose(f);
		CU_ASSERT_EQUAL_FATAL(scenario_load(&scfg, path, NULL, 0, &err), 0);
		struct job_spec s;
		const struct cfg_inst *job = cfg_next(&scfg, &job_section, NULL);
		CU_ASSERT_EQUAL(job_spec_init(&s, &scfg, job->name, job->data, 1 << 20, &err), -1);
		CU_ASSERT(err && msg_has_all(err, (const char *const[]){ "z3.ini:", "zero = '3'",
									  i ? "expert parameters" : "pipeline", NULL }));
		free(err);
		config_free(&scfg);
	}
}

TEST_MAIN("job_zero",
	  { "LLaMA-2 7B dp 16, ZeRO-1/2/3 at m = 1 and 4: DP bytes in closed form", test_llama_zero_volumes },
	  { "programs: buckets, per-micro-batch reductions, ZeRO-3 prefetch", test_programs },
	  { "one communicator's buckets never overlap; busbw within 10% of alone", test_serial_buckets_busbw },
	  { "two communicators: each serial, side by side", test_two_communicators },
	  { "overlap_grad_reduce, overlap_param_gather, ZeRO-3 prefetch", test_overlap_flags },
	  { "ZeRO-1/2/3 runs move the planned DP bytes, one collective per communicator at a time",
	    test_plan_equals_run },
	  { "grad_reduce_dtype and its errors", test_dtype })
