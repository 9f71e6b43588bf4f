/*
 * workload_tp.c — tensor parallelism (see workload.h).
 *
 * Megatron-LM (Shoeybi et al. 2019; Korthikanti et al. 2022 for sequence
 * parallelism): each transformer block (attention, MLP) ends with an
 * all-reduce of the block's output, b·s·h bf16 elements, in forward, and
 * its input gradient is all-reduced in backward: 2 all-reduces forward and
 * 2 backward per layer (docs/protocol.md "Training jobs"). With sequence parallelism each
 * all-reduce becomes an all-gather before the block and a reduce-scatter
 * after it, the same volume. Every TP collective blocks the compute that
 * follows it, so TP communication is exposed by construction.
 */
#include "workload.h"

void wl_tp_block(const struct job_spec *s, struct job_prog *p, simtime_t ps)
{
	if (s->tp > 1 && s->sp)
		job_prog_coll(p, JOP_TP, COLL_ALLGATHER, s->act_b);
	job_prog_compute(p, ps);
	if (s->tp > 1)
		job_prog_coll(p, JOP_TP, s->sp ? COLL_REDUCE_SCATTER : COLL_ALLREDUCE, s->act_b);
}
