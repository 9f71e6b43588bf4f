/*
 * job.h — training jobs of [job.NAME] sections.
 *
 * Each job is a model, a parallelism layout (tp x cp x pp x dp GPUs, ep
 * carved out of dp, ZeRO stage), a placement of ranks on GPUs and a GPU speed;
 * each iteration is a dependency graph of compute steps and collectives
 * (collective.h). jobs_setup validates what only the built world can (host
 * names, GPU counts, divisibility) with located errors, then schedules each
 * job's start; the run lasts until every job finished its iterations.
 *
 * The pieces: job_model.c (presets, FLOPs), job_layout.c (ranks and
 * groups), job_plan.c (checks, sizes), job_prog.c (the stage programs),
 * job_plan_totals.c (--check totals), workload_{tp,pp,dp,zero,ep}.c (one
 * parallelism strategy each), and job.c with job_exec.c and
 * job_exec_coll.c, which execute the programs and write the `iteration`
 * rows. With `workload = simai` the programs come from a SimAI/AICB
 * workload file instead: simai_parse.c reads it, workload_simai.c builds
 * them (docs/workloads.md).
 */
#ifndef ROCESIM_JOB_H
#define ROCESIM_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "config.h"

struct world;
struct job_slow_cfg;

/* [job.NAME] (job_keys.c) */
struct job_cfg {
	char *model;                   /* required: preset name or "custom" */
	/* Model dimensions: 0 = take from the preset. */
	long long layers, hidden, ffn_hidden, heads, kv_heads, seq_len, vocab, experts, top_k, moe_every;
	double capacity_factor;        /* [unset = 0: dropless] */
	int micro_batch;               /* [1] */
	long long global_batch;        /* required */
	int tp, pp, dp, ep;            /* [1]; ep divides dp */
	int zero;                      /* 0..3 [0] */
	bool sequence_parallel;        /* [off] */
	int iterations;                /* [1] */
	char *gpu;                     /* a GPU preset [h100] */
	double mfu;                    /* (0,1] [0.5] */
	int grad_bytes;                /* 2|4 [from grad_reduce_dtype] */
	char **hosts; size_t n_hosts;  /* [all]: n_hosts = 0 */
	/* Placement (job_place.h): the hosts the job gets, and its ranks'
	 * order on them. The rules read `placement` (a policy word, or a rank
	 * order as before policies existed, then moved to rank_order). */
	char **placement; size_t n_placement; /* as given; unset: n_placement = 0 */
	int place_policy;              /* enum job_place_policy [packed; hosts with `hosts`] (the rules) */
	double busy;                   /* fragmented: fraction of the free hosts busy [0.5] */
	char **rank_order; size_t n_rank_order; /* [tp,ep,dp,pp], innermost first */
	int priority;                  /* class of the job's RoCE data, 0..7 [[nic] priority] */
	bool order_from_placement;     /* rank_order came from `placement` (the rules) */
	bool place_given;              /* a policy was named (the rules) */
	/* Algorithms of the collective registry [the op's first: ring;
	 * direct for alltoall] (set by the rules when unset). */
	char *allreduce, *allgather, *reduce_scatter, *broadcast, *alltoall;
	double moe_skew;               /* >= 0 [0] */
	uint64_t chunk_b;              /* [512KiB] */
	int channels;                  /* [2] */
	simtime_t start;               /* [0] */
	simtime_t endpoint_delay;      /* [0] a piece of a collective is seen this long after
					* its last byte arrived (msg.h: late messages) */
	/* Data parallelism and ZeRO (workload_dp.c, workload_zero.c); the
	 * rules fill what is unset from the frameworks' defaults. */
	bool overlap_grad_reduce;      /* [off; on with zero = 3] */
	bool overlap_param_gather;     /* [off] zero 1 or 2 only */
	int grad_reduce_dtype;         /* JOB_GRAD_FP32 | JOB_GRAD_BF16 [fp32 with zero 0-1, bf16 with 2-3] */
	long long dp_bucket;           /* parameters per gradient bucket; 0 = the framework's default */
	long long zero3_prefetch;      /* parameters gathered ahead of the compute [5e7] */
	/* MoE (workload_ep.c, moe_routing.c) */
	bool moe_pad;                  /* moe_pad_expert_input_to_capacity [off] */
	double moe_skew_correlation;   /* [0, 1] [0] */
	long long shared_expert_ffn;   /* moe_shared_expert_intermediate_size [0] */
	int etp;                       /* expert_tensor_parallel_size [0 = tp] */
	/* Schedules, recompute, embeddings, optimizer, cp (job_plan.c,
	 * workload_pp.c, workload_tp.c, workload_cp.c) */
	int virtual_pipeline_stages;   /* [1]: model chunks per stage (interleaved 1F1B when > 1) */
	int recompute;                 /* enum job_recompute [none] */
	bool pp_scatter_gather;        /* [off]: SC'21 scatter/gather of pipeline tensors (SP off) */
	int vocab_divisible_by;        /* [128]: vocab padded to a multiple of this x tp */
	simtime_t optimizer_step;      /* time of the optimizer step; derived when unset */
	bool optimizer_step_set;       /* optimizer_step given (set by the rules) */
	int cp;                        /* [1]: context parallelism (ring attention) */
	/* Stragglers (job_slow.c) */
	struct job_slow_cfg *slow; size_t n_slow; /* repeated `slow = GPU FACTOR` */
	double slow_sigma;             /* slow_random = lognormal SIGMA; 0 = off [off] */
	/* Where the job's work comes from: the section's type (job_keys.c):
	 * the model above, a SimAI/AICB workload file (workload_simai.c) or
	 * per-rank Chakra execution traces (chakra.h, its keys in
	 * chakra_keys.c). */
	int workload;                  /* enum job_workload [megatron] */
	char *file;                    /* simai: the workload file (required then) */
};
/* [job] workload, in the order of the section's types (job_type_at):
 * megatron = the programs generated from the model and the layout; simai
 * = a SimAI/AICB workload file; chakra = per-rank execution traces. */
