/*
 * test_failure.c — link and switch failures (models/fabric/failure.c):
 * recovery time of a flow whose path fails against the closed form,
 * rerouting of later flows, a host cut off for good, a switch failure,
 * determinism of random failures, and located errors.
 *
 * Whole runs through run_scenario, as `sim` does. Expected values come
 * from the scenario's rates, delays and timers, never from an earlier
 * run's output.
 */
#include <unistd.h>
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

#define RATE_BPS 100000000000ull
#define DELAY_PS 1000000           /* 1 us per link */
#define MTU_B 1000
#define PKT_WIRE_B (MTU_B + 62 + 20) /* middle frame plus preamble and gap */
#define T_PKT_PS (PKT_WIRE_B * 80) /* 80 ps per byte at 100 Gb/s */
#define T_ACK_PS ((66 + 20) * 80)
#define RTO_PS 100000000           /* 100 us */

/* Leaf-spine with 4 spines: 4 equal-cost paths between the two leaves. */
static const char leaf_spine[] =
	"[topology]\ntype = leaf_spine\nleaves = 2\nspines = 4\nhosts_per_leaf = 4\n"
	"link_rate = 100Gbps\nlink_delay = 1us\n"
	"[nic]\nmtu = 1000\nrto = 100us\n";

/* The uplink port of leaf0 that flow host0 -> host4 takes on the intact
 * fabric (flow_path), so that the failure can be put on its path. */
static int uplink_of_host0(void)
{
	char text[2048];
	snprintf(text, sizeof text, "%s[output]\nflow_paths = on\n"
		 "[traffic.f]\ntype = flows\nflow = host0 host4 400KB 0us\n", leaf_spine);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	int p = (int)q_int(db, "SELECT port FROM flow_path WHERE node = 'leaf0'");
	sqlite3_close(db);
	CU_ASSERT(p >= 4 && p < 8);   /* leaf ports: 4 hosts, then 4 spines */
	return p;
}

/* The flow host0 -> host4 (400 packets, 34.6 us at line rate) loses its
 * tail when its uplink fails at t_d = 10 us; every packet after that goes
 * onto the dead link until routing reacts at t_d + detection, which is
 * after the last first send (so no later packet reaches the receiver out
 * of order and no NAK starts recovery early). Go-back-N then waits for its
 * timeout, which runs from the last ACK that advanced (t_last); each
 * timeout that fires before t_d + detection resends onto the dead link.
 * With n the number of timeouts until the first one after t_d + detection,
 * the resent tail alone on the new path ends at
 *     FCT = ideal + (t_last + n RTO - t_m),
 * t_m the send time of the first lost packet. t_last - t_m is at least 0
 * and at most one base RTT (the lost packet's way out and its ACK's way
 * back: 8 link delays, 4 frame and 4 ACK times) plus a frame time of
 * rounding, so
 *     ideal + n RTO <= FCT <= ideal + n RTO + base RTT + T_pkt.
 * Flows posted after detection never use the dead uplink (its tx counter
 * holds only what it sent before t_d) and finish at their ideal time. */
