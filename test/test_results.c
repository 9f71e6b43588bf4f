/*
 * test_results.c — the result database writer (kernel/results.c).
 *
 * Each test writes into its own temporary folder and reads the database
 * back with plain sqlite3 calls, so what is checked is what a user's query
 * would see: the docs/scenario.md schema (every table and column), the commit
 * model (run row 'running' first, batches, final status last, temporary
 * file renamed into place, previous database untouched by a failed run),
 * NULL conventions, run ids with --append, and clean failures on paths that
 * cannot be written.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "results.h"
#include "results_info.h"
#include "run.h"
#include "sqlutil.h"
#include "testutil.h"

/* ---- scaffolding --------------------------------------------------------- */

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_results.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(tmpdir) != NULL);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

static void remove_tmpdir(void)
{
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *in_tmp(const char *name)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", tmpdir, name);
	return b;
}

static bool exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* Whole file into a malloc'd buffer, for byte-identity checks. */
static char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

/* stderr into a file while a call is expected to complain. */
static int saved_stderr = -1;
static void stderr_capture(void)
{
	saved_stderr = fd_to(STDERR_FILENO, in_tmp("stderr.txt"));
}

/* Restores stderr and returns what was written (malloc'd). */
static char *stderr_restore(void)
{
	fd_restore(STDERR_FILENO, saved_stderr);
	size_t n = 0;
	char *s = slurp(in_tmp("stderr.txt"), &n);
	if (s)
		s[n] = '\0';
	unlink(in_tmp("stderr.txt"));
	return s;
}

/* Flow row i of a synthetic run, one value of each type letter with
 * results_row's NULL conventions: every 7th unfinished (end_ps and
 * recv_end_ps 't' -1), every 11th with no slowdown ('d' NaN), odd ones with
 * a GPU, a job and an iteration, even ones with NULL strings and 't' -1.
 * What the columns mean (fct_ps, slowdown) is flow_rows.c's, tested on
 * real runs (test_run.c). */
static void write_flow(struct results *r, uint64_t i)
{
	struct results_table *t = results_table(r, "flow", "flow_id, src, dst, src_gpu, qpn, priority,"
		" size_bytes, start_ps, end_ps, recv_end_ps, slowdown, source, job, iteration, collective_id");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	bool gpu = i % 2, done = i % 7 != 0, slow = i % 11 != 0;
	simtime_t start = (simtime_t)i * 1000;
	results_row(r, t, "usssliulttdsstt", i, "host0", "host1", gpu ? "host0.gpu1" : NULL,
		    (int64_t)(100 + i), 3, (uint64_t)(1000 + i), (int64_t)start, done ? start + 3000 : -1,
		    done ? start + 2000 : -1, slow ? (double)i / 8 : NAN, gpu ? "job.moe" : "traffic.ws",
		    gpu ? "moe" : NULL, gpu ? (simtime_t)(i % 4) : -1, gpu ? (simtime_t)(i / 10) : -1);
}

#define N_FLOWS (2 * RESULTS_BATCH + 123)

static const struct run_summary summary = {
	.wall_s = 1.5, .sim_end_ps = 123456789, .events = 1000000,
	.packets_sent = 500, .packets_delivered = 490, .packets_dropped = 10,
};

