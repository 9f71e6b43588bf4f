/*
 * run_fixture.h — whole runs for tests: write a scenario text to a
 * temporary folder, run it through run_scenario (the path `sim` takes) and
 * open the result database read-only. The folder is made before main and
 * removed at exit. Header-only, like testutil.h.
 */
#ifndef ROCESIM_RUN_FIXTURE_H
#define ROCESIM_RUN_FIXTURE_H

#include <CUnit/CUnit.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "log.h"
#include "run.h"
#include "testutil.h"

static char run_tmpdir[] = "/tmp/rocesim-run-XXXXXX";
static int run_counter;
static char run_err[1024];     /* the last failed run's message ("" when none) */

static void run_fixture_cleanup(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", run_tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", run_tmpdir);
}

__attribute__((constructor)) static void run_fixture_init(void)
{
	if (!mkdtemp(run_tmpdir))
		perror("mkdtemp");
	else
		atexit(run_fixture_cleanup);
}

/* Runs the scenario text; returns the open database, or NULL with the exit
 * status in *rc and the message in run_err. */
static inline sqlite3 *run_text_rc(const char *text, int *rc)
{
	char ini[256], db[256];
	snprintf(ini, sizeof ini, "%s/s%d.ini", run_tmpdir, run_counter);
	snprintf(db, sizeof db, "%s/s%d.db", run_tmpdir, run_counter);
	run_counter++;
	run_err[0] = 0;
	*rc = EXIT_INTERNAL;
	FILE *f = fopen(ini, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	struct config cfg;
	char *err = NULL;
	if (scenario_load(&cfg, ini, NULL, 0, &err) < 0) {
		snprintf(run_err, sizeof run_err, "%s", err);
		free(err);
		*rc = EXIT_INPUT;
		return NULL;
	}
	struct run_opts o = { .scenario = ini, .output = db };
	struct run_report rep;
	*rc = run_scenario(&cfg, &o, &rep, &err);
	if (*rc) {
		snprintf(run_err, sizeof run_err, "%s", err ? err : "?");
		free(err);
	}
	run_report_free(&rep);
	config_free(&cfg);
	if (*rc)
		return NULL;
	sqlite3 *h = NULL;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(run_err, sizeof run_err, "open %s: %s", db, sqlite3_errmsg(h));
		sqlite3_close(h); /* SQLite hands out a handle even when opening fails */
		*rc = EXIT_INTERNAL;
		return NULL;
	}
	return h;
}

/* Runs text; the database is opened whatever the exit status (a stalled
 * run exits 3 but writes it); NULL when nothing was written. stderr goes
 * to `log` when given. */
static inline sqlite3 *run_text_any(const char *text, int *rc, const char *log)
{
	char ini[256], db[256];
	snprintf(ini, sizeof ini, "%s/a%d.ini", run_tmpdir, run_counter);
	snprintf(db, sizeof db, "%s/a%d.db", run_tmpdir, run_counter);
	run_counter++;
	FILE *f = fopen(ini, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	struct config cfg;
	char *err = NULL;
	*rc = -1;
	if (scenario_load(&cfg, ini, NULL, 0, &err) < 0) {
		printf("config: %s\n", err);
		free(err);
		return NULL;
	}
	int saved = log ? fd_to(STDERR_FILENO, log) : -1;
	struct run_opts o = { .scenario = ini, .output = db };
	struct run_report rep;
	*rc = run_scenario(&cfg, &o, &rep, &err);
	if (log)
		fd_restore(STDERR_FILENO, saved);
	if (err)
		printf("run: %s\n", err);
	free(err);
	run_report_free(&rep);
	config_free(&cfg);
	sqlite3 *h = NULL;
	if (access(db, F_OK) != 0 || sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return NULL;
	}
	return h;
}

/* A whole (small) file as a malloc'd string; "" when it cannot be read. */
static inline char *run_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return strdup("");
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return strdup(buf);
}

/* The same, printing why a run failed. */
static inline sqlite3 *run_text(const char *text)
{
	int rc;
	sqlite3 *h = run_text_rc(text, &rc);
	if (!h)
		printf("run failed (%d): %s\n", rc, run_err);
	return h;
}

/* The scenario text must fail as bad input (exit 2, no database) with a
 * message holding both want1 and want2. */
static inline void run_expect_error(const char *text, const char *want1, const char *want2)
{
	int rc = 0;
	sqlite3 *h = run_text_rc(text, &rc);
	CU_ASSERT_PTR_NULL(h);
	if (h)
		sqlite3_close(h);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT(msg_has_all(run_err, (const char *const[]){ want1, want2, NULL }));
}

/* Every row of sql as one line of space-separated values (NULL as ""), for
 * comparing whole tables of two runs; malloc'd. */
static inline char *run_dump(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	out[0] = 0;
	CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);
			size_t k = v ? strlen(v) : 0;
			while (len + k + 2 > cap)
				out = realloc(out, cap *= 2);
			memcpy(out + len, v ? v : "", k);
			len += k;
			out[len++] = i + 1 < sqlite3_column_count(st) ? ' ' : '\n';
		}
		out[len] = 0;
	}
	sqlite3_finalize(st);
	return out;
}

/* Runs text twice: the rows of sql must be identical, and more than
 * min_len bytes so the comparison means something (determinism). Returns
 * the first run's database (the caller closes it), NULL when a run failed. */
static inline sqlite3 *run_twice_same(const char *text, const char *sql, size_t min_len)
{
	sqlite3 *a = run_text(text), *b = run_text(text);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NOT_NULL(b);
	if (a && b) {
		char *da = run_dump(a, sql), *db = run_dump(b, sql);
		CU_ASSERT(strlen(da) > min_len);
		CU_ASSERT_STRING_EQUAL(da, db);
		free(da);
		free(db);
	}
	if (b)
		sqlite3_close(b);
	if (!b && a) {
		sqlite3_close(a);
		a = NULL;
	}
	return a;
}

/* Appends n random `flow = SRC DST SIZE START` lines among hosts host0..
 * host(hosts-1) (sizes 1..max_size bytes, starts below 20 us) to text at
 * off; rng is a caller-kept LCG state so runs differ. Returns the new off. */
static inline int run_random_flows(char *text, size_t cap, int off, unsigned *rng, int n, int hosts,
				   unsigned max_size)
{
	for (int i = 0; i < n; i++) {
		*rng = *rng * 1103515245u + 12345u;
		int src = (int)(*rng >> 16) % hosts;
		*rng = *rng * 1103515245u + 12345u;
		int dst = ((int)(*rng >> 16) % (hosts - 1) + src + 1) % hosts;
		*rng = *rng * 1103515245u + 12345u;
		unsigned size = 1 + (*rng >> 8) % max_size;
		*rng = *rng * 1103515245u + 12345u;
		unsigned start_ns = (*rng >> 8) % 20000;
		off += snprintf(text + off, cap - (size_t)off, "flow = host%d host%d %uB %uns\n", src, dst,
				size, start_ns);
	}
	return off;
}

#endif
