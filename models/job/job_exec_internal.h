/*
 * job_exec_internal.h — shared between the two halves of the job engine,
 * and nothing else: job_exec.c (the workers and the iterations) and
 * job_exec_coll.c (joins, collectives, gradient reductions and waits).
 */
#ifndef ROCESIM_JOB_EXEC_INTERNAL_H
#define ROCESIM_JOB_EXEC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "job_exec.h"

/* ---- job_exec.c ---- */

/* Runs the worker's program from its pc until it computes, blocks or
 * finishes. */
void job_worker_run(struct job_worker *wk);
/* Ends the iteration (or starts the optimizer step or ZeRO-1/2's
 * gathers first) once every worker finished and nothing is pending. */
void job_iteration_check_end(struct job *j);

/* ---- job_exec_coll.c ---- */

/* Brings the reference worker's comm_ps up to now. */
void job_stat_update(struct job *j);
/* Opens jn with its guard; async: counted in j->pending; ref: involves
 * the reference worker. */
void job_join_open(struct job *j, struct job_join *jn, bool async, bool ref,
		   void (*done)(struct job *, struct job_join *));
/* The join's category on a critical path and the chain it continues. */
void job_join_chain(struct job_join *jn, int cat, const struct job_path *from);
/* Releases the guard once every collective of jn is started. */
void job_join_close(struct job *j, struct job_join *jn);
/* Starts a collective counted in jn, on stream st (NULL: at once). */
void job_start_coll_on(struct job *j, struct job_join *jn, struct job_stream *st, enum coll_op op,
		       const char *par, const int *gpus, int n, uint64_t size_b, const uint64_t *a2a);
void job_start_coll(struct job *j, struct job_join *jn, enum coll_op op, const char *par,
		    const int *gpus, int n, uint64_t size_b, const uint64_t *a2a);
/* The global GPU of TP rank tp, data-parallel index d, stage stage. */
int job_gpu_of(const struct job *j, int tp, int d, int stage);
/* A worker reached the GRAD op of bucket b (micro-batch mb): the
 * reduction starts when the group's last worker arrived. */
void job_bucket_arrive(struct job *j, struct job_worker *wk, int b, int mb);
/* A finished worker of the first or last stage: the tied-embedding
 * all-reduce starts when both arrived. */
void job_embedding_arrive(struct job *j, struct job_worker *wk);
/* A worker reached a ZeRO-3 gather (ZERO_AG op). */
void job_gather_arrive(struct job *j, struct job_worker *wk, const struct job_op *op);
/* Whether wk must block on w (then it is woken when w ends). */
bool job_wait_block(struct job_worker *wk, struct job_wait *w);
/* ZeRO-1/2's parameter gathers: after the optimizer (overlap false) or
 * at the next iteration's start (overlap true). */
void job_start_gathers(struct job *j, bool overlap);

#endif
