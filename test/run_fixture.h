/*
 * run_fixture.h — whole runs for tests: write a scenario text to a
 * temporary folder, run it through run_scenario (the path `sim` takes) and
 * open the result database read-only. The folder is made before main and
 * removed at exit. Header-only, like testutil.h.
 */
#ifndef ROCESIM_RUN_FIXTURE_H
#define ROCESIM_RUN_FIXTURE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "log.h"
#include "run.h"

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
	if (config_load(&cfg, ini, NULL, 0, &err) < 0) {
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

/* The same, printing why a run failed. */
static inline sqlite3 *run_text(const char *text)
{
	int rc;
	sqlite3 *h = run_text_rc(text, &rc);
	if (!h)
		printf("run failed (%d): %s\n", rc, run_err);
	return h;
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
