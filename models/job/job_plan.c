/*
 * job_plan.c — a job's resolved layout, sizes, compute times, stage
 * programs and per-iteration traffic totals (see job_plan.h).
 *
 * A stage's program for one iteration, pass by pass in 1F1B order (plain
 * or interleaved, workload_pp.c; a pass is one micro-batch through one of
 * the stage's model chunks):
 *   forward:   [recv activations] [ZeRO-3 gathers, prefetched] per item
 *              in forward order: [first forward of the chunk with
 *              overlap_param_gather: wait for its bucket's parameter
 *              gather] [input embedding (TP): first chunk of stage 0]
 *              per layer: [wait for its ZeRO-3 gather] attention block
 *              (TP, ring attention with CP), MLP block (TP) or MoE block
 *              (EP + TP); [LM head and cross entropy (TP): last chunk of
 *              the last stage] [send]
 *   backward:  [recv gradients] [ZeRO-3 gathers] [LM head] per item, last
 *              to first: [wait for its ZeRO-3 gather] [full recompute: the
 *              layer's forward] MLP/MoE block, attention block [input
 *              embedding], and with overlap_grad_reduce the GRAD of each
 *              bucket it completes; [send gradients]; without
 *              overlap_grad_reduce the GRADs of every bucket after the
 *              micro-batch's last pass (chunk 0). GRADs follow the last
 *              micro-batch's backward (ZeRO-0/1) or every micro-batch's
 *              (ZeRO-2/3).
 * and, once every worker finished and every reduction ended, the tied
 * embedding all-reduce (pp > 1), the optimizer step and the ZeRO-1/2
 * parameter gathers (job_exec.c; with overlap_param_gather the gathers
 * start with the next iteration instead).
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "log.h"
#include "nic.h"
#include "workload.h"
#include "xalloc.h"

const char *const job_par_name[JOB_NPAR] = { "tp", "pp", "dp", "ep", "cp" };

/* Guards against plans too large to hold (ops per stage). */
#define JOB_MAX_OPS_PER_STAGE (64LL << 20)

struct job_op *job_prog_add(struct job_prog *p, enum job_op_kind kind)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->op = xrealloc(p->op, (size_t)p->cap * sizeof *p->op);
	}
	struct job_op *op = &p->op[p->n++];
	memset(op, 0, sizeof *op);
	op->kind = (uint8_t)kind;
	return op;
}

void job_prog_compute(struct job_prog *p, simtime_t ps)
{
	if (ps <= 0)
		return;
	struct job_op *op = job_prog_add(p, JOP_COMPUTE);
	op->val = (uint64_t)ps;
	op->dir = p->block_dir;
	op->mb = p->block_mb;
}

void job_prog_block(struct job_prog *p, int dir, int64_t mb)
{
	p->block_dir = (uint8_t)dir;
	p->block_mb = (int32_t)mb;
}

void job_prog_coll(struct job_prog *p, enum job_op_kind kind, enum coll_op op, uint64_t size_b)
{
	if (!size_b)
		return;
	struct job_op *o = job_prog_add(p, kind);
	o->coll = (uint8_t)op;
	o->val = size_b;
}

const char *job_coll_alg(const struct job_spec *s, enum coll_op op)
{
	switch (op) {
	case COLL_ALLREDUCE: return s->cfg->allreduce;
	case COLL_ALLGATHER: return s->cfg->allgather;
	case COLL_REDUCE_SCATTER: return s->cfg->reduce_scatter;
	case COLL_BROADCAST: return s->cfg->broadcast;
	case COLL_ALLTOALL: return s->cfg->alltoall;
	case COLL_SENDRECV: return "ring";
	}
	return "ring";
}

/* ---- Programs ---- */

/* Emits, once per bucket, a wait for the parameter all-gather of every
 * bucket of stage st holding item i (overlap_param_gather: the first
 * forward of the iteration waits for the gathers started at its start). */
static void param_waits(const struct job_spec *s, struct job_prog *p, int st, const int *bucket_end,
			const struct wl_dp_item *it, int i, bool *waited)
{
	for (int e = 0; e < 2; e++) {
		if (!(e ? it[i].expert_params : it[i].params))
			continue;
		for (int b = 0; b < s->n_buckets; b++)
			if (s->bucket[b].stage == st && s->bucket[b].expert == (e == 1) && bucket_end[b] >= i) {
				if (!waited[b] && wl_zero_gather_b(s, &s->bucket[b]))
					job_prog_add(p, JOP_PARAM_WAIT)->idx = b;
				waited[b] = true;
				break;
			}
	}
}