enum job_workload { JOB_WL_MEGATRON, JOB_WL_SIMAI, JOB_WL_CHAKRA };
/* [job.NAME] workload = chakra: the type's own keys (chakra_keys.c). */
struct job_chakra_cfg {
	char *trace;                   /* required: %d pattern, folder or PREFIX; absolute */
};
enum { JOB_GRAD_FP32, JOB_GRAD_BF16 };
/* Activation recompute (Megatron --recompute-granularity). */
enum job_recompute { JOB_RECOMPUTE_NONE, JOB_RECOMPUTE_SELECTIVE, JOB_RECOMPUTE_FULL };
extern const struct cfg_section job_section;

struct jobs;
struct colls;

/* Creates a job per [job.NAME] section, its collectives run by cs.
 * Returns 0 with *out (NULL when there is no job), or -1 with *err
 * (malloc'd, located with cfg_error_at); nothing is left scheduled on
 * failure. */
int jobs_setup(struct world *w, struct colls *cs, struct jobs **out, char **err);
/* The traffic classes of the jobs' data (bit c: a job has priority c),
 * for world_build_classes: PFC keeps each lossless. */
uint8_t jobs_classes(const struct config *cfg);
/* The least endpoint_delay of the jobs, when every job has one and sends
 * by unicast only (its reactions are then late messages, msg.h, and a
 * partitioned run may mirror the jobs on every rank); else 0. */
simtime_t jobs_mirror_ps(const struct config *cfg);
/* `plan: job=NAME parallelism=tp bytes=N messages=M` per job and
 * parallelism per iteration (docs/scenario.md "Command line", --check), from the same code
 * that drives the simulation. */
void jobs_print_plan(const struct jobs *js, FILE *out);
/* What the jobs will ask of the network over all their iterations, and
 * when they should end (job_estimate.c: from the plan and the layout,
 * before running; an estimate, not a bound). */
struct jobs_estimate {
	double net_bytes;              /* bytes of messages between hosts */
	double net_messages;           /* such messages */
	double end_ps;                 /* simulated time the last job should end */
};
void jobs_estimate(const struct jobs *js, struct jobs_estimate *e);
/* Fraction of the jobs' iterations done at now (the least of the jobs'),
 * the current iteration counted by its elapsed time over the last
 * iteration's (the plan's estimate for the first, *estimated then set);
 * -1 with no job. */
