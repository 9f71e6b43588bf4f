/*
 * run.h — one simulation run from a loaded scenario to a finished database:
 * build the world and its traffic, open the results, run, write, finish.
 * Used by `sim` (main.c) and by the scenario-level tests, so both exercise
 * the same path.
 */
#ifndef ROCESIM_RUN_H
#define ROCESIM_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include "simtime.h"

struct config;
struct cfg_override;
struct sim;
struct world;
struct colls;

/* ---- The scenario format (scenario.c) ---- */

enum { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

/* [simulation] */
struct sim_cfg {
	uint64_t seed;                 /* [1] */
	simtime_t stop;                /* SIMTIME_NEVER when unset: run until finite work is done */
	char *output;                  /* NULL when unset */
	int progress;                  /* PROGRESS_* [auto] */
	simtime_t watchdog;            /* [1ms] */
};
/* Every part's sections (the scenario format). */
extern const struct cfg_schema rocesim_schema;
/* config_load and config_load_text with rocesim's schema. */
int scenario_load(struct config *cfg, const char *path, const struct cfg_override *ov, size_t n_ov,
		  char **err);
int scenario_load_text(struct config *cfg, const char *path, const char *text, size_t len,
		       const struct cfg_override *ov, size_t n_ov, char **err);
/* The result database's tables and views, and its indexes
 * (analysis/schema.sql, views.sql, indexes.sql; schema_sql.c, generated). */
extern const char rocesim_schema_sql[];
extern const char rocesim_index_sql[];
/* The [simulation] section of a loaded scenario. */
const struct sim_cfg *scenario_sim(const struct config *cfg);

struct run_opts {
	const char *scenario;       /* path as given, for the run row */
	const char *output;         /* database path; NULL: [simulation] output or results/<name>.db */
	bool append;
	bool progress;              /* draw the progress line */
	bool check;                 /* build and summarise only; write nothing */
	int ranks;                  /* with check, > 0: also print the partition for
				     * this many ranks ([parallel], parallel.h) */
	const char *pcap_dir;       /* --pcap DIR: capture into DIR (tap.h) */
	const char *fct_path;       /* --fct FILE: the fct.txt of [output] hpcc_fct into FILE */
	volatile sig_atomic_t *interrupt; /* set asynchronously to stop the run */
	/* A driver of the run (api.c): no_results writes no database (output
	 * unused); driven prints nothing on stdout (the fabric line) and no
	 * "stopped with work left" warning; attach, when set, is called once
	 * the [traffic] sources exist and before the jobs, so an element it
	 * registers sits where a [traffic] section's would (its ties order as
	 * that section's); it returns 0, or -1 with *err (an input error). */
	bool no_results;
	bool driven;
	int (*attach)(void *ctx, struct sim *sim, struct world *w, struct colls *cs, char **err);
	void *attach_ctx;
};

struct run_report {
	int hosts, switches, links, ports;
	uint64_t flows_done, flows_posted, flows_expected;
	simtime_t sim_end_ps;
	double wall_s;
	uint64_t events, packet_hops, packets_sent, packets_delivered, packets_dropped;
	uint64_t pkt_peak;          /* most packets alive at once (packet pool high-water mark) */
	uint64_t pkt_bytes;         /* bytes per packet record in the pool (no per-object header) */
	uint64_t packets_in_network; /* data packets still queued or on links at the end */
	int run_id;
	uint64_t mem_estimate_b;    /* estimate.h, before the world was built */
	uint64_t mem_machine_b;     /* memory the machine allows (0: unknown) */
	const char *status;         /* 'complete', 'interrupted', ... (static) */
	char *output;               /* malloc'd database path, NULL with check */
};

/* Returns 0 (see report->status), 2 (*err: input error, nothing written),
 * 3 (a PFC deadlock or a stall stopped the run: status 'deadlock' or
 * 'stalled', the database written; watchdog.h) or 1 (*err: internal failure). */
int run_scenario(const struct config *cfg, const struct run_opts *o, struct run_report *rep, char **err);
void run_report_free(struct run_report *rep);

/* ---- The same run in steps, for a driver (api.c) ----
 * run_scenario is run_open, run_advance, run_close. Between the calls the
 * driver may post work through run_world / run_colls and move the clock
 * limit (run_sim(r)->stop_at) and the done hook (run_sim(r)->done, which
 * run_open sets to world_done); run_advance runs the event loop once
 * (port_run: enum sim_stop) and may be called again: events past stop_at
 * stay pending. run_close takes why the work ended (enum sim_stop; SIM_DONE
 * drains the fabric's last control frames first), writes the final rows and
 * the run row, frees the run and returns as run_scenario does. */
struct run;
/* 0 with *out (NULL after --check, which printed its summary), or as
 * run_scenario with *err and nothing written. */
int run_open(const struct config *cfg, const struct run_opts *o, struct run_report *rep, struct run **out,
	     char **err);
int run_advance(struct run *r);
int run_close(struct run *r, int stopped, struct run_report *rep, char **err);
struct sim *run_sim(struct run *r);
struct world *run_world(struct run *r);
struct colls *run_colls(struct run *r);
struct jobs;
const struct jobs *run_jobs(const struct run *r);
/* 'deadlock' or 'stalled' once the watchdog stopped the run, else NULL. */
const char *run_verdict(const struct run *r);
/* New work after the clock ran dry: the watchdog ticks again if it had
 * stopped for want of events (watchdog.h). */
void run_watchdog_rearm(struct run *r);

#endif