static void grads(const struct job_spec *s, struct job_prog *p, int st, const int *bucket_end, int item,
		  int64_t mb)
{
	for (int b = 0; b < s->n_buckets; b++)
		if (s->bucket[b].stage == st && (item < 0 || bucket_end[b] == item)) {
			struct job_op *o = job_prog_add(p, JOP_GRAD);
			o->idx = b;
			o->mb = (int32_t)mb;
		}
}

static uint64_t shard(const struct job_spec *s, int64_t params)
{
	return (uint64_t)((params + s->tp - 1) / s->tp);
}

int64_t job_stage_layer(const struct job_spec *s, int stage, int64_t i)
{
	int64_t c = i / s->layers_per_chunk;
	return (c * s->pp + stage) * s->layers_per_chunk + i % s->layers_per_chunk;
}

int job_layer_chunk(const struct job_spec *s, int64_t l)
{
	return (int)(l / ((int64_t)s->pp * s->layers_per_chunk));
}

/* Forward of layer l for micro-batch mb: attention block, MLP or MoE block. */
static void fwd_layer(const struct job_spec *s, struct job_prog *p, int64_t l, int64_t mb)
{
	const struct job_model *m = &s->model;
	wl_tp_attention(s, p, JOB_FWD, s->t_attn_f, s->t_core_f);
	if (job_model_is_moe(m, l))
		wl_ep_block(s, p, JOB_FWD, mb, (int)(l / m->moe_every), s->t_moe_f);
	else
		wl_tp_block(s, p, s->t_mlp_f);
}

/* Backward of layer l: full recompute first re-runs its forward (compute,
 * TP collectives and, for MoE, the all-to-alls); selective recompute
 * re-runs the core attention (QKᵀ, softmax, AV) inside the attention
 * block's backward, with no communication (Korthikanti et al. 2022). */
static void bwd_layer(const struct job_spec *s, struct job_prog *p, int64_t l, int64_t mb)
{
	const struct job_model *m = &s->model;
	if (s->cfg->recompute == JOB_RECOMPUTE_FULL)
		fwd_layer(s, p, l, mb);
	if (job_model_is_moe(m, l))
		wl_ep_block(s, p, JOB_BWD, mb, (int)(l / m->moe_every), 2 * s->t_moe_f);
	else
		wl_tp_block(s, p, 2 * s->t_mlp_f);
	simtime_t extra = s->cfg->recompute == JOB_RECOMPUTE_SELECTIVE ? s->t_core_f : 0;
	wl_tp_attention(s, p, JOB_BWD, 2 * s->t_attn_f + extra, 2 * s->t_core_f + extra);
}

/* The chunk a gradient item belongs to: the output embedding to the last
 * chunk, the input embedding to the first, a layer to its own. */
static int item_chunk(const struct job_spec *s, const struct wl_dp_item *it)
{
	if (it->layer == -1)
		return s->vpp - 1;
	if (it->layer < 0)
		return 0;
	return job_layer_chunk(s, it->layer);
}

int job_dp_group_ranks(const struct job_spec *s, const struct job_bucket *b, int t, int e, int *out)
{
	const struct job_layout *l = &s->layout;
	int n = 0;
	for (int c = 0; c < (b->expert ? 1 : s->cp); c++)
		n += job_layout_group(l, b->expert ? JOB_GROUP_EDP : JOB_GROUP_DP,
				      job_layout_rank(l, c * s->tp + t, e, 0, b->stage), out + n);
	return n;
}