/* A complete small run into path; returns its run id. */
static int write_run(const char *path, bool append, uint64_t n_flows)
{
	char *err = NULL;
	struct results *r = results_open(path, append, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NULL(err);
	struct results_table *tn = results_table(r, "node", "node_id, name, kind, tier");
	struct results_table *tl = results_table(r, "link", "link_id, node_a, port_a, node_b, port_b, rate_bps, delay_ps");
	struct results_table *tp = results_table(r, "port_stats", "node, port, tx_bytes, tx_packets, rx_bytes, drops,"
						 " ecn_marked, pause_frames_tx, pause_frames_rx, paused_ps, max_queue_bytes");
	struct results_table *tf = results_table(r, "pfc_pause", "node, port, priority, start_ps, end_ps");
	CU_ASSERT_FATAL(tn && tl && tp && tf);
	results_row(r, tn, "issi", 0, "host0", "host", 0);
	results_row(r, tn, "issi", 1, "host1", "host", 0);
	results_row(r, tn, "issi", 2, "sw0", "switch", 1);
	results_row(r, tl, "iiiiiul", 0, 0, 0, 2, 0, (uint64_t)100000000000ull, (int64_t)1000000);
	results_row(r, tl, "iiiiiul", 1, 1, 0, 2, 1, (uint64_t)100000000000ull, (int64_t)1000000);
	for (uint64_t i = 0; i < n_flows; i++)
		write_flow(r, i);
	for (int port = 1; port >= 0; port--)
		results_row(r, tp, "siuuuuuuulu", "sw0", port, (uint64_t)12345, (uint64_t)12, (uint64_t)0,
			    (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (int64_t)777, (uint64_t)4096);
	results_row(r, tf, "siitt", "sw0", 1, 3, (simtime_t)100, (simtime_t)200);
	results_row(r, tf, "siitt", "sw0", 1, 3, (simtime_t)500, (simtime_t)-1);
	int id = results_run_id(r);
	CU_ASSERT_EQUAL(results_finish(r, "complete", &summary), 0);
	return id;
}

/* ---- tests --------------------------------------------------------------- */

static void test_fresh_run(void)
{
	make_tmpdir();
	/* The parent folders do not exist yet (results/ in a fresh checkout). */
	const char *path = in_tmp("results/sub/run.db");
	char *err = NULL;
	struct results *r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NULL(err);
	CU_ASSERT_EQUAL(results_run_id(r), 1);
	CU_ASSERT_STRING_EQUAL(results_path(r), path);
	const char *tmp = results_temp_path(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	char want_tmp[600];
	snprintf(want_tmp, sizeof want_tmp, "%s.tmp-%ld", path, (long)getpid());
	CU_ASSERT_STRING_EQUAL(tmp, want_tmp);
	CU_ASSERT_FALSE(exists(path));
	CU_ASSERT_TRUE(exists(tmp));

	/* The run row is committed as 'running' before anything else. */
	sqlite3 *db = db_open(tmp);
	CHECK_TEXT(db, "SELECT status FROM run WHERE run_id = 1", "running");
	CHECK_TEXT(db, "SELECT scenario FROM run", "scenarios/test.ini");
	CHECK_TEXT(db, "SELECT config FROM run", "[simulation]\nseed = 7\n");
	CU_ASSERT_EQUAL(q_int(db, "SELECT seed FROM run"), 7);
	CHECK_TEXT(db, "SELECT version FROM run", "0.1.0-test");
	CU_ASSERT_EQUAL(q_int(db, "SELECT started_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T"
				  "[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' FROM run"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT wall_s IS NULL AND events IS NULL FROM run"), 1);
	sqlite3_close(db);

	/* Flows are committed in batches as they come. */
	for (uint64_t i = 0; i < RESULTS_BATCH + 10; i++)
		write_flow(r, i);
	db = db_open(tmp);
	long long committed = q_int(db, "SELECT COUNT(*) FROM flow");
	CU_ASSERT(committed >= RESULTS_BATCH && committed <= RESULTS_BATCH + 10);
	CHECK_TEXT(db, "SELECT status FROM run", "running");
	sqlite3_close(db);
	results_abort(r);   /* frees r, and tmp with it */
	CU_ASSERT_FALSE(exists(want_tmp));
	CU_ASSERT_FALSE(exists(path));

	/* A whole run. */
	CU_ASSERT_EQUAL(write_run(path, false, N_FLOWS), 1);
	CU_ASSERT_TRUE(exists(path));
	CU_ASSERT_FALSE(exists(want_tmp));
	db = db_open(path);
	CHECK_TEXT(db, "SELECT status FROM run WHERE run_id = 1", "complete");
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM run"), 1);
	CU_ASSERT_DOUBLE_EQUAL(q_real(db, "SELECT wall_s FROM run"), 1.5, 1e-12);
	CU_ASSERT_EQUAL(q_int(db, "SELECT sim_end_ps FROM run"), 123456789);
	CU_ASSERT_EQUAL(q_int(db, "SELECT events FROM run"), 1000000);
	CU_ASSERT_EQUAL(q_int(db, "SELECT packets_sent + packets_delivered + packets_dropped FROM run"), 1000);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE run_id = 1"), N_FLOWS);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM node"), 3);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM link"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM port_stats"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT rate_bps FROM link WHERE link_id = 1"), 100000000000ll);
	CU_ASSERT_EQUAL(q_int(db, "SELECT delay_ps FROM link WHERE link_id = 1"), 1000000);
	CHECK_TEXT(db, "SELECT kind FROM node WHERE name = 'sw0'", "switch");
	CU_ASSERT_EQUAL(q_int(db, "SELECT max_queue_bytes FROM port_stats WHERE port = 1"), 4096);
	CU_ASSERT_EQUAL(q_int(db, "SELECT paused_ps FROM port_stats WHERE port = 1"), 777);
	/* Flow 3: each value as it was bound. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT qpn FROM flow WHERE flow_id = 3"), 103);
	CU_ASSERT_EQUAL(q_int(db, "SELECT priority FROM flow WHERE flow_id = 3"), 3);
	CU_ASSERT_EQUAL(q_int(db, "SELECT size_bytes FROM flow WHERE flow_id = 3"), 1003);
	CU_ASSERT_EQUAL(q_int(db, "SELECT end_ps FROM flow WHERE flow_id = 3"), 6000);
	CU_ASSERT_EQUAL(q_int(db, "SELECT recv_end_ps FROM flow WHERE flow_id = 3"), 5000);
	CU_ASSERT_DOUBLE_EQUAL(q_real(db, "SELECT slowdown FROM flow WHERE flow_id = 3"), 0.375, 1e-12);
	CU_ASSERT_EQUAL(q_int(db, "SELECT iteration FROM flow WHERE flow_id = 3"), 3);
	CU_ASSERT_EQUAL(q_int(db, "SELECT collective_id FROM flow WHERE flow_id = 31"), 3);
	CHECK_TEXT(db, "SELECT src_gpu FROM flow WHERE flow_id = 3", "host0.gpu1");
	CHECK_TEXT(db, "SELECT job FROM flow WHERE flow_id = 3", "moe");
	CHECK_TEXT(db, "SELECT source FROM flow WHERE flow_id = 4", "traffic.ws");
	/* NULLs: negative times (every 7th unfinished), NaN (every 11th), NULL
	 * strings and -1 times (even ids). */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE end_ps IS NULL"), (N_FLOWS + 6) / 7);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE (flow_id % 7 = 0) != (end_ps IS NULL)"
				  " OR (flow_id % 7 = 0) != (recv_end_ps IS NULL)"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE (flow_id % 11 = 0) != (slowdown IS NULL)"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE flow_id % 2 = 0 AND (src_gpu IS NOT NULL"
				  " OR job IS NOT NULL OR iteration IS NOT NULL OR collective_id IS NOT NULL)"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE flow_id % 2 = 1 AND (src_gpu IS NULL"
				  " OR job IS NULL OR iteration IS NULL OR collective_id IS NULL)"), 0);
	/* Columns not given are NULL. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE fct_ps IS NOT NULL OR dst_gpu IS NOT NULL"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM pfc_pause"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM pfc_pause WHERE end_ps IS NULL AND start_ps = 500"), 1);
	/* The type affinities documented in schema.sql. */
	CHECK_TEXT(db, "SELECT typeof(slowdown) FROM flow WHERE flow_id = 3", "real");
	CHECK_TEXT(db, "SELECT typeof(wall_s) FROM run", "real");
	CHECK_TEXT(db, "SELECT typeof(start_ps) FROM flow WHERE flow_id = 3", "integer");
	sqlite3_close(db);
	remove_tmpdir();
}

/* analysis/schema.sql: every table and its columns, in order. */
static const char *const schema_tables[][28] = {
	{ "run", "run_id", "scenario", "config", "seed", "version", "started_at", "wall_s",
	  "sim_end_ps", "events", "packets_sent", "packets_delivered", "packets_dropped", "status",
	  "ranks", "partition", "rank_events",
	  "sweep" },
	{ "node", "run_id", "node_id", "name", "kind", "tier" },
	{ "link", "run_id", "link_id", "node_a", "port_a", "node_b", "port_b", "rate_bps", "delay_ps" },
	{ "flow", "run_id", "flow_id", "src", "dst", "src_gpu", "dst_gpu", "qpn", "sport", "priority",
	  "size_bytes", "start_ps", "end_ps", "recv_end_ps", "fct_ps", "ideal_fct_ps", "slowdown",
	  "packets", "retx_packets", "ecn_marked", "cnp_received", "source", "job", "iteration",
	  "collective_id", "parallelism", "transport" },
	{ "collective", "run_id", "collective_id", "job", "iteration", "parallelism", "op", "algorithm",
	  "group_size", "size_bytes", "start_ps", "end_ps", "ideal_ps" },
	{ "iteration", "run_id", "job", "iteration", "start_ps", "end_ps", "compute_ps", "comm_ps",
	  "exposed_comm_ps", "bubble_ps", "exposed_tp_ps", "exposed_pp_ps", "exposed_dp_ps", "exposed_ep_ps",
	  "exposed_cp_ps", "slow_ps", "critical_gpu" },
	{ "compute_span", "run_id", "job", "iteration", "stage", "dp_index", "gpu", "micro_batch", "kind",
	  "start_ps", "end_ps", "compute_ps" },
	{ "pfc_pause", "run_id", "node", "port", "priority", "start_ps", "end_ps" },
	{ "port_stats", "run_id", "node", "port", "tx_bytes", "tx_packets", "rx_bytes", "drops",
	  "ecn_marked", "pause_frames_tx", "pause_frames_rx", "paused_ps", "max_queue_bytes", "rx_corrupt" },
	{ "multicast_group", "run_id", "group_id", "name", "source", "members", "tree_links" },
	{ "deadlock", "run_id", "cycle", "position", "node", "port", "priority" },
	{ "queue_sample", "run_id", "node", "port", "t_ps", "bytes" },
	{ "link_sample", "run_id", "node", "port", "t_ps", "tx_bytes" },
	{ "cc_sample", "run_id", "flow_id", "t_ps", "rate_bps", "target_bps", "alpha", "window_b", "rtt_ps", "util" },
	{ "flow_path", "run_id", "flow_id", "hop", "node", "port" },
	{ "failure", "run_id", "failure_id", "kind", "node_a", "port_a", "node_b", "port_b", "down_ps",
	  "up_ps", "detection_ps", "random", "frames_lost" },
	{ "failure_flow", "run_id", "failure_id", "flow_id", "frames_lost" },
};

static void test_schema(void)
{
	make_tmpdir();
	const char *path = in_tmp("schema.db");
	write_run(path, false, 1);
	sqlite3 *db = db_open(path);
	for (size_t t = 0; t < sizeof schema_tables / sizeof schema_tables[0]; t++) {
		const char *table = schema_tables[t][0];
		char sql[128];
		snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
		sqlite3_stmt *st;
		CU_ASSERT_FATAL(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
		size_t c = 1;
		for (; sqlite3_step(st) == SQLITE_ROW; c++) {
			const char *name = (const char *)sqlite3_column_text(st, 1);
			const char *want = c < 28 ? schema_tables[t][c] : NULL;
			if (!want || strcmp(name, want)) {
				fprintf(stderr, "table %s column %zu: got %s, want %s\n", table, c, name,
					want ? want : "(none)");
				CU_FAIL("schema column mismatch");
			}
		}
		sqlite3_finalize(st);
		if (c < 28 && schema_tables[t][c]) {
			fprintf(stderr, "table %s: column %s missing\n", table, schema_tables[t][c]);
			CU_FAIL("schema column missing");
		}
	}
	/* And every table has its run_id first, as checked above; the embedded
	 * text is the same file that is installed. */
	CU_ASSERT_PTR_NOT_NULL(strstr(rocesim_schema_sql, "CREATE TABLE IF NOT EXISTS flow ("));
	sqlite3_close(db);
	remove_tmpdir();
}

static void test_append(void)
{
	make_tmpdir();
	/* --append to a database that does not exist creates it: run 1. */
	const char *path = in_tmp("app/append.db");
	CU_ASSERT_EQUAL(write_run(path, true, 50), 1);
	CU_ASSERT_EQUAL(write_run(path, true, 60), 2);
	char *err = NULL;
	struct results *r = results_open(path, true, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(results_run_id(r), 3);
	CU_ASSERT_PTR_NULL(results_temp_path(r));
	write_flow(r, 1);
	/* Append writes in place: the unfinished run shows as 'running'. */
	sqlite3 *db = db_open(path);
	CHECK_TEXT(db, "SELECT status FROM run WHERE run_id = 3", "running");
	sqlite3_close(db);
	results_abort(r);

	db = db_open(path);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM run"), 3);
	CHECK_TEXT(db, "SELECT group_concat(status, ' ') FROM (SELECT status FROM run ORDER BY run_id)",
		   "complete complete failed");
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE run_id = 1"), 50);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE run_id = 2"), 60);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM node WHERE run_id = 2"), 3);
	sqlite3_close(db);

	/* A fresh run over it replaces it: run_id 1 again. */
	CU_ASSERT_EQUAL(write_run(path, false, 5), 1);
	CU_ASSERT_EQUAL(write_run(path, true, 5), 2);
	db = db_open(path);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM run"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow"), 10);
	sqlite3_close(db);
	remove_tmpdir();
}

