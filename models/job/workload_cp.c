/*
 * workload_cp.c — context parallelism: ring attention (see workload.h).
 *
 * Megatron-Core with Transformer Engine (AttnFuncWithCPAndKVP2P): the
 * sequence of each micro-batch is split over the cp ranks of a context-
 * parallel group (load-balanced: 2·cp blocks, rank c holding blocks c and
 * 2·cp − 1 − c), so every cp rank computes 1/cp of every layer. Outside
 * the core attention nothing needs the other ranks. The core attention
 * needs every rank's keys and values: in cp steps, each rank computes its
 * queries against the KV block it holds while sending that block to the
 * next rank of the ring and receiving the previous rank's (cp − 1 sends of
 * 2·b·(s/cp)·h_kv bf16 elements per tp shard, h_kv = h·kv_heads/heads).
 * The backward runs the same ring with the KV blocks and their gradient
 * (dKV) travelling together: twice the bytes. A step's send overlaps its
 * block's compute; the next step waits for both.
 */
#include "workload.h"

void wl_cp_attention(const struct job_spec *s, struct job_prog *p, int dir, simtime_t ps, simtime_t core_ps)
{
	if (s->cp < 2) {
		job_prog_compute(p, ps);
		return;
	}
	simtime_t step = core_ps / s->cp;
	job_prog_compute(p, ps - core_ps);
	for (int i = 0; i < s->cp - 1; i++) {
		job_prog_add(p, JOP_CP)->val = dir == JOB_FWD ? s->kv_b : 2 * s->kv_b;
		job_prog_compute(p, step);
		job_prog_add(p, JOP_CP_WAIT);
	}
	job_prog_compute(p, core_ps - step * (s->cp - 1));
}
