/*
 * results_gather.c — gathering finished runs from their own databases into
 * one (results.h, "Gathering runs"): how a sweep, whose points run as
 * separate processes that each write a database of their own (SQLite has
 * one writer at a time), ends with one result database.
 *
 * Two ways to open the target, as results_open has:
 *   fresh   built in "PATH.tmp-PID" and renamed over PATH by
 *           results_gather_finish; until then PATH is as it was, so an
 *           interrupted or failed gathering never leaves a database that
 *           looks complete and never destroys earlier results.
 *   append  rows go into PATH in place, one transaction per run: a run is
 *           in the target whole or not at all.
 *
 * Invariants:
 *   - The target's run_ids follow the order of the calls: the k-th run
 *     added gets (the largest run_id before the first call) + k, whatever
 *     the order in which the sources were written.
 *   - A run is copied table by table with every column named, the source's
 *     run_id replaced by the target's; one transaction per run, rolled back
 *     on any failure (the source's tables must exist in the target with
 *     the same columns: both made by this version's schema).
 *   - The kernel names no model's table: every table of the source is
 *     copied. It knows the `run` table only, which it writes (results.c).
 *   - Indexes are built once, by results_gather_finish, over the finished
 *     tables (results.c does the same for one run).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mkdirs.h"
#include "results_internal.h"

struct results_gather {
	sqlite3 *db;           /* the target's connection */
	char *path;            /* the target as named by the user */
	char *tmp_path;        /* fresh: the file being built; NULL with append */
	bool created;          /* append: this gathering created PATH */
	const char *index_sql; /* built by results_gather_finish (NULL: none) */
	char *label_column;    /* run's column that takes each run's label */
	char **made_dirs;      /* folders results_gather_open created, outermost first */
	size_t n_made_dirs;
};

/* *err = "cannot write results to PATH: WHAT: WHY" (malloc'd). */
static void gather_error(char **err, const char *path, const char *what, const char *why)
{
	if (err)
		*err = results_fmt("cannot write results to %s: %s%s%s", path, what ? what : "",
				   what ? ": " : "", why);
}

static int gather_exec(struct results_gather *m, const char *sql, const char *what, char **err)
{
	char *msg = NULL;
	if (sqlite3_exec(m->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	gather_error(err, m->path, what, msg ? msg : sqlite3_errmsg(m->db));
	sqlite3_free(msg);
	return -1;
}

/* An identifier in double quotes, its quotes doubled (malloc'd). */
static char *quoted(const char *name)
{
	size_t n = strlen(name), q = 0;
	for (size_t i = 0; i < n; i++)
		q += name[i] == '"';
	char *s = malloc(n + q + 3);
	if (!s)
		return NULL;
	char *p = s;
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '"')
			*p++ = '"';
		*p++ = name[i];
	}
	*p++ = '"';
	*p = '\0';
	return s;
}

static void free_gather(struct results_gather *m)
{
	for (size_t i = 0; i < m->n_made_dirs; i++)
		free(m->made_dirs[i]);
	free(m->made_dirs);
	free(m->path);
	free(m->tmp_path);
	free(m->label_column);
	free(m);
}

/* Closes and removes what this gathering created: the temporary file, the
 * database created by an append, the folders made for them (if empty). */
static void discard(struct results_gather *m)
{
	if (m->db)
		sqlite3_close_v2(m->db);   /* rolls back an open transaction */
	m->db = NULL;
	if (m->tmp_path)
		unlink(m->tmp_path);
	if (!m->tmp_path && m->created)
		unlink(m->path);
	for (size_t i = m->n_made_dirs; i-- > 0; )
		rmdir(m->made_dirs[i]);
	free_gather(m);
}

/* Does table `run` of schema `schema` ("main", an attached name) have the column? */
static int has_column(sqlite3 *db, const char *schema, const char *table, const char *column)
{
	sqlite3_stmt *st = NULL;
	int found = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info(?1, ?2) WHERE name = ?3", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, column, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			found = sqlite3_column_int(st, 0) > 0;
	}
	sqlite3_finalize(st);
	return found;
}