static void one_path_fails(const char *detection, int n_rto)
{
	int up = uplink_of_host0();
	char text[4096];
	snprintf(text, sizeof text, "%s[failure]\nlink = leaf0:p%d spine%d 10us\ndetection = %s\n"
		 "[traffic.f]\ntype = flows\nflow = host0 host4 400KB 0us\n"
		 "flow = host0 host4 200KB 400us\nflow = host1 host5 200KB 400us\n"
		 "flow = host2 host6 200KB 400us\nflow = host3 host7 200KB 400us\n",
		 leaf_spine, up, up - 4, detection);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CHECK_TEXT(db, "SELECT status FROM run", "complete");
	/* Every flow completed: RC recovered every lost frame. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 5);
	CU_ASSERT_EQUAL(q_int(db, "SELECT packets_sent - packets_delivered - packets_dropped FROM run"), 0);
	CU_ASSERT(q_int(db, "SELECT packets_dropped FROM run") > 0);
	long long fct = q_int(db, "SELECT fct_ps FROM flow WHERE flow_id = 1");
	long long ideal = q_int(db, "SELECT ideal_fct_ps FROM flow WHERE flow_id = 1");
	long long base_rtt = 8LL * DELAY_PS + 4LL * T_PKT_PS + 4LL * T_ACK_PS;
	long long lo = ideal + n_rto * (long long)RTO_PS, hi = lo + base_rtt + T_PKT_PS;
	printf("\n  detection %s: FCT %.3f us, predicted [%.3f, %.3f] us\n", detection, fct / 1e6,
	       lo / 1e6, hi / 1e6);
	CU_ASSERT(fct >= lo && fct <= hi);
	/* The failure lost frames of that flow and recorded them. */
	CU_ASSERT(q_int(db, "SELECT frames_lost FROM failure_flow WHERE failure_id = 1 AND flow_id = 1") > 0);
	CU_ASSERT(q_int(db, "SELECT frames_lost FROM failure") >=
		  q_int(db, "SELECT sum(frames_lost) FROM failure_flow"));
	char want[64];
	snprintf(want, sizeof want, "link leaf0:%d spine%d", up, up - 4);
	CHECK_TEXT(db, "SELECT kind || ' ' || node_a || ':' || port_a || ' ' || node_b FROM failure", want);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM failure WHERE up_ps IS NULL"), 1);
	/* Nothing left on the dead uplink after t_d: what it sent fits in 10 us. */
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT tx_bytes FROM port_stats WHERE node = 'leaf0' AND port = %d", up);
	long long sent_b = q_int(db, sql);
	CU_ASSERT(sent_b * 8 * 1000 <= 10000000LL * (long long)(RATE_BPS / 1000000000ull) + 8 * PKT_WIRE_B * 1000);
	/* Later flows, alone on their hosts' links, met no loss: each ends
	 * within 5 % of its ideal time (ECMP may put two on one spine). */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM failure_flow WHERE flow_id > 1"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT sum(retx_packets) FROM flow WHERE flow_id > 1"), 0);
	sqlite3_close(db);
}

static void test_one_path_one_timeout(void) { one_path_fails("50us", 1); }
static void test_one_path_two_timeouts(void) { one_path_fails("150us", 2); }

/* A host whose only link fails for good: its flows never finish, the run
 * ends (the watchdog finds the stall and names them), the others complete. */
