/*
 * test_hpcc.c — the HPCC ns-3 interop (models/topo/topo_hpcc.c,
 * traffic_hpcc.c, hpcc_fct.c) on small hand-written files:
 *
 *   topology: 6 HPCC nodes, switches 1 and 4 (so ids interleave), 4 hosts,
 *             per-link rates 25/100/400 Gb/s and delays 0.5/1/2 us written
 *             in both "1000ns" and "0.002ms" forms;
 *   flows:    5 flows, two on one pair (HPCC source ports 10000, 10001).
 *
 * Parsed fields are checked against the files; a whole run is checked
 * against closed forms of serialisation and propagation (frame = payload +
 * 58 B headers + 4 B FCS + 20 B preamble/IFG, RETH 16 B on the first; ACK
 * 66 + 20 B; store and forward) on idle paths, and its fct.txt against
 * HPCC's format (docs/protocol.md "Addresses and names": IPs 0x0b000001 + (id/256)<<16 + (id%256)<<8).
 * Hostile input: every prefix of the good files and byte mutations of them
 * must parse or fail with a located message, never crash or leak (ASan).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "topology.h"
#include "traffic.h"
#include "packet.h"
#include "run.h"
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

static const char topo_txt[] =
	"6 2 5\n"
	"1 4\n"
	"0 1 100Gbps 1000ns 0.000000\n"
	"2 1 100Gbps 0.002ms 0\n"
	"1 4 400Gbps 500ns 0\n"
	"3 4 100Gbps 1us 0\n"
	"4 5 25Gbps 1000ns 0.0\n";

/* Flow 1 (0 -> 2, 1000 B at 2 s) and flow 5 (2 -> 3, 1 B at 2.5 s) run
 * alone on their paths. */
static const char flow_txt[] =
	"5 \n"
	"0 2 3 100 1000 2.000000000\n"
	"0 2 3 100 3000 2.000010\n"
	"3 5 3 100 123456 2.0000105\n"
	"5 0 3 200 250000 2.000020000001\n"
	"2 3 3 100 1 2.5\n";

