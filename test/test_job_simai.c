/*
 * test_job_simai.c — `[job] workload = simai` (models/job/simai_parse.c,
 * workload_simai.c) against the files and closed forms:
 *   - the shipped SimAI example files parse to their headers and line
 *     counts; malformed files fail as "NAME:LINE: ..." at the right line;
 *   - compute only (free communication, fake_coll.h), pp = 1: the
 *     iteration is SimAI's sequential pass, every line's forward then
 *     every line's input- and weight-gradient compute, plus the update time
 *     after each blocking (forward, input-gradient) collective that runs:
 *       T = sum_i (fwd_i + ig_i + wg_i) + sum_i upd_i x (runs(fwd_i) + runs(ig_i))
 *     summed here from the file's text by a reader of this test's own;
 *   - compute only, pp = 2: equal micro-batches through 1F1B give
 *     T = (m + p - 1)(t_f + t_b) exactly (Narayanan et al. SC'21), and
 *     through the interleaved schedule with v chunks
 *     T = (m v + p - 1)(t_f + t_b) / v, where t_f, t_b are a stage's
 *     forward and backward per micro-batch;
 *   - on a fabric, the run moves exactly the bytes --check plans for each
 *     parallelism (the shipped MoE example: TP, EP, expert-DP), and
 *     iterations repeat the same program;
 *   - scenario errors: a missing file key, a key the file decides, too few
 *     GPUs, a malformed file: exit 2 with the location.
 */
#define _GNU_SOURCE /* asprintf */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "job_plan.h"
#include "lex.h"
#include "run_fixture.h"
#include "fake_coll.h"
#include "plan_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

#define DATA ROCESIM_SRCDATADIR "/simai/"

static char *slurp(const char *path, size_t *len)
{
	char *text, *err = NULL;
	if (lex_read_file(path, &text, len, &err) < 0) {
		printf("%s\n", err);
		free(err);
		return NULL;
	}
	return text;
}

static void test_examples_parse(void)
{
	static const struct { const char *file; int tp, ep, pp, vpp, ga, gpus, n; uint64_t pp_comm; } ex[] = {
		{ "microAllReduce.txt", 8, 1, 1, 8, 1, 8, 2, 0 },
		{ "microAllReduce_16g.txt", 8, 1, 1, 8, 1, 16, 2, 0 },
		{ "workload_ep_test.txt", 4, 4, 1, 1, 1, 32, 43, 0 },
		{ "workload_gpt7b_64g.txt", 8, 1, 1, 32, 8, 64, 1058, 0 },
		{ "workload_gpt13b_128g.txt", 8, 1, 2, 20, 16, 128, 1338, 2621440 },
	};
	for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
		char path[512], *err = NULL;
		size_t len;
		snprintf(path, sizeof path, DATA "%s", ex[i].file);
		char *text = slurp(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		struct simai_workload w;
		CU_ASSERT_EQUAL_FATAL(simai_parse(path, text, len, &w, &err), 0);
		CU_ASSERT_EQUAL(w.tp, ex[i].tp);
		CU_ASSERT_EQUAL(w.ep, ex[i].ep);
		CU_ASSERT_EQUAL(w.pp, ex[i].pp);
		CU_ASSERT_EQUAL(w.vpp, ex[i].vpp);
		CU_ASSERT_EQUAL(w.ga, ex[i].ga);
		CU_ASSERT_EQUAL(w.all_gpus, ex[i].gpus);
		CU_ASSERT_EQUAL(w.n, ex[i].n);
		CU_ASSERT_EQUAL(w.pp_comm_b, ex[i].pp_comm);
		simai_free(&w);
		free(text);
	}
	/* A line of the MoE example, field by field: line 14 of the file,
	 * "mlp_moelayer -1 1 ALLTOALL_EP 25165824 1 ALLTOALL_EP 25165824 1 NONE 0 100". */
	size_t len;
	char *err = NULL, *text = slurp(DATA "workload_ep_test.txt", &len);
	struct simai_workload w;
	CU_ASSERT_EQUAL_FATAL(simai_parse("ep", text, len, &w, &err), 0);
	const struct simai_line *l = &w.line[11];
	CU_ASSERT_STRING_EQUAL(l->name, "mlp_moelayer");
	CU_ASSERT_EQUAL(l->line, 14);
	CU_ASSERT_EQUAL(l->fwd.group, SIMAI_EP);
	CU_ASSERT_EQUAL(l->fwd.op, COLL_ALLTOALL);
	CU_ASSERT_EQUAL(l->fwd.size_b, 25165824);
	CU_ASSERT_EQUAL(l->ig.group, SIMAI_EP);
	CU_ASSERT_EQUAL(l->wg.group, SIMAI_NONE);
	CU_ASSERT_EQUAL(l->upd_ns, 100);
	/* moe_grad_norm2 (line 8): the expert-DP group; embedding_grads (line
	 * 6): a plain input-gradient all-reduce runs over TP. */
	CU_ASSERT_EQUAL(w.line[5].wg.group, SIMAI_DP_EP);
	CU_ASSERT_EQUAL(w.line[5].wg.op, COLL_REDUCE_SCATTER);
	CU_ASSERT_EQUAL(w.line[3].ig.group, SIMAI_TP);
	CU_ASSERT_EQUAL(w.line[0].wg.group, SIMAI_DP);
	simai_free(&w);
	free(text);
}

