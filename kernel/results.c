/*
 * results.c — the SQLite result database writer (results.h, SCENARIO.md
 * "Result database", schema in analysis/schema.sql).
 *
 * Two ways to open:
 *   fresh   the database is built in "PATH.tmp-PID" beside PATH and renamed
 *           over PATH by results_finish. Until then PATH does not exist or
 *           still holds the previous database, so a crash or a failed run
 *           never destroys earlier results and never leaves a database that
 *           looks complete. results_abort deletes the temporary file.
 *   append  (--append) rows go straight into PATH inside SQLite's own atomic
 *           commits; a run that never finishes keeps status 'running' there,
 *           results_abort marks it 'failed'. A PATH that does not exist yet
 *           is created in place (not via a temporary file, so two appenders
 *           starting together cannot rename over each other's runs).
 *
 * Invariants:
 *   - The run row is committed as 'running' by results_open, before any
 *     other row; the final counters and status go in with the last batch,
 *     so no reader ever sees 'complete' beside missing rows.
 *   - Rows (flows and every other table) are written by prepared statements
 *     inside a transaction committed every RESULTS_BATCH rows; the workload
 *     is millions of small inserts, where one commit per row would cost a
 *     journal write (and in append mode an fsync) each.
 *   - Every SQLite failure is reported on stderr with SQLite's message and
 *     counted; no failure crashes the writer. A run with a failed row is
 *     not published: results_finish then acts as results_abort and
 *     returns -1.
 *   - Nothing is left behind by a failed results_open: the temporary file,
 *     a database file this call created, and folders it created are removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "results.h"

/* Errors printed per run before the rest are only counted: a full disk fails
 * every later row too, and thousands of identical lines help nobody. */
#define RESULTS_MAX_REPORTED 5

struct results_table {
	sqlite3_stmt *st;            /* INSERT INTO table (run_id, columns...) */
	int ncols;                   /* columns besides run_id */
	char *name;                  /* table name, for messages */
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
	struct results_table *flow, *node, *link, *port; /* prepared by results_open */
	struct results_table *pfc;   /* pfc_pause, prepared on first use */
	char **made_dirs;            /* folders results_open created, outermost first */
	size_t n_made_dirs;
};

static const char *const run_statuses[] = {
	"running", "complete", "interrupted", "deadlock", "stalled", "failed", NULL
};

/* malloc'd printf; NULL only when out of memory. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

/* Reports one failure (the first few in full) and counts it. */
static void report(struct results *r, const char *what, const char *why)
{
	r->errors++;
	if (r->opening) {   /* results_open returns it as its one message */
		if (!r->first_error)   /* the user needs why, not which step */
			r->first_error = strdup(why);
		return;
	}
	if (r->errors <= RESULTS_MAX_REPORTED)
		fprintf(stderr, "sim: error: cannot write results to %s: %s: %s\n", r->path, what, why);
	if (r->errors == RESULTS_MAX_REPORTED)
		fprintf(stderr, "sim: error: further result database errors are counted, not shown\n");
}

static void report_db(struct results *r, const char *what)
{
	report(r, what, sqlite3_errmsg(r->db));
}

