/*
 * workload_dp.c — data parallelism: gradient buckets, their reductions and
 * the rules of the [job.NAME] keys that shape them (see workload.h).
 *
 * Gradients are packed into buckets in backward order (docs/protocol.md
 * "Training jobs", "Data parallelism and ZeRO"); a bucket closes once it
 * holds `dp_bucket` parameters. Unset, that is the framework's default:
 * Megatron-Core's max(4·10⁷, 10⁶ × group size) when overlap_grad_reduce is
 * on and a single bucket per stage when it is off (Megatron-Core sets
 * bucket_size to None then), DeepSpeed's reduce_bucket_size of 5·10⁸ for
 * ZeRO-2 and -3. With overlap_grad_reduce a bucket's reduction starts as
 * soon as the backward has produced all its gradients, overlapping the
 * backward of earlier layers; without it every bucket starts after the
 * backward pass. Non-expert gradients are reduced over the dp group,
 * expert gradients over the edp (dp/ep) group. Sizes are per
 * tensor-parallel shard (each of the tp ranks reduces its own shard over
 * its own group, so tp reductions run side by side). Elements are
 * grad_bytes wide (grad_reduce_dtype). ZeRO-0/1 reduce after the last
 * micro-batch only (gradient accumulation), ZeRO-2/3 after every
 * micro-batch (workload_zero.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include "config.h"
#include "workload.h"
#include "xalloc.h"

static uint64_t per_shard(int64_t params, int tp) { return (uint64_t)((params + tp - 1) / tp); }

uint64_t wl_dp_bucket_params(const struct job_spec *s, int group)
{
	const struct job_cfg *j = s->cfg;
	if (j->dp_bucket > 0)
		return (uint64_t)j->dp_bucket;
	if (s->zero >= 2)
		return 500000000;          /* DeepSpeed: reduce_bucket_size */
	if (!j->overlap_grad_reduce)
		return UINT64_MAX;         /* Megatron-Core: one bucket */
	uint64_t thr = (uint64_t)group * 1000000;
	return thr > 40000000 ? thr : 40000000;
}

int job_dp_rules(struct cfg_check *c, struct job_cfg *j)
{
	static const char *const dtype[] = { "fp32", "bf16" };
	if (!cfg_given(c, "overlap_grad_reduce"))
		j->overlap_grad_reduce = j->zero == 3;
	if (j->overlap_param_gather && j->zero != 1 && j->zero != 2)
		return cfg_fail(c, "overlap_param_gather", "off with zero = %d: it overlaps the parameter all-gather "
				"that follows the sharded optimizer step, which only zero = 1 or 2 has", j->zero);
	if (j->overlap_param_gather && !j->overlap_grad_reduce)
		return cfg_fail(c, "overlap_param_gather", "off unless overlap_grad_reduce = on (as Megatron-LM "
				"requires: without it there is one bucket, so the first layer waits for every gather)");
	bool given_dtype = cfg_given(c, "grad_reduce_dtype"), given_bytes = cfg_given(c, "grad_bytes");
	if (!given_dtype)
		j->grad_reduce_dtype = given_bytes ? (j->grad_bytes == 4 ? JOB_GRAD_FP32 : JOB_GRAD_BF16)
			: j->zero >= 2 ? JOB_GRAD_BF16 : JOB_GRAD_FP32;
	int bytes = j->grad_reduce_dtype == JOB_GRAD_FP32 ? 4 : 2;
	if (given_bytes && j->grad_bytes != bytes)
		return cfg_fail(c, "grad_bytes", "%d, the width of grad_reduce_dtype = %s (set only one of the two)",
				bytes, dtype[j->grad_reduce_dtype]);
	j->grad_bytes = bytes;
	return 0;
}

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
			it.params = per_shard(job_model_attn_params(m) + job_model_router_params(m) +
					      job_model_shared_params(m), s->tp);
			it.expert_params = per_shard(m->experts / s->ep * job_model_ffn_params(m), s->etp);
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
	/* The non-expert group is dp x cp ranks (context parallelism). */
	uint64_t thr[2] = { wl_dp_bucket_params(s, s->dp * s->cp), wl_dp_bucket_params(s, s->edp) };
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
	if (b->file_b) {
		*op = (enum coll_op)b->file_op;
		*size_b = b->file_b;
		return;
	}
	*op = wl_zero_grad_op(s->zero);
	*size_b = b->params * (uint64_t)s->cfg->grad_bytes;
}
