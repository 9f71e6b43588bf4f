/*
 * test_job_plan.c — the per-iteration plan of a job (models/job/job_plan.c,
 * workload_*.c) against closed forms (docs/protocol.md "Training jobs"):
 * TP, PP and DP bytes of a dense 3D-parallel GPT job, ZeRO-1 and ZeRO-3
 * volumes, parameter counts of the presets, the 1F1B order, and MoE
 * routing (skew 0: every pair equal; skew > 0: unequal, re-drawn each
 * iteration, same seed same draws). No network runs here: --check's bytes
 * come from coll_plan over the same programs the simulation executes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "run.h"
#include "job_plan.h"
#include "rng.h"
#include "testutil.h"
#include "workload.h"

static char dir[] = "/tmp/rocesim-jobplan-XXXXXX";

static const char head[] = "[topology]\ntype = star\nhosts = 16\ngpus_per_host = 8\n"
			   "link_rate = 100Gbps\nlink_delay = 1us\n";

/* Loads head + job text and resolves job 0 onto 128 GPUs. */
static int load(const char *job, struct config *cfg, struct job_spec *s)
{
	char path[256], *err = NULL;
	snprintf(path, sizeof path, "%s/j.ini", dir);
	FILE *f = fopen(path, "w");
	fprintf(f, "%s%s", head, job);
	fclose(f);
	if (scenario_load(cfg, path, NULL, 0, &err) < 0) {
		printf("config: %s\n", err);
		free(err);
		return -1;
	}
	const struct cfg_inst *ji = cfg_next(cfg, &job_section, NULL);
	if (job_spec_init(s, cfg, ji->name, ji->data, 128, &err) < 0) {
		printf("spec: %s\n", err);
		free(err);
		config_free(cfg);
		return -1;
	}
	return 0;
}

static void unload(struct config *cfg, struct job_spec *s)
{
	job_spec_free(s);
	config_free(cfg);
}

/* Parameter counts from the dimensions (job_model.h). */
static void test_preset_params(void)
{
	static const struct { const char *name; double want; } p[] = {
		{ "gpt3-175b", 174.6e9 }, { "llama2-7b", 6.74e9 }, { "llama2-70b", 68.98e9 },
		{ "mixtral-8x7b", 46.70e9 }, { "bert-large", 0.333e9 },
	};
	for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
		char job[200];
		struct config cfg;
		struct job_spec s;
		snprintf(job, sizeof job, "[job.j]\nmodel = %s\nglobal_batch = 8\n", p[i].name);
		CU_ASSERT_EQUAL_FATAL(load(job, &cfg, &s), 0);
		double got = (double)job_model_params(&s.model);
		if (fabs(got / p[i].want - 1) > 0.01)
			printf("%s: %.4g parameters, want %.4g\n", p[i].name, got, p[i].want);
		CU_ASSERT(fabs(got / p[i].want - 1) < 0.01);
		unload(&cfg, &s);
	}
}

/* A dense GPT-like custom model: tp 2, pp 2, dp 2, 8 layers, m = 4. */
static const char gpt3d[] = "[job.g]\nmodel = custom\nlayers = 8\nhidden = 1024\nheads = 16\n"
			    "vocab = 5000\nseq_len = 512\nglobal_batch = 8\ntp = 2\npp = 2\ndp = 2\n";