#define HDR "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 4\n"
#define LINE "l -1 10 ALLREDUCE 64 10 NONE 0 10 ALLREDUCE 64 1\n"

static void test_parse_errors(void)
{
	static const struct { const char *text, *want1, *want2; } bad[] = {
		{ "", "x.txt:1:", "HYBRID_TRANSFORMER_FWD_IN_BCKWD" },
		{ "HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n1\n" LINE, "x.txt:1:", "workload type" },
		{ HDR, "x.txt:1:", "number of layer lines" },
		{ HDR "2\n" LINE, "x.txt:3:", "layer name" },
		{ HDR "1\nl -1 10 ALLREDUCE 64 10 BROADCAST 0 10 NONE 0 1\n", "x.txt:3:", "'BROADCAST'" },
		{ HDR "1\nl -1 10 ALLREDUCE_TP 64 10 NONE 0 10 NONE 0 1\n", "x.txt:3:", "_DP_EP" },
		{ HDR "1\nl 0 10 NONE 0 10 NONE 0 10 NONE 0 1\n", "x.txt:3:", "expected -1" },
		{ HDR "1\nl -1 10 NONE -5 10 NONE 0 10 NONE 0 1\n", "x.txt:3:", "forward collective size" },
		{ HDR "1\nl -1 10 NONE 0 10 NONE 0 10 NONE 0\n", "x.txt:3:", "update time" },
		{ HDR "1\n" LINE LINE, "x.txt:4:", "last layer line" },
		{ HDR "x\n", "x.txt:2:", "number of layer lines" },
		{ HDR "0\n", "x.txt:2:", "1 to" },
		{ "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 all_gpus: 5\n1\n" LINE, "x.txt:1:",
		  "not a multiple" },
		{ "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 3 all_gpus: 8\n1\n" LINE, "x.txt:1:",
		  "does not divide" },
		{ "HYBRID_TRANSFORMER_FWD_IN_BCKWD all_gpus: 8\n1\n" LINE, "x.txt:1:", "model_parallel_NPU_group" },
		{ "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 all_gpus: 8 colour: 3\n1\n" LINE,
		  "x.txt:1:", "unknown header key 'colour:'" },
		{ "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 0 all_gpus: 8\n1\n" LINE, "x.txt:1:",
		  "at least 1" },
		{ "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 all_gpus: 8 checkpoints: 1 3\n1\n" LINE,
		  "x.txt:1:", "checkpoints:" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct simai_workload w;
		char *err = NULL;
		int rc = simai_parse("x.txt", bad[i].text, strlen(bad[i].text), &w, &err);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_PTR_NULL(w.line);
		if (!msg_has_all(err, (const char *const[]){ bad[i].want1, bad[i].want2, NULL }))
			printf("  case %zu\n", i);
		CU_ASSERT(msg_has_all(err, (const char *const[]){ bad[i].want1, bad[i].want2, NULL }));
		free(err);
	}
}

/* ---- Compute only ---- */

/* The scenario: one leaf of `hosts` hosts x 8 GPUs, the job reading path. */
static char *scenario(const char *path, int hosts)
{
	char *t;
	CU_ASSERT_FATAL(asprintf(&t, "[topology]\ntype = leaf_spine\nleaves = 1\nspines = 1\nhosts_per_leaf = %d\n"
				 "link_rate = 400Gbps\nlink_delay = 1us\ngpus_per_host = 8\n[nic]\nmtu = 4096\n"
				 "[job.s]\nworkload = simai\nfile = %s\n", hosts, path) > 0);
	return t;
}

static long long iteration_ps(const char *text, bool free_comm)
{
	sqlite3 *db = run_text_free(text, free_comm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	long long T = q_int(db, "SELECT end_ps - start_ps FROM iteration WHERE iteration = 0");
	sqlite3_close(db);
	return T;
}

/* SimAI's sequential pass summed from the file's text (this test's own
 * reader: sscanf over the lines after the first two). A collective runs
 * when its type is not NONE, its size is not 0 and its group (TP for
 * forward and input gradient, EP with _EP) has two GPUs or more. */
static long long pass_ps(const char *path, int tp, int ep)
{
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char buf[1024], c[3][64];
	unsigned long long t[3], size[3], upd, sum_ns = 0;
	for (int n = 0; fgets(buf, sizeof buf, f); n++) {
		if (n < 2)
			continue;
		int k = sscanf(buf, "%*s %*d %llu %63s %llu %llu %63s %llu %llu %63s %llu %llu", &t[0], c[0], &size[0],
			       &t[1], c[1], &size[1], &t[2], c[2], &size[2], &upd);
		if (k != 10)
			continue;
		sum_ns += t[0] + t[1] + t[2];
		for (int ph = 0; ph < 2; ph++) {
			int group = strstr(c[ph], "_EP") ? ep : tp;
			if (strcmp(c[ph], "NONE") != 0 && size[ph] && group >= 2)
				sum_ns += upd;
		}
	}
	fclose(f);
	return (long long)sum_ns * 1000;
}

static void test_compute_only_pp1(void)
{
	static const struct { const char *file; int hosts, tp, ep; } ex[] = {
		{ "workload_ep_test.txt", 4, 4, 4 },
		{ "microAllReduce.txt", 1, 8, 1 },
	};
	for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
		char path[512];
		snprintf(path, sizeof path, DATA "%s", ex[i].file);
		char *text = scenario(path, ex[i].hosts);
		long long want = pass_ps(path, ex[i].tp, ex[i].ep);
		long long got = iteration_ps(text, true);
		printf("\n    %s: iteration %lld ps, file's pass %lld ps", ex[i].file, got, want);
		CU_ASSERT_EQUAL(got, want);
		free(text);
	}
}

/* A pipelined file: pp 2, tp 1, 2 GPUs; ga micro-batches of 4 lines
 * (embedding_layer first), each line fwd 1000 ns, ig 700 ns, wg 500 ns and
 * no collective, so a stage's micro-batch is t_f = 4 us, t_b = 4.8 us. */
static char *pipeline_file(int ga, int vpp)
{
	char *path;
	CU_ASSERT_FATAL(asprintf(&path, "%s/pipe_%d_%d.txt", run_tmpdir, ga, vpp) > 0);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ep: 1 pp: 2 vpp: %d ga: %d "
		"all_gpus: 2 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 4096\n%d\n", vpp, ga, ga * 4);
	for (int k = 0; k < ga; k++)
		for (int i = 0; i < 4; i++)
			fprintf(f, "%s\t-1\t1000\tNONE\t0\t700\tNONE\t0\t500\tNONE\t0\t100\n",
				i ? "layer" : "embedding_layer");
	fclose(f);
	return path;
}