static void test_topology_rows(void)
{
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(hpcc_topology_parse("topo.txt", topo_txt, strlen(topo_txt), &t, &err), 0);
	CU_ASSERT_PTR_NULL(err);
	CU_ASSERT_EQUAL(t.n_nodes, 6);
	CU_ASSERT_EQUAL(t.n_hosts, 4);
	CU_ASSERT_EQUAL(t.nics_per_host, 1);
	/* Hosts keep HPCC order (0, 2, 3, 5), switches follow (1, 4). */
	static const char *names[] = { "host0", "host1", "host2", "host3", "sw0", "sw1" };
	static const int hid[] = { 0, 2, 3, 5, 1, 4 };
	for (int u = 0; u < 6; u++) {
		CU_ASSERT_STRING_EQUAL(t.nodes[u].name, names[u]);
		CU_ASSERT_EQUAL(t.hpcc_id[u], hid[u]);
		CU_ASSERT_EQUAL(t.nodes[u].kind, u < 4 ? NODE_HOST : NODE_SWITCH);
		CU_ASSERT_EQUAL(t.nodes[u].tier, u < 4 ? 0 : 1);
	}
	/* Links in file order, the host end first, the file's rate and delay. */
	static const struct { int a, b; uint64_t rate; simtime_t delay; } l[] = {
		{ 0, 4, 100000000000ull, 1000000 }, { 1, 4, 100000000000ull, 2000000 },
		{ 4, 5, 400000000000ull, 500000 }, { 2, 5, 100000000000ull, 1000000 },
		{ 3, 5, 25000000000ull, 1000000 },
	};
	CU_ASSERT_EQUAL_FATAL(t.n_links, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(t.links[i].a, l[i].a);
		CU_ASSERT_EQUAL(t.links[i].b, l[i].b);
		CU_ASSERT_EQUAL(t.links[i].rate_bps, l[i].rate);
		CU_ASSERT_EQUAL(t.links[i].delay_ps, l[i].delay);
	}
	/* Ports numbered: sw1 has links 2, 3, 4 in that order. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.port_off);
	CU_ASSERT_EQUAL(topo_n_ports(&t, 5), 3);
	CU_ASSERT_EQUAL(t.ports[t.port_off[5] + 2].peer, 3);
	topology_free(&t);
}

static void test_flow_rows(void)
{
	struct hpcc_flow *f;
	size_t n;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(hpcc_flows_parse("flow.txt", flow_txt, strlen(flow_txt), &f, &n, &err), 0);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	static const struct { int src, dst, pg; uint32_t dport, sport; uint64_t size; simtime_t start; int line; } e[] = {
		{ 0, 2, 3, 100, 10000, 1000, 2000000000000LL, 2 },
		{ 0, 2, 3, 100, 10001, 3000, 2000010000000LL, 3 },
		{ 3, 5, 3, 100, 10000, 123456, 2000010500000LL, 4 },
		{ 5, 0, 3, 200, 10000, 250000, 2000020000001LL, 5 },
		{ 2, 3, 3, 100, 10000, 1, 2500000000000LL, 6 },
	};
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(f[i].src, e[i].src);
		CU_ASSERT_EQUAL(f[i].dst, e[i].dst);
		CU_ASSERT_EQUAL(f[i].priority, e[i].pg);
		CU_ASSERT_EQUAL(f[i].dport, e[i].dport);
		CU_ASSERT_EQUAL(f[i].sport, e[i].sport);
		CU_ASSERT_EQUAL(f[i].size_b, e[i].size);
		CU_ASSERT_EQUAL(f[i].start_ps, e[i].start);
		CU_ASSERT_EQUAL(f[i].line, e[i].line);
	}
	free(f);
	/* The largest start accepted: 9223371.999999999999 s in ps, exactly. */
	const char *last = "1\n0 1 3 100 10 9223371.999999999999\n";
	CU_ASSERT_EQUAL_FATAL(hpcc_flows_parse("l.txt", last, strlen(last), &f, &n, &err), 0);
	CU_ASSERT_EQUAL(f[0].start_ps, 9223371999999999999LL);
	free(f);
	/* An empty list is valid. */
	CU_ASSERT_EQUAL(hpcc_flows_parse("e.txt", "0\n", 2, &f, &n, &err), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(f);
}

/* Bad input: -1, outputs empty, and a message starting "NAME:LINE: " that
 * contains `want`. */
static void expect_topo_error(const char *text, const char *want)
{
	struct topo t;
	char *err = NULL;
	int rc = hpcc_topology_parse("bad.txt", text, strlen(text), &t, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_PTR_NULL(t.nodes);
	CU_ASSERT_PTR_NULL(t.hpcc_id);
	if (!err || !strstr(err, want) || strncmp(err, "bad.txt:", 8) != 0) {
		printf("\ntopology %s: got '%s', wanted '%s'\n", text, err ? err : "(none)", want);
		CU_FAIL("message");
	}
	free(err);
	if (rc == 0)
		topology_free(&t);
}

static void expect_flow_error(const char *text, const char *want)
{
	struct hpcc_flow *f = (void *)1;
	size_t n = 99;
	char *err = NULL;
	int rc = hpcc_flows_parse("bad.txt", text, strlen(text), &f, &n, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_PTR_NULL(f);
	CU_ASSERT_EQUAL(n, 0);
	if (!err || !strstr(err, want) || strncmp(err, "bad.txt:", 8) != 0) {
		printf("\nflows %s: got '%s', wanted '%s'\n", text, err ? err : "(none)", want);
		CU_FAIL("message");
	}
	free(err);
	if (rc == 0)
		free(f);
}

static void test_errors_located(void)
{
	expect_topo_error("", "bad.txt:1: the file ends where the node count was expected");
	expect_topo_error("3 1 2\n2\n0 2 1Gbps 1us 0\n", "bad.txt:3: the file ends where a link's first node id");
	expect_topo_error("3 1 2\n2\n0 2 1Gbps 1us 0\n1 9 1Gbps 1us 0\n", "bad.txt:4: '9': a link's second node id must be at most 2");
	expect_topo_error("3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0.01\n", "bad.txt:4: link error rate '0.01': expected 0");
	expect_topo_error("3 1 2\n2\n0 2 fast 1us 0\n1 2 1Gbps 1us 0\n", "bad.txt:3: link rate 'fast'");
	expect_topo_error("3 1 2\n2\n0 2 1Gbps 1 0\n1 2 1Gbps 1us 0\n", "bad.txt:3: link delay '1'");
	expect_topo_error("3 1 2\n2\n0 2 1Gbps 1us 0\n0 2 1Gbps 1us 0\n", "bad.txt:4: host 0 (host0) has a second link");
	expect_topo_error("3 1 2\n2\n0 1 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "bad.txt:3: link between hosts 0 and 1");
	expect_topo_error("3 1 1\n2\n0 2 1Gbps 1us 0\n\n", "host 1 (host1) has no link");
	expect_topo_error("3 2 2\n2 2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "bad.txt:2: switch id 2 is listed twice");
	expect_topo_error("3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\nextra\n", "bad.txt:5: unexpected 'extra' after the last link");
	expect_topo_error("2 2 1\n0 1\n0 1 1Gbps 1us 0\n", "all switches: expected at least one host");
	expect_topo_error("9000000 1 9999999999\n", "bad.txt:1: '9999999999': the link count must be at most");
	expect_topo_error("9000000 1 99999999\n", "more than the 19 bytes of the file can hold");
	expect_topo_error("16777216 1 100\n", "more than the");
	expect_topo_error("3 1 2\n2\n0 2 1Gbps 1us\x01 0\n", "bad.txt:3: control byte 0x01");
	expect_topo_error("3 1 2\n-2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "bad.txt:2: '-2': expected a switch id");

	expect_flow_error("", "bad.txt:1: the file ends where the flow count");
	expect_flow_error("2\n0 1 3 100 10 1.0\n", "bad.txt:2: the file ends where a flow's source node id");
	expect_flow_error("1\n0 0 3 100 10 1.0\n", "bad.txt:2: flow from node 0 to itself");
	expect_flow_error("1\n0 1 3 100 0 1.0\n", "bad.txt:2: flow of 0 bytes");
	expect_flow_error("2\n0 1 3 100 10 1.5\n1 0 3 100 10 1.25\n", "bad.txt:3: start time 1.25 is before the previous");
	expect_flow_error("1\n0 1 3 100 10 1.0000000000001\n", "bad.txt:2: start time '1.0000000000001'");
	expect_flow_error("1\n0 1 3 100 10 1e-3\n", "start time '1e-3'");
	/* The largest start that fits int64 ps, and one second more. */
	expect_flow_error("1\n0 1 3 100 10 9223372.999999999999\n", "start time '9223372.999999999999'");
	expect_flow_error("1\n0 1 3 70000 10 1\n", "destination port must be at most 65535");
	expect_flow_error("1\n0 1 3 100 10 1\n0 1\n", "bad.txt:3: unexpected '0' after the last flow");
	expect_flow_error("99999999\n0 1 3 100 10 1\n", "bad.txt:1: 99999999 flows declared, more than the 24 bytes");
}

/* Every prefix of the good files, and every single byte replaced by a few
 * troublesome values: 0 or -1, a message exactly when -1, nothing leaked. */
static void test_hostile_prefixes_and_bytes(void)
{
	static const char subst[] = { '\0', ' ', '\n', '9', '.', '-', 'x', '\x7f' };
	const char *files[2] = { topo_txt, flow_txt };
	for (int which = 0; which < 2; which++) {
		size_t len = strlen(files[which]);
		char *buf = malloc(len);
		for (size_t cut = 0; cut <= len; cut++)
			for (size_t s = 0; s <= sizeof subst; s++) {
				memcpy(buf, files[which], len);
				size_t n = cut;
				if (s < sizeof subst) {
					if (cut == len)
						continue;
					buf[cut] = subst[s];
					n = len;
				}
				char *err = NULL;
				int rc;
				if (which == 0) {
					struct topo t;
					rc = hpcc_topology_parse("h.txt", buf, n, &t, &err);
					if (rc == 0)
						topology_free(&t);
				} else {
					struct hpcc_flow *f;
					size_t nf;
					rc = hpcc_flows_parse("h.txt", buf, n, &f, &nf, &err);
					if (rc == 0)
						free(f);
				}
				CU_ASSERT(rc == 0 || rc == -1);
				CU_ASSERT((rc == -1) == (err != NULL));
				if (err)
					CU_ASSERT(strncmp(err, "h.txt:", 6) == 0);
				free(err);
			}
		free(buf);
	}
}

/* Serialisation of b wire bytes at rate (ps, rounded up as the port does). */
static int64_t ser(int64_t b, uint64_t rate)
{
	return (int64_t)(((uint64_t)b * 8 * 1000000000000ull + rate - 1) / rate);
}

static const char run_ini[] =
	"[topology]\ntype = hpcc\nfile = topo.txt\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[nic]\nmtu = 1000\n"
	"[traffic.h]\ntype = hpcc\nfile = flow.txt\n"
	"[output]\nhpcc_fct = %s/fct%d.txt\n";

static void test_run_physics_and_fct(void)
{
	file_in(run_tmpdir, "topo.txt", topo_txt);
	file_in(run_tmpdir, "flow.txt", flow_txt);
	char ini[600];
	snprintf(ini, sizeof ini, run_ini, run_tmpdir, 1);
	sqlite3 *h = run_text(ini);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 5);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM node WHERE kind != 'gpu'"), 6);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM node WHERE name = 'sw1' AND kind = 'switch'"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT rate_bps FROM link l JOIN node n ON n.node_id = l.node_a "
				 "AND n.run_id = l.run_id WHERE n.name = 'host3'"), 25000000000LL);
	CU_ASSERT_EQUAL(q_int(h, "SELECT delay_ps FROM link l JOIN node n ON n.node_id = l.node_a "
				 "AND n.run_id = l.run_id WHERE n.name = 'host1'"), 2000000);

	/* Flow 1: host0 -> sw0 -> host1 (HPCC 0 -> 2), 1000 B in one frame,
	 * 100 Gb/s links of 1 and 2 us, alone: frame and ACK each serialised
	 * twice and propagated over both links. */
	const uint64_t g100 = 100000000000ull, g400 = 400000000000ull;
	int64_t data1 = 1000 + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B + PKT_RETH_B;
	int64_t ack = PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B;
	int64_t fct1 = 2 * ser(data1, g100) + 2 * ser(ack, g100) + 2 * (1000000 + 2000000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT fct_ps FROM flow WHERE flow_id = 1"), fct1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT start_ps FROM flow WHERE flow_id = 1"), 2000000000000LL);
	/* Flow 5: host1 -> sw0 -> sw1 -> host2 (HPCC 2 -> 3), 1 B: 100, 400 and
	 * 100 Gb/s hops of 2, 0.5 and 1 us. */
	int64_t data5 = 1 + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B + PKT_RETH_B;
	int64_t fct5 = 2 * ser(data5, g100) + ser(data5, g400) + 2 * ser(ack, g100) + ser(ack, g400) +
		       2 * (2000000 + 500000 + 1000000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT fct_ps FROM flow WHERE flow_id = 5"), fct5);
	CU_ASSERT_EQUAL(q_int(h, "SELECT src = 'host1' AND dst = 'host2' FROM flow WHERE flow_id = 5"), 1);
	sqlite3_close(h);

	/* fct.txt: 5 lines, in completion order, HPCC's columns. */
	char path[300], line[256];
	snprintf(path, sizeof path, "%s/fct1.txt", run_tmpdir);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	int n = 0, seen1 = 0, seen5 = 0, seen2 = 0;
	unsigned long long prev_end = 0;
	char want1[128], want5[128];
	/* 0x0b000001 + (id/256)<<16 + (id%256)<<8: ids 0, 2, 3. */
	snprintf(want1, sizeof want1, "0b000001 0b000201 10000 100 1000 2000000000 %lld %lld\n",
		 (long long)((fct1 + 500) / 1000), (long long)((fct1 + 500) / 1000));
	snprintf(want5, sizeof want5, "0b000201 0b000301 10000 100 1 2500000000 %lld %lld\n",
		 (long long)((fct5 + 500) / 1000), (long long)((fct5 + 500) / 1000));
	while (fgets(line, sizeof line, f)) {
		unsigned sip, dip, sport, dport;
		unsigned long long size, start, fct, ideal;
		CU_ASSERT_EQUAL(sscanf(line, "%x %x %u %u %llu %llu %llu %llu", &sip, &dip, &sport, &dport,
				       &size, &start, &fct, &ideal), 8);
		CU_ASSERT(start + fct >= prev_end); /* completion order (to a ns of rounding) */
		prev_end = start + fct;
		CU_ASSERT(fct >= ideal);
		seen1 += strcmp(line, want1) == 0;
		seen5 += strcmp(line, want5) == 0;
		seen2 += sip == 0x0b000001 && dip == 0x0b000201 && sport == 10001 && size == 3000;
		n++;
	}
	fclose(f);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(seen1, 1);
	CU_ASSERT_EQUAL(seen5, 1);
	CU_ASSERT_EQUAL(seen2, 1);
	if (!seen1 || !seen5)
		printf("\nwanted lines:\n%s%s\n", want1, want5);
}

static void test_run_input_errors(void)
{
	file_in(run_tmpdir, "topo.txt", topo_txt);
	file_in(run_tmpdir, "flow.txt", flow_txt);
	char ini[600], db[300];
	int rc;
	/* An unwritable fct.txt path: exit 2 before simulating, no database. */
	snprintf(ini, sizeof ini, run_ini, "/nonexistent-rocesim-dir", 1);
	CU_ASSERT_PTR_NULL(run_text_rc(ini, &rc));
	CU_ASSERT_EQUAL(rc, EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "[output] hpcc_fct = '/nonexistent-rocesim-dir/fct1.txt': cannot write"));
	snprintf(db, sizeof db, "%s/s%d.db", run_tmpdir, run_counter - 1);
	CU_ASSERT_NOT_EQUAL(access(db, F_OK), 0);

	/* A flow naming a switch (HPCC id 1 is sw0): located in the scenario
	 * and in flow.txt. */
	file_in(run_tmpdir, "flow_sw.txt", "1\n0 1 3 100 10 0\n");
	CU_ASSERT_PTR_NULL(run_text_rc("[topology]\ntype = hpcc\nfile = topo.txt\nlink_rate = 100Gbps\n"
				       "link_delay = 1us\n[traffic.h]\ntype = hpcc\nfile = flow_sw.txt\n", &rc));
	CU_ASSERT_EQUAL(rc, EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "[traffic.h] file = "));
	CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "flow_sw.txt:2: node 1 is not a host"));

	/* A bad topology file: its own file:line. */
	file_in(run_tmpdir, "topo_bad.txt", "3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0.5\n");
	CU_ASSERT_PTR_NULL(run_text_rc("[topology]\ntype = hpcc\nfile = topo_bad.txt\nlink_rate = 100Gbps\n"
				       "link_delay = 1us\n[traffic.h]\ntype = hpcc\nfile = flow.txt\n", &rc));
	CU_ASSERT_EQUAL(rc, EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "topo_bad.txt:4: link error rate '0.5'"));

	/* With another topology, HPCC id i is host i: a star of 4 hosts runs
	 * the file's 0->2 flows between host0 and host2. */
	file_in(run_tmpdir, "flow_star.txt", "2\n0 2 3 100 1000 0\n3 1 3 100 1000 0.000001\n");
	sqlite3 *h = run_text("[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			      "[traffic.h]\ntype = hpcc\nfile = flow_star.txt\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE src = 'host0' AND dst = 'host2'"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT start_ps FROM flow WHERE src = 'host3' AND dst = 'host1'"), 1000000);
	sqlite3_close(h);
}

