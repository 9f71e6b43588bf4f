/*
 * test_fabric.c — the lossless RoCE fabric in whole runs: PFC, lossy
 * recovery by go-back-N, DCQCN, congestion spreading, spraying with
 * selective repeat. Numbers are checked against closed forms (fair shares,
 * the bottleneck's goodput) with stated tolerances; every run also checks
 * conservation (packets sent = delivered + dropped once the fabric
 * drained — run_scenario itself aborts if a buffer or queue is left
 * non-empty).
 */
#include <math.h>
#include <stdarg.h>
#include "packet.h"
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

#define GBPS 1000000000.0
/* Goodput of a 100 Gb/s link with 1000 B payloads: 1000 of every 1082 wire bytes. */
#define GOODPUT_100G (100 * GBPS * 1000.0 / (1000 + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B))

static const char *STAR = "[simulation]\nprogress = off\n"
			  "[topology]\ntype = star\nlink_rate = 100Gbps\nlink_delay = 1us\n";

static void check_conservation(sqlite3 *h)
{
	CU_ASSERT_EQUAL(q_int(h, "SELECT packets_sent - packets_delivered - packets_dropped FROM run"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
}

static sqlite3 *run_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static sqlite3 *run_fmt(const char *fmt, ...)
{
	static char text[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	sqlite3 *h = run_text(text);
	if (h)
		check_conservation(h);
	return h;
}

static double fct_s(sqlite3 *h, const char *where)
{
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT fct_ps FROM flow WHERE %s", where);
	return (double)q_int(h, sql) * 1e-12;
}

/* Two senders into one receiver with PFC: each gets half the link, so both
 * finish within 5% of each other and of twice the single-flow time. */
static void test_two_senders_fair(void)
{
	sqlite3 *one = run_fmt("%shosts = 3\n[switch]\necn = off\n[nic]\nmtu = 1000\ncc = none\n"
			       "[traffic.a]\ntype = flows\nflow = host0 host2 4MB 0us\n", STAR);
	sqlite3 *two = run_fmt("%shosts = 3\n[switch]\necn = off\n[nic]\nmtu = 1000\ncc = none\n"
			       "[traffic.a]\ntype = flows\nflow = host0 host2 4MB 0us\n"
			       "flow = host1 host2 4MB 0us\n", STAR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(one);
	CU_ASSERT_PTR_NOT_NULL_FATAL(two);
	double t1 = fct_s(one, "1"), a = fct_s(two, "src = 'host0'"), b = fct_s(two, "src = 'host1'");
	CU_ASSERT(fabs(a - b) <= 0.05 * fmax(a, b));
	CU_ASSERT(fabs(a - 2 * t1) <= 0.05 * 2 * t1);
	CU_ASSERT(fabs(b - 2 * t1) <= 0.05 * 2 * t1);
	CU_ASSERT_EQUAL(q_int(two, "SELECT sum(drops) FROM port_stats"), 0);
	sqlite3_close(one);
	sqlite3_close(two);
}

static const char *INCAST = "[traffic.in]\ntype = incast\nsenders = host0 host1 host2 host3 host4 host5 host6 host7\n"
			    "receiver = host8\nsize = 1MB\n";

/* Incast 8 -> 1 at 100 Gb/s with PFC: nothing dropped, pauses recorded,
 * the last completion within 10% of 8 S / B. */
static void test_incast_pfc(void)
{
	sqlite3 *h = run_fmt("%shosts = 9\n[switch]\nbuffer = 1MB\necn = off\n[nic]\nmtu = 1000\ncc = none\n%s",
			     STAR, INCAST);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(drops) FROM port_stats"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT packets_dropped FROM run"), 0);
	CU_ASSERT(q_int(h, "SELECT count(*) FROM pfc_pause") > 0);
	CU_ASSERT(q_int(h, "SELECT sum(pause_frames_tx) FROM port_stats WHERE node = 'sw0'") > 0);
	CU_ASSERT(q_int(h, "SELECT sum(pause_frames_rx) FROM port_stats WHERE node LIKE 'host%'") > 0);
	CU_ASSERT(q_int(h, "SELECT sum(paused_ps) FROM port_stats") > 0);
	/* pause intervals are closed and well ordered */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM pfc_pause WHERE end_ps IS NULL OR end_ps < start_ps"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(retx_packets) FROM flow"), 0);
	double want = 8 * 1e6 * 8 / GOODPUT_100G;
	double last = (double)q_int(h, "SELECT max(end_ps) FROM flow") * 1e-12;
	CU_ASSERT(fabs(last - want) <= 0.10 * want);
	printf("\n    incast PFC: last completion %.1f us, 8S/B %.1f us\n", last * 1e6, want * 1e6);
	sqlite3_close(h);
}