struct results_gather *results_gather_open(const char *path, bool append, const char *schema_sql,
					 const char *index_sql, const char *label_column, char **err)
{
	*err = NULL;
	struct results_gather *m = calloc(1, sizeof *m);
	if (!m || !(m->path = strdup(path)) || !(m->label_column = strdup(label_column))) {
		if (m)
			free_gather(m);
		gather_error(err, path, NULL, strerror(ENOMEM));
		return NULL;
	}
	m->index_sql = index_sql;
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		gather_error(err, path, NULL, strerror(EISDIR));
		free_gather(m);
		return NULL;
	}
	char *dir = strdup(path), *where = NULL;
	char *slash = dir ? strrchr(dir, '/') : NULL;
	int e = dir ? 0 : ENOMEM;
	if (slash && slash != dir) {
		*slash = '\0';
		e = mkdirs(dir, &m->made_dirs, &m->n_made_dirs, &where);
	}
	free(dir);
	if (e) {
		char *what = where ? results_fmt("cannot create folder %s", where) : NULL;
		gather_error(err, path, what, strerror(e));
		free(what);
		free(where);
		discard(m);
		return NULL;
	}
	if (!append && !(m->tmp_path = results_fmt("%s.tmp-%ld", path, (long)getpid()))) {
		gather_error(err, path, NULL, strerror(ENOMEM));
		discard(m);
		return NULL;
	}
	const char *file = m->tmp_path ? m->tmp_path : path;
	if (m->tmp_path)
		unlink(m->tmp_path);   /* a dead process's, with our recycled pid */
	bool existed = append && access(path, F_OK) == 0;
	/* open(2) first: its errno says why a path is unwritable. */
	int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | (existed ? 0 : O_EXCL), 0666);
	if (fd < 0) {
		gather_error(err, path, NULL, strerror(errno));
		discard(m);
		return NULL;
	}
	close(fd);
	m->created = append && !existed;
	if (sqlite3_open_v2(file, &m->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		gather_error(err, path, "open", sqlite3_errmsg(m->db));
		discard(m);
		return NULL;
	}
	sqlite3_extended_result_codes(m->db, 1);
	/* As results.c: the temporary file is discarded unless closed cleanly,
	 * so it needs no fsync; an append keeps the user's durability. */
	if (m->tmp_path ? gather_exec(m, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;", "set pragmas", err)
			: (sqlite3_busy_timeout(m->db, 30000), 0)) {
		discard(m);
		return NULL;
	}
	if (gather_exec(m, "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;", "set pragmas", err) ||
	    gather_exec(m, "BEGIN IMMEDIATE", "begin transaction", err) ||
	    gather_exec(m, schema_sql ? schema_sql : "", "create schema", err)) {
		discard(m);
		return NULL;
	}
	/* A database written before the label column existed gets it. */
	int has = has_column(m->db, "main", "run", label_column);
	if (has == 0) {
		char *col = quoted(label_column);
		char *sql = col ? results_fmt("ALTER TABLE run ADD COLUMN %s TEXT", col) : NULL;
		int rc = sql ? gather_exec(m, sql, "add the run label column", err) : -1;
		if (!sql)
			gather_error(err, path, NULL, strerror(ENOMEM));
		free(sql);
		free(col);
		if (rc) {
			discard(m);
			return NULL;
		}
	} else if (has < 0) {
		gather_error(err, path, "read table run", sqlite3_errmsg(m->db));
		discard(m);
		return NULL;
	}
	if (gather_exec(m, "COMMIT", "commit schema", err)) {
		discard(m);
		return NULL;
	}
	return m;
}

/* The next run_id of the target. -1 on failure. */
static int next_run_id(struct results_gather *m, char **err)
{
	sqlite3_stmt *st = NULL;
	int next = -1;
	if (sqlite3_prepare_v2(m->db, "SELECT COALESCE(MAX(run_id), 0) + 1 FROM main.run", -1, &st, NULL) ==
		    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		next = sqlite3_column_int(st, 0);
	else
		gather_error(err, m->path, "read run ids", sqlite3_errmsg(m->db));
	sqlite3_finalize(st);
	return next;
}

/* "INSERT INTO main.T (c...) SELECT c or ?1 for run_id... FROM src.T" for
 * the table, built from the source's columns (malloc'd; NULL when out of
 * memory or SQLite fails). */
static char *copy_sql(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, 'src') ORDER BY cid", -1, &st,
			       NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	char *cols = strdup(""), *sel = strdup("");
	while (cols && sel && sqlite3_step(st) == SQLITE_ROW) {
		char *c = quoted((const char *)sqlite3_column_text(st, 0));
		char *nc = c ? results_fmt("%s%s%s", cols, *cols ? ", " : "", c) : NULL;
		char *ns = c ? results_fmt("%s%s%s", sel, *sel ? ", " : "",
					   strcmp((const char *)sqlite3_column_text(st, 0), "run_id") ? c : "?1")
			     : NULL;
		free(c);
		free(cols);
		free(sel);
		cols = nc;
		sel = ns;
	}
	sqlite3_finalize(st);
	char *t = quoted(table);
	char *sql = cols && sel && t ? results_fmt("INSERT INTO main.%s (%s) SELECT %s FROM src.%s", t, cols, sel, t)
				     : NULL;
	free(t);
	free(cols);
	free(sel);
	return sql;
}

int results_copy_attached(sqlite3 *db, int id, bool with_run, char **what)
{
	*what = NULL;
	sqlite3_stmt *tables = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM src.sqlite_master WHERE type = 'table' AND name NOT LIKE "
				   "'sqlite_%' ORDER BY name = 'run' DESC, name", -1, &tables, NULL) != SQLITE_OK) {
		*what = results_fmt("read a run's tables: %s", sqlite3_errmsg(db));
		return -1;
	}
	/* The names first: the inserts may not run while the listing reads
	 * the attached schema. */
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	while (sqlite3_step(tables) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(tables, 0);
		if (!with_run && strcmp(name, "run") == 0)
			continue;
		char **grown = realloc(names, (n + 1) * sizeof *names);
		char *copy = strdup(name);
		if (!grown || !copy) {
			free(grown ? (void *)copy : NULL);
			names = grown ? grown : names;
			*what = results_fmt("read a run's tables: %s", strerror(ENOMEM));
			rc = -1;
			break;
		}
		names = grown;
		names[n++] = copy;
	}
	sqlite3_finalize(tables);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *sql = copy_sql(db, names[i]);
		sqlite3_stmt *st = NULL;
		if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
		    ((sqlite3_bind_parameter_count(st) >= 1 ? sqlite3_bind_int(st, 1, id) : SQLITE_OK),
		     sqlite3_step(st) != SQLITE_DONE)) {
			*what = results_fmt("copy table %s: %s", names[i], sql ? sqlite3_errmsg(db) : strerror(ENOMEM));
			rc = -1;
		}
		sqlite3_finalize(st);
		free(sql);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* Copies every table of the attached `src` under run_id `id`. 0 or -1. */
