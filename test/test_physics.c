/*
 * test_physics.c — whole runs checked against physics: serialisation and
 * propagation delays in closed form, fair shares, ECMP spread, and
 * same-seed determinism of the flow table.
 *
 * Every run goes through run_scenario (the path `sim` takes) into a SQLite
 * database in a temporary folder, and the checks are SQL over it.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "packet.h"
#include "run.h"
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

/* Runs the scenario text; these closed forms are for a fabric without PFC
 * and ECN marking, so a text without [switch] gets them off. */
static sqlite3 *run_ini(const char *text)
{
	if (strstr(text, "[switch]"))
		return run_text(text);
	char *full = malloc(strlen(text) + 40);
	sprintf(full, "%s[switch]\npfc = off\necn = off\n", text);
	sqlite3 *h = run_text(full);
	free(full);
	return h;
}

/* An independent reference: the store-and-forward grid packet by packet.
 * f[i][j] = max(f[i][j-1] + d[j-1], f[i-1][j]) + ser_j(i); delivery = f[N-1][H-1] + d[H-1]. */
static int64_t grid_delivery(int hops, const uint64_t *rate, const int64_t *d, uint64_t size, int mtu)
{
	int n = size ? (int)((size + (uint64_t)mtu - 1) / (uint64_t)mtu) : 1;
	int64_t *prev = calloc((size_t)hops, sizeof *prev), *cur = calloc((size_t)hops, sizeof *cur);
	for (int i = 0; i < n; i++) {
		uint64_t payload = i + 1 < n ? (uint64_t)mtu : size - (uint64_t)mtu * (uint64_t)(n - 1);
		uint64_t wire = PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B + payload + (i == 0 ? PKT_RETH_B : 0);
		for (int j = 0; j < hops; j++) {
			int64_t left = j ? cur[j - 1] + d[j - 1] : 0;
			int64_t up = i ? prev[j] : 0;
			cur[j] = (left > up ? left : up) + (int64_t)((wire * 8 * 1000000000000ull + rate[j] - 1) / rate[j]);
		}
		memcpy(prev, cur, (size_t)hops * sizeof *cur);
	}
	int64_t t = prev[hops - 1] + d[hops - 1];
	free(prev);
	free(cur);
	return t;
}

/* One 1 MB flow across a star (2 links of 100 Gb/s, 1 us each): the closed
 * form with equal rates is (sum of wire bytes + (H-1) x first frame) x 80 ps
 * + propagation, and the ACK's return is H x (86 B x 80 ps + 1 us). */
