/*
 * job_prog.c — the program each pipeline stage of a job runs every
 * iteration (see job_plan.h): the append helpers the workload_*.c builders
 * use, and job_build_stage, which lays out a stage's passes.
 *
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
 * parameter gathers (job_exec_coll.c; with overlap_param_gather the gathers
 * start with the next iteration instead).
 */
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "job_plan.h"
#include "job_plan_internal.h"
#include "workload.h"
#include "xalloc.h"

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

void job_build_stage(struct job_spec *s, int st, const int *bucket_end, struct wl_pp_slot *slots,
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

