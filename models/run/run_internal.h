/*
 * run_internal.h — what run.c, run_par.c and run_say.c share (the run
 * part's own header; other parts include run.h).
 */
#ifndef ROCESIM_RUN_INTERNAL_H
#define ROCESIM_RUN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "run.h"
#include "simtime.h"

struct config;
struct jobs;
struct world;

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
