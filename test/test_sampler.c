/*
 * test_sampler.c — the time series and flow paths of [output]
 * (models/observe/sampler.c, flow_path.c) in whole runs, checked against physics:
 * a flow at line rate fills each link_sample interval with interval × rate
 * of wire time; an N → 1 incast grows the egress queue at (N − 1) × rate;
 * DCQCN's first decrease halves the rate (α = 1); fat-tree paths have 2, 4
 * or 6 hops and are the links that carried the flow's bytes; and a run with
 * every series on writes the same flow table, run row and pause intervals
 * as the run without them.
 */
#include <math.h>
#include <stdarg.h>
#include "log.h"
#include "packet.h"
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

#define RATE_BPS 100e9
/* A 1000 B payload RDMA WRITE middle frame and its wire time (packet.h,
 * docs/protocol.md "Frames on the wire": headers 58 B + FCS 4 B, preamble and IFG 20 B). */
#define FRAME_B (1000 + PKT_ROCE_OVERHEAD_B)
#define WIRE_B (FRAME_B + PKT_WIRE_EXTRA_B)

static const char *STAR = "[simulation]\nprogress = off\n"
			  "[topology]\ntype = star\nlink_rate = 100Gbps\nlink_delay = 1us\n";
#define TOPO4 "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
static const char *FAT4 = "[simulation]\nprogress = off\n" TOPO4;

static sqlite3 *run_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static sqlite3 *run_fmt(const char *fmt, ...)
{
	static char text[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return run_text(text);
}

/* Every row of a query, as text (columns '|'-separated, rows '\n'). */
static char *rows_text(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap);
	out[0] = 0;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(h));
		CU_FAIL("query failed");
		return out;
	}
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *v = sqlite3_column_text(st, c);
			size_t len = strlen(v ? (const char *)v : "NULL") + 2;
			if (n + len >= cap) {
				cap = 2 * (n + len);
				out = realloc(out, cap);
			}
			n += (size_t)snprintf(out + n, cap - n, "%s%c", v ? (const char *)v : "NULL",
					      c + 1 < sqlite3_column_count(st) ? '|' : '\n');
		}
	sqlite3_finalize(st);
	return out;
}

/* One flow of 2 MB alone at line rate (cc = none): host0's port sends
 * back to back, so every 10 us interval it is busy all through carries
 * 10 us × 100 Gb/s / 8 of wire bytes, FRAME_B / WIRE_B of them frame bytes,
 * give or take the one frame that straddles each interval boundary. The
 * intervals add up to port_stats.tx_bytes, and the switch port toward
 * host1 carries the same series one link later. */
