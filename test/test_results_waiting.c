/*
 * test_results_waiting.c — rows that wait in memory before they go into the
 * result database (results_defer, kernel/results_rows.c), as a partitioned
 * run's ranks keep them to write while they wait for each other.
 *
 * What must hold is that waiting changes nothing a user can see: the same
 * rows, in the same order, under the same row ids as rows written at once,
 * with text as it was when the row was given; and that nothing waits past
 * what reads or ends the database.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "results.h"
#include "results_info.h"
#include "run.h"
#include "sqlutil.h"
#include "testutil.h"

static const struct run_summary summary = { .wall_s = 1.0, .sim_end_ps = 1000 };

/* Rows that wait in memory (results_defer, a partitioned run's): the same
 * rows in the same order as written at once, text copied when the row is
 * given (the caller's buffer changes after), NULLs kept; written by
 * results_flush_some a few at a time, by the next row past
 * RESULTS_WAITING_MAX, by whatever reads the database, by results_finish;
 * dropped with a run not published. */
static void test_waiting_rows(void)
{
	char *err = NULL;
	const char *cols = "flow_id, src, dst, src_gpu, size_bytes, start_ps, end_ps";
	const int n = RESULTS_WAITING_MAX + 100;
	for (int waiting = 0; waiting < 2; waiting++) {
		const char *path = tmp_path(waiting ? "waiting.db" : "at_once.db");
		struct results *r = results_open(path, false, &info, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		if (waiting)
			results_defer(r);
		struct results_table *t = results_table(r, "flow", cols);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		char name[32];
		for (int i = 0; i < n; i++) {
			snprintf(name, sizeof name, "sw%d", i);
			results_row(r, t, "lsssltt", (int64_t)i, "host0", name, i % 7 ? name : NULL, (int64_t)i,
				    (simtime_t)i * 1000, (simtime_t)(i % 3 ? i * 1000 + 1 : -1));
			snprintf(name, sizeof name, "changed"); /* the row keeps what it was given */
			if (waiting && i == 9) {
				CU_ASSERT_EQUAL(results_flush_some(r, 0), 10);
				CU_ASSERT_EQUAL(results_flush_some(r, 4), 6);
			}
		}
		/* 6 waited after row 9; the row that made RESULTS_WAITING_MAX + 1
		 * wrote the oldest down to half of it, and the 95 after it wait. */
		if (waiting)
			CU_ASSERT_EQUAL(results_flush_some(r, 0), RESULTS_WAITING_MAX / 2 + 95);
		/* Reading the database writes them first. */
		CU_ASSERT_EQUAL(results_sql(r, "CREATE TEMP TABLE seen AS SELECT count(*) AS c FROM flow", "count"), 0);
		if (waiting)
			CU_ASSERT_EQUAL(results_flush_some(r, 0), 0);
		results_row(r, t, "lsssltt", (int64_t)n, "host0", "last", NULL, (int64_t)1, (simtime_t)5, (simtime_t)6);
		CU_ASSERT_EQUAL(results_finish(r, "complete", &summary), 0);
	}
	sqlite3 *db = db_open(tmp_path("waiting.db"));
	char *attach = sqlite3_mprintf("ATTACH %Q AS a", tmp_path("at_once.db"));
	CU_ASSERT_EQUAL(sqlite3_exec(db, attach, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(attach);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow"), n + 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM a.flow"), n + 1);
	/* The same rows under the same rowids: nothing lost, reordered or changed. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM (SELECT rowid, * FROM flow EXCEPT"
				  " SELECT rowid, * FROM a.flow)"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE dst = 'changed' OR src_gpu = 'changed'"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE dst = 'sw' || flow_id"), n);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE src_gpu IS NULL"), (n + 6) / 7 + 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), (n + 2) / 3);
	CHECK_TEXT(db, "SELECT dst FROM flow ORDER BY rowid DESC LIMIT 1", "last");
	sqlite3_close(db);

	/* A run not published drops its waiting rows (ASan: nothing leaks). */
	const char *path = tmp_path("dropped.db");
	struct results *r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	results_defer(r);
	struct results_table *t = results_table(r, "flow", cols);
	for (int i = 0; i < 100; i++)
		results_row(r, t, "lsssltt", (int64_t)i, "host0", "host1", "host0.gpu0", (int64_t)1, (simtime_t)0,
			    (simtime_t)1);
	results_abort(r);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	tmp_dir_remove();
}

TEST_MAIN("results_waiting",
	  { "rows waiting in memory: the same rows, written when asked", test_waiting_rows })