static void test_compute_only_pipeline(void)
{
	const long long tf = 4000000, tb = 4800000, p = 2;
	for (int v = 1; v <= 2; v++) {
		int m = 4;
		char *path = pipeline_file(m, v);
		char *text = scenario(path, 1);
		long long got = iteration_ps(text, true);
		/* (m v + p − 1)(t_f + t_b)/v: (m + p − 1)(t_f + t_b) when v = 1 */
		long long want = (m * v + p - 1) * (tf + tb) / v;
		printf("\n    pp 2, vpp %d, ga %d: iteration %lld ps, closed form %lld ps", v, m, got, want);
		CU_ASSERT_EQUAL(got, want);
		/* the plan: 2 (p v − 1) m sends of pp_comm per dp index and tp rank */
		struct job_plan_totals t;
		plan_of(text, &t, NULL);
		CU_ASSERT_EQUAL(t.bytes[JOB_PAR_PP], (uint64_t)(2 * (p * v - 1) * m * 4096));
		free(text);
		free(path);
	}
}

/* ---- On a fabric ---- */

static void test_run_moves_plan(void)
{
	char *text = scenario(DATA "workload_ep_test.txt", 4);
	struct job_plan_totals t;
	plan_of(text, &t, NULL);
	CU_ASSERT(t.bytes[JOB_PAR_TP] > 0 && t.bytes[JOB_PAR_EP] > 0 && t.bytes[JOB_PAR_DP] > 0);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	plan_bytes_match(db, &t, 0);
	/* With communication the iteration lasts longer than its compute. */
	long long T = q_int(db, "SELECT end_ps - start_ps FROM iteration WHERE iteration = 0");
	CU_ASSERT(T > pass_ps(DATA "workload_ep_test.txt", 4, 4));
	sqlite3_close(db);
	free(text);
}