static void test_dense_3d_closed_forms(void)
{
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(gpt3d, &cfg, &s), 0);
	/* V: 5000 padded to a multiple of 128·t = 256 (Megatron's make_vocab_size_divisible_by).
	 * g: gradients reduce in fp32 (Megatron-LM with bf16 training; the
	 * default of grad_reduce_dtype with zero 0). */
	const uint64_t t = 2, p = 2, d = 2, L = 8, h = 1024, V = 5120, sq = 512, b = 1, g = 4;
	const uint64_t m = 8 / (b * d), act = b * sq * h * 2;
	CU_ASSERT_EQUAL(s.m, (int64_t)m);
	CU_ASSERT_EQUAL(s.act_b, act);
	struct job_plan_totals tot;
	job_plan_totals(&s, &tot);
	/* TP: per layer 2 all-reduces forward + 2 backward of b·s·h·2 B over t
	 * ranks, 2(t−1)·S each (ring), in every one of d replicas and m
	 * micro-batches; plus per micro-batch the input embedding's forward
	 * all-reduce, the LM head's backward all-reduce (both b·s·h·2 B) and the
	 * cross entropy's three all-reduces of b·s·4 B. */
	CU_ASSERT_EQUAL(tot.bytes[JOB_PAR_TP],
			d * m * 2 * (t - 1) * (L * 4 * act + 2 * act + 3 * b * sq * 4));
	/* PP: activations forward and gradients backward per micro-batch per
	 * boundary; without sequence parallelism every tp rank sends the whole
	 * tensor (Megatron-Core). */
	CU_ASSERT_EQUAL(tot.bytes[JOB_PAR_PP], d * (p - 1) * m * 2 * act * t);
	/* DP: ring all-reduce (2(d−1)·S) of every stage's gradients per tp shard
	 * (12h² per layer; the tied embedding on stage 0 and its copy on the last
	 * stage), plus the embedding all-reduce between first and last stage. */
	uint64_t psi_layers = L * 12 * h * h, emb = V * h;
	uint64_t dp_want = 2 * (d - 1) * g * (psi_layers + 2 * emb) + d * 2 * emb * g;
	CU_ASSERT_EQUAL(tot.bytes[JOB_PAR_DP], dp_want);
	CU_ASSERT_EQUAL(tot.bytes[JOB_PAR_EP], 0);
	/* Every op of a stage is the same every iteration (programs are fixed);
	 * sends only to adjacent stages: a stage-0 program sends forward only. */
	for (int i = 0; i < s.prog[0].n; i++)
		if (s.prog[0].op[i].kind == JOP_SEND)
			CU_ASSERT_EQUAL(s.prog[0].op[i].dir, JOB_FWD);
	for (int i = 0; i < s.prog[1].n; i++)
		if (s.prog[1].op[i].kind == JOP_SEND)
			CU_ASSERT_EQUAL(s.prog[1].op[i].dir, JOB_BWD);
	unload(&cfg, &s);
}

/* ZeRO with one micro-batch: stage 0 all-reduces (2Ψ per rank), 1 and 2
 * reduce-scatter and all-gather (Ψ + Ψ), 3 gathers before forward and
 * backward and reduce-scatters (3Ψ). Ring: (d−1)·S for RS and AG, 2(d−1)·S
 * for AR. Gradients are 4 B with zero 0, 1 (Megatron-LM's fp32 reduction),
 * 2 B with zero 2, 3 (DeepSpeed's bf16); parameters 2 B. */
static void test_zero_volumes(void)
{
	const uint64_t d = 4, L = 4, h = 512, V = 1024; /* 1000 padded to a multiple of 128 */
	const uint64_t psi = L * 12 * h * h + V * h;
	for (int zero = 0; zero <= 3; zero++) {
		char job[400];
		struct config cfg;
		struct job_spec s;
		snprintf(job, sizeof job, "[job.z]\nmodel = custom\nlayers = 4\nhidden = 512\nheads = 8\n"
			 "vocab = 1000\nseq_len = 128\nglobal_batch = 4\ndp = 4\nzero = %d\n", zero);
		CU_ASSERT_EQUAL_FATAL(load(job, &cfg, &s), 0);
		struct job_plan_totals tot;
		job_plan_totals(&s, &tot);
		uint64_t g = zero <= 1 ? 4 : 2;
		uint64_t want = zero == 0 ? 2 * (d - 1) * psi * g
			: zero == 3 ? (d - 1) * psi * (2 * 2 + g) : (d - 1) * psi * (g + 2);
		if (tot.bytes[JOB_PAR_DP] != want)
			printf("zero %d: %llu, want %llu\n", zero, (unsigned long long)tot.bytes[JOB_PAR_DP],
			       (unsigned long long)want);
		CU_ASSERT_EQUAL(tot.bytes[JOB_PAR_DP], want);
		unload(&cfg, &s);
	}
}

