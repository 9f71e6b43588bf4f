/*
 * test_job_moe.c — the `--check` volumes of mixture-of-experts jobs
 * (models/job/workload_ep.c, moe_routing.c) against Megatron-Core's
 * formulas (docs/protocol.md "Training jobs", EP / MoE): Mixtral-8x7B EP8
 * TP4 PP4 DP8 (SP on), balanced and skewed, and with folded experts
 * (expert_tensor_parallel_size 1), equal the closed forms within 1% (the
 * expert block's TP all-gather and reduce-scatter carry the k·T routed
 * copies). Routing, capacity, expert compute and whole runs are in
 * test_job_moe_routing.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "rng.h"
#include "run_fixture.h"
#include "moe_fixture.h"
#include "testutil.h"
#include "workload.h"

static bool within(double got, double want, double tol, const char *what)
{
	bool ok = fabs(got / want - 1) <= tol;
	printf("\n    %s: %.6g, formula %.6g (ratio %.5f)", what, got, want, got / want);
	return ok;
}

/* ---- Mixtral-8x7B EP8 TP4 PP4 DP8, SP on ---- */

static const char mixtral[] =
	"[topology]\ntype = star\nhosts = 16\ngpus_per_host = 8\nlink_rate = 400Gbps\nlink_delay = 1us\n"
	"[job.mix]\nmodel = mixtral-8x7b\nglobal_batch = 64\ntp = 4\npp = 4\ndp = 8\nep = 8\n"
	"sequence_parallel = on\nmoe_skew = %s\n";

/* The closed forms of one iteration, bytes summed over every GPU (ring
 * collectives: an all-gather or reduce-scatter of size X over n ranks puts
 * (n−1)·X on the wire, an all-reduce 2(n−1)·X). S = b·s·h·2 B, T = b·s:
 *   TP = d·L·m·(t−1)·4·(S + k·S): per layer and micro-batch each TP group
 *        runs, forward and backward, the attention block's all-gather and
 *        reduce-scatter of S and the expert block's of the k·T routed copies,
 *        k·S (Megatron-Core's alltoall dispatcher with TP); per GPU
 *        (t−1)/t·4(1+k)·S = 9·S for t = 4, k = 2 (rocesim used to plan 6·S);
 *   EP = 4·L·m·(d/e)·(e−1)·k·S: dispatch and combine forward and backward,
 *        each source's k·T copies spread evenly over e ranks, (e−1)/e leave;
 *   PP = d·(p−1)·m·2·S: activations forward, gradients backward;
 *   DP = t·2(d−1)·g·Σ(non-expert params per TP shard): attention + router
 *        per layer and both untied embeddings, all-reduced over d in g-byte
 *        elements; expert gradients reduce over d/e = 1 GPU: nothing.
 * TP also holds the vocabulary-parallel ends (job_prog.c), per replica and
 * micro-batch: the input embedding's reduce-scatter forward and all-gather
 * backward, the LM head's all-gather forward and reduce-scatter backward
 * (S each) and the cross entropy's 3 all-reduces of T fp32:
 *   ends = d·m·(t−1)·(4·S + 6·4·T); V is 32000 padded to a multiple of
 *   128·t = 512: 32256 (Megatron's make_vocab_size_divisible_by). */
struct mix_forms { double tp, ep, pp, dp, ends; };

static struct mix_forms mixtral_forms(const struct job_spec *s)
{
	const double L = 32, h = 4096, sq = 4096, b = 1, k = 2, V = 32256, f = 14336;
	const double t = 4, p = 4, d = 8, e = 8, m = 64 / (b * d);
	const double S = b * sq * h * 2;
	(void)f;
	enum coll_op op;
	uint64_t size;
	wl_dp_reduce(s, &s->bucket[0], &op, &size);
	double g = (double)size / (double)s->bucket[0].params; /* bytes per gradient element */
	double attn = 2 * h * h + 2 * h * (h / 32 * 8), router = h * 8;
	const double ends = d * m * (t - 1) * (4 * S + 6 * 4 * b * sq);
	struct mix_forms r = {
		.ends = ends,
		.tp = d * L * m * (t - 1) * 4 * (S + k * S) + ends,
		.ep = 4 * L * m * (d / e) * (e - 1) * k * S,
		.pp = d * (p - 1) * m * 2 * S,
		.dp = 2 * (d - 1) * g * (L * (attn + router) + 2 * V * h),
	};
	return r;
}