/* Same scenario, same seed: byte-identical fct.txt. */
static void test_fct_deterministic(void)
{
	file_in(run_tmpdir, "topo.txt", topo_txt);
	file_in(run_tmpdir, "flow.txt", flow_txt);
	char ini[600], a[300], b[300], buf_a[4096], buf_b[4096];
	for (int i = 2; i <= 3; i++) {
		snprintf(ini, sizeof ini, run_ini, run_tmpdir, i);
		sqlite3 *h = run_text(ini);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		sqlite3_close(h);
	}
	snprintf(a, sizeof a, "%s/fct2.txt", run_tmpdir);
	snprintf(b, sizeof b, "%s/fct3.txt", run_tmpdir);
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fb);
	size_t na = fread(buf_a, 1, sizeof buf_a, fa), nb = fread(buf_b, 1, sizeof buf_b, fb);
	fclose(fa);
	fclose(fb);
	CU_ASSERT(na > 0);
	CU_ASSERT_EQUAL(na, nb);
	CU_ASSERT_EQUAL(memcmp(buf_a, buf_b, na), 0);
}

TEST_MAIN("hpcc",
	  { "topology.txt: names, HPCC ids, link rows, rates and delays", test_topology_rows },
	  { "flow.txt: sizes, exact starts, HPCC source ports", test_flow_rows },
	  { "bad files: located errors, empty outputs", test_errors_located },
	  { "hostile prefixes and bytes: no crash, no leak", test_hostile_prefixes_and_bytes },
	  { "run: idle-path FCTs from physics, fct.txt lines", test_run_physics_and_fct },
	  { "run: unwritable fct.txt, switch ids, bad topology, other topologies", test_run_input_errors },
	  { "fct.txt deterministic", test_fct_deterministic })