static void test_link_sample_line_rate(void)
{
	sqlite3 *h = run_fmt("%shosts = 2\n[nic]\nmtu = 1000\ncc = none\n[output]\n"
			     "link_sample_interval = 10us\n[traffic.a]\ntype = flows\n"
			     "flow = host0 host1 2MB 0us\n", STAR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	double want = 10e-6 * RATE_BPS / 8 * FRAME_B / WIRE_B;
	/* 2000 frames of 1082 wire bytes: 173.1 us; intervals ending before
	 * 170 us are full. */
	long long full = q_int(h, "SELECT count(*) FROM link_sample WHERE node = 'host0' AND t_ps <= 170000000");
	CU_ASSERT_EQUAL(full, 17);
	double lo = q_real(h, "SELECT min(tx_bytes) FROM link_sample WHERE node = 'host0' AND t_ps <= 170000000");
	double hi = q_real(h, "SELECT max(tx_bytes) FROM link_sample WHERE node = 'host0' AND t_ps <= 170000000");
	CU_ASSERT(fabs(lo - want) <= FRAME_B + PKT_RETH_B);
	CU_ASSERT(fabs(hi - want) <= FRAME_B + PKT_RETH_B);
	if (fabs(lo - want) > FRAME_B || fabs(hi - want) > FRAME_B + PKT_RETH_B)
		fprintf(stderr, "link samples %.0f..%.0f, want %.0f\n", lo, hi, want);
	/* Conservation: what the samples hold plus what was sent after the last
	 * one (at most its time to the run's end at line rate, plus the frame
	 * in progress) is port_stats' total. */
	for (int i = 0; i < 2; i++) {
		const char *where = i ? "node = 'sw0' AND port = 1" : "node = 'host0'";
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT (SELECT tx_bytes FROM port_stats WHERE %s) - "
			 "(SELECT sum(tx_bytes) FROM link_sample WHERE %s)", where, where);
		long long after = q_int(h, sql);
		double tail_s = (double)q_int(h, "SELECT sim_end_ps - (SELECT max(t_ps) FROM link_sample) FROM run") * 1e-12;
		CU_ASSERT(after >= 0 && after <= tail_s * RATE_BPS / 8 * FRAME_B / WIRE_B + FRAME_B);
	}
	double sw = q_real(h, "SELECT min(tx_bytes) FROM link_sample WHERE node = 'sw0' AND port = 1 "
			      "AND t_ps BETWEEN 20000000 AND 170000000");
	CU_ASSERT(fabs(sw - want) <= FRAME_B + PKT_RETH_B);
	/* Every port, every interval until the run's end, and none after it. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM link_sample"),
			4 * q_int(h, "SELECT count(DISTINCT t_ps) FROM link_sample"));
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM link_sample WHERE t_ps % 10000000 != 0"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT max(t_ps) FROM link_sample"),
			q_int(h, "SELECT sim_end_ps / 10000000 * 10000000 FROM run"));
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM queue_sample") +
			q_int(h, "SELECT count(*) FROM cc_sample") + q_int(h, "SELECT count(*) FROM flow_path"), 0);
	sqlite3_close(h);
}

/* N = 4 senders at line rate into one host: the switch's port toward it
 * receives 4 × rate and sends 1 × rate, so its queue grows by
 * 3 × 100 Gb/s × FRAME_B / WIRE_B of frame bytes per second (far below the
 * PFC threshold of a 32 MiB buffer in 20 us; ECN does not slow cc = none).
 * Each sample is off by at most one frame per sender and one leaving. */
static void test_queue_sample_incast(void)
{
	sqlite3 *h = run_fmt("%shosts = 5\n[nic]\nmtu = 1000\ncc = none\n[output]\n"
			     "queue_sample_interval = 1us\nsample_ports = sw0:4\n"
			     "[traffic.in]\ntype = incast\nsenders = host0 host1 host2 host3\n"
			     "receiver = host4\nsize = 1MB\n", STAR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	double q5 = q_real(h, "SELECT bytes FROM queue_sample WHERE t_ps = 5000000");
	double q25 = q_real(h, "SELECT bytes FROM queue_sample WHERE t_ps = 25000000");
	double want = 3 * RATE_BPS / 8 * 20e-6 * FRAME_B / WIRE_B;
	CU_ASSERT(fabs((q25 - q5) - want) <= 2 * 5 * (FRAME_B + PKT_RETH_B));
	if (fabs((q25 - q5) - want) > 2 * 5 * (FRAME_B + PKT_RETH_B))
		fprintf(stderr, "queue grew %.0f B in 20 us, want %.0f\n", q25 - q5, want);
	/* Only the port asked for; samples never exceed the port's true peak;
	 * the queue is empty once every flow is done. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM queue_sample WHERE node != 'sw0' OR port != 4"), 0);
	CU_ASSERT(q_int(h, "SELECT max(bytes) FROM queue_sample") <=
		  q_int(h, "SELECT max_queue_bytes FROM port_stats WHERE node = 'sw0' AND port = 4"));
	CU_ASSERT(q_int(h, "SELECT max(bytes) FROM queue_sample") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM link_sample"), 0);
	sqlite3_close(h);
}

/* Two DCQCN flows (HPCC's stage machine, [dcqcn] defaults) into one host:
 * before any CNP a QP sends at line rate with α = 1 (ns-3's initial α);
 * the first decrease after a CNP cuts RC × (1 − α/2) with α still ≈ 1, so
 * the rate falls to about half the line; α stays in [0, 1] and the rate
 * never exceeds the target. Rows exist only while the flow is unfinished. */
static void test_cc_sample_dcqcn(void)
{
	sqlite3 *h = run_fmt("%shosts = 3\n[nic]\nmtu = 1000\ncc = dcqcn\n[output]\n"
			     "cc_sample_interval = 2us\n[traffic.a]\ntype = flows\n"
			     "flow = host0 host2 4MB 0us\nflow = host1 host2 2MB 0us\n", STAR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT(q_int(h, "SELECT min(cnp_received) FROM flow") > 0);
	/* α is updated every t_alpha = 1 us: × (1 − g) without a CNP, more with
	 * one (docs/protocol.md "DCQCN", HPCC's UpdateAlphaMlx). So between samples 2 us
	 * apart it never falls below (1 − g)², g = 1/256, and once flow 2 is
	 * done and the queue drained it falls by exactly that. */
	const char *pairs = "FROM cc_sample a JOIN cc_sample b ON b.flow_id = a.flow_id "
			    "AND b.t_ps = a.t_ps + 2000000 WHERE ";
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT count(*) %s b.alpha < a.alpha * 0.9922027587890625 * (1 - 1e-12)", pairs);
	CU_ASSERT_EQUAL(q_int(h, sql), 0);
	snprintf(sql, sizeof sql, "SELECT count(*) %s abs(b.alpha - a.alpha * 0.9922027587890625) "
		 "<= 1e-12 * a.alpha", pairs);
	CU_ASSERT(q_int(h, sql) > 10);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT flow_id) FROM cc_sample"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample WHERE alpha < 0 OR alpha > 1 "
				 "OR rate_bps > target_bps OR target_bps > 100000000000"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample WHERE t_ps = 2000000 AND "
				 "rate_bps = 100000000000 AND alpha = 1"), 2);
	for (int f = 1; f <= 2; f++) {
		snprintf(sql, sizeof sql, "SELECT min(rate_bps) FROM cc_sample WHERE flow_id = %d", f);
		double lo = q_real(h, sql);
		CU_ASSERT(lo <= 0.55 * RATE_BPS);
		CU_ASSERT(lo >= 1e9);                /* [dcqcn] min_rate */
	}
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample c JOIN flow f USING (flow_id) "
				 "WHERE c.t_ps < f.start_ps OR c.t_ps >= f.end_ps"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample WHERE t_ps % 2000000 != 0"), 0);
	/* Samples are consecutive while a flow lasts: one row per flow per 2 us. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample WHERE flow_id = 1"),
			q_int(h, "SELECT (end_ps - 1) / 2000000 FROM flow WHERE flow_id = 1"));
	/* DCQCN keeps a target rate and alpha (its `have` bits), no window, RTT
	 * or utilisation: those columns are NULL on every row, the others never. */
	CU_ASSERT(q_int(h, "SELECT count(*) FROM cc_sample") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample WHERE target_bps IS NULL OR alpha IS NULL "
				 "OR window_b IS NOT NULL OR rtt_ps IS NOT NULL OR util IS NOT NULL"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample WHERE typeof(target_bps) != 'integer'"), 0);
	sqlite3_close(h);
}

/* cc = none has no rate state: cc_sample_interval writes nothing (and warns). */
static void test_cc_sample_none(void)
{
	sqlite3 *h = run_fmt("%shosts = 2\n[nic]\ncc = none\n[output]\ncc_sample_interval = 1us\n"
			     "[traffic.a]\ntype = flows\nflow = host0 host1 100KB 0us\n", STAR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM cc_sample"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 1);
	sqlite3_close(h);
}

/* Hop rows of a flow that cross existing links, hop after hop, ending at
 * the flow's destination: 0 when consistent. */
static const char *PATH_BROKEN =
	"WITH n AS (SELECT node_id, name FROM node), "
	"l AS (SELECT a.name AS x, port_a AS px, b.name AS y FROM link JOIN n a ON a.node_id = node_a "
	"JOIN n b ON b.node_id = node_b UNION ALL SELECT b.name, port_b, a.name FROM link "
	"JOIN n a ON a.node_id = node_a JOIN n b ON b.node_id = node_b), "
	"hops AS (SELECT p.flow_id, p.hop, p.node, p.port, coalesce((SELECT q.node FROM flow_path q "
	"WHERE q.flow_id = p.flow_id AND q.hop = p.hop + 1), f.dst) AS nxt FROM flow_path p "
	"JOIN flow f USING (flow_id)) "
	"SELECT count(*) FROM hops WHERE NOT EXISTS (SELECT 1 FROM l WHERE x = node AND px = port AND y = nxt)";

/* k = 4 fat-tree: a path is 2 links under one ToR, 4 within a pod, 6
 * across pods; hop 0 is the sender's port; consecutive hops are linked. */
static void test_flow_path_fat_tree(void)
{
	sqlite3 *h = run_fmt("%s[nic]\nmtu = 1000\ncc = none\n[output]\nflow_paths = on\n"
			     "[traffic.a]\ntype = flows\nflow = host0 host1 10KB 0us\n"
			     "flow = host0 host2 10KB 0us\nflow = host0 host15 10KB 0us\n"
			     "flow = host5 host9 10KB 0us\nflow = host12 host13 10KB 0us\n", FAT4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow_path WHERE flow_id = 1"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow_path WHERE flow_id = 2"), 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow_path WHERE flow_id = 3"), 6);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow_path WHERE flow_id = 4"), 6);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow_path WHERE flow_id = 5"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow_path p JOIN flow f USING (flow_id) "
				 "WHERE p.hop = 0 AND (p.node != f.src OR p.port != 0)"), 0);
	/* Up the tiers and down again: host, ToR, aggregation, core, aggregation, ToR. */
	CHECK_TEXT(h, "SELECT group_concat(tier, ' ') FROM (SELECT n.tier FROM flow_path p JOIN node n "
		      "ON n.name = p.node WHERE p.flow_id = 3 ORDER BY p.hop)", "0 1 2 3 2 1");
	CU_ASSERT_EQUAL(q_int(h, PATH_BROKEN), 0);
	sqlite3_close(h);
}