/* The same without PFC and with a small buffer: drops, go-back-N
 * retransmissions, and still every byte of every flow delivered. */
static void test_incast_lossy(void)
{
	sqlite3 *h = run_fmt("%shosts = 9\n[switch]\nbuffer = 300KB\npfc = off\necn = off\n"
			     "[nic]\nmtu = 1000\ncc = none\n%s", STAR, INCAST);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT(q_int(h, "SELECT sum(drops) FROM port_stats") > 0);
	CU_ASSERT(q_int(h, "SELECT packets_dropped FROM run") > 0);
	CU_ASSERT(q_int(h, "SELECT sum(retx_packets) FROM flow") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL AND recv_end_ps IS NOT NULL"), 8);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM pfc_pause"), 0);
	sqlite3_close(h);
}

/* PFC with a configured headroom far below what is in flight after XOFF:
 * lossless-class drops are counted (never hidden) and recovered. */
static void test_small_headroom_drops(void)
{
	sqlite3 *h = run_fmt("%shosts = 9\n[switch]\nbuffer = 1MB\npfc_headroom = 2KB\necn = off\n"
			     "[nic]\nmtu = 1000\ncc = none\n%s", STAR, INCAST);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT(q_int(h, "SELECT sum(drops) FROM port_stats") > 0);
	CU_ASSERT(q_int(h, "SELECT count(*) FROM pfc_pause") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 8);
	sqlite3_close(h);
}

/* Two DCQCN flows into one bottleneck: fair shares within 15%, the queue
 * held around Kmin..Kmax (never reaching PFC), marks and CNPs seen. */
