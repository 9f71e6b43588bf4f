/*
 * results.h — the SQLite result database (SCENARIO.md "Result database").
 *
 * Commit model: the run row is inserted as 'running' before the simulation
 * starts; flows are inserted with prepared statements and committed in
 * batches; node, link and port_stats rows go in with the flows' last batch;
 * the final status and counters are written last. A database being replaced
 * is built in a temporary file beside the target ("X.db.tmp-PID") and renamed
 * over it by results_finish, so a crash never destroys earlier results and
 * never leaves a database that looks complete. With --append the run is
 * added to the existing database (next run_id) inside SQLite's own atomic
 * commits; an unfinished run there keeps status 'running'.
 *
 * The kernel knows nothing of models: rows arrive as plain records.
 */
#ifndef ROCESIM_RESULTS_H
#define ROCESIM_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include "simtime.h"

struct results;

struct results_run_info {
	const char *scenario;     /* scenario path as given */
	const char *config;       /* resolved configuration text */
	uint64_t seed;
	const char *version;      /* PACKAGE_VERSION */
};

struct flow_record {
	uint64_t flow_id;
	const char *src, *dst;            /* node names */
	const char *src_gpu, *dst_gpu;    /* NULL when not a GPU's traffic */
	bool no_qp;                       /* not carried by a queue pair (NVLink): qpn, sport,
					   * priority and packets are NULL */
	uint32_t qpn;
	uint16_t sport;
	int priority;
	uint64_t size_bytes;
	simtime_t start_ps;
	simtime_t end_ps;                 /* -1: unfinished (NULL) */
	simtime_t recv_end_ps;            /* -1: unfinished (NULL) */
	simtime_t ideal_fct_ps;
	uint64_t packets, retx_packets, ecn_marked, cnp_received;
	const char *source;               /* "traffic.ws", "job.moe" */
	const char *job;                  /* NULL when not a job's */
	int64_t iteration;                /* -1: NULL */
	int64_t collective_id;            /* -1: NULL */
	const char *parallelism;          /* dp tp pp ep bg micro */
};

struct port_stats_record {
	const char *node;
	int port;
	uint64_t tx_bytes, tx_packets, rx_bytes, drops, ecn_marked;
	uint64_t pause_frames_tx, pause_frames_rx;
	simtime_t paused_ps;
	uint64_t max_queue_bytes;
};

struct run_summary {
	double wall_s;
	simtime_t sim_end_ps;
	uint64_t events, packets_sent, packets_delivered, packets_dropped;
};

/* Opens (creating the schema and the views of analysis/views.sql when present)
 * and inserts the run row as 'running'. Returns NULL with *err set (malloc'd)
 * when the path cannot be written; nothing is left behind then. */
struct results *results_open(const char *path, bool append,
			     const struct results_run_info *info, char **err);
int results_run_id(const struct results *r);
const char *results_path(const struct results *r);

void results_node(struct results *r, int node_id, const char *name, const char *kind, int tier);
void results_link(struct results *r, int link_id, int node_a, int port_a, int node_b, int port_b,
		  uint64_t rate_bps, simtime_t delay_ps);
/* Buffered in the current transaction; committed every RESULTS_BATCH rows. */
void results_flow(struct results *r, const struct flow_record *f);
void results_port_stats(struct results *r, const struct port_stats_record *p);
/* Generic prepared insert for tables later models fill (pfc_pause, samples...).
 * results_table prepares "INSERT INTO table (run_id, columns) VALUES (...)"
 * once (run_id is bound for you; asking again for the same table and columns
 * returns the same handle) and returns a handle owned by r, or NULL with
 * a message when the table or a column does not exist. results_row binds one
 * value per column from the varargs, one type letter each:
 *   's' const char *  (NULL -> NULL)       'i' int
 *   'l' int64_t                            'u' uint64_t
 *   't' simtime_t     (negative -> NULL)   'd' double (NaN -> NULL)
 *   'n' no argument: NULL
 * e.g. results_row(r, t, "siitt", node, port, prio, start_ps, end_ps).
 * The argument types must match the letters exactly (varargs). Rows join the
 * current batch like flows. */
struct results_table;
struct results_table *results_table(struct results *r, const char *table, const char *columns);
void results_row(struct results *r, struct results_table *t, const char *types, ...);
/* pfc_pause row; end_ps < 0 when the egress was still paused at the end. */
void results_pfc_pause(struct results *r, const char *node, int port, int priority,
		       simtime_t start_ps, simtime_t end_ps);
/* The temporary file being written ("X.db.tmp-PID"), NULL with --append. */
const char *results_temp_path(const struct results *r);
/* analysis/schema.sql (and views), embedded at build time (kernel/schema_sql.c). */
extern const char results_schema_sql[];
/* The indexes (analysis/indexes.sql), built when a run ends. */
extern const char results_index_sql[];

/* Writes final counters and status ('complete', 'interrupted', 'deadlock',
 * 'stalled', 'failed'), commits, closes and renames the temporary file into
 * place. Returns 0, or -1 with a message on stderr. Frees r. */
int results_finish(struct results *r, const char *status, const struct run_summary *s);
/* A run that failed: closes and deletes the temporary file (the previous
 * database, if any, is untouched); with --append marks the run 'failed'. Frees r. */
void results_abort(struct results *r);

#define RESULTS_BATCH 4096

#endif
