/*
 * workload_ep.c — mixture-of-experts layers: the MoE block of a stage's
 * program and the sizes its steps take at run time (see workload.h; who
 * gets which tokens: moe_routing.c).
 *
 * Megatron-Core's all-to-all token dispatcher with tensor and sequence
 * parallelism (docs/protocol.md "Training jobs", EP / MoE). Forward, per
 * MoE layer and micro-batch, on an EP rank (one expert-TP group of etp
 * GPUs; with etp = tp, the default, one worker; moe_layout.c):
 *   dispatch   all-to-all over the EP group: each source's k routed
 *              token copies of its T·etp/tp tokens go to the ranks holding
 *              their experts (each GPU sends its own sequence shard, 1/etp
 *              of every pair of EP ranks);
 *   expert-TP all-gather of the copies this EP rank received, N·h·2 B,
 *              so every GPU of it holds all N (N = k·T·etp/tp balanced
 *              and dropless; whatever the routing gave it otherwise);
 *   experts    2·N·(FFN params)/etp + 2·(T/tp)·(router params) FLOPs per
 *              GPU: a rank whose experts are popular computes longer;
 *   expert-TP reduce-scatter of the experts' output, N·h·2 B;
 *   combine    all-to-all back, the transpose of the dispatch;
 *   shared experts (moe_shared_expert_intermediate_size > 0): a dense FFN
 *              every token runs, tensor-parallel like the dense MLP
 *              (all-gather of b·s·h·2 B, compute, reduce-scatter).
 * Backward runs the same steps in reverse (the shared experts first; the
 * combine's gradient flows along the dispatch matrix, the dispatch's along
 * its transpose) with twice the compute. The combine cannot start before
 * the slowest member of the EP group has finished its experts, so a hot
 * expert's GPU holds the whole group back.
 *
 * The program keeps the expected size of each routed step (op->expert set:
 * what --check counts); wl_ep_op_val gives the size a worker's step takes
 * in the iteration's routing. A worker holding several EP ranks (etp < tp)
 * runs their expert-TP collectives side by side and leaves the expert
 * compute when its busiest rank is done.
 */
#include <math.h>
#include "config.h"
#include "workload.h"

/* An op sized by the tokens the worker's experts received. */
static void expert_op(struct job_prog *p, enum job_op_kind kind, enum coll_op coll, int dir, int64_t mb, int k,
		      uint64_t val)
{
	if (!val)
		return;
	struct job_op *op = job_prog_add(p, kind);
	op->coll = (uint8_t)coll;
	/* A compute step takes its pass's direction (compute_span): a full
	 * recompute's forward runs inside a backward pass. */
	op->dir = kind == JOP_COMPUTE ? p->block_dir : (uint8_t)dir;
	op->mb = (int32_t)mb;
	op->idx = k;
	op->expert = 1;
	op->val = val;
}

static void ep_op(struct job_prog *p, int dir, int64_t mb, int k, int transpose)
{
	struct job_op *op = job_prog_add(p, JOP_EP);
	op->dir = (uint8_t)dir;
	op->mb = (int32_t)mb;
	op->idx = k;
	op->transpose = (uint8_t)transpose;
}

/* ps scaled from the balanced block time `ps` to an EP rank holding
 * `copies`: a GPU computes 1/etp of its rank's experts on the copies and
 * the router on its 1/tp of the tokens, so in units of a whole TP group
 * (job_model_expert_flops) the copies count tp/etp times; balanced that is
 * k·T, whatever etp. */
static double expert_flops(const struct job_spec *s, double copies)
{
	return job_model_expert_flops(&s->model, s->b, copies * (double)s->tp / (double)s->etp);
}

static simtime_t expert_ps(const struct job_spec *s, simtime_t ps, double copies)
{
	double bal = job_model_expert_flops(&s->model, s->b, (double)(s->tokens * s->model.top_k));
	return (simtime_t)llround((double)ps * expert_flops(s, copies) / bal);
}

static uint64_t copies_b(const struct job_spec *s, double copies)
{
	return (uint64_t)llround(copies * (double)s->model.hidden * 2.0);
}

static void shared_block(const struct job_spec *s, struct job_prog *p, int dir)
{
	const struct job_model *m = &s->model;
	if (!m->shared_ffn)
		return;
	double flops = 2.0 * (double)s->tokens * (double)job_model_shared_params(m) / (double)s->tp;
	wl_tp_block(s, p, (dir == JOB_BWD ? 2 : 1) * job_compute_ps(flops, s->gpu, s->cfg->mfu));
}

void wl_ep_block(const struct job_spec *s, struct job_prog *p, int dir, int64_t mb, int k, simtime_t ps)
{
	double n = wl_ep_expected_tokens(s);
	uint64_t nb = s->etp > 1 ? copies_b(s, n) : 0;
	if (dir == JOB_BWD)
		shared_block(s, p, dir);
	if (s->ep > 1)
		ep_op(p, dir, mb, k, 0);
	expert_op(p, JOP_TP, COLL_ALLGATHER, dir, mb, k, nb);
	expert_op(p, JOP_COMPUTE, COLL_ALLGATHER, dir, mb, k, (uint64_t)expert_ps(s, ps, n));
	expert_op(p, JOP_TP, COLL_REDUCE_SCATTER, dir, mb, k, nb);
	if (s->ep > 1)
		ep_op(p, dir, mb, k, 1);
	if (dir == JOB_FWD)
		shared_block(s, p, dir);
}

uint64_t wl_ep_op_val(const struct job_spec *s, const struct wl_ep_routing *r, const struct job_op *op, int d,
		      int i)
{
	int x, e;
	if (op->kind == JOP_TP) {
		wl_ep_worker_group(s, d, i, &x, &e);
		return copies_b(s, wl_ep_tokens(r, op->idx, op->mb, x, e));
	}
	double n = 0;
	for (i = 0; i < s->tp / s->etp; i++) {
		wl_ep_worker_group(s, d, i, &x, &e);
		n = fmax(n, wl_ep_tokens(r, op->idx, op->mb, x, e));
	}
	/* The program's ps is the expected tokens' time: rescale it. */
	return (uint64_t)llround((double)op->val * expert_flops(s, n) / expert_flops(s, wl_ep_routing_expected(r)));
}

void wl_ep_shard(const uint64_t *mat, int ep, bool transpose, int tp, int t, uint64_t *out)
{
	for (int i = 0; i < ep; i++)
		for (int j = 0; j < ep; j++)
			out[i * ep + j] = coll_split(transpose ? mat[j * ep + i] : mat[i * ep + j], (uint64_t)tp, (uint64_t)t);
}
