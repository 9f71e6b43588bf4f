/*
 * job_plan.h — one job's per-iteration plan: the resolved job (struct
 * job_spec), the program each pipeline stage runs every iteration, the
 * gradient buckets, and the bytes each parallelism moves.
 *
 * The SAME programs drive the simulation (job.c executes them) and
 * `--check`'s plan lines (job_plan_totals walks them), so the two cannot
 * drift apart.
 *
 * Execution unit: a *worker* is one tensor-parallel group, i.e. one
 * (pipeline stage, data-parallel index) pair; its tp ranks run in lock
 * step (with context parallelism its tp × cp ranks: worker rank r is tp
 * index r mod tp of cp index r / tp). Every worker of a stage runs the stage's program: a list of ops
 * (struct job_op). Ops that involve other workers are rendezvous:
 *   TP        blocking, this worker only (a collective over its tp ranks)
 *   EP        blocking, the ep workers of (stage, edp): tp all-to-alls, one per tp index
 *   ZERO_AG   ZeRO-3 gather idx of the stage: tp all-gathers over the dp
 *             workers of the stage, started when every member arrived; not
 *             blocking (prefetch)
 *   AG_WAIT   wait for ZeRO-3 gather idx to end
 *   PARAM_WAIT wait for bucket idx's parameter all-gather (ZeRO-1/2 with
 *             overlap_param_gather: started at the iteration's start)
 *   RECV      wait for the sendrecv of micro-batch mb from the neighbour stage
 *             (mb is the tag chunk × m + micro-batch, chunk the receiving
 *             model chunk of the interleaved schedule; 0 when v = 1)
 *   SEND      post tp × cp sendrecvs (one per rank of the worker, 1/(tp·cp)
 *             of `val` each); not blocking. val is b·s·h × 2 B when the
 *             tensor is split over the tp ranks (sequence parallelism, or
 *             pp_scatter_gather), tp times that when every tp rank sends
 *             its cp rank's whole tensor (Megatron-Core without sequence
 *             parallelism)
 *   GRAD      bucket idx's gradients of micro-batch mb are final (the last
 *             micro-batch's backward; every micro-batch's with ZeRO-2/3): the
 *             reduction starts when every member worker arrived; not blocking.
 *   CP        one ring-attention step: every cp rank sends `val` bytes (its
 *             current KV block, with dKV in backward) to the next cp rank, per
 *             tp index; not blocking (the attention of the current block
 *             computes meanwhile)
 *   CP_WAIT   wait for the worker's last CP step
 * The reductions and gathers of one communicator (a DP or EDP group of one
 * tp index) run one after another, in the order they start (job_stream.c).
 * A collective starts when its last member arrives (a collective cannot
 * progress past its slowest member), and every member resumes at its end.
 */
#ifndef ROCESIM_JOB_PLAN_H
#define ROCESIM_JOB_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "collective.h"
#include "job_layout.h"
#include "job_model.h"
#include "simtime.h"

struct config;
struct job_cfg;

enum job_op_kind { JOP_COMPUTE, JOP_TP, JOP_EP, JOP_ZERO_AG, JOP_RECV, JOP_SEND, JOP_GRAD,
		   JOP_AG_WAIT, JOP_PARAM_WAIT, JOP_CP, JOP_CP_WAIT, JOP_N };
enum { JOB_FWD = 0, JOB_BWD = 1 };

struct job_op {
	uint8_t kind;          /* enum job_op_kind */
	uint8_t coll;          /* TP, ZERO_AG: enum coll_op */
	uint8_t dir;           /* JOB_FWD / JOB_BWD (RECV, SEND, EP, COMPUTE) */
	uint8_t transpose;     /* EP: 0 = the routing matrix (dispatch fwd, combine bwd), 1 = its transpose */
	uint8_t expert;        /* TP, COMPUTE of an MoE block: sized at run time by the tokens the
				* worker's experts got (wl_ep_op_val); val is the expected size */
	int32_t mb;            /* micro-batch (RECV, SEND, EP, GRAD, COMPUTE, expert) */
	int32_t idx;           /* EP, expert: MoE layer index (0-based among MoE layers); GRAD,
				* PARAM_WAIT: bucket; ZERO_AG, AG_WAIT: gather slot of the stage */
	uint64_t val;          /* COMPUTE: ps; TP, ZERO_AG: size_b; SEND: bytes of the whole tensor;
				* EP: 0 = the routing's all-to-all, else a workload file's collective
				* `coll` of this size_b over each EP group (workload_simai.c) */
};

struct job_prog {
	struct job_op *op;
	int n, cap;
	int n_slots;           /* ZeRO-3 gather slots (ZERO_AG idx) */
	/* The block being built (job_prog_block): job_prog_compute stamps its
	 * direction and micro-batch on COMPUTE ops (dir, mb), which the
	 * compute_span table reports. */
	uint8_t block_dir;
	int32_t block_mb;
};

/* A gradient bucket (Megatron-Core: filled in backward order, closed at
 * max(4e7, 1e6 x group) parameters, docs/protocol.md "Training jobs"). */
struct job_bucket {
	int stage;
	bool expert;           /* expert gradients: over the edp group, one group per ep index */
	uint64_t params;       /* per tp shard (expert: per ep rank) */
	/* A workload file's weight-gradient collective (workload_simai.c):
	 * its op and size replace the ZeRO rule's reduction of params. */
	uint64_t file_b;       /* 0: none (the reduction of params) */
	uint8_t file_op;       /* enum coll_op, with file_b */
};

