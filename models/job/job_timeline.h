/*
 * job_timeline.h — where an iteration's time went: the critical path
 * through the iteration's dependency graph (the `iteration` row) and each
 * worker's compute spans (the `compute_span` table). Used by job_exec.c;
 * docs/protocol.md "Iteration accounting".
 *
 * Critical path. Every activity of an iteration (a compute step, a
 * collective, a send between stages) starts when the last of the things
 * it waits for ended: the worker's previous step, the last member of a
 * rendezvous, the send a RECV waits for. Each activity carries the chain
 * of activities that led to it, summed per category (struct job_path):
 * its predecessor's chain plus its own duration. The chain is contiguous
 * (an activity starts exactly when its latest predecessor ended), so the
 * chain of the activity that ends last is the iteration's critical path
 * and its categories add up to the iteration. Nothing is stored per
 * activity: a chain lives in the worker, join or send that holds it.
 *
 * Stragglers (job_slow.h): a compute step that a slow GPU stretched adds
 * its planned time as compute and the rest as slow time, and the chain
 * keeps which GPUs the slow time came from (the few largest), so the row
 * can name the GPU the iteration waited for most.
 */
#ifndef ROCESIM_JOB_TIMELINE_H
#define ROCESIM_JOB_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include "job_plan.h"
#include "simtime.h"

struct job;
struct job_worker;

/* Categories of a chain: the parallelisms' communication (enum job_par,
 * the flow.parallelism tags), then compute, then compute beyond the plan
 * (a straggler's slow-down). */
enum { JOB_PATH_COMPUTE = JOB_NPAR, JOB_PATH_SLOW, JOB_PATH_N };
/* Slowed GPUs a chain keeps the slow time of: exact while at most this
 * many slowed GPUs lie on it, else the smallest shares are dropped. */
#define JOB_PATH_BLAME 4

struct job_path {
	simtime_t end;             /* when the chain's last activity ended */
	simtime_t t[JOB_PATH_N];   /* time of the chain per category, ps */
	simtime_t blame_ps[JOB_PATH_BLAME]; /* slow time on the chain per GPU below (0: slot free) */
	int32_t blame_gpu[JOB_PATH_BLAME];  /* global GPU ids of those shares */
};

/* An empty chain that ends at start (an iteration's beginning). */
void job_path_reset(struct job_path *p, simtime_t start);
/* The chain grows by an activity of category cat that ends at now and
 * started when the chain ended. */
void job_path_extend(struct job_path *p, int cat, simtime_t now);
/* The chain grows by a compute step that should have ended at plan_end
 * and ended at now: compute up to plan_end (or now, if earlier), slow
 * time after it, blamed on gpu (the step's slowest GPU). */
void job_path_step(struct job_path *p, simtime_t plan_end, simtime_t now, int gpu);
/* *dst becomes the later-ending of the two chains (an activity waits for
 * whichever ended last). */
void job_path_later(struct job_path *dst, const struct job_path *src);

/* A compute step of worker wk (op of its stage's program) ran from wk->t0
 * to now (planned: wk->plan_ps): extends its chain and its compute span. */
void job_timeline_compute(struct job *j, struct job_worker *wk, const struct job_op *op);
/* The optimizer step (every worker, from j->opt_start to now) ended: it
 * extends j->tail as compute and writes each worker's span of kind
 * 'optimizer'. */
void job_timeline_optimizer(struct job *j);
/* Writes wk's open compute span (the worker finished its program). */
void job_timeline_flush(struct job *j, struct job_worker *wk);
/* Writes the iteration's row from its critical path (j->tail) and the
 * workers' compute; an unfinished one (a run cut short, end_ps NULL) from
 * the longest chain so far, whose parts add up to its end, not the stop. */
void job_timeline_iteration(struct job *j, bool finished);

#endif
