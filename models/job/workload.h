/*
 * workload.h — the parallelism strategies of a training job, one file
 * each (docs/architecture.md "Workloads"): what each adds to a stage's program (job_plan.h)
 * and, for the strategies with run-time choices, what it decides then.
 *
 *   workload_tp.c    tensor parallelism: the collectives around each layer block, the
 *                    embedding and the LM head
 *   workload_pp.c    pipeline parallelism: the 1F1B orders (plain, interleaved), sends and receives
 *   workload_dp.c    data parallelism: gradient buckets and their reductions
 *   workload_zero.c  ZeRO 1/2/3: which reduction, parameter gathers
 *   workload_cp.c    context parallelism: ring attention
 *   workload_ep.c    MoE: token routing and the all-to-all matrices
 */
#ifndef ROCESIM_WORKLOAD_H
#define ROCESIM_WORKLOAD_H

#include <gsl/gsl_rng.h>
#include "job.h"
#include "job_plan.h"

/* --- TP --- */
/* One layer block (attention or MLP) in direction dir: its compute of
 * `ps` with the tensor-parallel collectives around it (Megatron-LM:
 * compute then an all-reduce of b·s·h × 2 B; with sequence parallelism an
 * all-gather before and a reduce-scatter after, the same volume). */
void wl_tp_block(const struct job_spec *s, struct job_prog *p, simtime_t ps);
/* The vocab-parallel input embedding (stage 0, chunk 0) in direction dir:
 * forward an all-reduce of its output (reduce-scatter with sequence
 * parallelism), backward nothing (all-gather of the output gradient with
 * sequence parallelism). */
void wl_tp_embedding(const struct job_spec *s, struct job_prog *p, int dir);
/* The LM head and the vocab-parallel cross entropy (last stage, last
 * chunk) in direction dir: forward [all-gather (SP)] logits compute, three
 * all-reduces of b·s fp32 (max, target logit, sum of exponentials);
 * backward the logits' backward compute then the input gradient's
 * all-reduce (reduce-scatter with SP). */
void wl_tp_lm_head(const struct job_spec *s, struct job_prog *p, int dir);

/* The attention block in direction dir: like wl_tp_block, its compute
 * `ps` of which `core_ps` is the core attention, run as ring attention
 * with context parallelism (wl_cp_attention). */
void wl_tp_attention(const struct job_spec *s, struct job_prog *p, int dir, simtime_t ps, simtime_t core_ps);

/* --- CP --- */
/* Compute `ps` of an attention block whose core attention (`core_ps`)
 * runs over the ring of cp ranks: cp − 1 steps of a KV send (with dKV in
 * backward) beside one block's compute, then the last block. */
void wl_cp_attention(const struct job_spec *s, struct job_prog *p, int dir, simtime_t ps, simtime_t core_ps);

/* --- PP --- */
/* One pass of a micro-batch through one model chunk of a stage. */
struct wl_pp_slot { uint8_t dir; int32_t mb; int32_t chunk; };
/* The 1F1B order of stage `stage` of p with m micro-batches (Narayanan et
 * al. SC'21): min(p − stage − 1, m) warm-up forwards, then alternating
 * forward/backward, then the cool-down backwards. Fills 2m slots (chunk 0). */
void wl_pp_schedule(int p, int stage, int64_t m, struct wl_pp_slot *out);
/* Megatron's interleaved 1F1B with v model chunks per stage (v = 1: the
 * plain 1F1B above). Fills 2·v·m slots. */
void wl_pp_schedule_interleaved(int p, int stage, int64_t m, int v, struct wl_pp_slot *out);
/* Receive before / send after a micro-batch's pass through chunk `chunk`,
 * when there is a neighbour (the next chunk's first stage after the last
 * stage, when interleaved). */
void wl_pp_recv(const struct job_spec *s, struct job_prog *p, int stage, int chunk, int dir, int64_t mb);
void wl_pp_send(const struct job_spec *s, struct job_prog *p, int stage, int chunk, int dir, int64_t mb);

/* --- DP --- */
/* The items a stage's backward produces gradients for, in backward order:
 * the output embedding (last stage, when untied or pp > 1), the stage's
 * layers last to first, the input embedding (stage 0). Parameters per tp
 * shard; expert parameters per EP rank. Returns the count (<= layers + 2). */
struct wl_dp_item { int64_t layer; uint64_t params, expert_params; };
int wl_dp_items(const struct job_spec *s, int stage, struct wl_dp_item *out);
/* Fills s->bucket; bucket_end[b] = the item index after which bucket b is
 * final (malloc'd, caller frees). */
void wl_dp_buckets(struct job_spec *s, int **bucket_end);
/* Members of a bucket's reduction group and how many such groups. */
int wl_dp_group_size(const struct job_spec *s, const struct job_bucket *b);
/* The gradient reduction of a bucket: op and size_b. */
void wl_dp_reduce(const struct job_spec *s, const struct job_bucket *b, enum coll_op *op, uint64_t *size_b);

/* --- ZeRO --- */
/* Gradient reduction op for the ZeRO stage: all-reduce (0) or reduce-scatter (1-3). */
enum coll_op wl_zero_grad_op(int zero);
/* ZeRO-1/2: the parameter all-gather of a bucket after the optimizer step
 * (size_b of bf16 params); 0 when the stage has none. */
uint64_t wl_zero_gather_b(const struct job_spec *s, const struct job_bucket *b);
/* ZeRO-3: the all-gather of `params` (per tp shard) before a forward or backward use. */
void wl_zero3_gather(const struct job_spec *s, struct job_prog *p, uint64_t params);

/* --- EP --- */
/* An MoE MLP block in direction dir for micro-batch mb of MoE layer k:
 * dispatch all-to-all, the experts' compute (with TP), combine. */
void wl_ep_block(const struct job_spec *s, struct job_prog *p, int dir, int64_t mb, int k, simtime_t ps);
/* Token routing of one iteration: for every (MoE layer, micro-batch, edp
 * group) an ep x ep matrix of bytes each worker sends each other one in
 * the dispatch (the diagonal stays local and is 0). */
struct wl_ep_routing;
struct wl_ep_routing *wl_ep_routing_new(const struct job_spec *s);
void wl_ep_routing_free(struct wl_ep_routing *r);
/* Draws the iteration's routing (moe_skew > 0) or sets the expected one
 * (moe_skew = 0: every pair exactly equal). */
void wl_ep_routing_draw(struct wl_ep_routing *r, const struct job_spec *s, gsl_rng *rng);
const uint64_t *wl_ep_matrix(const struct wl_ep_routing *r, int k, int64_t mb, int edp);
/* The expected matrix (what --check reports). */
void wl_ep_expected(const struct job_spec *s, uint64_t *mat);
/* Tp rank t's share of a worker matrix (transposed when asked) into out. */
void wl_ep_shard(const uint64_t *mat, int ep, bool transpose, int tp, int t, uint64_t *out);

#endif
