/*
 * run_fixture.h — whole runs for tests: write a scenario text to a
 * temporary folder, run it through run_scenario (the path `sim` takes) and
 * open the result database read-only. Header-only, like testutil.h.
 */
#ifndef ROCESIM_RUN_FIXTURE_H
#define ROCESIM_RUN_FIXTURE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "run.h"

static char run_tmpdir[] = "/tmp/rocesim-run-XXXXXX";
static int run_counter;

__attribute__((constructor)) static void run_fixture_init(void)
{
	if (!mkdtemp(run_tmpdir))
		perror("mkdtemp");
}

/* Runs the scenario text; returns the open database, or NULL (printed why). */
static inline sqlite3 *run_text(const char *text)
{
	char ini[256], db[256];
	snprintf(ini, sizeof ini, "%s/s%d.ini", run_tmpdir, run_counter);
	snprintf(db, sizeof db, "%s/s%d.db", run_tmpdir, run_counter);
	run_counter++;
	FILE *f = fopen(ini, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	struct config cfg;
	char *err = NULL;
	if (config_load(&cfg, ini, NULL, 0, &err) < 0) {
		printf("config: %s\n", err);
		free(err);
		return NULL;
	}
	struct run_opts o = { .scenario = ini, .output = db };
	struct run_report rep;
	int rc = run_scenario(&cfg, &o, &rep, &err);
	if (rc) {
		printf("run: %s\n", err);
		free(err);
	}
	run_report_free(&rep);
	config_free(&cfg);
	if (rc)
		return NULL;
	sqlite3 *h = NULL;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return NULL;
	return h;
}

#endif
