/*
 * job_exec.h — a running job: workers executing the stage programs of
 * job_plan.h, rendezvous of collectives, and the iteration accounting.
 * Shared by job.c (setup, teardown) and job_exec.c (the engine).
 *
 * Iteration breakdown (the `iteration` row), measured on one reference
 * worker: stage 0, data-parallel index 0 (the tp group holding rank 0;
 * its tp ranks run in lock step, so one of them stands for all):
 *   compute_ps       time it spends computing (its compute steps are serial)
 *   comm_ps          time during which at least one collective it takes
 *                    part in is in flight (from the start of the
 *                    collective to its end; overlapped or not)
 *   exposed_comm_ps  the part of comm_ps when it is not computing
 * Time waiting for a peer that has not arrived (pipeline bubble, a late
 * member of a rendezvous) is in none of them. An iteration starts when
 * every worker starts it and ends when the last reduction and the
 * optimizer step (compute) ended (a global barrier: gradient clipping
 * reduces over every rank).
 */
#ifndef ROCESIM_JOB_EXEC_H
#define ROCESIM_JOB_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "job.h"
#include "job_plan.h"
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
	struct job_join cp_join;    /* its ring-attention step in flight */
	bool cp_open, at_cp_wait;   /* a step in flight / blocked at CP_WAIT for it */
};

/* A blocking rendezvous (EP all-to-all, ZeRO-3 gather): its members run
 * the same program, so they meet at the same op. */
struct job_rdv {
	int n, arrived;
	struct job_worker **member; /* [n] */
	struct job_join join;
	int edp;                    /* EP groups: edp index; ZeRO-3: -1 */
};

struct job {
	struct sim_elem elem;
	struct world *w;
	struct colls *colls;        /* the run's collectives */
	struct job_spec spec;
	char *source;               /* "job.NAME": flows keep it by reference */
	int index;                  /* among the [job.NAME] sections: its RNG_WORKLOAD stream */
	int *gpu;                   /* [ranks] rank -> global GPU id */
	int n_workers;              /* pp x dp; worker stage x dp + d */
	struct job_worker *wk;
	struct job_rdv *ep_group; /* [pp x edp] */
	struct job_rdv *dp_group; /* [pp] (ZeRO-3) */
	int *bucket_arrived;        /* [n_buckets x ep] */
	struct job_join *bucket_join;
	int *emb_arrived;           /* [dp] tied-embedding all-reduce: stage 0 and last */
	struct job_join *emb_join;
	struct job_join gather_join; /* ZeRO-1/2 parameter gathers after the optimizer */
	bool gathering;
	int workers_done;
	int pending;                /* async joins open */
	int64_t iter;               /* current iteration */
	simtime_t iter_start;
	gsl_rng *rng;               /* RNG_WORKLOAD stream of this job */
	struct wl_ep_routing *routing;
	/* reference worker accounting (see above) */
	bool ref_computing;
	int ref_comm;
	simtime_t stat_t, compute_ps, comm_ps, exposed_ps;
	/* scratch for collective specs */
	int *tmp_gpus;
	uint64_t *tmp_mat;
	struct results_table *table;
	job_coll_start_fn fake_coll; /* tests: replaces coll_start (jobs_set_coll_start) */
	bool stepping, stepped;     /* the optimizer step is running / has run this iteration */
};

struct jobs {
	struct job *job;
	int n;
};

/* Schedules the job's first iteration at its start time. */
void job_exec_start(struct job *j);
/* Allocates the run-time state (after spec and gpu are set). */
void job_exec_init(struct job *j);
void job_exec_free(struct job *j);

#endif
