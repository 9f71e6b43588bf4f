/*
 * workload_zero.c — ZeRO stages 1, 2 and 3 (Rajbhandari et al., SC'20) on
 * top of data parallelism (see workload.h).
 *
 * Volumes per rank and iteration with m micro-batches (docs/protocol.md
 * "Training jobs", "Data parallelism and ZeRO"): plain data parallelism
 * all-reduces the gradients once (2Ψ on the wire per rank with a ring);
 * ZeRO-1 reduce-scatters them once and, after the optimizer step on the
 * local shard, all-gathers the updated bf16 parameters (Ψ + Ψ); ZeRO-2
 * reduce-scatters after every micro-batch, as DeepSpeed's stage 2 does
 * (its gradient partitions hold no accumulation of the unreduced
 * gradients): mΨ + Ψ; ZeRO-3 also partitions the parameters, so every
 * layer's parameters are all-gathered before its forward and again before
 * its backward, for every micro-batch, and gradients are reduce-scattered
 * after every micro-batch: 3mΨ. ZeRO-3's gathers are prefetched: while a
 * layer computes, the gathers of the next layers run (up to zero3_prefetch
 * parameters ahead, at least the next layer's). ZeRO-3 needs pp = 1 (DeepSpeed's
 * pipeline engine refuses ZeRO-2 and -3) and ep = 1 (gathers of expert
 * parameters over the expert-data-parallel groups are not modelled); the
 * checks are in job_plan.c.
 */
#include "workload.h"

enum coll_op wl_zero_grad_op(int zero)
{
	return zero ? COLL_REDUCE_SCATTER : COLL_ALLREDUCE;
}

uint64_t wl_zero_gather_b(const struct job_spec *s, const struct job_bucket *b)
{
	return s->zero == 1 || s->zero == 2 ? b->params * 2 : 0;
}

bool wl_zero_reduces_at(const struct job_spec *s, int64_t mb)
{
	return s->zero >= 2 || mb == s->m - 1;
}

void wl_zero3_begin(const struct job_spec *s, struct job_prog *p, struct wl_zero3_pass *z,
		    const uint64_t *params, int n)
{
	z->params = params;
	z->n = n;
	z->next = 0;
	z->base = p->n_slots;
	z->on = s->zero == 3 && s->dp > 1;
	if (z->on)
		p->n_slots += n;
}

static void issue(struct job_prog *p, struct wl_zero3_pass *z)
{
	struct job_op *o = job_prog_add(p, JOP_ZERO_AG);
	o->coll = COLL_ALLGATHER;
	o->idx = z->base + z->next;
	o->val = z->params[z->next] * 2; /* bf16 parameters */
	z->next++;
}

void wl_zero3_use(const struct job_spec *s, struct job_prog *p, struct wl_zero3_pass *z, int i)
{
	if (!z->on)
		return;
	while (z->next <= i)
		issue(p, z);
	uint64_t ahead = 0, window = (uint64_t)s->cfg->zero3_prefetch;
	for (int k = i + 1; k < z->next; k++)
		ahead += z->params[k];
	while (z->next < z->n && ahead < window) {
		ahead += z->params[z->next];
		issue(p, z);
	}
	job_prog_add(p, JOP_AG_WAIT)->idx = z->base + i;
}