static int exec(struct results *r, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(r->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	report(r, what, msg ? msg : sqlite3_errmsg(r->db));
	sqlite3_free(msg);
	return -1;
}

/* ---- the batch transaction ---------------------------------------------- */

/* IMMEDIATE takes the write lock up front: with --append another process may
 * be writing the same file, and a deferred transaction that later needs to
 * upgrade its lock can fail with SQLITE_BUSY instead of waiting. */
static void batch_begin(struct results *r)
{
	if (!r->in_txn && exec(r, "BEGIN IMMEDIATE", "begin transaction") == 0)
		r->in_txn = true;
}

static int batch_commit(struct results *r)
{
	r->pending = 0;
	if (!r->in_txn)
		return 0;
	r->in_txn = false;
	if (exec(r, "COMMIT", "commit") == 0)
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
	batch_begin(r);
	if (sqlite3_step(st) != SQLITE_DONE) {
		char *what = fmt("insert into %s", table);
		report_db(r, what ? what : table);
		free(what);
	}
	sqlite3_reset(st);
	if (++r->pending >= RESULTS_BATCH)
		batch_commit(r);
}

/* ---- binding helpers: SQLite integers are signed 64-bit; counters and ids
 * never come near 2^63, so uint64_t values are stored as they are. -------- */

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC); /* stepped before we return */
	else
		sqlite3_bind_null(st, i);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* Times below zero mean "did not happen" (an unfinished flow's end). */
static void bind_time(sqlite3_stmt *st, int i, simtime_t t)
{
	if (t < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, t);
}

/* ---- opening ------------------------------------------------------------ */

/* mkdir -p of the folder holding path, remembering what it created so a
 * failed open can take it back. Returns 0 or an errno with *where set. */
static int make_parent(struct results *r, const char *path, char **where)
{
	char *dir = strdup(path);
	if (!dir)
		return ENOMEM;
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir) {   /* current folder, or a file in / */
		free(dir);
		return 0;
	}
	*slash = '\0';
	int err = 0;
	struct stat sb;
	for (char *p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(dir, 0777) == 0) {
			char **m = realloc(r->made_dirs, (r->n_made_dirs + 1) * sizeof *m);
			char *copy = strdup(dir);
			if (!m || !copy) {
				free(copy);
				if (m)
					r->made_dirs = m;
				rmdir(dir);
				err = ENOMEM;
				break;
			}
			r->made_dirs = m;
			r->made_dirs[r->n_made_dirs++] = copy;
		} else if (errno != EEXIST && !(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))) {
			/* EEXIST also covers a regular file in the way: opening the
			 * database inside it then fails with ENOTDIR, which says why.
			 * An existing folder may also answer EACCES or EROFS. */
			err = errno;
			*where = strdup(dir);
			break;
		}
		*p = saved;
		if (saved == '\0')
			break;
	}
	free(dir);
	return err;
}

static void finalize_all(struct results *r)
{
	while (r->tables) {
		struct results_table *t = r->tables;
		r->tables = t->next;
		sqlite3_finalize(t->st);
		free(t->name);
		free(t);
	}
	r->flow = r->node = r->link = r->port = r->pfc = NULL;
}

/* Closes the connection; 0 or -1 (reported). Statements must be finalised. */
static int close_db(struct results *r)
{
	if (!r->db)
		return 0;
	int rc = sqlite3_close(r->db);
	if (rc != SQLITE_OK) {
		report_db(r, "close");
		sqlite3_close_v2(r->db);   /* let SQLite free it when it can */
	}
	r->db = NULL;
	return rc == SQLITE_OK ? 0 : -1;
}

static void free_results(struct results *r)
{
	for (size_t i = 0; i < r->n_made_dirs; i++)
		free(r->made_dirs[i]);
	free(r->made_dirs);
	free(r->path);
	free(r->tmp_path);
	free(r->first_error);
	free(r);
}

/* Removes what this run created: the temporary file (fresh), a database
 * created by --append, and the folders made for them (only if empty). */
static void remove_created(struct results *r)
{
	if (r->tmp_path)
		unlink(r->tmp_path);
	if (r->append && r->created)
		unlink(r->path);
	for (size_t i = r->n_made_dirs; i-- > 0; )
		rmdir(r->made_dirs[i]);
}

static int prepare(struct results *r, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK)
		return 0;
	report_db(r, "prepare");
	return -1;
}

static int insert_run_row(struct results *r, const struct results_run_info *info)
{
	sqlite3_stmt *st = NULL;
	int next = 1;
	if (sqlite3_prepare_v2(r->db, "SELECT COALESCE(MAX(run_id), 0) + 1 FROM run", -1, &st, NULL) != SQLITE_OK
	    || sqlite3_step(st) != SQLITE_ROW) {
		report_db(r, "read run ids");
		sqlite3_finalize(st);
		return -1;
	}
	next = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);

	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);

	if (prepare(r, &st, "INSERT INTO run (run_id, scenario, config, seed, version, started_at, status) "
			   "VALUES (?, ?, ?, ?, ?, ?, 'running')"))
		return -1;
	sqlite3_bind_int(st, 1, next);
	bind_text(st, 2, info && info->scenario ? info->scenario : "");
	bind_text(st, 3, info ? info->config : NULL);
	bind_u64(st, 4, info ? info->seed : 0);
	bind_text(st, 5, info ? info->version : NULL);
	bind_text(st, 6, started);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		report_db(r, "insert run");
	sqlite3_finalize(st);
	r->run_id = next;
	return rc == SQLITE_DONE ? 0 : -1;
}