double jobs_progress(const struct jobs *js, simtime_t now, bool *estimated);
/* Warns (stderr) of each job that uses fewer GPUs than its hosts (or the
 * fabric, without `hosts`) have, naming the hosts it runs on and the idle
 * ones. */
void jobs_warn_layout(const struct jobs *js);
/* A run cut short ([simulation] stop): writes each unfinished job's
 * iteration in progress as a row with end_ps NULL, and describes them in
 * buf ("job 'moe' finished 1 of 2 iterations, ..."). Returns the number
 * of jobs with iterations left. */
int jobs_write_unfinished(const struct jobs *js, char *buf, size_t len);
void jobs_free(struct jobs *js);

/* A data-parallel job's iteration as its plan runs it (job_dp_plan.c):
 * compute_ps of forward and backward on every rank, then one all-reduce
 * per gradient bucket over gpus (one after another, in bucket order), then
 * optimizer_ps; the next iteration starts when the step ends. For a driver
 * that emulates the job (the library's rocesim_job_dp_plan). */
struct job_dp_plan {
	int iterations;                /* [job] iterations */
	simtime_t start_ps;            /* [job] start */
	simtime_t compute_ps;          /* forward + backward of every micro-batch, per iteration */
	simtime_t optimizer_ps;        /* the optimizer step */
	int n_buckets;
	uint64_t *bucket_b;            /* [n_buckets] all-reduce size (nccl-tests convention), malloc'd */
	int n_gpus;
	int *gpus;                     /* [n_gpus] the data-parallel group, rank order (global GPU ids), malloc'd */
	const char *allreduce;         /* the job's all-reduce algorithm (static) */
	uint64_t chunk_b;              /* [job] chunk */
	int channels;                  /* [job] channels */
};
/* Fills *out for [job.NAME]; -1 with *err (malloc'd) when there is no such
 * job or its program is not compute, reductions, optimizer (tp, pp, ep > 1,
 * zero > 0, overlap_grad_reduce). */
int jobs_dp_plan(const struct jobs *js, const char *name, struct job_dp_plan *out, char **err);
void job_dp_plan_free(struct job_dp_plan *p);

/* Tests only: replaces coll_start for every job set up afterwards (NULL
 * restores it), e.g. with a collective that completes at once, so the
 * dependency graph can be checked with free communication. It gets the
 * run's sim, to schedule the completion on. */
struct coll_spec;
struct sim;
typedef void (*job_coll_start_fn)(struct sim *sim, const struct coll_spec *s);
void jobs_set_coll_start(job_coll_start_fn fn);

/* ---- SimAI/AICB workload files (simai_parse.c, workload_simai.c) ---- */

/* The group a phase's collective runs over (SimAI's MockNccl GroupType). */
enum simai_group { SIMAI_NONE, SIMAI_TP, SIMAI_DP, SIMAI_EP, SIMAI_DP_EP };
struct simai_comm {
	uint8_t op;                    /* enum coll_op (not SENDRECV, BROADCAST) */
	uint8_t group;                 /* enum simai_group; SIMAI_NONE: no collective */
	uint64_t size_b;               /* the file's size (nccl-tests convention) */
};
/* One layer line: three phases and the update time, as written. */
struct simai_line {
	char name[64];                 /* layer name (embedding_layer starts a micro-batch) */
	int line;                      /* its line in the file (messages) */
	uint64_t fwd_ns, ig_ns, wg_ns; /* compute of the forward, input- and weight-gradient phases */
	uint64_t upd_ns;               /* delay after each of the line's collectives ends */
	struct simai_comm fwd, ig, wg;
};
struct simai_workload {
	int tp, ep, pp, vpp, ga;       /* header: model_parallel_NPU_group, ep, pp, vpp, ga [1 but tp] */
	int all_gpus;                  /* header: tp x pp x dp */
	uint64_t pp_comm_b;            /* header: bytes each rank sends per pipeline hop [0] */
	int n;                         /* layer lines */
	struct simai_line *line;       /* [n] in file order */
};
/* Parses len bytes of text of a file called name (messages). 0, or -1
 * with *err "NAME:LINE: ..." (malloc'd) and w empty. */
int simai_parse(const char *name, const char *text, size_t len, struct simai_workload *w, char **err);
void simai_free(struct simai_workload *w);

#endif
