/*
 * job_exec.h — a running job: workers executing the stage programs of
 * job_plan.h, rendezvous of collectives, and the iteration accounting.
 * Shared by job.c (setup, teardown) and the engine: job_exec.c (workers,
 * iterations) and job_exec_coll.c (joins, collectives, reductions, waits).
 *
 * Iteration breakdown (the `iteration` row): compute_ps, bubble_ps and
 * exposed_{tp,pp,dp,ep}_ps split the iteration's critical path
 * (job_timeline.h); exposed_comm_ps is the sum of the exposed parts.
 * comm_ps alone is measured on one reference worker: stage 0,
 * data-parallel index 0 (the tp group holding rank 0; its tp ranks run in
 * lock step, so one of them stands for all): the time during which at
 * least one collective it takes part in is in flight (from the start of
 * the collective to its end; overlapped or not). An iteration starts when
 * every worker starts it and ends when the last reduction, the optimizer
 * step (compute, job_timeline.h) and ZeRO-1/2's parameter gathers ended (a
 * global barrier: gradient clipping reduces over every rank).
 */
#ifndef ROCESIM_JOB_EXEC_H
#define ROCESIM_JOB_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "job.h"
#include "job_plan.h"
#include "job_slow.h"
#include "job_stream.h"
#include "job_timeline.h"
#include "sim.h"

struct job;
struct results_table;
struct wl_ep_routing;

/* Waits for `left` collectives, then calls done. Opened with a guard so a
 * collective finishing at once cannot end it early. */
struct job_join {
	struct job *job;
	int left;
	bool async;                 /* counted in job->pending while open */
	bool ref;                   /* involves the reference worker (its comm time) */
	void (*done)(struct job *j, struct job_join *jn);
	void *obj;                  /* worker or group it belongs to */
	int dir, mb;                /* sends: what arrived */
	int cat;                    /* its category on a critical path (enum job_par) */
	struct job_path path;       /* the chain that led to it (job_timeline.h) */
};

/* A worker's open compute span (job_timeline.c). */
struct job_span {
	bool open;
	uint8_t kind;               /* JOB_FWD / JOB_BWD */
	int32_t mb;
	simtime_t start, end, compute;
};

struct job_worker {
	struct job *job;
	int stage, d;               /* pipeline stage, data-parallel index */
	int pc;                     /* next op of job->spec.prog[stage] */
	bool at_recv;               /* blocked at a RECV op */
	bool finished;
	uint8_t *got[2];            /* [m × v]: activation (fwd) / gradient (bwd) of a tag arrived */
	struct job_join op_join;    /* its blocking TP collective */
	struct job_join *send[2];   /* [m × v]: its sends, by tag (job_plan.h RECV) */
	struct job_worker *next_wait; /* in a job_wait's list while blocked on it */
	struct job_path path;       /* the chain that led to where it is */
	simtime_t t0;               /* its running compute step began */
	simtime_t plan_ps;          /* the plan's time of that step (t0 + plan_ps: where slowing began) */
	double slow_f;              /* this iteration: its compute's factor, the largest of its GPUs' (job_slow.h) */
	int slow_gpu;               /* the GPU with that factor, -1 when it is 1 */
	struct job_span span;
	struct job_join cp_join;    /* its ring-attention step in flight */
	bool cp_open, at_cp_wait;   /* a step in flight / blocked at CP_WAIT for it */
};

/* Something workers wait for (a ZeRO-3 gather, a bucket's parameter
 * gather): its collectives start when `arrived` reaches the group (or at
 * once), its end wakes the waiting workers. */
struct job_wait {
	struct job_join join;
	bool done;
	int arrived;
	struct job_worker *waiters;
};

/* A blocking rendezvous (EP all-to-all): its members run the same
 * program, so they meet at the same op. */
struct job_rdv {
	int n, arrived;
	struct job_worker **member; /* [n] */
	struct job_join join;
	int edp;                    /* EP groups: edp index */
};

