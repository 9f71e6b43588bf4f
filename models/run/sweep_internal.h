/*
 * sweep_internal.h — what sweep.c (the sweep's stages), sweep_points.c (its
 * points), sweep_proc.c (its child processes and signals) and sweep_ranks.c
 * (its ranks under mpirun) share. Internal to models/run/sweep*.c.
 *
 * Children run in their own process group, so a terminal's Ctrl-C reaches
 * the parent alone, which forwards it once to every child it runs: each
 * then stops as `sim` stops on its first signal (writing its database
 * with status 'interrupted'), never killed by a second copy of it. On
 * Linux a child also gets SIGTERM when the parent dies.
 *
 * Under mpirun (sweep_ranks.c) every rank loads and checks every point,
 * each rank runs the points rank 0 deals it into the work folder rank 0
 * made (shared by the ranks), or, when the ranks send their parts
 * ([parallel] parts, parallel.h), into a private folder of its own whose
 * files it sends to rank 0; rank 0, once every rank has finished, learns
 * the others' outcomes and gathers every point in point order.
 */
#ifndef ROCESIM_SWEEP_INTERNAL_H
#define ROCESIM_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

enum point_state { P_WAITING, P_RUNNING, P_DONE, P_GATHERED };

struct point {
	char *label;             /* "traffic.ws.load=0.5 nic.cc=dcqcn" (run.sweep) */
	char *config;            /* resolved scenario (a run row when no database is left) */
	uint64_t seed;           /* [simulation] seed */
	char *pcap;              /* --pcap for the point, NULL: no capture */
	char *fct;               /* [output] hpcc_fct for the point, NULL: none */
	char *fct_at;            /* --fct for the point: where it writes that file
				  * (--fct's name for the point, or a private folder's
				  * when sent to rank 0), NULL: at fct */
	char *db;                /* WORK/point-N.db */
	enum point_state state;
	pid_t pid;               /* while running */
	int slot;                /* its slot of sweep_proc.c's table, while running */
	FILE *err;               /* its stderr, while running */
	double t0, wall_s;       /* wall clock at start; seconds it ran */
	int code;                /* exit status (128 + signal when killed) */
	bool signalled;          /* killed by a signal */
	char *status;            /* run.status, once done */
	bool no_db;              /* it left no database: status is made up */
	int run_id;              /* in the target, once gathered; 0: none */
};

struct sweep {
	const struct cli *cli;
	struct sweep_axis *ax;   /* the --sweep axes */
	size_t n_ax;
	struct point *pt;        /* the points, in order */
	size_t n;
	int jobs;                /* points at a time */
	char *exe;               /* the binary the points run with */
	char *output;            /* the target database */
	char *work;              /* folder of the points' databases */
	struct results_gather *target;
	size_t next_gather;      /* points before it are gathered */
	bool stop;               /* start no more points (a refusal, a failed write) */
	int worst;               /* worst exit status so far */
	bool quiet;              /* -q: no line per point */
	bool lost;               /* the target could not be written: nothing published */
	int rank, ranks;         /* under mpirun: this rank and the ranks; 0 and 1 otherwise */
	int *owner;              /* [n]: the rank a point was dealt to, -1: none (yet);
				  * rank 0 knows every point's, the others their own */
	size_t deal;             /* rank 0: the next point to deal */
	int dealt_out;           /* rank 0: ranks told there is none left, or gone */
	bool asked_out;          /* a rank r > 0: told there is none left, or said bye */
	int parts;               /* the scenario's [parallel] parts (enum par_parts) */
	bool send;               /* ... the ranks r > 0 send their points' files to rank 0 */
};

/* ---- the points (sweep_points.c) ---- */

/* Stage 1: every point's scenario loads (s->output, s->parts from the
 * first), with the names of its captures and fct.txt. 0, or EXIT_INPUT
 * (printed by rank 0). */