static void build_stage(struct job_spec *s, int st, const int *bucket_end, struct wl_pp_slot *slots,
			struct wl_dp_item *items)
{
	const struct job_model *m = &s->model;
	const bool overlap = s->cfg->overlap_grad_reduce;
	struct job_prog *p = &s->prog[st];
	int n_items = wl_dp_items(s, st, items);
	/* ZeRO-3's gathers of one pass: [the embedding], then the chunk's
	 * layers in the pass's order. */
	uint64_t *zp = xmalloc((size_t)(s->layers_per_stage + 1) * sizeof *zp);
	bool *waited = xcalloc((size_t)s->n_buckets + 1, sizeof *waited);
	/* overlap_param_gather: the first forward pass of each model chunk
	 * waits for its items' buckets. */
	bool *seen = xcalloc((size_t)s->vpp, sizeof *seen);
	bool first = st == 0, last_stage = st == s->pp - 1;
	struct wl_zero3_pass z;
	wl_pp_schedule_interleaved(s->pp, st, s->m, s->vpp, slots);
	for (int64_t i = 0; i < 2 * s->m * s->vpp; i++) {
		int64_t mb = slots[i].mb;
		int c = slots[i].chunk, nz = 0, k = 0;
		bool head = last_stage && c == s->vpp - 1;
		job_prog_block(p, slots[i].dir, mb);
		if (slots[i].dir == JOB_FWD) {
			bool wait_params = s->cfg->overlap_param_gather && !seen[c];
			seen[c] = true;
			wl_pp_recv(s, p, st, c, JOB_FWD, mb);
			if (c == 0)
				zp[nz++] = shard(s, job_model_embedding_params(m));
			for (int it = n_items - 1; it >= 0; it--)
				if (items[it].layer >= 0 && item_chunk(s, &items[it]) == c)
					zp[nz++] = shard(s, job_model_layer_params(m, items[it].layer));
			wl_zero3_begin(s, p, &z, zp, nz);
			if (c == 0)
				wl_zero3_use(s, p, &z, k++);
			/* The chunk's items in forward order: the input embedding
			 * (stage 0), the layers, the output embedding (last stage). */
			for (int it = n_items - 1; it >= 0; it--) {
				int64_t l = items[it].layer;
				if (item_chunk(s, &items[it]) != c)
					continue;
				if (wait_params)
					param_waits(s, p, st, bucket_end, items, it, waited);
				if (l == -2 && first)
					wl_tp_embedding(s, p, JOB_FWD);
				if (l < 0)
					continue;
				wl_zero3_use(s, p, &z, k++);
				fwd_layer(s, p, l, mb);
			}
			if (head)
				wl_tp_lm_head(s, p, JOB_FWD);
			wl_pp_send(s, p, st, c, JOB_FWD, mb);
			continue;
		}
		bool reduce = wl_zero_reduces_at(s, mb);
		wl_pp_recv(s, p, st, c, JOB_BWD, mb);
		if (c == s->vpp - 1)
			zp[nz++] = shard(s, job_model_embedding_params(m));
		for (int it = 0; it < n_items; it++)
			if (items[it].layer >= 0 && item_chunk(s, &items[it]) == c)
				zp[nz++] = shard(s, job_model_layer_params(m, items[it].layer));
		wl_zero3_begin(s, p, &z, zp, nz);
		if (c == s->vpp - 1)
			wl_zero3_use(s, p, &z, k++);
		if (head)
			wl_tp_lm_head(s, p, JOB_BWD);
		/* The chunk's gradient items in backward order: embeddings have
		 * no layer compute; with overlap_grad_reduce a bucket's
		 * reduction is issued after its last item. */
		for (int it = 0; it < n_items; it++) {
			int64_t layer = items[it].layer;
			if (item_chunk(s, &items[it]) != c)
				continue;
			if (layer >= 0) {
				wl_zero3_use(s, p, &z, k++);
				bwd_layer(s, p, layer, mb);
			} else if (layer == -2) {
				wl_tp_embedding(s, p, JOB_BWD);
			}
			if (reduce && overlap)
				grads(s, p, st, bucket_end, it, mb);
		}
		wl_pp_send(s, p, st, c, JOB_BWD, mb);
		/* Without overlap_grad_reduce every bucket once the micro-batch's
		 * backward is over: its last pass is through chunk 0. */
		if (reduce && !overlap && c == 0)
			grads(s, p, st, bucket_end, -1, mb);
	}
	free(seen);
	free(waited);
	free(zp);
}

/* Whether the job names a multicast algorithm. */
static bool mc_any(const struct job_cfg *j)
{
	const char *const alg[] = { j->allreduce, j->allgather, j->reduce_scatter, j->broadcast, j->alltoall };
	for (int i = 0; i < 5; i++)
		if (alg[i] && strcmp(alg[i], "multicast") == 0)
			return true;
	return false;
}

