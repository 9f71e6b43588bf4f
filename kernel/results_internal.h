/*
 * results_internal.h — what results.c (opening and ending a database) and
 * results_rows.c (rows and their batch transactions) share: the writer's
 * state, error reporting and value binding. Internal to kernel/results*.c;
 * the invariants are stated in results.c.
 */
#ifndef ROCESIM_RESULTS_INTERNAL_H
#define ROCESIM_RESULTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "results.h"

/* Errors printed per run before the rest are only counted: a full disk fails
 * every later row too, and thousands of identical lines help nobody. */
#define RESULTS_MAX_REPORTED 5

struct results_table {
	sqlite3_stmt *st;            /* INSERT INTO table (run_id, columns...) */
	int ncols;                   /* columns besides run_id */
	char *name;                  /* table name, for messages */
	char *columns;               /* as given: a second request reuses the statement */
	struct results_table *next;  /* r->tables list, finalised at close */
};

struct results {
	sqlite3 *db;
	char *path;                  /* the database as named by the user */
	char *tmp_path;              /* fresh mode: the file being built; NULL with append */
	bool append;
	bool created;                /* append mode: this run created PATH */
	int run_id;
	bool in_txn;                 /* a batch transaction is open */
	unsigned pending;            /* rows in the open transaction */
	unsigned long errors;        /* rows or statements that failed */
	bool opening;                /* in results_open: keep the first error, print nothing */
	char *first_error;           /* "what: why" of the first failure while opening */
	struct results_table *tables;/* every prepared insert, finalised at close */
	const char *index_sql;       /* run when the run ends (results_run_info) */
	char **made_dirs;            /* folders results_open created, outermost first */
	size_t n_made_dirs;
	/* Rows waiting in memory (results_defer), one after another, text
	 * copied in (results_rows.c "struct waiting_head"). */
	bool defer;
	uint8_t *wq;
	size_t wq_head, wq_n, wq_cap;/* the next row to write, the bytes in use, allocated */
	size_t wq_rows;              /* rows waiting */
};

/* results.c: malloc'd printf; NULL only when out of memory. */
char *results_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* Reports one failure (the first few in full, on stderr; while opening,
 * only the first is kept for results_open's message) and counts it. */
void results_report(struct results *r, const char *what, const char *why);
/* results_report with SQLite's message for the connection's last failure. */
void results_report_db(struct results *r, const char *what);
/* sqlite3_exec, failures reported; 0 or -1. */
int results_exec(struct results *r, const char *sql, const char *what);

/* results_gather.c: copies every table of the database attached as `src`
 * (the run table first, and only when with_run) into main, run_id
 * replaced by id, the columns matched by name. 0, or -1 with *what
 * (malloc'd "copy table flow: why"; NULL when out of memory). */
int results_copy_attached(sqlite3 *db, int id, bool with_run, char **what);
/* results_rows.c: the batch transaction rows join. begin opens one unless
 * open; commit ends it (0, or -1 reported). */
void results_batch_begin(struct results *r);
int results_batch_commit(struct results *r);
/* results_rows.c: writes every waiting row (results_defer); or frees
 * them unwritten (a run not published, or its tables about to go). */
void results_flush_all(struct results *r);
void results_drop_waiting(struct results *r);

/* ---- binding helpers: SQLite integers are signed 64-bit; counters and ids
 * never come near 2^63, so uint64_t values are stored as they are. -------- */

static inline void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC); /* stepped before we return */
	else
		sqlite3_bind_null(st, i);
}

static inline void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* Times below zero mean "did not happen" (an unfinished flow's end). */
static inline void bind_time(sqlite3_stmt *st, int i, simtime_t t)
{
	if (t < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, t);
}

#endif