int sweep_load_points(struct sweep *s);
/* Point i's child: sim -q [--check | -o DB] [--pcap DIR] --set ...
 * [--fct FILE] -- SCENARIO, NULL-terminated; sweep_free_argv frees it. */
char **sweep_point_argv(const struct sweep *s, size_t i, bool check);
void sweep_free_argv(char **argv);

/* 1 internal failure is worse than 2 bad input, than 3 stalled, than 0. */
int sweep_severity(int code);

/* Installs the parent's SIGINT/SIGTERM handler: the first signal is
 * forwarded to every running child and remembered; the second takes the
 * default action (as for `sim`, main.c). restore puts the default back. */
void sweep_signals_install(void);
void sweep_signals_restore(void);
/* The first signal received (SIGINT or SIGTERM), 0 when none. */
int sweep_interrupted(void);

/* Starts exe with argv (NULL-terminated) in slot (0 .. CLI_MAX_JOBS-1, at
 * most one child per slot): its own process group, stdin and stdout on
 * /dev/null, stderr into *err (an unlinked temporary file, rewound by
 * sweep_wait's caller to read it). A signal already received is forwarded
 * to it at once. Returns its pid, or -1 with errno (nothing started). */
pid_t sweep_spawn(const char *exe, char *const argv[], int slot, FILE **err);
/* Waits for any child and frees its slot. Returns its pid with *code its
 * exit status, or 128 + the signal that killed it and *signalled true;
 * -1 when there is no child. poll, when not NULL, is called with ctx
 * every SWEEP_POLL_NS while no child has ended (rank 0 answering the
 * other ranks' asks for points). */
#define SWEEP_POLL_NS 2000000
pid_t sweep_wait(int slot_of(pid_t, void *), void *ctx, int *code, bool *signalled, void (*poll)(void *));
/* The whole of a child's stderr file (malloc'd, NUL-terminated) and closes it. */
char *sweep_slurp(FILE *f);
/* The path of the running binary (/proc/self/exe, else self), malloc'd. */
char *sweep_self_exe(const char *self);


/* ---- the ranks of an MPI job (sweep_ranks.c); alone, each does nothing ---- */

/* The ranks agree on the worst exit status (sweep_severity) and on the
 * first signal received (0: none, *sig in and out). Returns the worst. */
int sweep_ranks_agree(int worst, int *sig);
/* Stage 3's start: rank 0 says whether it opened the target and made
 * s->work (ready); the others take that folder (s->work) and check that
 * they can write into it, or, when they send their points' files (s->send),
 * make a private folder (s->work) and point their own points' databases,
 * captures and fct.txt into it. 0 when every rank can; -1 otherwise, the
 * rank that could not having said why (rank 0 then removes what it made). */
int sweep_ranks_work(struct sweep *s, bool ready);
/* After every rank ran its points: rank 0 learns the others' points (their
 * exit status, wall time, status from their databases, which they send
 * first with their captures and fct.txt when s->send), marking them
 * P_DONE. -1 (said) when a rank left a point's database that rank 0
 * cannot find: the output's folder is not shared. */
int sweep_ranks_collect(struct sweep *s);
/* Removes a work folder: its points' files, then the folder. */
void sweep_remove_work(const char *work);
/* The runs' dealing (rank 0 deals the points in order to whichever rank
 * asks, par_deal.c): the next point for this rank (rank 0 takes its own
 * from the same count; a rank r > 0 asks rank 0 and, when it sends its
 * files, points the point's captures and fct.txt into its private
 * folder), -1 when there is none left for it; sweep_ranks_serve (ctx: the
 * sweep) answers the other ranks' asks without blocking (rank 0, while
 * its points run); sweep_ranks_done, once this rank runs nothing more:
 * rank 0 answers until every other rank is done asking, a rank r > 0 that
 * stopped asking early says so. */
long sweep_ranks_next(struct sweep *s);
void sweep_ranks_serve(void *ctx);
void sweep_ranks_done(struct sweep *s);

#endif