/* Parameters whose optimizer state one GPU updates: the largest stage's
 * per-tp-shard parameters (expert ones per EP rank), divided by the data-
 * parallel group for ZeRO >= 1 (the distributed optimizer). */
static double optimizer_params(const struct job_spec *s, struct wl_dp_item *items)
{
	double most = 0;
	for (int st = 0; st < s->pp; st++) {
		int n = wl_dp_items(s, st, items);
		double dense = 0, expert = 0;
		for (int i = 0; i < n; i++) {
			dense += (double)items[i].params;
			expert += (double)items[i].expert_params;
		}
		if (s->zero >= 1) {
			dense /= (double)s->dp * s->cp;
			expert /= s->edp;
		}
		if (dense + expert > most)
			most = dense + expert;
	}
	return most;
}

static int check(const struct config *cfg, const char *sec, const char *key, bool ok, char **err,
		 const char *fmt, long long a, long long b)
{
	if (ok)
		return 0;
	*err = cfg_error_at(cfg, sec, key, 0, fmt, a, b);
	return -1;
}

int job_spec_init(struct job_spec *s, const struct config *cfg, const char *name, const struct job_cfg *j,
		  int n_gpus, char **err)
{
	char sec[160];
	snprintf(sec, sizeof sec, "job.%s", name);
	memset(s, 0, sizeof *s);
	s->name = name;
	s->cfg = j;
	if (job_model_resolve(cfg, j, sec, &s->model, err) < 0)
		return -1;
	const struct job_model *m = &s->model;
	s->gpu = job_gpu_by_name(j->gpu);
	if (!s->gpu) /* gpu's vocabulary is the presets */
		die_internal("[%s] gpu '%s' is not a preset", sec, j->gpu);
	s->tp = j->tp, s->pp = j->pp, s->dp = j->dp, s->ep = j->ep;
	s->etp = j->etp ? j->etp : j->tp;
	s->edp = j->tp * j->dp / (s->etp * j->ep); /* the rules checked it divides */
	s->zero = j->zero;
	s->gpus_per_host = world_cfg_gpus_per_host(cfg);
	s->sp = j->sequence_parallel && j->tp > 1;
	s->b = j->micro_batch;
	s->cp = j->cp;
	long long need = (long long)j->tp * j->cp * j->pp * j->dp;
	if (check(cfg, sec, j->n_hosts ? "hosts" : "dp", need <= n_gpus, err, j->cp > 1
		  ? "the job needs tp x cp x pp x dp = %lld GPUs; its hosts have %lld"
		  : "the job needs tp x pp x dp = %lld GPUs; its hosts have %lld", need, n_gpus) ||
	    check(cfg, sec, "cp", m->seq_len % (2LL * j->cp) == 0 || j->cp == 1, err,
		  "seq_len (%lld) must be a multiple of 2 x cp (%lld): ring attention's load-balanced blocks",
		  (long long)m->seq_len, 2LL * j->cp) ||
	    check(cfg, sec, "cp", j->cp == 1 || (j->ep == 1 && j->zero < 3), err,
		  "context parallelism is modelled with ep = 1 and zero < 3 (ep = %lld, zero = %lld)", j->ep, j->zero) ||
	    /* An MoE block's expert steps are sized from the routing of a
	     * worker's whole sequence (workload_ep.c), not of 1/cp of it. */
	    check(cfg, sec, "cp", j->cp == 1 || m->experts == 1, err,
		  "context parallelism is modelled for dense models (cp = %lld, experts = %lld)", j->cp,
		  (long long)m->experts) ||
	    check(cfg, sec, "pp", m->layers % j->pp == 0, err,
		  "layers (%lld) must be a multiple of pp (%lld)", (long long)m->layers, j->pp) ||
	    check(cfg, sec, "tp", m->heads % j->tp == 0, err,
		  "heads (%lld) must be a multiple of tp (%lld)", (long long)m->heads, j->tp) ||
	    check(cfg, sec, "ep", j->ep == 1 || m->experts > 1, err,
		  "ep = %lld needs an MoE model (experts = %lld)", j->ep, (long long)m->experts) ||
	    check(cfg, sec, "ep", m->experts % j->ep == 0, err,
		  "experts (%lld) must be a multiple of ep (%lld)", (long long)m->experts, j->ep) ||
	    check(cfg, sec, "sequence_parallel", m->experts == 1 || j->tp == 1 || j->sequence_parallel, err,
		  "an MoE model (experts = %lld) with tp = %lld needs sequence_parallel = on, as Megatron-Core does",
		  (long long)m->experts, j->tp) ||
	    check(cfg, sec, "expert_tensor_parallel_size", s->etp == s->tp || m->experts > 1, err,
		  "expert_tensor_parallel_size = %lld needs an MoE model (experts = %lld)", s->etp,
		  (long long)m->experts) ||
	    check(cfg, sec, "expert_tensor_parallel_size", s->etp == s->tp || (!mc_any(j) && j->zero < 3), err,
		  "expert_tensor_parallel_size (%lld) other than tp (%lld) is modelled without multicast algorithms "
		  "and ZeRO-3", s->etp, j->tp) ||
	    check(cfg, sec, "zero", j->zero < 3 || (j->pp == 1 && j->ep == 1), err,
		  "zero = 3 needs pp = 1 and ep = 1 (here pp = %lld, ep = %lld): DeepSpeed's pipeline engine "
		  "refuses ZeRO-3, and ZeRO-3 gathers of expert parameters are not modelled; use zero = 1 or 2",
		  j->pp, j->ep))
		return -1;
	s->m = j->global_batch / ((long long)j->micro_batch * j->dp);
	s->vpp = j->virtual_pipeline_stages;
	if (s->vpp > 1 &&
	    (check(cfg, sec, "virtual_pipeline_stages", j->pp > 1, err,
		   "interleaving (%lld model chunks) needs pp > 1 (pp = %lld)", s->vpp, j->pp) ||
	     check(cfg, sec, "virtual_pipeline_stages", m->layers % ((long long)j->pp * s->vpp) == 0, err,
		   "layers (%lld) must be a multiple of pp x virtual_pipeline_stages (%lld)",
		   (long long)m->layers, (long long)j->pp * s->vpp) ||
	     check(cfg, sec, "global_batch", s->m % j->pp == 0, err,
		   "interleaved 1F1B needs the micro-batches per iteration (%lld) to be a multiple of pp (%lld)",
		   (long long)s->m, j->pp)))
		return -1;
	s->layers_per_stage = m->layers / j->pp;
	s->layers_per_chunk = s->layers_per_stage / s->vpp;
	/* Megatron pads the vocabulary to a multiple of
	 * make_vocab_size_divisible_by × tp so every tp rank holds equal rows. */
	s->vocab_given = m->vocab;
	{
		int64_t q = (int64_t)j->vocab_divisible_by * j->tp;
		s->model.vocab = (m->vocab + q - 1) / q * q;
	}
	long long ops = 2 * s->m * (s->layers_per_stage * 24 + 8 * s->vpp + 16) * (j->zero >= 2 ? 2 : 1);
	if (check(cfg, sec, "global_batch", ops <= JOB_MAX_OPS_PER_STAGE && s->b * m->seq_len * m->top_k < (1LL << 31),
		  err, "the plan is too large to simulate (%lld micro-batches of %lld sequences)",
		  (long long)s->m, (long long)s->b))
		return -1;
	/* A worker's GPU holds 1/cp of the sequence (context parallelism) and
	 * computes 1/(tp·cp) of every layer. */
	double shards = (double)s->tp * s->cp;
	s->act_b = (uint64_t)(s->b * m->seq_len / s->cp * m->hidden * 2);
	s->tokens = s->b * m->seq_len;
	s->t_attn_f = job_compute_ps(job_model_attn_flops(m, s->b) / shards, s->gpu, j->mfu);
	s->t_mlp_f = job_compute_ps(job_model_mlp_flops(m, s->b, false) / shards, s->gpu, j->mfu);
	s->t_moe_f = job_compute_ps(job_model_mlp_flops(m, s->b, true) / shards, s->gpu, j->mfu);
	/* Core attention: QKᵀ and AV, 2·b·s²·h FLOPs each (SC'21). */
	s->t_core_f = job_compute_ps(4.0 * (double)s->b * (double)m->seq_len * (double)m->seq_len *
				     (double)m->hidden / shards, s->gpu, j->mfu);
	/* Logits: a b·s × h by h × V_padded product. */
	s->t_head_f = job_compute_ps(2.0 * (double)s->tokens * (double)m->hidden * (double)m->vocab / shards,
				     s->gpu, j->mfu);
	s->ce_b = (uint64_t)(s->tokens / s->cp) * 4;
	/* Ring attention's block: K and V of s/cp tokens, h·kv_heads/heads wide, bf16, per tp shard. */
	s->kv_b = (uint64_t)(2 * s->b * (m->seq_len / s->cp) * (m->hidden * m->kv_heads / m->heads) * 2 / s->tp);
	if (m->tied && s->pp > 1)
		s->emb_b = (uint64_t)((m->vocab * m->hidden + s->tp - 1) / s->tp) * (uint64_t)j->grad_bytes;
	/* cp follows tp in the rank order (the rules): the layout's innermost
	 * dimension is a worker's tp × cp ranks, cp index outer. With folded
	 * experts (etp != tp) ep need not divide dp: the layout is then the
	 * dense one and moe_layout.c places the experts. */
	char *dims[JOB_NDIMS];
	size_t nd = 0;
	for (size_t i = 0; i < j->n_placement && nd < JOB_NDIMS; i++)
		if (strcmp(j->placement[i], "cp") != 0)
			dims[nd++] = j->placement[i];
	if (job_layout_init(&s->layout, s->tp * s->cp, s->pp, s->dp, s->etp == s->tp ? s->ep : 1, dims, nd) < 0)
		die_internal("[%s] placement is not a permutation of tp, ep, dp, pp", sec); /* the rules' */

	int *bucket_end;
	wl_dp_buckets(s, &bucket_end);
	struct wl_pp_slot *slots = xmalloc((size_t)(2 * s->m * s->vpp) * sizeof *slots);
	struct wl_dp_item *items = xmalloc((size_t)(s->layers_per_stage + 2) * sizeof *items);
	/* Adam with fp32 main parameters (Megatron's mixed precision): per
	 * parameter it reads the fp32 gradient, parameter, m and v (16 B) and
	 * writes the parameter, m, v and the bf16 copy (14 B); memory-bound. */
	s->t_opt = j->optimizer_step_set ? j->optimizer_step
		: (simtime_t)(optimizer_params(s, items) * 30.0 / s->gpu->mem_bw * 1e12 + 0.5);
	s->prog = xcalloc((size_t)s->pp, sizeof *s->prog);
	for (int st = 0; st < s->pp; st++)
		build_stage(s, st, bucket_end, slots, items);
	free(items);
	free(slots);
	free(bucket_end);
	return 0;
}