static void test_temp_file_model(void)
{
	make_tmpdir();
	const char *path = in_tmp("prev.db");
	write_run(path, false, 20);
	size_t n_before, n_during, n_after;
	char *before = slurp(path, &n_before);
	CU_ASSERT_PTR_NOT_NULL_FATAL(before);

	char *err = NULL;
	struct results *r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(results_run_id(r), 1);
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s", results_temp_path(r));
	for (uint64_t i = 0; i < RESULTS_BATCH + 1; i++)
		write_flow(r, 1000 + i);
	/* While the run is open the target still holds the previous run. */
	char *during = slurp(path, &n_during);
	CU_ASSERT(n_during == n_before && memcmp(before, during, n_before) == 0);
	free(during);
	sqlite3 *db = db_open(tmp);
	CHECK_TEXT(db, "SELECT status FROM run WHERE run_id = 1", "running");
	sqlite3_close(db);
	db = db_open(path);
	CHECK_TEXT(db, "SELECT status FROM run", "complete");
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow"), 20);
	sqlite3_close(db);

	/* A failed run leaves the previous database byte for byte. */
	results_abort(r);
	CU_ASSERT_FALSE(exists(tmp));
	char *after = slurp(path, &n_after);
	CU_ASSERT(n_after == n_before && memcmp(before, after, n_before) == 0);
	free(after);

	/* So does a finish that cannot be published (unknown status), and it
	 * says so. */
	r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	stderr_capture();
	CU_ASSERT_EQUAL(results_finish(r, "bogus", &summary), -1);
	char *msg = stderr_restore();
	CU_ASSERT(msg && strstr(msg, "cannot write results to"));
	free(msg);
	CU_ASSERT_FALSE(exists(tmp));
	after = slurp(path, &n_after);
	CU_ASSERT(n_after == n_before && memcmp(before, after, n_before) == 0);
	free(after);

	/* A stale temporary file of our name (a dead run with our pid) goes. */
	FILE *f = fopen(tmp, "w");
	fputs("garbage", f);
	fclose(f);
	CU_ASSERT_EQUAL(write_run(path, false, 3), 1);
	CU_ASSERT_FALSE(exists(tmp));
	free(before);
	remove_tmpdir();
}