static int copy_tables(struct results_gather *m, int id, char **err)
{
	char *what = NULL;
	if (results_copy_attached(m->db, id, true, &what) == 0)
		return 0;
	gather_error(err, m->path, NULL, what ? what : strerror(ENOMEM));
	free(what);
	return -1;
}

/* UPDATE run SET <label column> = label WHERE run_id = id. */
static int set_label(struct results_gather *m, int id, const char *label, char **err)
{
	char *col = quoted(m->label_column);
	char *sql = col ? results_fmt("UPDATE main.run SET %s = ?1 WHERE run_id = ?2", col) : NULL;
	free(col);
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sql && sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) == SQLITE_OK) {
		bind_text(st, 1, label);
		sqlite3_bind_int(st, 2, id);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	if (rc)
		gather_error(err, m->path, "label the run", sql ? sqlite3_errmsg(m->db) : strerror(ENOMEM));
	sqlite3_finalize(st);
	free(sql);
	return rc;
}

int results_gather_add(struct results_gather *m, const char *src, const char *label, char **err)
{
	*err = NULL;
	sqlite3_stmt *st = NULL;
	int id = -1, n = 0;
	if (sqlite3_prepare_v2(m->db, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) != SQLITE_OK) {
		gather_error(err, m->path, "attach a run", sqlite3_errmsg(m->db));
		return -1;
	}
	sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		char *what = results_fmt("attach %s", src);
		gather_error(err, m->path, what, sqlite3_errmsg(m->db));
		free(what);
		return -1;
	}
	if (sqlite3_prepare_v2(m->db, "SELECT count(*) FROM src.run", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (n != 1) {
		char *why = results_fmt("%s holds %d runs, expected one", src, n);
		gather_error(err, m->path, NULL, why ? why : "not one run");
		free(why);
	} else if (gather_exec(m, "BEGIN IMMEDIATE", "begin transaction", err) == 0) {
		id = next_run_id(m, err);
		if (id < 0 || copy_tables(m, id, err) < 0 || set_label(m, id, label, err) < 0 ||
		    gather_exec(m, "COMMIT", "commit a run", err) < 0) {
			sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
			id = -1;
		}
	}
	sqlite3_exec(m->db, "DETACH DATABASE src", NULL, NULL, NULL);
	return id;
}

int results_gather_add_row(struct results_gather *m, const struct results_run_info *info, const char *status,
			  double wall_s, const char *label, char **err)
{
	*err = NULL;
	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gather_exec(m, "BEGIN IMMEDIATE", "begin transaction", err))
		return -1;
	int id = next_run_id(m, err);
	sqlite3_stmt *st = NULL;
	if (id > 0 && sqlite3_prepare_v2(m->db, "INSERT INTO main.run (run_id, scenario, config, seed, version, "
						"started_at, wall_s, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
					 -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int(st, 1, id);
		bind_text(st, 2, info->scenario ? info->scenario : "");
		bind_text(st, 3, info->config);
		bind_u64(st, 4, info->seed);
		bind_text(st, 5, info->version);
		bind_text(st, 6, started);
		sqlite3_bind_double(st, 7, wall_s);
		bind_text(st, 8, status);
		if (sqlite3_step(st) != SQLITE_DONE)
			id = -1;
	} else {
		id = -1;
	}
	if (id < 0 && !*err)
		gather_error(err, m->path, "insert run", sqlite3_errmsg(m->db));
	sqlite3_finalize(st);
	if (id < 0 || set_label(m, id, label, err) < 0 || gather_exec(m, "COMMIT", "commit a run", err) < 0) {
		sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return id;
}

int results_gather_finish(struct results_gather *m, char **err)
{
	*err = NULL;
	if ((m->index_sql && gather_exec(m, m->index_sql, "create indexes", err)) ||
	    sqlite3_close(m->db) != SQLITE_OK) {
		if (!*err)
			gather_error(err, m->path, "close", sqlite3_errmsg(m->db));
		discard(m);
		return -1;
	}
	m->db = NULL;
	/* rename(2) is atomic: a reader sees the old database or the new one. */
	if (m->tmp_path && rename(m->tmp_path, m->path) != 0) {
		char *what = results_fmt("rename from %s", m->tmp_path);
		gather_error(err, m->path, what, strerror(errno));
		free(what);
		discard(m);
		return -1;
	}
	free_gather(m);
	return 0;
}

void results_gather_abort(struct results_gather *m)
{
	if (m)
		discard(m);
}

char *results_run_status(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *status = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT status FROM run ORDER BY run_id DESC LIMIT 1", -1, &st, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		status = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return status;
}
