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

/* One value of a row: 8 bytes whatever its letter. */
union row_value {
	const char *s;
	int64_t l;
	uint64_t u;
	double d;
};

/* The most columns a row may have (the widest table, flow, has 26). */
#define ROW_MAX_COLS 64

static void bind_value(sqlite3_stmt *st, int col, char type, union row_value v)
{
	switch (type) {
	case 's': bind_text(st, col, v.s); break;
	case 'i':
	case 'l': sqlite3_bind_int64(st, col, v.l); break;
	case 'u': bind_u64(st, col, v.u); break;
	case 't': bind_time(st, col, v.l); break;
	case 'd':
		if (isnan(v.d))
			sqlite3_bind_null(st, col);
		else
			sqlite3_bind_double(st, col, v.d);
		break;
	default: sqlite3_bind_null(st, col); break; /* 'n' */
	}
}

static void write_row(struct results *r, struct results_table *t, const char *types, const union row_value *v)
{
	for (int i = 0; i < t->ncols; i++)
		bind_value(t->st, i + 2, types[i], v[i]);
	step_row(r, t->st, t->name);
}

/* ---- rows waiting in memory (results_defer) ------------------------------ */

/* A waiting row, one after another in r->wq, each a multiple of 8 bytes:
 * its size, its table, its type letters (padded to 8), a value of 8 bytes
 * per column, then the bytes of its text values. A text value is held as
 * the offset of its copy from the row's start (0: NULL), so the queue may
 * move when it grows and a row needs no allocation of its own. */
struct waiting_head {
	size_t row_b;
	struct results_table *t;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static bool wait_row(struct results *r, struct results_table *t, const char *types, const union row_value *v)
{
	size_t fixed = sizeof(struct waiting_head) + pad8((size_t)t->ncols) + (size_t)t->ncols * sizeof *v;
	size_t text = 0, len[ROW_MAX_COLS];
	for (int i = 0; i < t->ncols; i++) {
		len[i] = types[i] == 's' && v[i].s ? strlen(v[i].s) + 1 : 0;
		text += len[i];
	}
	size_t need = pad8(fixed + text);
	if (r->wq_n + need > r->wq_cap) {
		if (r->wq_head) { /* the written rows' room first */
			memmove(r->wq, r->wq + r->wq_head, r->wq_n - r->wq_head);
			r->wq_n -= r->wq_head;
			r->wq_head = 0;
		}
		if (r->wq_n + need > r->wq_cap) {
			size_t cap = r->wq_cap ? 2 * r->wq_cap : 65536;
			while (r->wq_n + need > cap)
				cap *= 2;
			uint8_t *q = realloc(r->wq, cap);
			if (!q)
				return false;
			r->wq = q;
			r->wq_cap = cap;
		}
	}
	uint8_t *row = r->wq + r->wq_n;
	struct waiting_head h = { .row_b = need, .t = t };
	memcpy(row, &h, sizeof h);
	uint8_t *letters = row + sizeof h, *values = letters + pad8((size_t)t->ncols);
	memcpy(letters, types, (size_t)t->ncols);
	size_t off = fixed;
	for (int i = 0; i < t->ncols; i++) {
		union row_value x = v[i];
		if (types[i] == 's') {
			x.u = len[i] ? off : 0;
			if (len[i])
				memcpy(row + off, v[i].s, len[i]);
			off += len[i];
		}
		memcpy(values + (size_t)i * sizeof x, &x, sizeof x);
	}
	r->wq_n += need;
	r->wq_rows++;
	return true;
}

/* Writes the oldest waiting row. */
static void next_waiting(struct results *r)
{
	const uint8_t *row = r->wq + r->wq_head;
	struct waiting_head h;
	memcpy(&h, row, sizeof h);
	const char *types = (const char *)(row + sizeof h);
	union row_value v[ROW_MAX_COLS];
	memcpy(v, row + sizeof h + pad8((size_t)h.t->ncols), (size_t)h.t->ncols * sizeof *v);
	for (int i = 0; i < h.t->ncols; i++)
		if (types[i] == 's')
			v[i].s = v[i].u ? (const char *)row + v[i].u : NULL;
	write_row(r, h.t, types, v);
	r->wq_head += h.row_b;
	if (--r->wq_rows == 0)
		r->wq_head = r->wq_n = 0;
}

void results_defer(struct results *r)
{
	r->defer = true;
}

size_t results_flush_some(struct results *r, size_t max)
{
	while (max-- && r->wq_rows)
		next_waiting(r);
	return r->wq_rows;
}

void results_flush_all(struct results *r)
{
	results_flush_some(r, SIZE_MAX);
	results_drop_waiting(r); /* its room too: what comes next (a merge, the indexes) needs memory */
}

void results_drop_waiting(struct results *r)
{
	free(r->wq);
	r->wq = NULL;
	r->wq_head = r->wq_n = r->wq_cap = r->wq_rows = 0;
}

void results_row(struct results *r, struct results_table *t, const char *types, ...)
{
	if (!t) {               /* results_table failed: already reported */
		r->errors++;
		return;
	}
	if ((int)strlen(types) != t->ncols || t->ncols > ROW_MAX_COLS) {
		char *why = t->ncols > ROW_MAX_COLS ? results_fmt("%d columns, more than %d", t->ncols, ROW_MAX_COLS)
						    : results_fmt("%zu values for %d columns", strlen(types), t->ncols);
		results_report(r, t->name, why ? why : "wrong number of values");
		free(why);
		return;
	}
	union row_value v[ROW_MAX_COLS];
	va_list ap;
	va_start(ap, types);
	for (int i = 0; i < t->ncols; i++) {
		switch (types[i]) {
		case 's': v[i].s = va_arg(ap, const char *); break;
		case 'i': v[i].l = va_arg(ap, int); break;
		case 'l': v[i].l = va_arg(ap, int64_t); break;
		case 'u': v[i].u = va_arg(ap, uint64_t); break;
		case 't': v[i].l = va_arg(ap, simtime_t); break;
		case 'd': v[i].d = va_arg(ap, double); break;
		case 'n': v[i].l = 0; break;
		default:
			va_end(ap);
			results_report(r, t->name, "bad type letter in results_row");
			return;
		}
	}
	va_end(ap);
	if (r->defer && wait_row(r, t, types, v)) {
		if (r->wq_rows > RESULTS_WAITING_MAX)
			results_flush_some(r, r->wq_rows - RESULTS_WAITING_MAX / 2);
		return;
	}
	if (r->wq_rows) /* in order: what waits goes first */
		results_flush_all(r);
	write_row(r, t, types, v);
}
