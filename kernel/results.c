/*
 * results.c — the SQLite result database writer (results.h; the project's
 * schema is analysis/schema.sql): opening a database,
 * error reporting, and ending a run. Rows and their batch transactions are
 * in results_rows.c; the shared state in results_internal.h.
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

#include "mkdirs.h"
#include "results_internal.h"

static const char *const run_statuses[] = {
	"running", "complete", "stopped", "interrupted", "deadlock", "stalled", "failed", NULL
};

char *results_fmt(const char *f, ...)
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

void results_report(struct results *r, const char *what, const char *why)
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

void results_report_db(struct results *r, const char *what)
{
	results_report(r, what, sqlite3_errmsg(r->db));
}

int results_exec(struct results *r, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(r->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	results_report(r, what, msg ? msg : sqlite3_errmsg(r->db));
	sqlite3_free(msg);
	return -1;
}

/* ---- opening ------------------------------------------------------------ */

/* mkdir -p of the folder holding path (mkdirs.h), remembering what it
 * created so a failed open can take it back. Returns 0 or an errno with
 * *where set. */
static int make_parent(struct results *r, const char *path, char **where)
{
	char *dir = strdup(path);
	if (!dir)
		return ENOMEM;
	char *slash = strrchr(dir, '/');
	int err = 0;
	if (slash && slash != dir) {   /* not the current folder, nor a file in / */
		*slash = '\0';
		err = mkdirs(dir, &r->made_dirs, &r->n_made_dirs, where);
	}
	free(dir);
	return err;
}

static void finalize_all(struct results *r)
{
	results_drop_waiting(r); /* rows not written by now are not to be (they name the tables) */
	while (r->tables) {
		struct results_table *t = r->tables;
		r->tables = t->next;
		sqlite3_finalize(t->st);
		free(t->name);
		free(t->columns);
		free(t);
	}
}

/* Closes the connection; 0 or -1 (reported). Statements must be finalised. */
static int close_db(struct results *r)
{
	if (!r->db)
		return 0;
	int rc = sqlite3_close(r->db);
	if (rc != SQLITE_OK) {
		results_report_db(r, "close");
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
	results_report_db(r, "prepare");
	return -1;
}

static int insert_run_row(struct results *r, const struct results_run_info *info)
{
	sqlite3_stmt *st = NULL;
	int next = 1;
	if (sqlite3_prepare_v2(r->db, "SELECT COALESCE(MAX(run_id), 0) + 1 FROM run", -1, &st, NULL) != SQLITE_OK
	    || sqlite3_step(st) != SQLITE_ROW) {
		results_report_db(r, "read run ids");
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
		results_report_db(r, "insert run");
	sqlite3_finalize(st);
	r->run_id = next;
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Everything after the file is known writable: pragmas, schema, run row,
 * statements. 0, or -1 with the failure reported through r. */
static int setup_db(struct results *r, const struct results_run_info *info)
{
	/* One thread uses the connection: no per-call mutex. */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(r->tmp_path ? r->tmp_path : r->path, &r->db, flags, NULL) != SQLITE_OK) {
		results_report_db(r, "open");
		return -1;
	}
	sqlite3_extended_result_codes(r->db, 1);
	if (r->tmp_path) {
		/* The temporary file is renamed into place only after a clean
		 * close, and discarded otherwise: a crash mid-write can corrupt
		 * nothing anyone will read. So no fsync (synchronous=OFF) and the
		 * rollback journal in memory (it still serves ROLLBACK and failed
		 * statements; only crash recovery is given up). */
		if (results_exec(r, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;", "set pragmas"))
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
	if (results_exec(r, "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;", "set pragmas"))
		return -1;

	/* Schema and run row in one transaction: appenders racing for the
	 * next run_id serialise on the write lock. */
	if (results_exec(r, "BEGIN IMMEDIATE", "begin transaction"))
		return -1;
	if (results_exec(r, info && info->schema_sql ? info->schema_sql : "", "create schema") ||
	    insert_run_row(r, info) ||
	    (info && info->prepare && (info->prepare(info->prepare_ctx, r) < 0 || r->errors))) {
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (results_exec(r, "COMMIT", "commit run row"))
		return -1;
	return 0;
}

/* Sets *err (or prints when err is NULL) to "cannot write results to PATH: WHY". */
static void open_error(char **err, const char *path, const char *why)
{
	char *m = results_fmt("cannot write results to %s: %s", path, why);
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
	r->index_sql = info ? info->index_sql : NULL;
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
			why = results_fmt("cannot create folder %s: %s", where, strerror(e));
		free(where);
		goto fail;
	}
	if (!append) {
		if (!(r->tmp_path = results_fmt("%s.tmp-%ld", path, (long)getpid()))) {
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

	/* From here failures are SQLite's: results_report() keeps the first, with
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

/* ---- ending ------------------------------------------------------------- */

/* A run that is not published: fresh mode drops the temporary file (PATH
 * untouched); append mode keeps the committed rows and marks the run
 * 'failed'. Frees r. */
static void discard(struct results *r)
{
	if (r->db && r->append) {
		/* Keep what is written: a partial run marked 'failed' is more
		 * useful than one missing rows that were simulated. */
		results_flush_all(r);
		results_batch_commit(r);
		char *sql = results_fmt("UPDATE run SET status = 'failed' WHERE run_id = %d", r->run_id);
		if (sql)
			results_exec(r, sql, "mark run failed");
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
	results_flush_all(r);
	bool known = false;
	for (const char *const *v = run_statuses; *v; v++)
		known |= status && strcmp(status, *v) == 0;
	if (!known)
		results_report(r, "final status", status ? status : "(null)");

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
		results_batch_begin(r);
		if (sqlite3_step(st) != SQLITE_DONE)
			results_report_db(r, "update run");
		/* Indexes last, over the finished tables (analysis/indexes.sql). */
		if (r->errors == 0 && r->index_sql)
			results_exec(r, r->index_sql, "create indexes");
	}
	sqlite3_finalize(st);
	if (r->errors == 0)
		results_batch_commit(r);

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