struct job {
	struct sim_elem elem;
	struct world *w;
	struct colls *colls;        /* the run's collectives */
	struct job_spec spec;
	char *source;               /* "job.NAME": flows keep it by reference */
	int index;                  /* among the [job.NAME] sections: its RNG_WORKLOAD stream */
	int *gpu;                   /* [ranks] rank -> global GPU id */
	int *host;                  /* [n_host] its hosts in rank order (job_place.h) */
	int n_host;
	int n_workers;              /* pp x dp; worker stage x dp + d */
	struct job_worker *wk;
	struct job_rdv *ep_group; /* [pp x edp] */
	int grad_m;                 /* reductions per bucket and iteration: m (ZeRO-2/3) or 1 */
	int *bucket_arrived;        /* [n_buckets x ep x grad_m] */
	struct job_join *bucket_join;
	int *emb_arrived;           /* [dp] tied-embedding all-reduce: stage 0 and last */
	struct job_join *emb_join;
	struct job_join gather_join; /* ZeRO-1/2 parameter gathers after the optimizer */
	struct job_wait *param;     /* [n_buckets x ep] the same with overlap_param_gather */
	struct job_wait *ag;        /* ZeRO-3 gathers: stage st's slot k at ag[ag_base[st] + k] */
	int *ag_base;               /* [pp + 1] */
	struct job_stream *stream;  /* per communicator: job_exec_coll.c's stream_of */
	int n_streams;
	bool gathering;
	int workers_done;
	int pending;                /* async joins open */
	int64_t iter;               /* current iteration */
	simtime_t iter_start;
	gsl_rng *rng;               /* RNG_WORKLOAD stream of this job */
	struct wl_ep_routing *routing;
	/* reference worker accounting (comm_ps, see above) */
	int ref_comm;
	simtime_t stat_t, comm_ps;
	struct job_path tail;       /* the latest-ending chain so far: at the end, the critical path */
	/* The longest any worker of stage st took for its program's op k this
	 * iteration, at step_ps[step_base[st] + k] (job_timeline.c: a stage's
	 * compute). */
	simtime_t *step_ps;
	int *step_base;             /* [pp + 1] */
	struct results_table *span_table;
	/* scratch for collective specs */
	int *tmp_gpus;
	uint64_t *tmp_mat;
	struct results_table *table;
	job_coll_start_fn fake_coll; /* tests: replaces coll_start (jobs_set_coll_start) */
	bool in_iteration;          /* an iteration started and has not ended */
	double est_iter_ps;         /* progress: the last iteration's time, else the plan's estimate (0: not yet) */
	bool stepping, stepped;     /* the optimizer step is running / has run this iteration */
	simtime_t opt_start;        /* when the running optimizer step began */
	simtime_t opt_ps;           /* the optimizer step's planned time this iteration (job_timeline.c) */
	/* Stragglers (job_slow.c) */
	double *slow_fixed;         /* [ranks] `slow` factor of each rank (1: none) */
	double *slow_f;             /* [ranks] this iteration's factor of each rank */
	gsl_rng *slow_rng;          /* RNG_STRAGGLER stream (slow_random), NULL when off */
	double opt_slow_f;          /* this iteration's optimizer step factor: the job's largest */
	int opt_slow_gpu;           /* its GPU, -1 when it is 1 */
	struct chakra_job *ck;      /* workload = chakra: the trace job (chakra.h); its spec holds
				     * only name and cfg, and no worker runs */
};

struct jobs {
	struct job *job;
	int n;
};

/* Schedules the job's first iteration at its start time. */
void job_exec_start(struct job *j);
/* The [job] key that configures op's algorithm ("allreduce"; "pp" for
 * sendrecv) (job.c). */
const char *job_alg_key(enum coll_op op);
/* Allocates the run-time state (after spec and gpu are set). */
void job_exec_init(struct job *j);
void job_exec_free(struct job *j);
/* A run that ended early: writes the row of the iteration in progress with
 * end_ps NULL and its times so far; true when the job had iterations left. */
bool job_exec_write_unfinished(struct job *j);

#endif
