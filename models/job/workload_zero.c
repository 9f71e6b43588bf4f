/*
 * workload_zero.c — ZeRO stages 1, 2 and 3 (Rajbhandari et al., SC'20) on
 * top of data parallelism (see workload.h).
 *
 * Volumes per rank (docs/protocol.md "Training jobs"): plain data parallelism all-reduces the
 * gradients (2Ψ on the wire per rank with a ring); ZeRO-1/2 reduce-scatter
 * the gradients and, after the optimizer step on the local shard,
 * all-gather the updated bf16 parameters (Ψ + Ψ = 2Ψ); ZeRO-3 also
 * partitions the parameters, so every layer's parameters are all-gathered
 * before its forward and again before its backward, for every
 * micro-batch, and gradients are reduce-scattered (Ψ + Ψ + Ψ = 3Ψ with one
 * micro-batch). ZeRO-3 here needs pp = 1 and ep = 1 (as in DeepSpeed,
 * which does not combine ZeRO-3 with pipeline parallelism); the checks
 * are in job_plan.c.
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

void wl_zero3_gather(const struct job_spec *s, struct job_prog *p, uint64_t params)
{
	if (s->zero == 3 && s->dp > 1 && params)
		job_prog_coll(p, JOP_ZERO_AG, COLL_ALLGATHER, params * 2);
}
