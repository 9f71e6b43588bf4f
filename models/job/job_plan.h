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
 * step. Every worker of a stage runs the stage's program: a list of ops
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
 *   SEND      post tp sendrecvs (one per tp rank, 1/tp of the tensor each:
 *             Megatron's scatter-gather of pipeline tensors); not blocking
 *   GRAD      bucket idx's gradients of micro-batch mb are final (the last
 *             micro-batch's backward; every micro-batch's with ZeRO-2/3): the
 *             reduction starts when every member worker arrived; not blocking.
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
		   JOP_AG_WAIT, JOP_PARAM_WAIT, JOP_N };
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
	uint64_t val;          /* COMPUTE: ps; TP, ZERO_AG: size_b; SEND: bytes of the whole tensor */
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
};

/* Kinds of collective issued per iteration, for the plan (tags are the
 * flow.parallelism vocabulary). */
enum job_par { JOB_PAR_TP, JOB_PAR_PP, JOB_PAR_DP, JOB_PAR_EP, JOB_NPAR };
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
};

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