/* One-packet cross-pod messages 50 us apart on one QP (starting 10 us
 * into each interval), link samples every 50 us: in each interval the ports that sent at least a payload's worth of
 * bytes (ACKs return with 62 B frames) are exactly the links its packet
 * crossed, which must be its flow_path rows — the recomputed path is the
 * one taken. With ecmp = flow every message has the same path; spraying
 * hashes each message's PSN, so paths differ and each row set is that
 * message's (first and only) packet's. */
static void test_flow_path_is_taken(void)
{
	for (int spray = 0; spray < 2; spray++) {
		char flows[512];
		int off = 0;
		for (int k = 0; k < 8; k++)
			off += snprintf(flows + off, sizeof flows - (size_t)off, "flow = host3 host14 1000B %dus\n", 10 + 50 * k);
		sqlite3 *h = run_fmt("%s[switch]\necmp = %s\n[nic]\nmtu = 1000\ncc = none\nloss_recovery = %s\n"
				     "[output]\nflow_paths = on\nlink_sample_interval = 50us\n"
				     "[traffic.a]\ntype = flows\n%s", FAT4, spray ? "packet" : "flow",
				     spray ? "sr" : "gbn", flows);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow_path"), 8 * 6);
		CU_ASSERT_EQUAL(q_int(h, PATH_BROKEN), 0);
		for (int k = 0; k < 7; k++) {       /* the last ends after the last sample */
			char sql[256];
			snprintf(sql, sizeof sql, "SELECT node, port FROM link_sample WHERE t_ps = %lld "
				 "AND tx_bytes >= 1000 ORDER BY node, port", 50000000LL * (k + 1));
			char *busy = rows_text(h, sql);
			snprintf(sql, sizeof sql, "SELECT node, port FROM flow_path WHERE flow_id = %d "
				 "ORDER BY node, port", k + 1);
			char *path = rows_text(h, sql);
			CU_ASSERT_STRING_EQUAL(busy, path);
			free(busy);
			free(path);
		}
		long long paths = q_int(h, "SELECT count(DISTINCT p) FROM (SELECT group_concat(node || ':' || port) "
					   "AS p FROM flow_path GROUP BY flow_id)");
		CU_ASSERT(spray ? paths > 1 : paths == 1);
		sqlite3_close(h);
	}
}

