/*
 * results_rows.c — rows of the result database (results.h): the batch
 * transaction every row joins and the prepared insert (results_table,
 * results_row) through which the models write their tables.
 *
 * The workload is millions of small inserts: each goes through a statement
 * prepared once (SQLITE_PREPARE_PERSISTENT), bound and stepped inside a
 * transaction committed every RESULTS_BATCH rows, since one commit per row
 * would cost a journal write (and in append mode an fsync) each. A failed
 * row is reported and counted, never fatal; results_finish then refuses to
 * publish the run (results.c).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"

/* ---- the batch transaction ---------------------------------------------- */

/* IMMEDIATE takes the write lock up front: with --append another process may
 * be writing the same file, and a deferred transaction that later needs to
 * upgrade its lock can fail with SQLITE_BUSY instead of waiting. */
void results_batch_begin(struct results *r)
{
	if (!r->in_txn && results_exec(r, "BEGIN IMMEDIATE", "begin transaction") == 0)
		r->in_txn = true;
}

int results_batch_commit(struct results *r)
{
	r->pending = 0;
	if (!r->in_txn)
		return 0;
	r->in_txn = false;
	if (results_exec(r, "COMMIT", "commit") == 0)
		return 0;
	/* A failed COMMIT may leave the transaction open; end it so the next
	 * batch starts clean. */
	if (!sqlite3_get_autocommit(r->db))
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Steps a fully bound insert as one row of the current batch. */
static void step_row(struct results *r, sqlite3_stmt *st, const char *table)
{
	results_batch_begin(r);
	if (sqlite3_step(st) != SQLITE_DONE) {
		char *what = results_fmt("insert into %s", table);
		results_report_db(r, what ? what : table);
		free(what);
	}
	sqlite3_reset(st);
	if (++r->pending >= RESULTS_BATCH)
		results_batch_commit(r);
}

/* ---- rows --------------------------------------------------------------- */

struct results_table *results_table(struct results *r, const char *table, const char *columns)
{
	for (struct results_table *t = r->tables; t; t = t->next)
		if (!strcmp(t->name, table) && !strcmp(t->columns, columns))
			return t;
	int ncols = 1;
	for (const char *c = columns; *c; c++)
		ncols += *c == ',';
	struct results_table *t = calloc(1, sizeof *t);
	char *values = malloc((size_t)ncols * 3 + 1);
	char *sql = NULL;
	if (!t || !values || !(t->name = strdup(table)) || !(t->columns = strdup(columns))) {
		results_report(r, table, strerror(ENOMEM));
		goto fail;
	}
	char *v = values;
	for (int i = 0; i < ncols; i++)
		v += sprintf(v, ", ?");
	sql = sqlite3_mprintf("INSERT INTO \"%w\" (run_id, %s) VALUES (?1%s)", table, columns, values);
	if (!sql) {
		results_report(r, table, strerror(ENOMEM));
		goto fail;
	}
	if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &t->st, NULL) != SQLITE_OK) {
		char *what = results_fmt("prepare insert into %s (%s)", table, columns);
		results_report_db(r, what ? what : table);
		free(what);
		goto fail;
	}
	sqlite3_bind_int(t->st, 1, r->run_id);
	t->ncols = ncols;
	t->next = r->tables;
	r->tables = t;
	sqlite3_free(sql);
	free(values);
	return t;
fail:
	sqlite3_free(sql);
	free(values);
	if (t) {
		free(t->name);
		free(t->columns);
		free(t);
	}
	return NULL;
}

void results_row(struct results *r, struct results_table *t, const char *types, ...)
{
	if (!t) {               /* results_table failed: already reported */
		r->errors++;
		return;
	}
	if ((int)strlen(types) != t->ncols) {
		char *why = results_fmt("%zu values for %d columns", strlen(types), t->ncols);
		results_report(r, t->name, why ? why : "wrong number of values");
		free(why);
		return;
	}
	va_list ap;
	va_start(ap, types);
	for (int i = 0; i < t->ncols; i++) {
		int col = i + 2;
		switch (types[i]) {
		case 's': bind_text(t->st, col, va_arg(ap, const char *)); break;
		case 'i': sqlite3_bind_int(t->st, col, va_arg(ap, int)); break;
		case 'l': sqlite3_bind_int64(t->st, col, va_arg(ap, int64_t)); break;
		case 'u': bind_u64(t->st, col, va_arg(ap, uint64_t)); break;
		case 't': bind_time(t->st, col, va_arg(ap, simtime_t)); break;
		case 'd': {
			double d = va_arg(ap, double);
			if (isnan(d))
				sqlite3_bind_null(t->st, col);
			else
				sqlite3_bind_double(t->st, col, d);
			break;
		}
		case 'n': sqlite3_bind_null(t->st, col); break;
		default:
			va_end(ap);
			results_report(r, t->name, "bad type letter in results_row");
			return;
		}
	}
	va_end(ap);
	step_row(r, t->st, t->name);
}

