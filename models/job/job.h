/*
 * job.h — training jobs of [job.NAME] sections.
 *
 * Each job is a model, a parallelism layout (tp x pp x dp GPUs, ep carved
 * out of dp, ZeRO stage), a placement of ranks on GPUs and a GPU speed;
 * each iteration is a dependency graph of compute steps and collectives
 * (collective.h). jobs_setup validates what only the built world can (host
 * names, GPU counts, divisibility) with located errors, then schedules each
 * job's start; the run lasts until every job finished its iterations.
 *
 * The pieces: job_model.c (presets, FLOPs), job_layout.c (ranks and
 * groups), job_plan.c (the stage programs and --check totals),
 * workload_{tp,pp,dp,zero,ep}.c (one parallelism strategy each), and
 * job.c, which executes the programs and writes the `iteration` rows.
 */
#ifndef ROCESIM_JOB_H
#define ROCESIM_JOB_H

#include <stdio.h>

struct world;

/* Creates every job of w->cfg. Returns 0, or -1 with *err (malloc'd,
 * located with cfg_error_at); nothing is left scheduled on failure. */
int jobs_setup(struct world *w, char **err);
/* `plan: job=NAME parallelism=tp bytes=N messages=M` per job and
 * parallelism per iteration (SCENARIO.md --check), from the same code
 * that drives the simulation. */
void jobs_print_plan(const struct world *w, FILE *out);
void jobs_free(struct world *w);

/* Tests only: replaces coll_start for every job set up afterwards (NULL
 * restores it), e.g. with a collective that completes at once, so the
 * dependency graph can be checked with free communication. */
struct coll;
struct coll_spec;
typedef struct coll *(*job_coll_start_fn)(struct world *w, const struct coll_spec *s);
void jobs_set_coll_start(job_coll_start_fn fn);

#endif