/* Sampling must not change the run: the same scenario with every series at
 * 1 us, flow paths and a port list writes a byte-identical flow table, run
 * counters, port_stats and pause intervals. Once a loaded run stopped by
 * time (DCQCN, Poisson), once a run that completes and drains (PFC incast),
 * once a run with nothing to do (no sample may move its clock). */
static void test_on_off_identical(void)
{
	static const char *base[3] = {
		"[simulation]\nprogress = off\nstop = 300us\nseed = 7\n" TOPO4
		"[nic]\nmtu = 1000\ncc = dcqcn\n[traffic.ws]\ntype = poisson\nload = 0.6\ncdf = websearch\n",
		"[simulation]\nprogress = off\n" TOPO4 "[switch]\nbuffer = 1MB\n[nic]\nmtu = 1000\ncc = none\n"
		"[traffic.in]\ntype = incast\nsenders = host0 host2 host4 host6 host8 host10\n"
		"receiver = host15\nsize = 300KB\n",
		("[simulation]\nprogress = off\n" TOPO4),   /* nothing to do: stays at t = 0 */
	};
	static const char *tables[] = {
		"SELECT * FROM flow ORDER BY flow_id",
		"SELECT sim_end_ps, events, packets_sent, packets_delivered, packets_dropped, status FROM run",
		"SELECT * FROM port_stats ORDER BY node, port",
		"SELECT * FROM pfc_pause ORDER BY node, port, priority, start_ps",
	};
	for (int b = 0; b < 3; b++) {
		sqlite3 *off = run_fmt("%s", base[b]);
		sqlite3 *on = run_fmt("%s[output]\nqueue_sample_interval = 1us\nlink_sample_interval = 1us\n"
				      "cc_sample_interval = 1us\nflow_paths = on\nsample_ports = tor0 agg1:2 host15 tor0:1\n",
				      base[b]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(off);
		CU_ASSERT_PTR_NOT_NULL_FATAL(on);
		if (b < 2) {
			CU_ASSERT(q_int(on, "SELECT count(*) FROM flow") > 5);
			/* tor0's 4 ports (tor0:1 again adds nothing), agg1:2, host15:0 */
			CU_ASSERT_EQUAL(q_int(on, "SELECT count(DISTINCT node || ':' || port) FROM queue_sample"),
					4 + 1 + 1);
			CU_ASSERT_EQUAL(q_int(on, "SELECT count(*) FROM queue_sample"),
					6 * q_int(on, "SELECT count(DISTINCT t_ps) FROM queue_sample"));
		}
		if (b == 0) {
			CU_ASSERT(q_int(on, "SELECT count(*) FROM cc_sample") > 0);
		} else if (b == 1) {
			CU_ASSERT(q_int(on, "SELECT count(*) FROM pfc_pause") > 0);
		} else {
			CU_ASSERT_EQUAL(q_int(on, "SELECT count(*) FROM queue_sample"), 0);
		}
		for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
			char *a = rows_text(off, tables[t]), *c = rows_text(on, tables[t]);
			CU_ASSERT_STRING_EQUAL(a, c);
			if (strcmp(a, c))
				fprintf(stderr, "run %d: %s differs with sampling on\n", b, tables[t]);
			free(a);
			free(c);
		}
		sqlite3_close(off);
		sqlite3_close(on);
	}
}

