/*
 * test_watchdog.c — PFC deadlock and stall detection (models/run/watchdog.c)
 * and the ring topology it is shown on (models/topo/topo_ring.c).
 *
 * Whole runs through run_scenario, as `sim` does. Expected values come from
 * the topology's numbering (topo_ring.c) and the watchdog's period, never
 * from an earlier run's output.
 */
#include <unistd.h>
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"
#include "topo_fixture.h"
#include "topology.h"

/* A ring of 5 switches, one host each; host i writes to host i+2 (two
 * hops clockwise, the unique shortest path) with PFC and no congestion
 * control. `flows` of the 5 are posted (5 closes the dependency cycle). */
static void ring_text(char *buf, size_t cap, int flows, const char *size, const char *extra)
{
	int n = snprintf(buf, cap,
			 "[simulation]\nwatchdog = 100us\n%s\n"
			 "[topology]\ntype = ring\nswitches = 5\nhosts_per_switch = 1\n"
			 "link_rate = 100Gbps\nlink_delay = 1us\n"
			 "[switch]\nbuffer = 1MB\npfc = on\necn = off\n"
			 "[nic]\nmtu = 1000\ncc = none\n"
			 "[traffic.cw]\ntype = flows\n", extra);
	for (int i = 0; i < flows; i++)
		n += snprintf(buf + n, cap - (size_t)n, "flow = host%d host%d %s 0us\n", i, (i + 2) % 5, size);
}

/* Every row of a query, every column as text, in one malloc'd string. */
static char *q_all(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap);
	out[0] = 0;
	CU_ASSERT_FATAL(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);
			size_t len = strlen(v ? v : "NULL") + 2;
			if (n + len + 1 > cap) {
				cap = 2 * (n + len + 1);
				out = realloc(out, cap);
			}
			n += (size_t)sprintf(out + n, "%s%c", v ? v : "NULL", c + 1 < sqlite3_column_count(st) ? '|' : '\n');
		}
	}
	sqlite3_finalize(st);
	return out;
}

/* The ring's numbering (topo_ring.c): hosts first, then the ring links
 * sw0-sw1, ..., sw(S-1)-sw0, so sw0 reaches sw1 on port H and every other
 * switch reaches its clockwise neighbour on port H+1. */
static void test_ring_numbering(void)
{
	struct topo t;
	CU_ASSERT_FATAL(topo_of("type = ring\nswitches = 5\nhosts_per_switch = 2\n"
				"link_rate = 100Gbps\nlink_delay = 1us", &t) == 0);
	CU_ASSERT_EQUAL(t.n_hosts, 10);
	CU_ASSERT_EQUAL(t.n_nodes, 15);
	CU_ASSERT_EQUAL(t.n_links, 15);   /* 10 host links + 5 ring links */
	for (int i = 0; i < 5; i++) {
		int sw = 10 + i, cw = i == 0 ? 2 : 3, ccw = i == 0 ? 3 : 2;
		char name[16];
		snprintf(name, sizeof name, "sw%d", i);
		CU_ASSERT_STRING_EQUAL(t.nodes[sw].name, name);
		CU_ASSERT_EQUAL(topo_n_ports(&t, sw), 4);
		CU_ASSERT_EQUAL(t.ports[t.port_off[sw] + 0].peer, 2 * i);
		CU_ASSERT_EQUAL(t.ports[t.port_off[sw] + 1].peer, 2 * i + 1);
		CU_ASSERT_EQUAL(t.ports[t.port_off[sw] + cw].peer, 10 + (i + 1) % 5);
		CU_ASSERT_EQUAL(t.ports[t.port_off[sw] + ccw].peer, 10 + (i + 4) % 5);
	}
	topology_free(&t);
	/* Fewer than 3 switches: refused by the loader, before the builder. */
	topo_expect_load_error("type = ring\nswitches = 2\nhosts_per_switch = 2",
			       "topo.ini:3: [topology] switches = '2': expected an integer >= 3");
	/* What the loader cannot know: a switch's ports (its hosts and two
	 * ring links) must fit the limit. */
	topo_expect_build_error("type = ring\nswitches = 3\nhosts_per_switch = 65534",
				"[topology] hosts_per_switch = 65534: a switch would have more than 65535 ports");
}