static void test_host_cut_off(void)
{
	char text[4096], log[256];
	snprintf(text, sizeof text, "[simulation]\nwatchdog = 200us\n%s[failure]\nlink = host0 leaf0 10us\n"
		 "[traffic.f]\ntype = flows\nflow = host0 host4 1MB 0us\nflow = host1 host5 1MB 0us\n"
		 "flow = host6 host0 100KB 50us\n", leaf_spine);
	snprintf(log, sizeof log, "%s/cut.log", run_tmpdir);
	int rc;
	sqlite3 *db = run_text_any(text, &rc, log);
	CU_ASSERT_EQUAL(rc, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CHECK_TEXT(db, "SELECT status FROM run", "stalled");
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NULL AND "
			       "(src = 'host0' OR dst = 'host0')"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE src = 'host1' AND end_ps IS NOT NULL"), 1);
	/* Both unfinished flows lost frames to the failure: host0's on its
	 * dead link, host6's at leaf0 once routing had no way to host0. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(DISTINCT flow_id) FROM failure_flow"), 2);
	char *err = run_slurp(log);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ "stalled", "flow 1 host0 -> host4",
							  "flow 3 host6 -> host0", NULL }));
	free(err);
	sqlite3_close(db);
}

/* A fat-tree aggregation switch fails for good at 10 us, mid-permutation:
 * every flow still completes over the other aggregation switch of its
 * pod, and the dead switch sends nothing after the failure. */
static void test_switch_fails(void)
{
	char text[4096];
	snprintf(text, sizeof text, "[simulation]\nseed = 3\n[topology]\ntype = fat_tree\nk = 4\n"
		 "link_rate = 100Gbps\nlink_delay = 1us\n[nic]\nmtu = 1000\nrto = 100us\n"
		 "[failure]\nswitch = agg0 10us\ndetection = 20us\n"
		 "[traffic.p]\ntype = permutation\nsize = 500KB\nstart = 0us\n");
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CHECK_TEXT(db, "SELECT status FROM run", "complete");
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow"), 16);
	CHECK_TEXT(db, "SELECT kind || ' ' || node_a || ' ' || coalesce(port_a, 'null') FROM failure",
		   "switch agg0 null");
	CU_ASSERT(q_int(db, "SELECT frames_lost FROM failure") > 0);
	/* agg0's 4 ports sent at most 10 us of line rate each. */
	CU_ASSERT(q_int(db, "SELECT max(tx_bytes) FROM port_stats WHERE node = 'agg0'") <=
		  10000000LL / 80 + PKT_WIRE_B);
	CU_ASSERT_EQUAL(q_int(db, "SELECT packets_sent - packets_delivered - packets_dropped FROM run"), 0);
	sqlite3_close(db);
}

/* Random failures (every link class) twice under one seed: identical
 * tables; another seed draws another schedule. */
static void test_random_deterministic(void)
{
	char text[4096];
	const char *fmt = "[simulation]\nseed = %d\n%s[failure]\nmtbf = fabric 100us\nmttr = fabric 20us\n"
			  "mtbf = host 400us\nmttr = host 10us\nhorizon = 300us\ndetection = 5us\n"
			  "[traffic.f]\ntype = permutation\nsize = 300KB\nstart = 0us\n";
	snprintf(text, sizeof text, fmt, 7, leaf_spine);
	sqlite3 *db = run_twice_same(text, "SELECT * FROM failure ORDER BY failure_id; "
				     "SELECT * FROM failure_flow ORDER BY failure_id, flow_id", 100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	char *a = run_dump(db, "SELECT * FROM flow ORDER BY flow_id");
	char *f7 = run_dump(db, "SELECT down_ps, up_ps FROM failure ORDER BY failure_id");
	/* 24 links, 16 fabric ones failing every ~100 us over 300 us: tens of failures. */
	long long n = q_int(db, "SELECT count(*) FROM failure WHERE random = 1");
	CU_ASSERT(n >= 10);
	CU_ASSERT(q_int(db, "SELECT count(*) FROM failure WHERE down_ps >= 300000000 OR up_ps <= down_ps") == 0);
	sqlite3_close(db);
	sqlite3 *b = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	char *bb = run_dump(b, "SELECT * FROM flow ORDER BY flow_id");
	CU_ASSERT_STRING_EQUAL(a, bb);
	sqlite3_close(b);
	snprintf(text, sizeof text, fmt, 8, leaf_spine);
	sqlite3 *c = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	char *f8 = run_dump(c, "SELECT down_ps, up_ps FROM failure ORDER BY failure_id");
	CU_ASSERT_STRING_NOT_EQUAL(f7, f8);
	sqlite3_close(c);
	free(a);
	free(bb);
	free(f7);
	free(f8);
}

/* A training job under random link failures (go-back-N): a reroute lets
 * an ACK overtake an earlier NAK, which then names a PSN below what is
 * acknowledged. It asks for nothing (qp.c); these three schedules once
 * made the sender look for a message it had already finished (an
 * internal error). Every run completes, every message ends once. */
static void test_job_under_failures(void)
{
	char text[4096];
	static const int seeds[] = { 1, 3, 4 };
	for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
		int seed = seeds[i];
		snprintf(text, sizeof text,
			 "[simulation]\nseed = %d\nprogress = off\n"
			 "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\ngpus_per_host = 2\n"
			 "[nic]\nrto = 20us\n"
			 "[failure]\nmtbf = fabric 150us\nmttr = fabric 20us\nhorizon = 2ms\ndetection = 2us\n"
			 "[job.gpt]\nmodel = custom\nlayers = 4\nhidden = 512\nheads = 4\nvocab = 1000\nseq_len = 256\n"
			 "global_batch = 16\ntp = 2\npp = 2\ndp = 8\niterations = 1\n", seed);
		sqlite3 *db = run_text(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(db);
		CHECK_TEXT(db, "SELECT status FROM run", "complete");
		CU_ASSERT(q_int(db, "SELECT sum(frames_lost) FROM failure") > 0);
		CU_ASSERT(q_int(db, "SELECT sum(retx_packets) FROM flow") > 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), 0);
		CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM iteration WHERE end_ps IS NULL OR end_ps < 0"), 0);
		sqlite3_close(db);
	}
}

/* Bad [failure] lines: located errors, exit 2, no database. */
static void test_errors(void)
{
	char text[4096];
	struct { const char *lines, *want1, *want2; } cases[] = {
		{ "link = leaf0 spine9 1us", "unknown node 'spine9'", "did you mean 'spine0'" },
		{ "link = laef0 spine1 1us", "unknown node 'laef0'", "did you mean 'leaf0'" },
		{ "link = leaf0 leaf1 1us", "leaf0 and leaf1 are not linked", "adjacent" },
		{ "link = leaf0 spine1 5us 5us", "UP_AT later than DOWN_AT", "[failure] link" },
		{ "link = leaf0 spine1 5us 2us", "UP_AT later than DOWN_AT", ".ini:12: [failure] link = 'leaf0 spine1 5us 2us'" },
		{ "link = leaf0 spine1 5", "DOWN_AT", "unit" },
		{ "link = leaf0 spine1", "NODE[:PORT] NODE[:PORT] DOWN_AT", "such as" },
		{ "switch = host0 1us", "'host0' is a host", "expected a switch" },
		{ "switch = spine7 1us", "unknown node 'spine7'", "did you mean" },
		{ "mtbf = fabric 1ms", "mttr", "fabric" },
		{ "mtbf = core 1ms\nmttr = core 1ms", "CLASS host", "fabric" },
		{ "mtbf = host 1ms\nmttr = host 1us", "horizon", "[simulation] stop" },
		{ "detection = -1us", "detection", "non-negative" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, "%s[failure]\n%s\n[traffic.f]\ntype = flows\n"
			 "flow = host0 host4 1KB 0us\n", leaf_spine, cases[i].lines);
		run_expect_error(text, cases[i].want1, cases[i].want2);
		if (!msg_has_all(run_err, (const char *const[]){ cases[i].want1, cases[i].want2, NULL }))
			printf("\n  case %zu: %s\n", i, run_err);
	}
}

/* --check names the schedule, one line per failure, as resolved. */
static void test_check_prints_schedule(void)
{
	char text[2048], ini[256], out[256];
	snprintf(text, sizeof text, "%s[failure]\nlink = spine2 leaf1 10us 2ms\nswitch = spine3 1ms\n"
		 "detection = 5us\n[traffic.f]\ntype = flows\nflow = host0 host4 1KB 0us\n", leaf_spine);
	snprintf(ini, sizeof ini, "%s/check.ini", run_tmpdir);
	snprintf(out, sizeof out, "%s/check.out", run_tmpdir);
	FILE *f = fopen(ini, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	struct config cfg;
	char *err = NULL;
	CU_ASSERT_FATAL(scenario_load(&cfg, ini, NULL, 0, &err) == 0);
	struct run_opts o = { .scenario = ini, .check = true };
	struct run_report rep;
	fflush(stdout);
	int saved = fd_to(STDOUT_FILENO, out);
	int rc = run_scenario(&cfg, &o, &rep, &err);
	fflush(stdout);
	fd_restore(STDOUT_FILENO, saved);
	CU_ASSERT_EQUAL(rc, 0);
	free(err);
	run_report_free(&rep);
	config_free(&cfg);
	char *got = run_slurp(out);
	/* spine2's port 1 faces leaf1 (a spine's ports: leaf0, leaf1); leaf1's
	 * uplinks follow its 4 host ports. */
	CU_ASSERT(msg_has_all(got, (const char *const[]){ "failures: 2, routing reacts 5us after each change",
		"failure 1: link spine2:p1 - leaf1:p6 down at 10us, up at 2ms",
		"failure 2: switch spine3 (2 links) down at 1ms, down for good", NULL }));
	free(got);
}

/* Without [failure], nothing of it shows: no failure rows, route codes on. */
static void test_no_failures_no_rows(void)
{
	char text[2048];
	snprintf(text, sizeof text, "%s[traffic.f]\ntype = flows\nflow = host0 host4 100KB 0us\n", leaf_spine);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM failure"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM failure_flow"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT packets_dropped FROM run"), 0);
	sqlite3_close(db);
}

TEST_MAIN("failure",
	  { "one of 4 paths fails: one timeout", test_one_path_one_timeout },
	  { "one of 4 paths fails: two timeouts", test_one_path_two_timeouts },
	  { "single-homed host cut off", test_host_cut_off },
	  { "switch failure reroutes", test_switch_fails },
	  { "random failures deterministic", test_random_deterministic },
	  { "a job under random failures: stale NAKs ask for nothing", test_job_under_failures },
	  { "errors located", test_errors },
	  { "--check prints the schedule", test_check_prints_schedule },
	  { "no failures, no rows", test_no_failures_no_rows })