/* Located errors needing the model or the GPU count. */
static void test_layout_errors(void)
{
	static const struct { const char *job; const char *want; } c[] = {
		{ "[job.e]\nmodel = llama2-7b\nglobal_batch = 256\ndp = 256\n", "dp = '256'" },
		{ "[job.e]\nmodel = llama2-7b\nglobal_batch = 8\npp = 3\n", "pp = '3'" },
		{ "[job.e]\nmodel = llama2-7b\nglobal_batch = 8\ntp = 3\n", "tp = '3'" },
		{ "[job.e]\nmodel = mixtral-8x7b\nglobal_batch = 6\ndp = 3\nep = 3\n", "ep = '3'" },
		{ "[job.e]\nmodel = llama2-7b\nglobal_batch = 8\ndp = 2\nep = 2\n", "needs an MoE model" },
		{ "[job.e]\nmodel = custom\nlayers = 2\nhidden = 64\nseq_len = 8\nglobal_batch = 8\n", "needs the key heads" },
		{ "[job.e]\nmodel = llama2-7b\nglobal_batch = 8\npp = 2\nzero = 3\n", "zero = '3'" },
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char path[256], *err = NULL;
		struct config cfg;
		struct job_spec s;
		snprintf(path, sizeof path, "%s/e.ini", dir);
		FILE *f = fopen(path, "w");
		fprintf(f, "%s%s", head, c[i].job);
		fclose(f);
		CU_ASSERT_EQUAL_FATAL(scenario_load(&cfg, path, NULL, 0, &err), 0);
		const struct cfg_inst *job = cfg_next(&cfg, &job_section, NULL);
		CU_ASSERT_EQUAL(job_spec_init(&s, &cfg, job->name, job->data, 128, &err), -1);
		CU_ASSERT_PTR_NOT_NULL(err);
		if (err && !strstr(err, c[i].want))
			printf("got '%s', want '%s'\n", err, c[i].want);
		CU_ASSERT(err && strstr(err, c[i].want) && strstr(err, "e.ini:") && strstr(err, "[job.e]"));
		free(err);
		config_free(&cfg);
	}
}

static void test_1f1b_order(void)
{
	struct wl_pp_slot sl[16];
	wl_pp_schedule(4, 0, 8, sl);
	/* stage 0 of 4: 3 warm-up forwards, then F3 B0 F4 B1 ..., then B5 B6 B7 */
	CU_ASSERT(sl[0].dir == JOB_FWD && sl[0].mb == 0 && sl[2].mb == 2);
	CU_ASSERT(sl[3].dir == JOB_FWD && sl[3].mb == 3 && sl[4].dir == JOB_BWD && sl[4].mb == 0);
	CU_ASSERT(sl[13].dir == JOB_BWD && sl[13].mb == 5 && sl[15].mb == 7);
	wl_pp_schedule(4, 3, 8, sl);
	for (int i = 0; i < 16; i++)   /* last stage: strictly alternating */
		CU_ASSERT(sl[i].dir == (i % 2 ? JOB_BWD : JOB_FWD) && sl[i].mb == i / 2);
	wl_pp_schedule(4, 1, 1, sl);   /* fewer micro-batches than warm-up slots */
	CU_ASSERT(sl[0].dir == JOB_FWD && sl[1].dir == JOB_BWD);
}

static const char moe[] = "[job.m]\nmodel = custom\nlayers = 4\nhidden = 256\nheads = 4\nvocab = 1000\n"
			  "seq_len = 1000\nexperts = 8\ntop_k = 2\nglobal_batch = 8\ndp = 4\nep = 4\n"
			  "capacity_factor = 4\nmoe_skew = %s\n";

static int count_equal_pairs(const uint64_t *mat, int ep, uint64_t *val)
{
	int eq = 1;
	*val = mat[1];
	for (int i = 0; i < ep; i++)
		for (int j = 0; j < ep; j++)
			if (i != j)
				eq &= mat[i * ep + j] == *val;
			else
				eq &= mat[i * ep + j] == 0;
	return eq;
}