void job_spec_free(struct job_spec *s)
{
	for (int st = 0; s->prog && st < s->pp; st++)
		free(s->prog[st].op);
	free(s->prog);
	free(s->bucket);
	s->prog = NULL;
	s->bucket = NULL;
}

/* ---- Totals of one iteration ---- */

bool job_coll_empty(enum coll_op op, int n, uint64_t size_b, const uint64_t *a2a)
{
	if (n < 2)
		return true;
	if (op != COLL_ALLTOALL || !a2a)
		return size_b == 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++)
			if (i != k && a2a[i * n + k])
				return false;
	return true;
}

/* coll_plan results of the distinct collectives of a plan (a plan repeats
 * the same few shapes thousands of times). A multicast collective's
 * messages depend on which of its ranks share a host (coll_mcast.c): its
 * entries also key on the group's host pattern (each rank's host numbered
 * by first appearance), NULL for the others. */
struct plan_cache {
	struct { enum coll_op op; int n; uint64_t size_b, bytes, messages; uint64_t *a2a; int *pat; } e[64];
	int n;
};

/* ranks: the group's job ranks (multicast algorithms), NULL = any ranks on
 * hosts of their own. */
static void add(struct job_plan_totals *t, struct plan_cache *pc, enum job_par par, uint64_t times,
		const struct job_spec *s, enum coll_op op, int n, uint64_t size_b, const uint64_t *a2a,
		const int *ranks)
{
	size_t nn = (size_t)n * (size_t)n;
	if (job_coll_empty(op, n, size_b, a2a))
		return; /* job_exec.c starts nothing for these either */
	int *pat = NULL;
	if (ranks) {
		pat = xmalloc((size_t)n * sizeof *pat);
		for (int i = 0; i < n; i++) {
			pat[i] = i;
			for (int k = 0; k < i; k++)
				if (ranks[k] / s->gpus_per_host == ranks[i] / s->gpus_per_host) {
					pat[i] = pat[k];
					break;
				}
		}
	}
	int hit = -1;
	for (int i = 0; i < pc->n && hit < 0; i++)
		if (pc->e[i].op == op && pc->e[i].n == n && pc->e[i].size_b == size_b &&
		    (!a2a ? !pc->e[i].a2a : pc->e[i].a2a && !memcmp(a2a, pc->e[i].a2a, nn * sizeof *a2a)) &&
		    (!pat ? !pc->e[i].pat : pc->e[i].pat && !memcmp(pat, pc->e[i].pat, (size_t)n * sizeof *pat)))
			hit = i;
	if (hit < 0) {
		int *gpus = xmalloc((size_t)n * sizeof *gpus);
		for (int i = 0; i < n; i++)
			gpus[i] = ranks ? ranks[i] : i;
		struct coll_spec cs = { .op = op, .algorithm = job_coll_alg(s, op), .gpus = gpus, .n = n,
					.size_b = size_b, .a2a_b = a2a, .chunk_b = s->cfg->chunk_b,
					.channels = s->cfg->channels, .iteration = -1,
					.gpus_per_host = ranks ? s->gpus_per_host : 1 };
		hit = pc->n < 64 ? pc->n++ : 63;
		free(pc->e[hit].a2a);
		free(pc->e[hit].pat);
		pc->e[hit].op = op;
		pc->e[hit].n = n;
		pc->e[hit].size_b = size_b;
		pc->e[hit].a2a = a2a ? xmalloc(nn * sizeof *a2a) : NULL;
		if (a2a)
			memcpy(pc->e[hit].a2a, a2a, nn * sizeof *a2a);
		pc->e[hit].pat = pat;
		pat = NULL;
		coll_plan(&cs, &pc->e[hit].bytes, &pc->e[hit].messages);
		free(gpus);
	}
	free(pat);
	t->bytes[par] += times * pc->e[hit].bytes;
	t->messages[par] += times * pc->e[hit].messages;
}

