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
 *
 * The vocabulary-parallel ends of the model (Megatron's
 * VocabParallelEmbedding, the output ColumnParallelLinear and
 * vocab_parallel_cross_entropy): each tp rank holds V_padded/tp rows of
 * the embedding. The input embedding's output is all-reduced in forward
 * (reduce-scattered with SP; its backward then all-gathers the gradient).
 * The LM head's input is all-gathered in forward with SP (without SP its
 * forward is an identity), the logits cost 2·b·s·h·V_padded FLOPs forward,
 * the cross entropy all-reduces three b·s fp32 tensors, and the backward
 * all-reduces (SP: reduce-scatters) the input gradient.
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

void wl_tp_attention(const struct job_spec *s, struct job_prog *p, int dir, simtime_t ps, simtime_t core_ps)
{
	if (s->tp > 1 && s->sp)
		job_prog_coll(p, JOP_TP, COLL_ALLGATHER, s->act_b);
	wl_cp_attention(s, p, dir, ps, core_ps);
	if (s->tp > 1)
		job_prog_coll(p, JOP_TP, s->sp ? COLL_REDUCE_SCATTER : COLL_ALLREDUCE, s->act_b);
}

void wl_tp_embedding(const struct job_spec *s, struct job_prog *p, int dir)
{
	if (s->tp < 2)
		return;
	if (dir == JOB_FWD)
		job_prog_coll(p, JOP_TP, s->sp ? COLL_REDUCE_SCATTER : COLL_ALLREDUCE, s->act_b);
	else if (s->sp)
		job_prog_coll(p, JOP_TP, COLL_ALLGATHER, s->act_b);
}

void wl_tp_lm_head(const struct job_spec *s, struct job_prog *p, int dir)
{
	if (dir == JOB_FWD) {
		if (s->tp > 1 && s->sp)
			job_prog_coll(p, JOP_TP, COLL_ALLGATHER, s->act_b);
		job_prog_compute(p, s->t_head_f);
		for (int i = 0; s->tp > 1 && i < 3; i++)
			job_prog_coll(p, JOP_TP, COLL_ALLREDUCE, s->ce_b);
		return;
	}
	job_prog_compute(p, 2 * s->t_head_f);
	if (s->tp > 1)
		job_prog_coll(p, JOP_TP, s->sp ? COLL_REDUCE_SCATTER : COLL_ALLREDUCE, s->act_b);
}
