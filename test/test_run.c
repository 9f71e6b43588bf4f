/*
 * test_run.c — what a whole run writes (models/run/run.c,
 * models/observe/flow_rows.c): the flow table's derived columns on a real
 * run, and a run that cannot write its tables leaving nothing behind.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

/* A ring of 8 switches, one host each, 1 us links: host0 -> host1 crosses
 * 3 links and finishes, host2 -> host3 cannot send 10 MB before stop.
 * flow_rows.c promises fct_ps = end_ps - start_ps and slowdown = fct_ps /
 * ideal_fct_ps for finished flows, NULL otherwise. */
static void test_derived_columns(void)
{
	sqlite3 *h = run_text("[simulation]\nprogress = off\nstop = 100us\n"
			      "[topology]\ntype = ring\nswitches = 8\nhosts_per_switch = 1\n"
			      "link_rate = 100Gbps\nlink_delay = 1us\n[nic]\ncc = none\n"
			      "[traffic.a]\ntype = flows\nflow = host0 host1 10KB 0us\nflow = host2 host3 10MB 0us\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow"), 2);
	/* Finished, its fct the difference of its times; the idle fabric's
	 * time is a lower bound, and the slowdown is their ratio. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE dst = 'host1' AND fct_ps = end_ps - start_ps "
				 "AND ideal_fct_ps > 0 AND ideal_fct_ps <= fct_ps "
				 "AND abs(slowdown - 1.0 * fct_ps / ideal_fct_ps) <= 1e-12 * slowdown"), 1);
	/* Unfinished: an ideal, but no end, fct or slowdown. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE dst = 'host3' AND end_ps IS NULL "
				 "AND fct_ps IS NULL AND slowdown IS NULL AND ideal_fct_ps > 0"), 1);
	sqlite3_close(h);
}

/* Paths are followed into arrays of 16 links (ideal times, flow paths,
 * multicast trees). A ring of n switches has routes of floor(n/2) switch
 * hops plus two host links: 29 switches give 16 links and run, 30 give 17
 * and are refused as bad input before anything is simulated. */
static void test_route_length(void)
{
	sqlite3 *h = run_text("[simulation]\nprogress = off\n[topology]\ntype = ring\nswitches = 29\n"
			      "hosts_per_switch = 1\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			      "[traffic.a]\ntype = flows\nflow = host0 host14 10KB 0us\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE ideal_fct_ps > 0 AND slowdown >= 1"), 1);
	sqlite3_close(h);
	run_expect_error("[simulation]\nprogress = off\n[topology]\ntype = ring\nswitches = 30\n"
			 "hosts_per_switch = 1\nlink_rate = 100Gbps\nlink_delay = 1us\n",
			 "crosses up to 17 links", "routes of at most 16 links are supported");
}

/* A database made by another version, whose flow table lacks columns:
 * --append to it is an input error (exit 2) found before anything is
 * simulated, said in one line with SQLite's reason; the database is left
 * as it was, and the run's other outputs (the capture folder, HPCC's
 * fct.txt), opened before the database, are removed again. */
static void test_tables_do_not_match(void)
{
	char db[300], fct[300], cap[300], ini[300], text[1024];
	snprintf(db, sizeof db, "%s/old.db", run_tmpdir);
	snprintf(fct, sizeof fct, "%s/fct.txt", run_tmpdir);
	snprintf(cap, sizeof cap, "%s/cap", run_tmpdir);
	snprintf(ini, sizeof ini, "%s/old.ini", run_tmpdir);
	sqlite3 *h = NULL;
	CU_ASSERT_FATAL(sqlite3_open(db, &h) == SQLITE_OK);
	CU_ASSERT_FATAL(sqlite3_exec(h, "CREATE TABLE flow (run_id INTEGER, flow_id INTEGER, src TEXT)",
				     NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(h);
	snprintf(text, sizeof text, "[simulation]\nprogress = off\n[topology]\ntype = star\nhosts = 2\n"
		 "link_rate = 100Gbps\nlink_delay = 1us\n"
		 "[output]\nhpcc_fct = %s\n[traffic.a]\ntype = flows\nflow = host0 host1 10KB 0us\n", fct);
	FILE *f = fopen(ini, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	struct config cfg;
	char *err = NULL;
	CU_ASSERT_FATAL(scenario_load(&cfg, ini, NULL, 0, &err) == 0);
	struct run_opts o = { .scenario = ini, .output = db, .append = true, .pcap_dir = cap };
	struct run_report rep;
	/* SQLite's reason goes to stderr: kept in a file to look at. */
	char errfile[300];
	snprintf(errfile, sizeof errfile, "%s/stderr.txt", run_tmpdir);
	int saved = fd_to(STDERR_FILENO, errfile);
	int rc = run_scenario(&cfg, &o, &rep, &err);
	fd_restore(STDERR_FILENO, saved);
	CU_ASSERT_EQUAL(rc, EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	/* One line, SQLite's reason in it, nothing else said. */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "old.db: table flow has no column named"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "its tables do not match this version of rocesim"));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	char said[2048] = "";
	f = fopen(errfile, "r");
	if (f) {
		said[fread(said, 1, sizeof said - 1, f)] = 0;
		fclose(f);
	}
	CU_ASSERT_STRING_EQUAL(said, "");
	CU_ASSERT_NOT_EQUAL(access(fct, F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(cap, F_OK), 0);
	/* The user's database is as it was: its one table, no run row. */
	CU_ASSERT_FATAL(sqlite3_open(db, &h) == SQLITE_OK);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM sqlite_master"), 1);
	sqlite3_close(h);
	free(err);
	run_report_free(&rep);
	config_free(&cfg);
}

TEST_MAIN("run",
	  { "flow table: fct, ideal and slowdown of a real run", test_derived_columns },
	  { "routes longer than 16 links are refused", test_route_length },
	  { "tables that do not match: exit 2, nothing half-written", test_tables_do_not_match })
