/*
 * parallel.h — the parallel part's public header: one scenario run on
 * several MPI ranks, each simulating its partition of the fabric, with
 * results identical to the sequential run's (docs/parallel.md).
 *
 * How a partitioned run works:
 *   - every rank reads the scenario and builds the whole world alike (so
 *     ids, element keys and random streams are those of the sequential
 *     run), then owns the nodes the partition gives it: only events of its
 *     own elements ever run there;
 *   - elements that belong to no node (traffic sources, the watchdog) run
 *     on every rank alike; a source posts a message only at the hosts its
 *     rank owns, and counts the others' ids;
 *   - a frame sent on a link whose far end is another rank's travels as a
 *     message stamped with its landing time and lands there through that
 *     rank's copy of the link (port_inject), with the same event key;
 *   - conservative windows: no frame sent in [T, T + L) lands before
 *     T + L, L the smallest propagation delay of a cut link, so each rank
 *     runs a window alone, then the ranks trade frames;
 *   - the end (all work done, [simulation] stop, a signal, the watchdog's
 *     verdict) is decided together at window boundaries, at exactly the
 *     event the sequential run ends on;
 *   - ranks write their rows into part databases beside the output,
 *     which rank 0 merges into the one database before publishing it.
 * Models whose state spans hosts without a link between them (training
 * jobs, collectives, multicast, failures, samplers, the library's driver)
 * run on rank 0 alone, the other ranks idle: the results are still the
 * sequential run's, and the run row says why (par_attach).
 */
#ifndef ROCESIM_PARALLEL_H
#define ROCESIM_PARALLEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "simtime.h"

struct config;
struct results;
struct sim;
struct watchdog;
struct world;

/* ---- the MPI environment (par_env.c) ---- */

/* Called first by main: under mpirun with more than one rank, initialises
 * MPI (a build with MPI) or fails with a message saying how to get one
 * (-1, *err set; exit status 2). Without mpirun, or with one rank, does
 * nothing: the program is the sequential one. */
int par_init(int *argc, char ***argv, char **err);
/* This process's rank and the number of ranks (0 and 1 when sequential). */
int par_rank(void);
int par_size(void);
/* Called last by main with its exit status: the ranks agree on the worst
 * one, which is returned (every rank exits with it); MPI is finalised. */
int par_finalize(int rc);
/* Rank 0 or a sequential run: the process that prints and writes the
 * published database. */
static inline bool par_leader(void) { return par_rank() == 0; }

/* ---- one partitioned run (par_run.c, par_loop.c) ---- */

struct par;

/* After the world, the traffic and the jobs are built (run.c): returns
 * NULL for a sequential run, else the partitioned run of par_size() ranks
 * (nodes owned, cut links made remote, sources told which hosts are this
 * rank's). When the scenario has a model that cannot be partitioned,
 * returns a run in which rank 0 simulates everything and the others only
 * wait, with *why saying which model (for the run row and --check). */
struct par *par_attach(struct sim *sim, struct world *w, const struct config *cfg, const char **why);
void par_free(struct par *p);
/* This rank simulates nothing (a model could not be partitioned and this
 * is not rank 0). */
bool par_idle(const struct par *p);
/* The ranks share the work (not rank 0 alone). */
bool par_partitioned(const struct par *p);
/* The watchdog's ticks are decided with every rank's counts. */
void par_watch(struct par *p, struct watchdog *wd);
/* Runs windows until the work is done, [simulation] stop passes, a
 * signal arrives or the watchdog ends the run; returns enum sim_stop as
 * sim_run does, with the ranks agreeing. */
int par_run(struct par *p);
/* Runs every event at or before t (the drain after the work's end). */
void par_run_to(struct par *p, simtime_t t);
/* Ranks agreeing: the sum of a count, and whether every rank says yes. */
uint64_t par_sum(struct par *p, uint64_t v);
bool par_all(struct par *p, bool v);

/* ---- results (par_merge.c) ---- */

/* The part database rank r > 0 writes beside the output (malloc'd). */
char *par_part_path(const char *output, int rank);
/* Before the results are finished (every rank): the received halves of
 * the messages that crossed ranks, into par_flow_recv. 0 or -1. */
int par_merge_received(struct par *p, struct results *res);
/* The run row's columns (ranks, partition, each rank's events) and the
 * run_rank rows: every rank's figures, written by rank 0. */
void par_write_run(struct par *p, struct results *res);
/* After rank r > 0 published its part (every rank calls it): rank 0
 * copies every part's rows into res, folds par_flow_recv into the flow
 * rows and deletes the parts. 0, or -1 reported. */
int par_merge_parts(struct par *p, struct results *res, const char *output);
/* --check: the partition this many ranks would use. */
void par_describe(struct par *p, FILE *to);

#endif