/* The classic cyclic buffer dependency: found, named clockwise, stopped. */
static void test_deadlock_detected(void)
{
	static char text[4096];
	ring_text(text, sizeof text, 5, "10MB", "");
	char log[300];
	snprintf(log, sizeof log, "%s/deadlock.err", run_tmpdir);
	int rc;
	sqlite3 *db = run_text_any(text, &rc, log);
	CU_ASSERT_EQUAL(rc, EXIT_STALLED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CHECK_TEXT(db, "SELECT status FROM run", "deadlock");
	/* The dependency closes within the first period (a 1 MB buffer fills in
	 * tens of µs at 100 Gb/s): the tick at 100 µs still sees deliveries made
	 * before, the one at 200 µs a silent period and the cycle. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT sim_end_ps FROM run"), 2 * 100000000LL);
	/* One cycle: each switch's clockwise port, at the NIC's priority 3. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM deadlock"), 5);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(DISTINCT cycle) FROM deadlock"), 1);
	char want[256] = "", row[64];
	for (int i = 0; i < 5; i++) {
		snprintf(row, sizeof row, "%d|sw%d|%d|3\n", i, i, i == 0 ? 1 : 2);
		strcat(want, row);
	}
	char *got = q_all(db, "SELECT position, node, port, priority FROM deadlock ORDER BY position");
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	/* No flow finished; every row is there with NULL ends. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), 5);
	/* Conservation: what was sent and not delivered is still in the ring. */
	CU_ASSERT(q_int(db, "SELECT packets_sent - packets_delivered - packets_dropped FROM run") > 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT packets_dropped FROM run"), 0);
	sqlite3_close(db);
	char *err = run_slurp(log);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "PFC deadlock at 200.000 us"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "sw0:p1 (prio 3) -> sw1:p2 (prio 3) -> sw2:p2 (prio 3) -> "
					   "sw3:p2 (prio 3) -> sw4:p2 (prio 3) -> sw0:p1"));
	free(err);
}

/* The shipped scenario, as a user runs it: the default 1 ms watchdog finds
 * the cycle at its second tick. */
static void test_shipped_scenario(void)
{
	struct config cfg;
	char *err = NULL;
	char db[256];
	snprintf(db, sizeof db, "%s/shipped.db", run_tmpdir);
	CU_ASSERT_FATAL(scenario_load(&cfg, ROCESIM_SRCDATADIR "/../scenarios/pfc_deadlock.ini", NULL, 0, &err) == 0);
	struct run_opts o = { .scenario = cfg.path, .output = db };
	struct run_report rep;
	int saved = fd_to(STDERR_FILENO, "/dev/null");
	int rc = run_scenario(&cfg, &o, &rep, &err);
	fd_restore(STDERR_FILENO, saved);
	CU_ASSERT_EQUAL(rc, EXIT_STALLED);
	CU_ASSERT_STRING_EQUAL(rep.status, "deadlock");
	CU_ASSERT_EQUAL(rep.sim_end_ps, 2 * scenario_sim(&cfg)->watchdog);
	CU_ASSERT_EQUAL(rep.packets_sent, rep.packets_delivered + rep.packets_dropped + rep.packets_in_network);
	free(err);
	run_report_free(&rep);
	config_free(&cfg);
	sqlite3 *h = db_open(db);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM deadlock"), 5);
	CHECK_TEXT(h, "SELECT status FROM run", "deadlock");
	sqlite3_close(h);
}

/* Four of the five flows: the same congestion and PFC pauses, but sw0's
 * ingress from sw4 holds bytes for host0 only, which always drain, so the
 * chain of pauses has an end. Not flagged; every flow finishes. */