static void test_single_flow_closed_form(void)
{
	sqlite3 *h = run_ini("[simulation]\nseed = 1\nprogress = off\n"
			     "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			     "[nic]\nmtu = 1000\ncc = none\n"
			     "[traffic.one]\ntype = flows\nflow = host0 host1 1MB 10us\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const int64_t n = 1000, ps_per_b = 80, d = 1000000;
	int64_t wire_sum = n * (1000 + 82) + 16; /* 58 B headers + 4 B FCS + 20 B preamble/IFG; RETH on the first */
	int64_t first = 1000 + 82 + 16;
	int64_t delivery = (wire_sum + first) * ps_per_b + 2 * d;
	int64_t ack = 2 * ((PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B) * ps_per_b + d);
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps - start_ps FROM flow"), delivery);
	CU_ASSERT_EQUAL(q_int(h, "SELECT fct_ps FROM flow"), delivery + ack);
	CU_ASSERT_EQUAL(q_int(h, "SELECT ideal_fct_ps FROM flow"), delivery + ack);
	CU_ASSERT_EQUAL(q_int(h, "SELECT start_ps FROM flow"), 10000000);
	double slow = q_real(h, "SELECT slowdown FROM flow");
	CU_ASSERT(slow > 0.995 && slow < 1.005);
	CU_ASSERT_EQUAL(q_int(h, "SELECT packets FROM flow"), 1000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
	/* port_stats: the sender's port carried every data frame and got every ACK back. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT tx_packets FROM port_stats WHERE node = 'host0'"), 1000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT tx_bytes FROM port_stats WHERE node = 'host0'"), wire_sum - 20 * n);
	CU_ASSERT_EQUAL(q_int(h, "SELECT rx_bytes FROM port_stats WHERE node = 'host0'"), 1000 * PKT_ACK_FRAME_B);
	sqlite3_close(h);
}

/* Cross-pod path of a k=4 fat-tree (6 links) with 25 Gb/s hosts, 100 Gb/s
 * fabric, 500 ns switch latency, odd sizes: delivery equals the packet-by-
 * packet grid exactly, whatever the size. */
static void test_fat_tree_matches_grid(void)
{
	const uint64_t sizes[] = { 1, 999, 1000, 1001, 4096, 100000, 123457 };
	char text[2048];
	int off = snprintf(text, sizeof text,
			   "[simulation]\nprogress = off\n"
			   "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nhost_link_rate = 25Gbps\n"
			   "link_delay = 1us\nswitch_latency = 500ns\n"
			   "[nic]\nmtu = 1000\ncc = none\n[traffic.f]\ntype = flows\n");
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		off += snprintf(text + off, sizeof text - (size_t)off, "flow = host0 host15 %lluB %dms\n",
				(unsigned long long)sizes[i], (int)i + 1);
	sqlite3 *h = run_ini(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	uint64_t rate[6] = { 25000000000ull, 100000000000ull, 100000000000ull, 100000000000ull,
			     100000000000ull, 25000000000ull };
	int64_t d[6] = { 1500000, 1500000, 1500000, 1500000, 1500000, 1000000 };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char sql[160];
		snprintf(sql, sizeof sql, "SELECT recv_end_ps - start_ps FROM flow WHERE size_bytes = %llu",
			 (unsigned long long)sizes[i]);
		int64_t want = grid_delivery(6, rate, d, sizes[i], 1000);
		int64_t got = q_int(h, sql);
		CU_ASSERT_EQUAL(got, want);
		if (got != want)
			printf("size %llu: got %lld want %lld\n", (unsigned long long)sizes[i], (long long)got,
			       (long long)want);
	}
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE slowdown < 0.999 OR slowdown > 1.001"), 0);
	sqlite3_close(h);
}

/* Two 1 MB flows from one sender start together: round robin gives each half
 * the link, so both finish at about twice the time of one flow alone. */
static void test_two_flows_share_sender(void)
{
	sqlite3 *h = run_ini("[simulation]\nprogress = off\n"
			     "[topology]\ntype = star\nhosts = 3\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			     "[nic]\nmtu = 1000\ncc = none\n"
			     "[traffic.two]\ntype = flows\nflow = host0 host1 1MB 0us\nflow = host0 host2 1MB 0us\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	/* Both messages' 2000 frames (two of them first frames with a RETH)
	 * leave back to back at line rate, alternating; the very last crosses
	 * the switch: 1 us, one more frame, 1 us. host1's last frame left two
	 * frames earlier. */
	int64_t both = (2 * (1000 * 1082 + 16)) * 80 + 1000000 + 1082 * 80 + 1000000;
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps FROM flow WHERE dst = 'host2'"), both);
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps FROM flow WHERE dst = 'host1'"), both - 2 * 1082 * 80);
	CU_ASSERT(q_real(h, "SELECT min(slowdown) FROM flow") > 1.9);
	sqlite3_close(h);
}

/* Two 1 MB messages to one peer: on one QP they go one after the other (the
 * first ends after one message's frames, the second after two); with
 * qps_per_pair = 2 they take two QPs with distinct UDP source ports and
 * share the link, ending two frames apart. */
static void test_queue_pairs(void)
{
	static const char *text =
		"[simulation]\nprogress = off\n"
		"[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		"[nic]\nmtu = 1000\ncc = none\nqps_per_pair = %d\n"
		"[traffic.two]\ntype = flows\nflow = host0 host1 1MB 0us\nflow = host0 host1 1MB 0us\n";
	char buf[512];
	/* Two links in tandem: the last frame arrives after every frame's
	 * serialisation on one link plus the largest frame (a first one, with
	 * its RETH) on the other, plus 2 x 1 us. */
	int64_t one = (1000 * 1082 + 16) * 80, tail = 1098 * 80 + 2 * 1000000;
	snprintf(buf, sizeof buf, text, 1);
	sqlite3 *h = run_ini(buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT qpn) FROM flow"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps FROM flow WHERE flow_id = 1"), one + tail);
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps FROM flow WHERE flow_id = 2"), 2 * one + tail);
	sqlite3_close(h);
	snprintf(buf, sizeof buf, text, 2);
	h = run_ini(buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT qpn) FROM flow"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT sport) FROM flow"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps FROM flow WHERE flow_id = 2"), 2 * one + tail);
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps FROM flow WHERE flow_id = 1"), 2 * one + tail - 2 * 1082 * 80);
	CU_ASSERT_EQUAL(q_int(h, "SELECT min(sport) >= 49152 FROM flow"), 1);
	sqlite3_close(h);
}

/* Incast of 4 x 1 MB into one 100 Gb/s port: the receiver's link is the
 * bottleneck, so the last byte arrives after 4 MB of serialisation, and
 * each sender gets a quarter (finishing together within a few packets). */
static void test_incast_fair_share(void)
{
	sqlite3 *h = run_ini("[simulation]\nprogress = off\n"
			     "[topology]\ntype = star\nhosts = 5\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			     "[nic]\nmtu = 1000\ncc = none\n"
			     "[traffic.in]\ntype = incast\nsenders = host1 host2 host3 host4\nreceiver = host0\nsize = 1MB\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	double four = 4 * 1000 * 1082 * 80.0;
	double last = q_real(h, "SELECT max(recv_end_ps) FROM flow");
	double first = q_real(h, "SELECT min(recv_end_ps) FROM flow");
	CU_ASSERT(last > four && last < 1.01 * four);
	CU_ASSERT(last - first < 10 * 1082 * 80.0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(drops) FROM port_stats"), 0);
	sqlite3_close(h);
}

static const char *k4_all_to_all =
	"[simulation]\nprogress = off\nseed = %d\n"
	"[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[nic]\nmtu = 1000\ncc = none\n"
	"[traffic.a2a]\ntype = all_to_all\nsize = 20KB\n";

static char *dump(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	out[0] = 0;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *v = sqlite3_column_text(st, c);
			size_t need = len + (v ? strlen((const char *)v) : 4) + 2;
			if (need >= cap) {
				cap = 2 * need;
				out = realloc(out, cap);
			}
			len += (size_t)sprintf(out + len, "%s|", v ? (const char *)v : "NULL");
		}
	}
	sqlite3_finalize(st);
	return out;
}

/* In a k=4 all-to-all every core link carries traffic (no polarisation);
 * the same seed gives a byte-identical flow table; another seed moves flows
 * to other paths. */
static void test_ecmp_spread_and_determinism(void)
{
	char text[512];
	snprintf(text, sizeof text, k4_all_to_all, 1);
	sqlite3 *a = run_ini(text), *b = run_ini(text);
	snprintf(text, sizeof text, k4_all_to_all, 2);
	sqlite3 *c = run_ini(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(q_int(a, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 16 * 15);
	/* Both directions of all 16 agg-core links (agg ports 2 and 3 face the cores). */
	CU_ASSERT_EQUAL(q_int(a, "SELECT count(*) FROM port_stats WHERE node LIKE 'core%' AND tx_bytes > 0"), 16);
	CU_ASSERT_EQUAL(q_int(a, "SELECT count(*) FROM port_stats WHERE node LIKE 'agg%' AND port >= 2 AND tx_bytes > 0"), 16);
	const char *flows = "SELECT * FROM flow ORDER BY flow_id";
	const char *paths = "SELECT node, port, tx_bytes FROM port_stats ORDER BY node, port";
	char *fa = dump(a, flows), *fb = dump(b, flows), *pa = dump(a, paths), *pc = dump(c, paths);
	CU_ASSERT(strlen(fa) > 1000);
	CU_ASSERT_STRING_EQUAL(fa, fb);
	CU_ASSERT(strcmp(pa, pc) != 0);
	free(fa);
	free(fb);
	free(pa);
	free(pc);
	sqlite3_close(a);
	sqlite3_close(b);
	sqlite3_close(c);
}

/* Random leaf-spine runs with a buffer small enough to drop: whatever
 * happens, every data packet sent is delivered or counted dropped, no flow
 * beats its ideal time, and a message completes only after its last byte
 * arrived. (run_scenario also checks that queues, links, buffers and the
 * packet pool are empty when the run finishes.) */
static void test_random_runs_conserve(void)
{
	unsigned rng = 12345;
	int64_t dropped = 0;
	for (int run = 0; run < 12; run++) {
		char text[8192];
		int off = snprintf(text, sizeof text,
				   "[simulation]\nprogress = off\nseed = %d\n"
				   "[topology]\ntype = leaf_spine\nleaves = 4\nspines = 2\nhosts_per_leaf = 4\n"
				   "link_rate = 100Gbps\nhost_link_rate = %s\nlink_delay = 500ns\n"
				   "[switch]\npfc = off\necn = off\nbuffer = %dKB\n"
				   "[nic]\nmtu = %d\ncc = none\nack_every = %d\n[traffic.r]\ntype = flows\n",
				   run + 1, run % 2 ? "25Gbps" : "100Gbps", run % 3 ? 64 : 4000,
				   run % 2 ? 1000 : 4096, 1 + run % 3);
		off = run_random_flows(text, sizeof text, off, &rng, 40, 16, 300000);
		sqlite3 *h = run_ini(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		CU_ASSERT_EQUAL(q_int(h, "SELECT packets_sent - packets_delivered - packets_dropped FROM run"), 0);
		CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL AND slowdown < 1"), 0);
		CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL AND recv_end_ps >= end_ps"), 0);
		CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow"), 40);
		dropped += q_int(h, "SELECT packets_dropped FROM run");
		if (run % 3 == 0) /* the large buffer never drops here: all finish */
			CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), 0);
		sqlite3_close(h);
	}
	CU_ASSERT(dropped > 0); /* the small buffers did drop: the check was exercised */
}

int main(void)
{
	static const struct test_case t[] = {
		{ "one flow: FCT equals the closed form, slowdown 1", test_single_flow_closed_form },
		{ "fat-tree path with mixed rates matches the packet grid", test_fat_tree_matches_grid },
		{ "two flows from one sender get half each", test_two_flows_share_sender },
		{ "messages on one QP run in order, on two QPs they share", test_queue_pairs },
		{ "incast shares the receiver's link fairly", test_incast_fair_share },
		{ "ECMP spreads over every core; determinism by seed", test_ecmp_spread_and_determinism },
		{ "random lossy runs conserve packets and never beat ideal", test_random_runs_conserve },
		{ 0, 0 },
	};
	return test_run("physics", t);
}