/* Generic inserts for later tables; a bad one fails the run, not the process. */
static void test_generic_rows(void)
{
	make_tmpdir();
	const char *path = in_tmp("generic.db");
	char *err = NULL;
	struct results *r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	struct results_table *dl = results_table(r, "deadlock", "cycle, position, node, port, priority");
	struct results_table *cc = results_table(r, "cc_sample", "flow_id, t_ps, rate_bps, target_bps, alpha");
	struct results_table *it = results_table(r, "iteration",
		"job, iteration, start_ps, end_ps, compute_ps, comm_ps, exposed_comm_ps");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(it);
	results_row(r, dl, "iisii", 0, 0, "tor0", 2, 3);
	results_row(r, dl, "iisii", 0, 1, "agg1", 0, 3);
	results_row(r, cc, "utuud", (uint64_t)5, (simtime_t)1000, (uint64_t)40000000000ull,
		    (uint64_t)50000000000ull, 0.25);
	results_row(r, it, "sltttnt", "moe", (int64_t)0, (simtime_t)0, (simtime_t)-1,
		    (simtime_t)100, (simtime_t)40);
	CU_ASSERT_EQUAL(results_finish(r, "deadlock", &summary), 0);
	sqlite3 *db = db_open(path);
	CHECK_TEXT(db, "SELECT status FROM run", "deadlock");
	CHECK_TEXT(db, "SELECT group_concat(node, ' ') FROM (SELECT node FROM deadlock ORDER BY position)",
		   "tor0 agg1");
	CU_ASSERT_DOUBLE_EQUAL(q_real(db, "SELECT alpha FROM cc_sample"), 0.25, 1e-12);
	CU_ASSERT_EQUAL(q_int(db, "SELECT target_bps FROM cc_sample WHERE run_id = 1"), 50000000000ll);
	CU_ASSERT_EQUAL(q_int(db, "SELECT end_ps IS NULL AND comm_ps IS NULL AND exposed_comm_ps = 40"
				  " FROM iteration"), 1);
	sqlite3_close(db);
	size_t n_before;
	char *before = slurp(path, &n_before);

	/* A column that does not exist: reported, and the run is not published. */
	r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	stderr_capture();
	struct results_table *bad = results_table(r, "pfc_pause", "node, no_such_column");
	results_row(r, bad, "ss", "x", "y");
	struct results_table *dl2 = results_table(r, "deadlock", "cycle, position, node, port, priority");
	results_row(r, dl2, "ii", 1, 2);   /* wrong number of values */
	int rc = results_finish(r, "complete", &summary);
	char *msg = stderr_restore();
	CU_ASSERT_PTR_NULL(bad);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT(msg && strstr(msg, "no_such_column"));
	free(msg);
	size_t n_after;
	char *after = slurp(path, &n_after);
	CU_ASSERT(n_after == n_before && memcmp(before, after, n_before) == 0);
	free(before);
	free(after);
	remove_tmpdir();
}