static void test_dcqcn_fairness(void)
{
	sqlite3 *h = run_fmt("%shosts = 3\n[nic]\nmtu = 1000\ncc = dcqcn\n"
			     "[traffic.a]\ntype = flows\nflow = host0 host2 40MB 0us\n"
			     "flow = host1 host2 40MB 0us\n", STAR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	double a = fct_s(h, "src = 'host0'"), b = fct_s(h, "src = 'host1'");
	double shared = fmin(a, b), half = GOODPUT_100G / 2;
	/* over the shared interval [0, min end] the first finisher moved all of
	 * its 40 MB */
	double ra = 40e6 * 8 / a, rb = 40e6 * 8 / b;
	printf("\n    dcqcn: fct %.0f / %.0f us, rates %.1f / %.1f Gb/s, half %.1f\n", a * 1e6, b * 1e6,
	       ra / GBPS, rb / GBPS, half / GBPS);
	double fast = 40e6 * 8 / shared;
	CU_ASSERT(fast <= 1.15 * half && fast >= 0.85 * half);
	CU_ASSERT(fabs(a - b) <= 0.15 * fmax(a, b));
	long long maxq = q_int(h, "SELECT max_queue_bytes FROM port_stats WHERE node = 'sw0' AND port = 2");
	printf("    max queue %lld B\n", maxq);
	CU_ASSERT(maxq >= 400000);              /* reaches Kmin = 100 KB x 100/25 */
	CU_ASSERT(maxq < 3000000);              /* far below the XOFF point (~C/9 = 3.5 MB) */
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(pause_frames_tx) FROM port_stats"), 0);
	CU_ASSERT(q_int(h, "SELECT sum(ecn_marked) FROM port_stats") > 0);
	CU_ASSERT(q_int(h, "SELECT sum(ecn_marked) FROM flow") > 0);
	CU_ASSERT(q_int(h, "SELECT sum(cnp_received) FROM flow") > 0);
	sqlite3_close(h);
}

/* The paper's DCQCN (variant = paper) with the paper's parameters (55 us
 * timers, 10 MB byte counter, F = 5, R_AI = 40 Mb/s, one CNP per 50 us;
 * Zhu et al. 2015): two flows converge to equal shares of a fully used
 * bottleneck, within 5% of half its goodput each. */
static void test_dcqcn_paper_variant(void)
{
	sqlite3 *h = run_fmt("%shosts = 3\n[nic]\nmtu = 1000\ncc = dcqcn\n"
			     "[dcqcn]\nvariant = paper\nt_alpha = 55us\nt_inc = 55us\nbyte_counter = 10MB\n"
			     "fast_recovery_times = 5\nrai = 40Mbps\ncnp_interval = 50us\n"
			     "[traffic.a]\ntype = flows\nflow = host0 host2 40MB 0us\n"
			     "flow = host1 host2 40MB 0us\n", STAR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	double half = GOODPUT_100G / 2;
	double ra = 40e6 * 8 / fct_s(h, "src = 'host0'"), rb = 40e6 * 8 / fct_s(h, "src = 'host1'");
	printf("\n    dcqcn paper: %.1f / %.1f Gb/s, half %.1f\n", ra / GBPS, rb / GBPS, half / GBPS);
	CU_ASSERT(fabs(ra - half) <= 0.05 * half && fabs(rb - half) <= 0.05 * half);
	CU_ASSERT(q_int(h, "SELECT sum(cnp_received) FROM flow") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(pause_frames_tx) FROM port_stats"), 0);
	sqlite3_close(h);
}

/* Congestion spreading: three hosts of the left switch send to host4 (one
 * 100 Gb/s link) over a 400 Gb/s trunk; host3 sends to host5, sharing only
 * the trunk. With PFC alone the trunk is paused and the victim slowed; with
 * DCQCN the queue stays under XOFF and the victim runs at its own speed. */
static const char *SPREAD = "[simulation]\nprogress = off\n"
			    "[topology]\ntype = dumbbell\nhosts_left = 4\nhosts_right = 2\nlink_rate = 400Gbps\n"
			    "host_link_rate = 100Gbps\nlink_delay = 1us\n"
			    "[traffic.incast]\ntype = incast\nsenders = host0 host1 host2\nreceiver = host4\nsize = 10MB\n"
			    "[traffic.victim]\ntype = flows\nflow = host3 host5 5MB 50us\n";

static void test_victim_flow(void)
{
	sqlite3 *pfc = run_fmt("%s[switch]\necn = off\n[nic]\nmtu = 1000\ncc = none\n", SPREAD);
	sqlite3 *dc = run_fmt("%s[nic]\nmtu = 1000\ncc = dcqcn\n", SPREAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pfc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dc);
	double s_pfc = q_real(pfc, "SELECT slowdown FROM flow WHERE src = 'host3'");
	double s_dc = q_real(dc, "SELECT slowdown FROM flow WHERE src = 'host3'");
	printf("\n    victim slowdown: PFC only %.2f, DCQCN %.2f\n", s_pfc, s_dc);
	CU_ASSERT(s_pfc > 1.5);
	CU_ASSERT(s_dc < 1.15);
	CU_ASSERT(q_int(pfc, "SELECT paused_ps FROM port_stats WHERE node = 'sw0' AND port = 4") > 0);
	CU_ASSERT_EQUAL(q_int(dc, "SELECT sum(pause_frames_tx) FROM port_stats WHERE node = 'sw1'"), 0);
	sqlite3_close(pfc);
	sqlite3_close(dc);
}

/* Per-packet spraying with selective repeat on a fat-tree permutation beats
 * flow ECMP, and with PFC nothing is lost, so nothing may be resent however
 * the packets are reordered; go-back-N under the same spraying resends. */
static const char *PERM = "[simulation]\nprogress = off\nseed = 3\n"
			  "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			  "[traffic.p]\ntype = permutation\nsize = 4MB\n";

static void test_spraying_sr(void)
{
	sqlite3 *flow = run_fmt("%s[switch]\necn = off\necmp = flow\n[nic]\nmtu = 1000\ncc = none\nloss_recovery = sr\n", PERM);
	sqlite3 *spray = run_fmt("%s[switch]\necn = off\necmp = packet\n[nic]\nmtu = 1000\ncc = none\nloss_recovery = sr\n", PERM);
	sqlite3 *gbn = run_fmt("%s[switch]\necn = off\necmp = packet\n[nic]\nmtu = 1000\ncc = none\nloss_recovery = gbn\n", PERM);
	CU_ASSERT_PTR_NOT_NULL_FATAL(flow);
	CU_ASSERT_PTR_NOT_NULL_FATAL(spray);
	CU_ASSERT_PTR_NOT_NULL_FATAL(gbn);
	const char *tput = "SELECT sum(size_bytes) * 8.0 / (max(end_ps) - min(start_ps)) FROM flow";
	double t_flow = q_real(flow, tput), t_spray = q_real(spray, tput);
	printf("\n    permutation throughput: flow ECMP %.1f Gb/s, spraying %.1f Gb/s\n",
	       t_flow * 1000, t_spray * 1000);
	CU_ASSERT(t_spray > 1.1 * t_flow);
	CU_ASSERT_EQUAL(q_int(spray, "SELECT sum(retx_packets) FROM flow"), 0);
	CU_ASSERT(q_int(gbn, "SELECT sum(retx_packets) FROM flow") > 0);
	CU_ASSERT_EQUAL(q_int(gbn, "SELECT count(*) FROM flow WHERE end_ps IS NULL"), 0);
	sqlite3_close(flow);
	sqlite3_close(spray);
	sqlite3_close(gbn);
}

/* A host slower than its link ([nic] rx_rate = 50 Gb/s behind 100 Gb/s):
 * with PFC the NIC pauses its ToR and nothing is lost, and the message
 * arrives at the host's rate (its frame bytes at 50 Gb/s); without PFC the
 * NIC's buffer overflows and go-back-N recovers. */
static void test_slow_receiver_nic_pfc(void)
{
	const char *base = "%shosts = 3\n[switch]\necn = off\npfc = %s\n"
			   "[nic]\nmtu = 1000\ncc = none\nrx_rate = 50Gbps\n"
			   "[traffic.a]\ntype = flows\nflow = host0 host2 4MB 0us\n";
	sqlite3 *h = run_fmt(base, STAR, "on");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	double want = 4000.0 * (1000 + PKT_ROCE_OVERHEAD_B) * 8 / 50e9;
	double got = (double)q_int(h, "SELECT recv_end_ps - start_ps FROM flow") * 1e-12;
	printf("\n    slow receiver: %.1f us, frames at 50 Gb/s %.1f us\n", got * 1e6, want * 1e6);
	CU_ASSERT(got >= want && got <= 1.01 * want);
	CU_ASSERT(q_int(h, "SELECT pause_frames_tx FROM port_stats WHERE node = 'host2'") > 0);
	CU_ASSERT(q_int(h, "SELECT paused_ps FROM port_stats WHERE node = 'sw0' AND port = 2") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(drops) FROM port_stats"), 0);
	sqlite3_close(h);
	h = run_fmt(base, STAR, "off");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT(q_int(h, "SELECT drops FROM port_stats WHERE node = 'host2'") > 0);
	CU_ASSERT(q_int(h, "SELECT retx_packets FROM flow") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL"), 1);
	sqlite3_close(h);
}

/* Loss recovery under stress: lossy leaf-spine fabrics with tiny buffers,
 * go-back-N or selective repeat, flow ECMP or spraying, ACK coalescing.
 * Every message must complete with every byte, never faster than its
 * ideal, and the run must conserve packets. */
static void test_random_lossy_recovery(void)
{
	unsigned rng = 777;
	int64_t dropped = 0, retx = 0;
	for (int run = 0; run < 8; run++) {
		char text[8192];
		int off = snprintf(text, sizeof text,
				   "[simulation]\nprogress = off\nseed = %d\n"
				   "[topology]\ntype = leaf_spine\nleaves = 4\nspines = 2\nhosts_per_leaf = 4\n"
				   "link_rate = 100Gbps\nlink_delay = 500ns\n"
				   "[switch]\npfc = off\necn = off\nbuffer = %dKB\necmp = %s\n"
				   "[nic]\nmtu = 1000\ncc = none\nack_every = %d\nloss_recovery = %s\nrto = 200us\n"
				   "[traffic.r]\ntype = flows\n",
				   run + 1, run % 3 ? 80 : 200, run & 2 ? "packet" : "flow", 1 + run % 3,
				   run & 1 ? "sr" : "gbn");
		off = run_random_flows(text, sizeof text, off, &rng, 40, 16, 400000);
		sqlite3 *h = run_text(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		check_conservation(h);
		CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE end_ps IS NOT NULL AND recv_end_ps <= end_ps"), 40);
		CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE slowdown < 1"), 0);
		dropped += q_int(h, "SELECT packets_dropped FROM run");
		retx += q_int(h, "SELECT sum(retx_packets) FROM flow");
		sqlite3_close(h);
	}
	printf("\n    %lld drops, %lld retransmissions over 8 runs\n", (long long)dropped, (long long)retx);
	CU_ASSERT(dropped > 0 && retx > 0); /* the recovery paths were exercised */
}

/* ECN draws, DCQCN timers and PFC: the same seed gives the same flow
 * table, another seed (other ECN draws) another. */
static void test_determinism(void)
{
	const char *q = "SELECT group_concat(flow_id || ':' || end_ps || ':' || ecn_marked || ':' || cnp_received, ',') "
			"FROM (SELECT * FROM flow ORDER BY flow_id)";
	char *t[3];
	for (int i = 0; i < 3; i++) {
		sqlite3 *h = run_fmt("[simulation]\nprogress = off\nseed = %d\n"
				     "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
				     "[switch]\nbuffer = 2MB\n[nic]\nmtu = 1000\n"
				     "[traffic.a]\ntype = all_to_all\nsize = 200KB\n", i < 2 ? 7 : 8);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		t[i] = q_text(h, q);
		if (i == 0)
			CU_ASSERT(q_int(h, "SELECT sum(ecn_marked) FROM flow") > 0);
		sqlite3_close(h);
	}
	CU_ASSERT_STRING_EQUAL(t[0], t[1]);
	CU_ASSERT(strcmp(t[0], t[2]) != 0);
	for (int i = 0; i < 3; i++)
		free(t[i]);
}

TEST_MAIN("fabric",
	  { "two senders share a receiver fairly (PFC)", test_two_senders_fair },
	  { "incast 8->1 with PFC: no drops", test_incast_pfc },
	  { "incast 8->1 lossy: drops and go-back-N", test_incast_lossy },
	  { "too small a headroom: counted lossless drops", test_small_headroom_drops },
	  { "DCQCN fair shares and queue", test_dcqcn_fairness },
	  { "DCQCN paper variant with the paper's parameters", test_dcqcn_paper_variant },
	  { "victim flow: PFC spreading vs DCQCN", test_victim_flow },
	  { "spraying with selective repeat", test_spraying_sr },
	  { "slow receiver: the NIC sends PFC", test_slow_receiver_nic_pfc },
	  { "random lossy runs: GBN and SR always recover", test_random_lossy_recovery },
	  { "same seed, same flow table", test_determinism })