static const char flow_columns[] =
	"flow_id, src, dst, src_gpu, dst_gpu, qpn, sport, priority, size_bytes, start_ps, end_ps,"
	" recv_end_ps, fct_ps, ideal_fct_ps, slowdown, packets, retx_packets, ecn_marked,"
	" cnp_received, source, job, iteration, collective_id, parallelism";

/* Everything after the file is known writable: pragmas, schema, run row,
 * statements. 0, or -1 with the failure reported through r. */
static int setup_db(struct results *r, const struct results_run_info *info)
{
	/* One thread uses the connection: no per-call mutex. */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(r->tmp_path ? r->tmp_path : r->path, &r->db, flags, NULL) != SQLITE_OK) {
		report_db(r, "open");
		return -1;
	}
	sqlite3_extended_result_codes(r->db, 1);
	if (r->tmp_path) {
		/* The temporary file is renamed into place only after a clean
		 * close, and discarded otherwise: a crash mid-write can corrupt
		 * nothing anyone will read. So no fsync (synchronous=OFF) and the
		 * rollback journal in memory (it still serves ROLLBACK and failed
		 * statements; only crash recovery is given up). */
		if (exec(r, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;", "set pragmas"))
			return -1;
	} else {
		/* Appending writes the user's existing database in place: keep its
		 * journal mode and SQLite's default synchronous=FULL, whose fsync
		 * per commit (every RESULTS_BATCH rows) is cheap, so a crash or
		 * power cut loses at most the open batch, never earlier runs. Wait
		 * for a concurrent appender rather than failing. */
		sqlite3_busy_timeout(r->db, 30000);
	}
	/* A large page cache keeps the flow table's indexes in memory. */
	if (exec(r, "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;", "set pragmas"))
		return -1;

	/* Schema and run row in one transaction: appenders racing for the
	 * next run_id serialise on the write lock. */
	if (exec(r, "BEGIN IMMEDIATE", "begin transaction"))
		return -1;
	if (exec(r, results_schema_sql, "create schema") || insert_run_row(r, info)) {
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (exec(r, "COMMIT", "commit run row"))
		return -1;

	/* Prepared now, so a database with an older schema fails here, before
	 * the simulation, rather than at its first row. */
	r->flow = results_table(r, "flow", flow_columns);
	r->node = results_table(r, "node", "node_id, name, kind, tier");
	r->link = results_table(r, "link", "link_id, node_a, port_a, node_b, port_b, rate_bps, delay_ps");
	r->port = results_table(r, "port_stats", "node, port, tx_bytes, tx_packets, rx_bytes, drops,"
				" ecn_marked, pause_frames_tx, pause_frames_rx, paused_ps, max_queue_bytes");
	return r->flow && r->node && r->link && r->port ? 0 : -1;
}

/* Sets *err (or prints when err is NULL) to "cannot write results to PATH: WHY". */
static void open_error(char **err, const char *path, const char *why)
{
	char *m = fmt("cannot write results to %s: %s", path, why);
	if (err)
		*err = m;
	else {
		fprintf(stderr, "sim: error: %s\n", m ? m : why);
		free(m);
	}
}

struct results *results_open(const char *path, bool append,
			     const struct results_run_info *info, char **err)
{
	if (err)
		*err = NULL;
	struct results *r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		open_error(err, path, strerror(ENOMEM));
		return NULL;
	}
	r->append = append;
	r->opening = true;

	char *why = NULL;         /* malloc'd reason, when not errno's */
	int e = 0;
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		e = EISDIR;
		goto fail;
	}
	char *where = NULL;
	if ((e = make_parent(r, path, &where)) != 0) {
		if (where)
			why = fmt("cannot create folder %s: %s", where, strerror(e));
		free(where);
		goto fail;
	}
	if (!append) {
		if (!(r->tmp_path = fmt("%s.tmp-%ld", path, (long)getpid()))) {
			e = ENOMEM;
			goto fail;
		}
		/* A stale file of this name is a dead run's with our recycled pid. */
		unlink(r->tmp_path);
	}
	/* Create the file ourselves first: open(2)'s errno says why a path is
	 * unwritable ("Permission denied", "Not a directory"), where SQLite only
	 * says "unable to open database file". */
	const char *file = r->tmp_path ? r->tmp_path : path;
	bool existed = append && access(path, F_OK) == 0;
	int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | (existed ? 0 : O_EXCL), 0666);
	if (fd < 0) {
		e = errno;
		goto fail;
	}
	close(fd);
	r->created = append && !existed;

	/* From here failures are SQLite's: report() keeps the first, with
	 * SQLite's message ("file is not a database"). */
	if (setup_db(r, info) == 0) {
		r->opening = false;
		return r;
	}
	if (r->first_error) {
		why = r->first_error;
		r->first_error = NULL;
	}