/* Multicast plans walk the job's real groups (which ranks share a host
 * decides their messages); with one GPU per host every group is alike. */
static bool mc_groups(const struct job_spec *s, enum coll_op op)
{
	const char *alg = job_coll_alg(s, op);
	return s->gpus_per_host > 1 && alg && strcmp(alg, "multicast") == 0;
}

void job_plan_totals(const struct job_spec *s, struct job_plan_totals *t)
{
	memset(t, 0, sizeof *t);
	struct plan_cache *pc = xcalloc(1, sizeof *pc);
	uint64_t dp = (uint64_t)s->dp, edp = (uint64_t)s->edp, cp = (uint64_t)s->cp;
	int width = job_width(s);
	size_t ep2 = (size_t)s->ep * (size_t)s->ep;
	uint64_t *mat = xcalloc(ep2, sizeof *mat), *shard = xcalloc(ep2, sizeof *shard);
	int *ranks = xmalloc((size_t)s->layout.n_ranks * sizeof *ranks);
	wl_ep_expected(s, mat);
	for (int st = 0; st < s->pp; st++) {
		const struct job_prog *p = &s->prog[st];
		for (int i = 0; i < p->n; i++) {
			const struct job_op *op = &p->op[i];
			switch ((enum job_op_kind)op->kind) {
			case JOP_TP:   /* each of the stage's dp workers: one tp group per cp index */
				if (op->expert && (s->etp != s->tp || !mc_groups(s, op->coll))) {
					/* tp/etp expert-TP groups per worker (moe_layout.c) */
					add(t, pc, JOB_PAR_TP, dp * (uint64_t)(s->tp / s->etp), s, op->coll, s->etp, op->val,
					    NULL, NULL);
					break;
				}
				if (!mc_groups(s, op->coll)) {
					add(t, pc, JOB_PAR_TP, dp * cp, s, op->coll, s->tp, op->val, NULL, NULL);
					break;
				}
				for (int d = 0; d < s->dp; d++)
					for (int c = 0; c < s->cp; c++) {
						for (int r = 0; r < s->tp; r++)
							ranks[r] = job_layout_rank_dp(&s->layout, c * s->tp + r, d, st);
						add(t, pc, JOB_PAR_TP, 1, s, op->coll, s->tp, op->val, NULL, ranks);
					}
				break;
			case JOP_SEND: /* each worker: tp x cp sendrecvs of 1/(tp x cp) of val */
				for (int r = 0; r < width; r++)
					add(t, pc, JOB_PAR_PP, dp, s, COLL_SENDRECV, 2,
					    coll_split(op->val, (uint64_t)width, (uint64_t)r), NULL, NULL);
				break;
			case JOP_CP:   /* each worker: per tp index, cp sendrecvs around the ring */
				add(t, pc, JOB_PAR_CP, dp * (uint64_t)s->tp * cp, s, COLL_SENDRECV, 2, op->val, NULL, NULL);
				break;
			case JOP_EP:   /* each of the stage's edp ep groups: etp all-to-alls */
				for (int r = 0; r < s->etp; r++) {
					wl_ep_shard(mat, s->ep, op->transpose, s->etp, r, shard);
					add(t, pc, JOB_PAR_EP, edp, s, COLL_ALLTOALL, s->ep, 0, shard, NULL);
				}
				break;
			case JOP_ZERO_AG: /* one dp group per tp index */
				if (!mc_groups(s, op->coll)) {
					add(t, pc, JOB_PAR_DP, (uint64_t)s->tp, s, op->coll, s->dp, op->val, NULL, NULL);
					break;
				}
				for (int r = 0; r < s->tp; r++) {
					for (int d = 0; d < s->dp; d++)
						ranks[d] = job_layout_rank_dp(&s->layout, r, d, st);
					add(t, pc, JOB_PAR_DP, 1, s, op->coll, s->dp, op->val, NULL, ranks);
				}
				break;
			case JOP_GRAD: {
				const struct job_bucket *b = &s->bucket[op->idx];
				enum coll_op cop;
				uint64_t size;
				uint64_t groups = b->expert ? (uint64_t)s->etp * (uint64_t)s->ep : (uint64_t)s->tp;
				wl_dp_reduce(s, b, &cop, &size);
				/* The parameter gather once per iteration, with the last micro-batch's reduction. */
				uint64_t g = op->mb == s->m - 1 ? wl_zero_gather_b(s, b) : 0;
				if (!mc_groups(s, cop) && (!g || !mc_groups(s, COLL_ALLGATHER))) {
					/* every group alike: with one GPU per host, or sizes only */
					add(t, pc, JOB_PAR_DP, groups, s, cop, wl_dp_group_size(s, b), size, NULL, NULL);
					if (g)
						add(t, pc, JOB_PAR_DP, groups, s, COLL_ALLGATHER, wl_dp_group_size(s, b), g,
						    NULL, NULL);
					break;
				}
				/* The groups job_exec.c's dp_group_gpus builds: per ep index, per tp index. */
				for (int e = 0; e < (b->expert ? s->ep : 1); e++)
					for (int r = 0; r < s->tp; r++) {
						int n = job_dp_group_ranks(s, b, r, e, ranks);
						add(t, pc, JOB_PAR_DP, 1, s, cop, n, size, NULL, ranks);
						if (g)
							add(t, pc, JOB_PAR_DP, 1, s, COLL_ALLGATHER, n, g, NULL, ranks);
					}
				break;
			}
			case JOP_COMPUTE:
			case JOP_RECV:
			case JOP_AG_WAIT:
			case JOP_PARAM_WAIT:
			case JOP_CP_WAIT:
			case JOP_N:
				break;
			}
		}
	}
	if (s->emb_b && !mc_groups(s, COLL_ALLREDUCE))
		add(t, pc, JOB_PAR_DP, dp * (uint64_t)width, s, COLL_ALLREDUCE, 2, s->emb_b, NULL, NULL);
	for (int d = 0; s->emb_b && mc_groups(s, COLL_ALLREDUCE) && d < s->dp; d++)
		for (int r = 0; r < width; r++) { /* job_exec.c's embedding pair */
			ranks[0] = job_layout_rank_dp(&s->layout, r, d, 0);
			ranks[1] = job_layout_rank_dp(&s->layout, r, d, s->pp - 1);
			add(t, pc, JOB_PAR_DP, 1, s, COLL_ALLREDUCE, 2, s->emb_b, NULL, ranks);
		}
	free(ranks);
	for (int i = 0; i < pc->n; i++) {
		free(pc->e[i].a2a);
		free(pc->e[i].pat);
	}
	free(pc);
	free(mat);
	free(shard);
}
