/*
 * results.h — the SQLite result database (analysis/schema.sql).
 *
 * Commit model: the run row is inserted as 'running' before the simulation
 * starts; rows (flows, ...) are inserted with prepared statements and
 * committed in batches; the final status and counters are written last. A database being replaced
 * is built in a temporary file beside the target ("X.db.tmp-PID") and renamed
 * over it by results_finish, so a crash never destroys earlier results and
 * never leaves a database that looks complete. With --append the run is
 * added to the existing database (next run_id) inside SQLite's own atomic
 * commits; an unfinished run there keeps status 'running'.
 *
 * The kernel knows nothing of models: it creates the schema it is given and
 * the run row; each model prepares the inserts of its own tables
 * (results_table) and writes its rows (results_row).
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
	const char *schema_sql;   /* the tables and views, run when the database is opened */
	const char *index_sql;    /* the indexes, run when the run ends (NULL: none) */
	/* Called with the schema made and the run row inserted, before either
	 * is committed: the models prepare their tables' inserts
	 * (results_table). -1, or any failure of SQLite meanwhile (a table of
	 * an older database without a column), and results_open fails with
	 * nothing written. NULL: none. */
	int (*prepare)(void *ctx, struct results *r);
	void *prepare_ctx;
};

struct run_summary {
	double wall_s;
	simtime_t sim_end_ps;
	uint64_t events, packets_sent, packets_delivered, packets_dropped;
};

/* Opens (creating the schema and the views of analysis/views.sql when present),
 * inserts the run row as 'running' and lets info->prepare prepare the
 * tables' inserts. Returns NULL with *err set (malloc'd, one line) when the
 * path cannot be written or the tables do not take the rows; nothing is
 * left behind then, and an existing database is as it was. */
struct results *results_open(const char *path, bool append,
			     const struct results_run_info *info, char **err);
int results_run_id(const struct results *r);
const char *results_path(const struct results *r);

/* The prepared insert of the rows of a table (the models own their tables'
 * rows; the schema is analysis/schema.sql).
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
 * The argument types must match the letters exactly (varargs). Rows are
 * buffered in the current transaction, committed every RESULTS_BATCH rows. */
struct results_table;
struct results_table *results_table(struct results *r, const char *table, const char *columns);
void results_row(struct results *r, struct results_table *t, const char *types, ...);
/* From now on rows wait in memory rather than going in at once, until
 * results_flush_some writes them (or, past RESULTS_WAITING_MAX, the next
 * row writes the oldest): a partitioned run writes them while it waits
 * for the other ranks (models/parallel). Whatever reads, merges or ends
 * the database writes them first, in the order they came. */
void results_defer(struct results *r);
/* Writes up to max waiting rows, oldest first; returns how many still wait. */
size_t results_flush_some(struct results *r, size_t max);
#define RESULTS_WAITING_MAX 16384
/* The temporary file being written ("X.db.tmp-PID"), NULL with --append. */
const char *results_temp_path(const struct results *r);

/* Writes final counters and status ('complete', 'stopped', 'interrupted', 'deadlock',
 * 'stalled', 'failed'), commits, closes and renames the temporary file into
 * place. Returns 0, or -1 with a message on stderr. Frees r. */
int results_finish(struct results *r, const char *status, const struct run_summary *s);
/* A run that failed: closes and deletes the temporary file (the previous
 * database, if any, is untouched); with --append marks the run 'failed'. Frees r. */
void results_abort(struct results *r);

/* Adds the rows of the one run the database at part_path holds (every
 * table but run) to this run's, with this run's run_id: a partitioned
 * run's ranks' parts (results_merge.c). 0, or -1 with the failure reported
 * (results_finish then fails). */
int results_merge(struct results *r, const char *part_path);
/* Runs sql (statements without results) in the current batch: 0 or -1,
 * reported as `what`. */
int results_sql(struct results *r, const char *sql, const char *what);
/* The run row's parallel columns: ranks, partition, each rank's events
 * ("e0,e1,..."); a sequential run leaves them 1, NULL, NULL. */
void results_run_set(struct results *r, int ranks, const char *partition, const char *rank_events);

/* ---- Gathering runs (results_gather.c) ----
 * Runs written by other processes, one database each (a sweep's points:
 * SQLite allows one writer at a time), copied into one target database.
 * results_gather_open opens the target as results_open does: fresh (built
 * in "PATH.tmp-PID", renamed over PATH by results_gather_finish, PATH
 * untouched until then) or append (in place); it creates the schema
 * (IF NOT EXISTS) and, when run lacks it, the TEXT column label_column.
 * NULL with *err (malloc'd, one line) when PATH cannot be written; nothing
 * is left behind then. */
struct results_gather;
struct results_gather *results_gather_open(const char *path, bool append, const char *schema_sql,
					 const char *index_sql, const char *label_column, char **err);
/* Copies every table's rows of the database src, which holds one run,
 * under the target's next run_id, and sets that run's label_column to
 * label: in one transaction, so the run is in the target whole or not at
 * all. Returns the run_id, or -1 with *err (the target is as before). */
int results_gather_add(struct results_gather *m, const char *src, const char *label, char **err);
/* A run that left no database (it died, or was stopped before it opened
 * one): its run row alone, with info's scenario, config, seed and
 * version, the status and the wall time. The run_id, or -1 with *err. */
int results_gather_add_row(struct results_gather *m, const struct results_run_info *info, const char *status,
			  double wall_s, const char *label, char **err);
/* Builds the indexes, closes and (fresh) renames into place. 0, or -1 with
 * *err and the temporary file removed. Frees m. */
int results_gather_finish(struct results_gather *m, char **err);
/* Closes and removes the temporary file (fresh; PATH untouched); with
 * append, the runs already added stay. Frees m; NULL is allowed. */
void results_gather_abort(struct results_gather *m);
/* The status of the last run of the database at path (malloc'd), NULL
 * when it cannot be read. */
char *results_run_status(const char *path);

#define RESULTS_BATCH 4096

#endif