fail:
	if (r->db) {
		finalize_all(r);
		close_db(r);
	}
	remove_created(r);
	open_error(err, path, why ? why : strerror(e ? e : EIO));
	free(why);
	free_results(r);
	return NULL;
}

int results_run_id(const struct results *r) { return r->run_id; }
const char *results_path(const struct results *r) { return r->path; }
const char *results_temp_path(const struct results *r) { return r->tmp_path; }

/* ---- rows --------------------------------------------------------------- */

void results_node(struct results *r, int node_id, const char *name, const char *kind, int tier)
{
	results_row(r, r->node, "issi", node_id, name, kind, tier);
}

void results_link(struct results *r, int link_id, int node_a, int port_a, int node_b, int port_b,
		  uint64_t rate_bps, simtime_t delay_ps)
{
	results_row(r, r->link, "iiiiiul", link_id, node_a, port_a, node_b, port_b, rate_bps,
		    (int64_t)delay_ps);
}

/* Bound by hand rather than through results_row: the one table with
 * millions of rows, and derived columns (fct_ps, slowdown). */
void results_flow(struct results *r, const struct flow_record *f)
{
	sqlite3_stmt *st = r->flow->st;
	bool done = f->end_ps >= 0;
	simtime_t fct = done ? f->end_ps - f->start_ps : -1;
	int i = 2;
	bind_u64(st, i++, f->flow_id);
	bind_text(st, i++, f->src);
	bind_text(st, i++, f->dst);
	bind_text(st, i++, f->src_gpu);
	bind_text(st, i++, f->dst_gpu);
	sqlite3_bind_int64(st, i++, f->qpn);
	sqlite3_bind_int(st, i++, f->sport);
	sqlite3_bind_int(st, i++, f->priority);
	bind_u64(st, i++, f->size_bytes);
	sqlite3_bind_int64(st, i++, f->start_ps);
	bind_time(st, i++, f->end_ps);
	bind_time(st, i++, f->recv_end_ps);
	bind_time(st, i++, fct);
	/* 0 means the model computed no ideal: store NULL rather than a 0
	 * that would read as an instantaneous transfer. */
	bind_time(st, i++, f->ideal_fct_ps > 0 ? f->ideal_fct_ps : -1);
	if (done && f->ideal_fct_ps > 0)
		sqlite3_bind_double(st, i++, (double)fct / (double)f->ideal_fct_ps);
	else
		sqlite3_bind_null(st, i++);
	bind_u64(st, i++, f->packets);
	bind_u64(st, i++, f->retx_packets);
	bind_u64(st, i++, f->ecn_marked);
	bind_u64(st, i++, f->cnp_received);
	bind_text(st, i++, f->source);
	bind_text(st, i++, f->job);
	bind_time(st, i++, f->iteration);
	bind_time(st, i++, f->collective_id);
	bind_text(st, i++, f->parallelism);
	step_row(r, st, "flow");
}

void results_port_stats(struct results *r, const struct port_stats_record *p)
{
	results_row(r, r->port, "siuuuuuuulu", p->node, p->port, p->tx_bytes, p->tx_packets,
		    p->rx_bytes, p->drops, p->ecn_marked, p->pause_frames_tx, p->pause_frames_rx,
		    (int64_t)p->paused_ps, p->max_queue_bytes);
}