static void test_unwritable(void)
{
	make_tmpdir();
	char *err = NULL;
	struct results *r = results_open("/proc/x/y.db", false, &info, &err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot write results to /proc/x/y.db: "));
	free(err);

	/* A regular file where a folder should be. */
	const char *file = in_tmp("plain");
	FILE *f = fopen(file, "w");
	fputs("not a folder", f);
	fclose(f);
	char path[600];
	snprintf(path, sizeof path, "%s/sub/y.db", file);
	r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot write results to "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Not a directory"));
	free(err);
	snprintf(path, sizeof path, "%s/y.db", file);
	r = results_open(path, true, &info, &err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT(err && strstr(err, "Not a directory"));
	free(err);

	/* A folder where the database should be. */
	r = results_open(tmpdir, false, &info, &err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT(err && strstr(err, "Is a directory"));
	free(err);

	/* Appending to a file that is not a database: refused, file untouched. */
	r = results_open(file, true, &info, &err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT(err && strstr(err, "not a database"));
	free(err);
	size_t n;
	char *s = slurp(file, &n);
	CU_ASSERT(n == 12 && memcmp(s, "not a folder", 12) == 0);
	free(s);

	/* Nothing left behind: the folder holds only the plain file. */
	int entries = 0;
	char cmd[700];
	snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", tmpdir);
	FILE *p = popen(cmd, "r");
	CU_ASSERT_EQUAL(fscanf(p, "%d", &entries), 1);
	pclose(p);
	CU_ASSERT_EQUAL(entries, 1);
	remove_tmpdir();
}

TEST_MAIN("results",
	  { "fresh run: temp file, batches, rows, NULLs", test_fresh_run },
	  { "schema: every table and column of docs/scenario.md", test_schema },
	  { "append: run ids 1, 2, 3 and abort marks failed", test_append },
	  { "temp file model: previous database untouched", test_temp_file_model },
	  { "generic rows and a failed row", test_generic_rows },
	  { "unwritable paths: NULL, message, nothing left", test_unwritable })