static void check_mixtral(const char *skew)
{
	char text[sizeof mixtral + 16], *err = NULL;
	snprintf(text, sizeof text, mixtral, skew);
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 128, &cfg, &s, &err), 0);
	struct job_plan_totals tot;
	job_plan_totals(&s, &tot);
	struct mix_forms f = mixtral_forms(&s);
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_TP], f.tp, 0.01, "TP"));
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_EP], f.ep, 0.01, "EP"));
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_PP], f.pp, 0.01, "PP"));
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_DP], f.dp, 0.01, "DP"));
	/* Per GPU, per layer and micro-batch: 9·S of TP (the ends aside). */
	double S = 4096.0 * 4096 * 2, per = ((double)tot.bytes[JOB_PAR_TP] - f.ends) / 128 / 8 / 8;
	CU_ASSERT(within(per, 9 * S, 0.001, "TP per GPU, layer, micro-batch"));

	/* The routing an iteration draws: with moe_skew > 0 some EP rank gets
	 * far more than k·T copies, yet, dropless, every copy is processed
	 * once (TP of the expert blocks conserved exactly), and since every
	 * source sends its share p_j of copies to rank j, Σ_j p_j = 1 copy of
	 * every source's k·T stays home: EP equals the formula up to the
	 * multinomial noise. */
	struct wl_ep_routing *r = wl_ep_routing_new(&s);
	gsl_rng *rng = rng_stream(3, RNG_WORKLOAD, 0);
	wl_ep_routing_draw(r, &s, rng);
	double ep_b = 0, tp_b = 0, hottest = 0, kT = 2 * 4096;
	for (int k = 0; k < 32; k++)
		for (int mb = 0; mb < 8; mb++) {
			const uint64_t *mat = wl_ep_matrix(r, k, mb, 0);
			for (int i = 0; i < 64; i++)
				ep_b += 4.0 * (double)mat[i];
			for (int j = 0; j < 8; j++) {
				double n = wl_ep_tokens(r, k, mb, 0, j);
				hottest = fmax(hottest, n);
				/* AG + RS forward and backward of n copies over 4 ranks */
				tp_b += 4 * 3 * n * 4096 * 2;
			}
		}
	tp_b += 8 * 32 * 8 * 3 * 4 * S; /* the attention blocks */
	CU_ASSERT(within(tp_b, f.tp - f.ends, 1e-9, "TP of the drawn routing"));
	CU_ASSERT(within(ep_b, f.ep, 0.01, "EP of the drawn routing"));
	printf("\n    hottest EP rank: %.0f copies (balanced k·T = %.0f)", hottest, kT);
	if (strcmp(skew, "0") == 0) {
		CU_ASSERT_EQUAL(hottest, kT);
	} else {
		CU_ASSERT(hottest > 1.5 * kT);
	}
	gsl_rng_free(rng);
	wl_ep_routing_free(r);
	unload(&cfg, &s);
}

static void test_mixtral_balanced(void) { check_mixtral("0"); }
static void test_mixtral_skewed(void) { check_mixtral("1.0"); }

/* Folded experts: expert_tensor_parallel_size = 1 under tp = 4 (Megatron-
 * Core's MoE parallel folding). Per stage the 32 GPUs fold into etp 1 ×
 * ep 8 × edp 4; an EP rank is one GPU routing its T/t tokens. Then
 *   TP = d·L·m·(t−1)·4·S: only the attention blocks (no expert-TP group);
 *   EP = 4·L·m·d·(e−1)/e·k·S: every GPU sources k·T/t copies, (e−1)/e of
 *        them leave it, in 4 all-to-alls; the same as with etp = t;
 *   DP = the non-expert all-reduce as before + 2(edp−1)·g·E·(3hf)·L: each
 *        GPU holds E/e experts whole (1/etp of them) and all-reduces them
 *        over its edp = t·d/(etp·e) = 4 expert-DP peers; etp·e groups per
 *        stage. */
static void test_mixtral_folded(void)
{
	static const char text[] =
		"[topology]\ntype = star\nhosts = 16\ngpus_per_host = 8\nlink_rate = 400Gbps\nlink_delay = 1us\n"
		"[job.mix]\nmodel = mixtral-8x7b\nglobal_batch = 64\ntp = 4\npp = 4\ndp = 8\nep = 8\n"
		"sequence_parallel = on\nexpert_tensor_parallel_size = 1\n";
	char *err = NULL;
	struct config cfg;
	struct job_spec s;
	CU_ASSERT_EQUAL_FATAL(load(text, 128, &cfg, &s, &err), 0);
	CU_ASSERT_EQUAL(s.etp, 1);
	CU_ASSERT_EQUAL(s.edp, 4);
	struct job_plan_totals tot;
	job_plan_totals(&s, &tot);
	struct mix_forms f = mixtral_forms(&s);
	const double L = 32, h = 4096, t = 4, d = 8, e = 8, k = 2, m = 8, E = 8, edp = 4;
	const double S = 4096.0 * h * 2, ffn = 3 * h * 14336;
	enum coll_op op;
	uint64_t size;
	wl_dp_reduce(&s, &s.bucket[0], &op, &size);
	double g = (double)size / (double)s.bucket[0].params;
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_TP], d * L * m * (t - 1) * 4 * S + f.ends, 0.01, "TP, etp 1"));
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_EP], 4 * L * m * d * (e - 1) / e * k * S, 0.01, "EP, etp 1"));
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_EP], f.ep, 1e-9, "EP, etp 1 vs etp 4"));
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_PP], f.pp, 0.01, "PP, etp 1"));
	CU_ASSERT(within((double)tot.bytes[JOB_PAR_DP], f.dp + 2 * (edp - 1) * g * E * ffn * L, 0.01, "DP, etp 1"));
	unload(&cfg, &s);
}

TEST_MAIN("job_moe",
	  { "Mixtral-8x7B EP8 TP4 PP4 DP8 balanced: --check = formulas", test_mixtral_balanced },
	  { "Mixtral-8x7B EP8 TP4 PP4 DP8 skewed: --check and the draw = formulas", test_mixtral_skewed },
	  { "Mixtral-8x7B folded, expert_tensor_parallel_size 1: --check = formulas", test_mixtral_folded })
