/*
 * run_internal.h — what run.c, run_outputs.c, run_par.c and run_say.c
 * share (the run part's own header; other parts include run.h).
 */
#ifndef ROCESIM_RUN_INTERNAL_H
#define ROCESIM_RUN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nic.h"
#include "progress.h"
#include "run.h"
#include "sim.h"
#include "simtime.h"
#include "watchdog.h"

struct config;
struct jobs;
struct world;

/* The progress line's view of a run (run.c). */
struct progress_ctx {
	struct progress p;
	struct world *w;
	uint64_t flows_expected;
	const struct jobs *jobs;
};

/* A run in progress (run.h): what run_scenario held on its stack, on the
 * heap so that a driver (api.c) can hold it between calls. */
struct run {
	struct sim sim;
	struct world w;
	const struct config *cfg;
	struct run_opts o;            /* copied; its strings are the caller's */
	struct colls *colls;
	struct traffic *traffic;
	struct jobs *jobs;
	struct taps *taps;
	struct sampler *sampler;
	struct hpcc_fct *fct;
	struct results *res;          /* NULL with o.no_results */
	struct watchdog wd;
	struct par *par;              /* a partitioned run (parallel.h); NULL: sequential */
	struct progress_ctx pc;
	double t0;                    /* wall clock at run_open */
};

/* ---- run_outputs.c: what a run writes ---- */
struct run_summary;
/* Opens the outputs (rep->output chosen here: -o, [simulation] output or
 * results/NAME.db): captures, fct.txt, the database, or this rank's parts
 * of them under MPI, the ranks agreeing (one that cannot stops them all,
 * rank 0 saying why). 0, or -1 with *err and nothing left open. */
int run_outputs_open(struct run *r, struct run_report *rep, char **err);
/* From here a run that dies (die_*, SIM_ASSERT) leaves nothing
 * half-written: the open database and fct.txt are removed, the captures
 * flushed. */
void run_outputs_guard(struct run *r);
/* Closes the captures (after the drain) and, under MPI, sends rank 0 the
 * other ranks' when they are sent (par_ship.c). Whether that went well. */
bool run_outputs_close_captures(struct run *r);
/* Publishes the run's database (res, NULL when none here) and fct.txt:
 * a rank's parts first, sent to rank 0 when they are, merged there; no
 * database rather than half of one when a part is missing (*err says).
 * shipped: the captures went well. 0, or -1 (exit status 1). */
int run_outputs_finish(struct run *r, struct results *res, struct run_report *rep, const struct run_summary *sum,
		       bool shipped, char **err);

/* The run's cost and its capture's size, before it runs (estimate.h):
 * printed at --check; before a run with capture, a warning when large. */
void run_estimate_cost(const struct config *cfg, const struct world *w, const struct jobs *jobs,
		       const struct run_opts *o, bool capture);
/* The `fabric:` line (when describe) and the warnings about choices that
 * work but hurt; said once, after every input error. */
void run_warn_choices(const struct config *cfg, const struct world *w, const struct jobs *jobs, bool describe);
/* [simulation] stop ended the run at `at` with work left: what was left. */
void run_warn_stopped(const struct world *w, simtime_t at, const char *jobs_left);
/* Frames of the lossless class dropped, at switches and NICs, and why. */
void run_warn_lossless_drops(const struct world *w);
/* A scenario the machine cannot hold: -1 with *err, before its world is
 * built; fills rep's memory estimate either way. */
int run_check_memory(const struct config *cfg, struct run_report *rep, char **err);

/* ---- run_par.c: a run under mpirun ---- */
struct par;
struct wd_view;
/* The model a partitioned run cannot split across ranks (a driver), NULL
 * when there is none. */
const char *run_unpartitionable(const struct run_opts *o);
/* The model that ties hosts at zero delay (a job, a closed-loop source),
 * NULL when none: it runs where every host is (partition = hosts).
 * buf[n] holds a source's wording. */
const char *run_host_coupled(const struct config *cfg, char *buf, size_t n);
simtime_t run_mirror_ps(const struct config *cfg);
/* The watchdog's view and wait-for graph, and the sampler's "nothing
 * left", over every rank (ctx: the struct par). */
void run_wd_sums(void *ctx, struct wd_view *v);
void run_wd_graph(void *ctx, const int *part, int n, int **all, int *n_all);
bool run_all_empty(void *ctx, bool empty);
/* The fct.txt of a partitioned run (path, named by who: hpcc_fct.h): the
 * ranks' parts merged when keep, else removed. 0, or -1 with *err. */
int run_fct_merge(const char *path, const char *who, const struct par *par, bool keep, char **err);

#endif
