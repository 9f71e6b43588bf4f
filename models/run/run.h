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
	const char *pcap_dir;       /* --pcap DIR: capture into DIR (tap.h) */
	volatile sig_atomic_t *interrupt; /* set asynchronously to stop the run */
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

#endif
