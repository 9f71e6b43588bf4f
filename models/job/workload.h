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
 *   workload_ep.c    MoE: the expert block (all-to-alls, expert TP, expert compute)
 *   moe_routing.c    MoE: popularity, capacity, token routing
 *   moe_layout.c     MoE: expert ranks (parallel folding)
 *   workload_simai.c a SimAI/AICB workload file's layer lines as the programs
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
/* Parameters that close a bucket of a reduction group of `group` ranks
 * (dp_bucket, or the framework's default; UINT64_MAX: one bucket). */
uint64_t wl_dp_bucket_params(const struct job_spec *s, int group);
/* The rules of the DP keys (job_keys.c's rules call it): overlap_grad_reduce,
 * grad_reduce_dtype and grad_bytes defaults, overlap_param_gather's zero. */
struct cfg_check;
int job_dp_rules(struct cfg_check *c, struct job_cfg *j);
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
/* Whether the gradients of micro-batch mb are reduced (ZeRO-0/1: the last
 * micro-batch only; ZeRO-2/3: every micro-batch, as DeepSpeed does). */
bool wl_zero_reduces_at(const struct job_spec *s, int64_t mb);
/* ZeRO-3: the parameter all-gathers of one pass (a forward or a backward
 * of one micro-batch) over the n items params[] (per tp shard) it uses in
 * order. Each gather is a non-blocking JOP_ZERO_AG; wl_zero3_use(i) issues
 * gather i and the following ones while fewer than zero3_prefetch
 * parameters are in flight ahead of item i (DeepSpeed's
 * stage3_prefetch_bucket_size), then waits for gather i (JOP_AG_WAIT). */
struct wl_zero3_pass { const uint64_t *params; int n, next, base; bool on; };
void wl_zero3_begin(const struct job_spec *s, struct job_prog *p, struct wl_zero3_pass *z,
		    const uint64_t *params, int n);
void wl_zero3_use(const struct job_spec *s, struct job_prog *p, struct wl_zero3_pass *z, int i);

/* --- EP --- */
/* An MoE MLP block in direction dir for micro-batch mb of MoE layer k
 * (workload_ep.c): dispatch all-to-all, TP all-gather of the received
 * token copies, the experts' compute, TP reduce-scatter, combine, and the
 * shared experts. ps: the routed experts' compute for the balanced,
 * dropless k·T copies in this direction; the program holds the expected
 * sizes, with op->expert set on the steps the routing sizes. */
void wl_ep_block(const struct job_spec *s, struct job_prog *p, int dir, int64_t mb, int k, simtime_t ps);
/* Token routing of one iteration (moe_routing.c): for every (MoE layer,
 * micro-batch, edp group) an ep x ep matrix of bytes each worker sends each
 * other one in the dispatch (the diagonal stays local and is 0), and the
 * token copies each EP rank's experts process. */
struct wl_ep_routing;
struct wl_ep_routing *wl_ep_routing_new(const struct job_spec *s);
void wl_ep_routing_free(struct wl_ep_routing *r);
/* Draws the iteration's routing (moe_skew > 0; popularity moves on from
 * the previous draw with correlation moe_skew_correlation) or sets the
 * expected one (moe_skew = 0: every pair exactly equal). */
void wl_ep_routing_draw(struct wl_ep_routing *r, const struct job_spec *s, gsl_rng *rng);
const uint64_t *wl_ep_matrix(const struct wl_ep_routing *r, int k, int64_t mb, int edp);
/* Token copies EP rank `rank` of edp group `edp` processes. */
double wl_ep_tokens(const struct wl_ep_routing *r, int k, int64_t mb, int edp, int rank);
/* Layer k's latent popularity scores (tests). */
const double *wl_ep_scores(const struct wl_ep_routing *r, int k);
double wl_ep_routing_expected(const struct wl_ep_routing *r);
/* Per-source capacity of an expert (INFINITY when dropless) and the
 * expected token copies an EP rank's experts process (= the copies a
 * source keeps). */
double wl_ep_capacity(const struct job_spec *s);
double wl_ep_expected_tokens(const struct job_spec *s);
/* The expected matrix (what --check reports). */
void wl_ep_expected(const struct job_spec *s, uint64_t *mat);
/* The value an op with op->expert set takes on worker d (data-parallel
 * index) in the iteration's routing: TP, the size_b of the worker's i-th
 * expert-TP group's collective; COMPUTE, the ps of its busiest group (i
 * unused: the worker's GPUs leave the step together). */
uint64_t wl_ep_op_val(const struct job_spec *s, const struct wl_ep_routing *r, const struct job_op *op, int d,
		      int i);
/* Expert layout, MoE parallel folding (moe_layout.c): expert coordinates
 * (x: expert-DP index, e: EP index, et: expert-TP index) of a stage. */
/* Workers per EP rendezvous (ep when etp = tp). */
int wl_ep_unit(const struct job_spec *s);
/* The stage's GPU (TP index *t, data-parallel index *d) of (x, e, et). */
void wl_ep_gpu(const struct job_spec *s, int x, int e, int et, int *t, int *d);
/* All-to-alls of one EP rendezvous (tp when etp = tp), and the i-th one's
 * expert-DP index and expert-TP index in rendezvous u. */
int wl_ep_unit_a2as(const struct job_spec *s);
void wl_ep_unit_a2a(const struct job_spec *s, int u, int i, int *x, int *et);
/* The i-th of the tp/etp expert-TP groups of worker d (TP indices
 * i·etp ... i·etp + etp − 1): its x and e. */
void wl_ep_worker_group(const struct job_spec *s, int d, int i, int *x, int *e);
/* Tp rank t's share of a worker matrix (transposed when asked) into out. */
void wl_ep_shard(const uint64_t *mat, int ep, bool transpose, int tp, int t, uint64_t *out);

/* --- SimAI/AICB workload files --- */
/* An (op, group size) a job's programs use (job.c checks each has an
 * algorithm); at most WL_ALG_USES distinct ones. */
struct wl_alg_use {
	enum coll_op op;       /* the collective */
	int n;                 /* its group size */
};
#define WL_ALG_USES 48
/* The distinct (op, group size) pairs of a simai job's programs and
 * buckets into use; returns their count. */
int wl_simai_uses(const struct job_spec *s, struct wl_alg_use *use);
/* job_spec_init for [job] workload = simai: reads j->file, takes the
 * layout from its header and builds every stage's program from its layer
 * lines (workload_simai.c). n_gpus: GPUs of the job's hosts. 0 or -1 with
 * a located *err. */
int wl_simai_spec_init(struct job_spec *s, const struct config *cfg, const char *sec, const char *name,
		       const struct job_cfg *j, int n_gpus, char **err);
/* GPUs the workload file's job runs on (its all_gpus), for placement; -1
 * when the file cannot be read (wl_simai_spec_init then says why). */
long long wl_simai_ranks(const char *file);

#endif
