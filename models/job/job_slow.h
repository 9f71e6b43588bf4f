/*
 * job_slow.h — stragglers of a job: GPUs whose compute takes longer than
 * the plan says ([job.NAME] `slow = GPU FACTOR`, fixed, and
 * `slow_random = lognormal SIGMA`, re-drawn per GPU and iteration).
 *
 * A worker (the tp x cp GPUs of one stage and data-parallel index) runs in
 * lock step, so each of its compute steps takes the plan's time times the
 * largest factor among its GPUs; the optimizer step runs on every GPU at
 * once and takes t_opt times the largest factor of the job. Collectives
 * start when their last member arrives, so a slow worker holds back every
 * group it meets. Factors are >= 1; a job without stragglers has every
 * factor exactly 1 and runs the plan's times unchanged.
 *
 * Invariants: rank_f[r] >= 1 for every rank after job_slow_draw; a
 * worker's gpu is -1 exactly when its factor is 1.
 */
#ifndef ROCESIM_JOB_SLOW_H
#define ROCESIM_JOB_SLOW_H

#include <gsl/gsl_rng.h>
#include "config.h"
#include "simtime.h"

struct job;

/* One `slow = GPU FACTOR` line. */
struct job_slow_cfg {
	char *gpu;                     /* "host3.gpu1" */
	double factor;                 /* in [1, 1000] */
	int line;                      /* its line in the scenario */
};

/* The key types of `slow` (repeated) and `slow_random` (job_keys.c). */
extern const struct cfg_custom job_slow_line, job_slow_random;

/* Resolves the `slow` lines onto j's ranks (j->gpu set): 0, or -1 with
 * *err located (unknown GPU, with a suggestion; a GPU the job does not
 * run on). Allocates j's straggler state. */
int job_slow_setup(struct job *j, char **err);
void job_slow_free(struct job *j);
/* At an iteration's start: every rank's factor for the iteration (fixed
 * factor x random draw), each worker's (the largest of its GPUs) and the
 * job's (the optimizer step's). */
void job_slow_iteration(struct job *j);
/* One draw of `slow_random = lognormal SIGMA`: exp(SIGMA |Z|), Z standard
 * normal (the upper half of a lognormal of median 1: always >= 1). Its
 * mean is 2 exp(SIGMA^2/2) Phi(SIGMA), its second moment 2 exp(2 SIGMA^2)
 * Phi(2 SIGMA) (Phi: the standard normal CDF). */
double job_slow_draw(gsl_rng *r, double sigma);
/* The time a compute step of plan_ps takes at factor f (exactly plan_ps
 * at f = 1; at most 1e18 ps). */
simtime_t job_slow_time(simtime_t plan_ps, double f);

#endif
