/*
 * workload_dp.c — data parallelism: gradient buckets (see workload.h).
 *
 * Megatron-Core's distributed data parallel (docs/protocol.md "Training jobs"): gradients are
 * packed into buckets in backward order, a bucket closing once it holds
 * max(4·10⁷, 10⁶ × group size) parameters; a bucket's reduction starts as
 * soon as the last micro-batch's backward has produced all its gradients,
 * so it overlaps the backward of earlier layers. Non-expert gradients are
 * reduced over the dp group, expert gradients over the edp (dp/ep) group.
 * Sizes are per tensor-parallel shard (each of the tp ranks reduces its own
 * shard over its own group, so tp reductions run side by side). Elements
 * are grad_bytes wide. Gradients reduce only after the last micro-batch
 * (gradient accumulation), for every ZeRO stage (workload_zero.c).
 */
#include <stdlib.h>
#include "config.h"
#include "workload.h"
#include "xalloc.h"

static uint64_t per_shard(int64_t params, int tp) { return (uint64_t)((params + tp - 1) / tp); }

int wl_dp_items(const struct job_spec *s, int stage, struct wl_dp_item *out)
{
	const struct job_model *m = &s->model;
	int n = 0;
	uint64_t emb = per_shard(m->vocab * m->hidden, s->tp);
	if (stage == s->pp - 1 && (!m->tied || s->pp > 1))
		out[n++] = (struct wl_dp_item){ .layer = -1, .params = emb };
	for (int64_t i = s->layers_per_stage - 1; i >= 0; i--) {
		int64_t l = job_stage_layer(s, stage, i);
		struct wl_dp_item it = { .layer = l };
		if (job_model_is_moe(m, l)) {
			it.params = per_shard(job_model_attn_params(m) + job_model_router_params(m), s->tp);
			it.expert_params = per_shard(m->experts / s->ep * job_model_ffn_params(m), s->tp);
		} else {
			it.params = per_shard(job_model_attn_params(m) + job_model_ffn_params(m), s->tp);
		}
		out[n++] = it;
	}
	if (stage == 0)
		out[n++] = (struct wl_dp_item){ .layer = -2, .params = emb };
	return n;
}

void wl_dp_buckets(struct job_spec *s, int **bucket_end)
{
	struct wl_dp_item *items = xmalloc((size_t)(s->layers_per_stage + 2) * sizeof *items);
	int cap = 16, n = 0;
	struct job_bucket *b = xmalloc((size_t)cap * sizeof *b);
	int *end = xmalloc((size_t)cap * sizeof *end);
	uint64_t thr[2] = { 40000000, 40000000 };
	if ((uint64_t)s->dp * (uint64_t)s->cp * 1000000 > thr[0]) /* the group: dp x cp */
		thr[0] = (uint64_t)s->dp * (uint64_t)s->cp * 1000000;
	if ((uint64_t)s->edp * 1000000 > thr[1])
		thr[1] = (uint64_t)s->edp * 1000000;
	const bool reduce[2] = { s->dp * s->cp > 1, s->edp > 1 };
	for (int st = 0; st < s->pp; st++) {
		int ni = wl_dp_items(s, st, items);
		uint64_t acc[2] = { 0, 0 };
		for (int i = 0; i < ni; i++) {
			uint64_t add[2] = { items[i].params, items[i].expert_params };
			for (int e = 0; e < 2; e++) {
				acc[e] += add[e];
				bool last = i == ni - 1;
				if (!reduce[e] || !acc[e] || (acc[e] < thr[e] && !last))
					continue;
				if (n == cap) {
					cap *= 2;
					b = xrealloc(b, (size_t)cap * sizeof *b);
					end = xrealloc(end, (size_t)cap * sizeof *end);
				}
				b[n] = (struct job_bucket){ .stage = st, .expert = e == 1, .params = acc[e] };
				end[n++] = i;
				acc[e] = 0;
			}
		}
	}
	free(items);
	s->bucket = b;
	s->n_buckets = n;
	*bucket_end = end;
}

int wl_dp_group_size(const struct job_spec *s, const struct job_bucket *b)
{
	return b->expert ? s->edp : s->dp * s->cp;
}

void wl_dp_reduce(const struct job_spec *s, const struct job_bucket *b, enum coll_op *op, uint64_t *size_b)
{
	*op = wl_zero_grad_op(s->zero);
	*size_b = b->params * (uint64_t)s->cfg->grad_bytes;
}