/* Every iteration runs the same program: with pp = 1 and nothing else on
 * the fabric, two iterations of the micro all-reduce last the same, back
 * to back, and the second moves the same bytes as the first. */
static void test_iterations_repeat(void)
{
	char *text = scenario(DATA "microAllReduce.txt", 1), *t2;
	CU_ASSERT_FATAL(asprintf(&t2, "%siterations = 2\n", text) > 0);
	sqlite3 *db = run_text(t2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MAX(end_ps - start_ps) = MIN(end_ps - start_ps) FROM iteration"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT start_ps FROM iteration WHERE iteration = 1"),
			q_int(db, "SELECT end_ps FROM iteration WHERE iteration = 0"));
	CU_ASSERT_EQUAL(q_int(db, "SELECT SUM(size_bytes) FROM flow WHERE iteration = 0"),
			q_int(db, "SELECT SUM(size_bytes) FROM flow WHERE iteration = 1"));
	sqlite3_close(db);
	free(t2);
	free(text);
}

static void test_scenario_errors(void)
{
	run_expect_error("[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			 "gpus_per_host = 8\n[job.s]\nworkload = simai\n", "[job.s]", "file");
	char *text = scenario(DATA "workload_ep_test.txt", 4), *t2;
	CU_ASSERT_FATAL(asprintf(&t2, "%stp = 4\n", text) > 0);
	run_expect_error(t2, "tp", "workload = simai");
	free(t2);
	free(text);
	/* 32 GPUs asked, 16 there */
	text = scenario(DATA "workload_ep_test.txt", 2);
	run_expect_error(text, "all_gpus = 32", "have 16");
	free(text);
	char *path;
	CU_ASSERT_FATAL(asprintf(&path, "%s/bad.txt", run_tmpdir) > 0);
	FILE *f = fopen(path, "w");
	fputs(HDR "2\n" LINE "l -1 10 ALLREDUCE 64 10 NONE 0 10 ALLSCATTER 64 1\n", f);
	fclose(f);
	text = scenario(path, 1);
	run_expect_error(text, "bad.txt:4:", "'ALLSCATTER'");
	free(text);
	/* Groups a phase cannot use (the parser accepts the words). */
	f = fopen(path, "w");
	fputs(HDR "2\n" LINE "l -1 10 NONE 0 10 NONE 0 10 ALLGATHER_EP 64 1\n", f);
	fclose(f);
	text = scenario(path, 1);
	run_expect_error(text, "bad.txt:4: layer l", "_EP weight-gradient");
	free(text);
	f = fopen(path, "w");
	fputs(HDR "1\nl -1 10 ALLREDUCE_DP_EP 64 10 NONE 0 10 NONE 0 1\n", f);
	fclose(f);
	text = scenario(path, 1);
	run_expect_error(text, "bad.txt:3: layer l", "_DP_EP forward");
	free(text);
	/* pp 2 without findable micro-batches */
	f = fopen(path, "w");
	fputs("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 pp: 2 ga: 2 all_gpus: 2\n1\n"
	      "l -1 10 NONE 0 10 NONE 0 10 NONE 0 1\n", f);
	fclose(f);
	text = scenario(path, 1);
	run_expect_error(text, "ga = 2 micro-batches", "embedding_layer");
	free(text);
	/* The file's collectives need algorithms for their group sizes: a TP
	 * all-reduce over 3 GPUs has no halving-doubling. */
	f = fopen(path, "w");
	fputs("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 3 all_gpus: 3\n1\n"
	      "l -1 10 ALLREDUCE 96 10 NONE 0 10 NONE 0 1\n", f);
	fclose(f);
	text = scenario(path, 1);
	CU_ASSERT_FATAL(asprintf(&t2, "%sallreduce = halving_doubling\n", text) > 0);
	run_expect_error(t2, "allreduce", "over 3 GPUs");
	free(t2);
	free(text);
	free(path);
}

TEST_MAIN("job_simai",
	  { "the shipped SimAI files parse to their headers and lines", test_examples_parse },
	  { "malformed files: NAME:LINE: what was expected", test_parse_errors },
	  { "free communication, pp 1: SimAI's sequential pass", test_compute_only_pp1 },
	  { "free communication, pp 2: (m v + p - 1)(t_f + t_b)/v", test_compute_only_pipeline },
	  { "the MoE example on a fabric moves the plan's bytes", test_run_moves_plan },
	  { "iterations repeat the program", test_iterations_repeat },
	  { "scenario errors: missing file, owned keys, GPUs, bad file", test_scenario_errors })