struct results_table *results_table(struct results *r, const char *table, const char *columns)
{
	int ncols = 1;
	for (const char *c = columns; *c; c++)
		ncols += *c == ',';
	struct results_table *t = calloc(1, sizeof *t);
	char *values = malloc((size_t)ncols * 3 + 1);
	char *sql = NULL;
	if (!t || !values || !(t->name = strdup(table))) {
		report(r, table, strerror(ENOMEM));
		goto fail;
	}
	char *v = values;
	for (int i = 0; i < ncols; i++)
		v += sprintf(v, ", ?");
	sql = sqlite3_mprintf("INSERT INTO \"%w\" (run_id, %s) VALUES (?1%s)", table, columns, values);
	if (!sql) {
		report(r, table, strerror(ENOMEM));
		goto fail;
	}
	if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &t->st, NULL) != SQLITE_OK) {
		char *what = fmt("prepare insert into %s (%s)", table, columns);
		report_db(r, what ? what : table);
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
		char *why = fmt("%zu values for %d columns", strlen(types), t->ncols);
		report(r, t->name, why ? why : "wrong number of values");
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
			report(r, t->name, "bad type letter in results_row");
			return;
		}
	}
	va_end(ap);
	step_row(r, t->st, t->name);
}

void results_pfc_pause(struct results *r, const char *node, int port, int priority,
		       simtime_t start_ps, simtime_t end_ps)
{
	if (!r->pfc && !(r->pfc = results_table(r, "pfc_pause", "node, port, priority, start_ps, end_ps")))
		return;
	results_row(r, r->pfc, "siitt", node, port, priority, start_ps, end_ps);
}

/* ---- ending ------------------------------------------------------------- */

/* A run that is not published: fresh mode drops the temporary file (PATH
 * untouched); append mode keeps the committed rows and marks the run
 * 'failed'. Frees r. */
static void discard(struct results *r)
{
	if (r->db && r->append) {
		/* Keep what is written: a partial run marked 'failed' is more
		 * useful than one missing rows that were simulated. */
		batch_commit(r);
		char *sql = fmt("UPDATE run SET status = 'failed' WHERE run_id = %d", r->run_id);
		if (sql)
			exec(r, sql, "mark run failed");
		free(sql);
	}
	finalize_all(r);
	close_db(r);   /* rolls back an open transaction */
	if (!r->append)
		remove_created(r);
	free_results(r);
}

void results_abort(struct results *r)
{
	if (r)
		discard(r);
}

int results_finish(struct results *r, const char *status, const struct run_summary *s)
{
	bool known = false;
	for (const char *const *v = run_statuses; *v; v++)
		known |= status && strcmp(status, *v) == 0;
	if (!known)
		report(r, "final status", status ? status : "(null)");

	sqlite3_stmt *st = NULL;
	if (r->errors == 0
	    && prepare(r, &st, "UPDATE run SET wall_s = ?, sim_end_ps = ?, events = ?, packets_sent = ?,"
			       " packets_delivered = ?, packets_dropped = ?, status = ? WHERE run_id = ?") == 0) {
		if (s) {
			sqlite3_bind_double(st, 1, s->wall_s);
			sqlite3_bind_int64(st, 2, s->sim_end_ps);
			bind_u64(st, 3, s->events);
			bind_u64(st, 4, s->packets_sent);
			bind_u64(st, 5, s->packets_delivered);
			bind_u64(st, 6, s->packets_dropped);
		}
		bind_text(st, 7, status);
		sqlite3_bind_int(st, 8, r->run_id);
		/* The status goes in with the last batch: one commit makes the
		 * remaining rows and 'complete' visible together. */
		batch_begin(r);
		if (sqlite3_step(st) != SQLITE_DONE)
			report_db(r, "update run");
	}
	sqlite3_finalize(st);
	if (r->errors == 0)
		batch_commit(r);

	if (r->errors) {
		fprintf(stderr, "sim: error: %lu write%s to %s failed; %s\n", r->errors,
			r->errors == 1 ? "" : "s", r->path,
			r->append ? "the run is marked 'failed'" : "the previous database, if any, is kept");
		discard(r);
		return -1;
	}

	finalize_all(r);
	if (close_db(r) != 0) {
		discard(r);
		return -1;
	}
	/* rename(2) is atomic: a reader sees the old database or the new one,
	 * never a mix. No fsync first: the run's speed matters more than
	 * surviving a power cut in the seconds after it (and ext4, by
	 * default, flushes a file renamed over another before the rename
	 * commits, which covers the case of replacing earlier results). */
	if (r->tmp_path && rename(r->tmp_path, r->path) != 0) {
		fprintf(stderr, "sim: error: cannot write results to %s: rename from %s: %s\n",
			r->path, r->tmp_path, strerror(errno));
		remove_created(r);
		free_results(r);
		return -1;
	}
	free_results(r);
	return 0;
}