/* A name not in the topology, or a port it does not have: a located error
 * (file:line, section, key), exit 2, and no database. The texts are those
 * of [pcap] taps (one parser, observe_ports.c; pcap.sh checks them there). */
static void test_sample_ports_errors(void)
{
	static const struct { const char *value, *says; } bad[] = {
		{ "tor0 nosuch", "'nosuch' is not a node of the topology with ports (expected node or node:port, "
				 "e.g. host0 or core3:0)" },
		{ "tor0:9", "'tor0:9': tor0 has ports 0 to 3" },
		{ "tor0:x", "'tor0:x': tor0 has ports 0 to 3" },
		{ "tor0:", "'tor0:': tor0 has ports 0 to 3" },
		{ "host0.gpu0", "'host0.gpu0' is not a node" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[1024], db[300];
		snprintf(text, sizeof text, "%s[output]\nqueue_sample_interval = 1us\nsample_ports = %s\n"
			 "[traffic.a]\ntype = flows\nflow = host0 host1 1KB 0us\n", FAT4, bad[i].value);
		snprintf(db, sizeof db, "%s/s%d.db", run_tmpdir, run_counter);
		int rc;
		sqlite3 *h = run_text_rc(text, &rc);
		CU_ASSERT_PTR_NULL(h);
		CU_ASSERT_EQUAL(rc, EXIT_INPUT);
		CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "[output] sample_ports"));
		CU_ASSERT_PTR_NOT_NULL(strstr(run_err, ".ini:"));
		CU_ASSERT_PTR_NOT_NULL(strstr(run_err, bad[i].says));
		if (!strstr(run_err, bad[i].says))
			fprintf(stderr, "got: %s\n", run_err);
		CU_ASSERT_NOT_EQUAL(access(db, F_OK), 0);
		if (h)
			sqlite3_close(h);
	}
}

TEST_MAIN("sampler",
	  { "link_sample of a line-rate flow", test_link_sample_line_rate },
	  { "queue_sample of an incast", test_queue_sample_incast },
	  { "cc_sample of DCQCN", test_cc_sample_dcqcn },
	  { "cc_sample with cc = none", test_cc_sample_none },
	  { "flow_path in a fat-tree", test_flow_path_fat_tree },
	  { "flow_path is the path taken", test_flow_path_is_taken },
	  { "sampling on/off: identical runs", test_on_off_identical },
	  { "sample_ports errors", test_sample_ports_errors })