static void test_congested_not_flagged(void)
{
	static char text[4096];
	ring_text(text, sizeof text, 4, "1MB", "");
	int rc;
	sqlite3 *db = run_text_any(text, &rc, NULL);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CHECK_TEXT(db, "SELECT status FROM run", "complete");
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 4);
	CU_ASSERT(q_int(db, "SELECT count(*) FROM pfc_pause WHERE node LIKE 'sw%'") > 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM deadlock"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT packets_sent - packets_delivered - packets_dropped FROM run"), 0);
	sqlite3_close(db);
}

/* A receiver that drains one 1 KB frame per ~87 ms ([nic] rx_rate) keeps
 * its ToR paused: no cycle (a host never forwards), nothing delivered for
 * longer than the stall window max(watchdog, 2 x rto) = 2 ms. */
static void test_stall_slow_receiver(void)
{
	const char *text =
		"[simulation]\nwatchdog = 100us\n"
		"[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[nic]\nmtu = 1000\ncc = none\nrx_rate = 100Kbps\n"
		"[traffic.f]\ntype = flows\nflow = host0 host1 1MB 0us\n";
	char log[300];
	snprintf(log, sizeof log, "%s/stall.err", run_tmpdir);
	int rc;
	sqlite3 *db = run_text_any(text, &rc, log);
	CU_ASSERT_EQUAL(rc, EXIT_STALLED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CHECK_TEXT(db, "SELECT status FROM run", "stalled");
	long long end = q_int(db, "SELECT sim_end_ps FROM run");
	CU_ASSERT_EQUAL(end % 100000000LL, 0);        /* a tick */
	/* The first frame needs ~87 ms at the receiver, so nothing is ever
	 * delivered: silent since the start, stalled at the first tick that
	 * closes the window. */
	CU_ASSERT_EQUAL(end, 2000000000LL);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM deadlock"), 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), 1);
	sqlite3_close(db);
	char *err = run_slurp(log);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "stalled at"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "flow 1 host0 -> host1, 1000000 bytes"));
	/* The switch port toward host1 holds the frames the receiver cannot take. */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "port sw0:p1:"));
	free(err);
}

/* The tick changes no model state: a lossy incast (drops and timeouts)
 * writes the same flow and port rows whether the watchdog ticks every
 * 10 µs or never within the run. */
static void test_tables_identical(void)
{
	const char *base =
		"[topology]\ntype = star\nhosts = 9\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[switch]\nbuffer = 300KB\npfc = off\necn = off\n"
		"[nic]\nmtu = 1000\ncc = none\n"
		"[traffic.i]\ntype = incast\nsenders = host0 host1 host2 host3 host4 host5 host6 host7\n"
		"receiver = host8\nsize = 500KB\n";
	char text[2048];
	char *tables[2];
	const char *periods[2] = { "10us", "1000s" };
	for (int k = 0; k < 2; k++) {
		snprintf(text, sizeof text, "[simulation]\nwatchdog = %s\n%s", periods[k], base);
		int rc;
		sqlite3 *db = run_text_any(text, &rc, NULL);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(db);
		CHECK_TEXT(db, "SELECT status FROM run", "complete");
		CU_ASSERT(q_int(db, "SELECT packets_dropped FROM run") > 0);  /* it did recover from losses */
		char *f = q_all(db, "SELECT * FROM flow ORDER BY flow_id");
		char *p = q_all(db, "SELECT * FROM port_stats ORDER BY node, port");
		tables[k] = malloc(strlen(f) + strlen(p) + 1);
		strcpy(tables[k], f);
		strcat(tables[k], p);
		free(f);
		free(p);
		sqlite3_close(db);
	}
	CU_ASSERT_STRING_EQUAL(tables[0], tables[1]);
	free(tables[0]);
	free(tables[1]);
}

TEST_MAIN("watchdog",
	  { "ring numbering", test_ring_numbering },
	  { "deadlock detected and named", test_deadlock_detected },
	  { "pfc_deadlock.ini", test_shipped_scenario },
	  { "congested ring not flagged", test_congested_not_flagged },
	  { "slow receiver stalls", test_stall_slow_receiver },
	  { "flow tables identical", test_tables_identical })