static void test_moe_uniform(void)
{
	char job[600];
	struct config cfg;
	struct job_spec s;
	snprintf(job, sizeof job, moe, "0");
	CU_ASSERT_EQUAL_FATAL(load(job, &cfg, &s), 0);
	struct wl_ep_routing *r = wl_ep_routing_new(&s);
	gsl_rng *rng = rng_stream(1, RNG_WORKLOAD, 0);
	wl_ep_routing_draw(r, &s, rng);
	/* 1000 tokens x top 2 / 8 experts = 250 per expert, 2 experts per rank:
	 * 500 tokens x 256 x 2 B to every other rank, in every matrix. */
	for (int k = 0; k < 4; k++)
		for (int mb = 0; mb < 2; mb++) {
			uint64_t v;
			CU_ASSERT(count_equal_pairs(wl_ep_matrix(r, k, mb, 0), 4, &v));
			CU_ASSERT_EQUAL(v, 500 * 256 * 2);
		}
	struct job_plan_totals tot;
	job_plan_totals(&s, &tot);
	/* 4 layers x m 2 x 4 all-to-alls x 4 ranks x 3 peers x 256000 B */
	CU_ASSERT_EQUAL(tot.bytes[JOB_PAR_EP], 4ULL * 2 * 4 * 4 * 3 * 256000);
	gsl_rng_free(rng);
	wl_ep_routing_free(r);
	unload(&cfg, &s);
}

static uint64_t *snapshot(const struct wl_ep_routing *r)
{
	uint64_t *v = malloc(4 * 2 * 16 * sizeof *v);
	for (int k = 0; k < 4; k++)
		for (int mb = 0; mb < 2; mb++)
			memcpy(v + (k * 2 + mb) * 16, wl_ep_matrix(r, k, mb, 0), 16 * sizeof *v);
	return v;
}

static void test_moe_skewed(void)
{
	char job[600];
	struct config cfg;
	struct job_spec s;
	snprintf(job, sizeof job, moe, "1.2");
	CU_ASSERT_EQUAL_FATAL(load(job, &cfg, &s), 0);
	struct wl_ep_routing *r = wl_ep_routing_new(&s);
	gsl_rng *rng = rng_stream(7, RNG_WORKLOAD, 0);
	wl_ep_routing_draw(r, &s, rng);
	uint64_t *it0 = snapshot(r);
	wl_ep_routing_draw(r, &s, rng);
	uint64_t *it1 = snapshot(r);
	uint64_t v;
	CU_ASSERT(!count_equal_pairs(it0, 4, &v));        /* unequal pairs */
	CU_ASSERT(memcmp(it0, it1, 128 * sizeof *it0));   /* re-drawn per iteration */
	gsl_rng_free(rng);
	/* same seed: the same draws */
	rng = rng_stream(7, RNG_WORKLOAD, 0);
	wl_ep_routing_draw(r, &s, rng);
	uint64_t *again = snapshot(r);
	CU_ASSERT(!memcmp(it0, again, 128 * sizeof *it0));
	/* With capacity 4x nothing is dropped, and every rank owns 2 of the 8
	 * experts, so over the 4 sources of one matrix the copies that stay
	 * home add up to one source's worth: each (layer, micro-batch) matrix
	 * moves 3/4 of its 4 x 2000 token copies of 512 B, up to the
	 * multinomial noise (a few hundred copies of 64,000). */
	uint64_t total = 0;
	for (int i = 0; i < 128; i++)
		total += it0[i];
	double want = 0.75 * 8 * 4 * 2000 * 512;
	printf("\n    moved %llu B, 3/4 of all copies %.0f B\n", (unsigned long long)total, want);
	CU_ASSERT(fabs((double)total - want) <= 0.02 * want);
	free(it0);
	free(it1);
	free(again);
	gsl_rng_free(rng);
	wl_ep_routing_free(r);
	unload(&cfg, &s);
}

static void cleanup(void)
{
	char p[300];
	snprintf(p, sizeof p, "%s/j.ini", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/e.ini", dir);
	unlink(p);
	rmdir(dir);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	atexit(cleanup);
	static const struct test_case t[] = {
		{ "preset parameter counts", test_preset_params },
		{ "dense 3D GPT: TP, PP, DP bytes in closed form", test_dense_3d_closed_forms },
		{ "ZeRO 0-3 volumes", test_zero_volumes },
		{ "located layout errors", test_layout_errors },
		{ "1F1B order", test_1f1b_order },
		{ "MoE skew 0: every pair equal", test_moe_uniform },
		{ "MoE skew > 0: unequal, re-drawn, reproducible", test_moe_skewed },
		{ 0, 0 },
	};
	return test_run("job_plan", t);
}