/* Kinds of collective issued per iteration, for the plan (tags are the
 * flow.parallelism vocabulary). */
enum job_par { JOB_PAR_TP, JOB_PAR_PP, JOB_PAR_DP, JOB_PAR_EP, JOB_PAR_CP, JOB_NPAR };
extern const char *const job_par_name[JOB_NPAR];

struct job_spec {
	const char *name;            /* NAME of [job.NAME] (the config's string) */
	const struct job_cfg *cfg;
	struct job_model model;
	const struct job_gpu *gpu;
	int tp, pp, dp, ep, edp, zero; /* edp: expert data parallel, tp·dp/(etp·ep) */
	int etp;                     /* expert tensor parallel (divides tp) */
	bool sp;                     /* sequence parallelism */
	int64_t b, m;                /* micro-batch size; micro-batches per iteration */
	int64_t layers_per_stage;
	uint64_t act_b;              /* b·s·h × 2 B: one micro-batch's activations */
	int64_t tokens;              /* b·s: tokens per micro-batch per EP rank */
	simtime_t t_attn_f, t_mlp_f, t_moe_f; /* forward compute per layer block per micro-batch per tp shard */
	uint64_t emb_b;              /* tied embedding gradient all-reduce (pp > 1) bytes per tp shard, 0 = none */
	struct job_bucket *bucket; int n_buckets;
	struct job_prog *prog;       /* [pp] */
	struct job_layout layout;
	int gpus_per_host;           /* [topology]: rank r runs on the job's host r / gpus_per_host
				      * (multicast plans depend on which ranks share a host) */
	int vpp;                     /* model chunks per stage (virtual pipeline stages, v) */
	int64_t layers_per_chunk;    /* layers / (pp × v) */
	int64_t vocab_given;         /* the vocabulary before padding (model.vocab is padded) */
	simtime_t t_core_f;          /* core attention (QKᵀ, AV) forward per layer per micro-batch per tp shard */
	simtime_t t_head_f;          /* LM head (logits) forward per micro-batch per tp shard */
	uint64_t ce_b;               /* each vocab-parallel cross-entropy all-reduce: b·s × 4 B */
	simtime_t t_opt;             /* optimizer step */
	int cp;                      /* context parallelism */
	uint64_t kv_b;               /* one cp rank's K and V block per tp shard: 2·b·(s/cp)·h_kv·2 B / tp */
};

/* GPU ranks per worker: tp × cp. */
static inline int job_width(const struct job_spec *s) { return s->tp * s->cp; }
/* The job ranks of the gradient-reduction group of bucket b for tp index
 * t (expert buckets: EP index e): the data-parallel group, with context
 * parallelism the dp × cp ranks of that tp index (Megatron's
 * data-parallel group with context parallelism). Returns its size. */
int job_dp_group_ranks(const struct job_spec *s, const struct job_bucket *b, int t, int e, int *out);

/* The global layer at position i (0 .. layers_per_stage − 1) of a stage:
 * chunk c = i / layers_per_chunk holds layers (c·pp + stage)·layers_per_chunk
 * onward (Megatron's interleaved assignment; contiguous when v = 1). */
int64_t job_stage_layer(const struct job_spec *s, int stage, int64_t i);
/* The model chunk of a stage that holds global layer l. */
int job_layer_chunk(const struct job_spec *s, int64_t l);

/* Resolves the model, checks what needs the model and the GPU count
 * (divisibility, enough GPUs), computes sizes and times and builds the
 * programs. j is a loaded [job.NAME] section (its rules passed); n_gpus =
 * GPUs on the job's hosts. Returns 0 or -1 with a located *err. */
int job_spec_init(struct job_spec *s, const struct config *cfg, const char *name, const struct job_cfg *j,
		  int n_gpus, char **err);
void job_spec_free(struct job_spec *s);

/* Append to a program (the workload_*.c builders use these). */
struct job_op *job_prog_add(struct job_prog *p, enum job_op_kind kind);
void job_prog_compute(struct job_prog *p, simtime_t ps);
/* The following COMPUTE ops belong to micro-batch mb's pass in direction
 * dir (JOB_FWD / JOB_BWD). */
void job_prog_block(struct job_prog *p, int dir, int64_t mb);
void job_prog_coll(struct job_prog *p, enum job_op_kind kind, enum coll_op op, uint64_t size_b);

/* A collective that moves nothing (a group of one, no bytes, an
 * all-to-all whose matrix is empty off its diagonal): neither planned nor
 * started. */
bool job_coll_empty(enum coll_op op, int n, uint64_t size_b, const uint64_t *a2a);
/* The algorithm the job's config names for op. */
const char *job_coll_alg(const struct job_spec *s, enum coll_op op);

/* Bytes and messages per parallelism of one iteration. For MoE the EP
 * figures and the expert blocks' TP are the expected volume (routing at its
 * mean; with moe_skew > 0 the simulated volume varies around it). */
struct job_plan_totals { uint64_t bytes[JOB_NPAR], messages[JOB_NPAR]; };
void job_plan_totals(const struct job_spec *s, struct job_plan_totals *t);

#endif
