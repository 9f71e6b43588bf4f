/*
 * test_cc_swift.c — Swift (models/cc/cc_swift.c): alone against the
 * paper's formulas (SIGCOMM 2020, Algorithm 1 and §3.5: the target delay
 * with its hop and flow-scaling terms, additive increase above and below
 * one packet, the multiplicative decrease and its once-per-RTT limit, the
 * pacing rate below one packet), [swift] through the loader (htsim's
 * derived defaults), and on the single bottleneck of test/cc_bottleneck.h:
 * the RTT held at the target, two flows at equal shares, and windows below
 * one packet that pace.
 */
#include <math.h>
#include <time.h>
#include "cc_bottleneck.h"
#include "cc_section.h"
#include "cc_swift.h"
#include "config.h"
#include "nic.h"
#include "run.h"
#include "testutil.h"

#define G100 100000000000ull

/* [swift]'s defaults (htsim's): hop_scale = base_target / 6.55, fs_range =
 * 5 × base_target. fs_range = 0 turns flow scaling off. */
static struct swift_cfg defaults(simtime_t base, bool fs)
{
	return (struct swift_cfg){ .base_target = base, .hop_scale = (simtime_t)((double)base / 6.55),
				   .fs_range = fs ? 5 * base : 0, .fs_min_cwnd = 0.1, .fs_max_cwnd = 100,
				   .ai = 1, .beta = 0.8, .max_mdf = 0.5, .min_cwnd = 0.01, .max_cwnd = 1000 };
}

/* A QP on a 100 Gb/s NIC, two switches on its path, base RTT 4 µs. */
static void start(struct swift *s, const struct swift_cfg *c)
{
	struct cc_env env = { .line_bps = G100, .base_rtt = 4 * US, .mtu_b = 1000, .hops = 2 };
	cc_swift.init(s, c, &env, 0);
}

static struct cc_ack ack(uint64_t acked, simtime_t rtt)
{
	return (struct cc_ack){ .acked_b = acked, .rtt = rtt };
}

/* target = base_target + hops × hop_scale + clamp(α/sqrt(cwnd) + β, 0,
 * fs_range), α = fs_range / (1/sqrt(0.1) − 1/sqrt(100)), β = −α/sqrt(100):
 * fs_range at 0.1 packet and below, 0 at 100 packets and above, α × 0.9
 * at one packet. The first window is one BDP at line rate (100 Gb/s ×
 * 4 µs = 50 000 B). */
static void test_target(void)
{
	struct swift_cfg c = defaults(20 * US, true);
	struct swift s;
	start(&s, &c);
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, 50000, 1e-6);
	double fixed = 20e6 + 2 * (double)(simtime_t)(20e6 / 6.55);
	double alpha = 100e6 / (1 / sqrt(0.1) - 1 / sqrt(100));
	CU_ASSERT_DOUBLE_EQUAL(swift_target(&s, 1000), fixed + alpha * (1 - 0.1), 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(swift_target(&s, 100), fixed + 100e6, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(swift_target(&s, 10), fixed + 100e6, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(swift_target(&s, 100000), fixed, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(swift_target(&s, 400000), fixed, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(swift_target(&s, 25000), fixed + alpha / 5 - alpha / 10, 1e-3);
	c.fs_range = 0;
	start(&s, &c);
	CU_ASSERT_DOUBLE_EQUAL(swift_target(&s, 1000), fixed, 1e-3);
}

/* Algorithm 1 step by step (windows in bytes, mtu 1000 B, ai 1, β 0.8). */
static void test_aimd(void)
{
	struct swift_cfg c = defaults(20 * US, true);
	struct swift s;
	start(&s, &c);
	/* delay 5 µs < target: cwnd += ai × mtu × acked / cwnd = 1000 × 1000 / 50 000 */
	struct cc_ack a = ack(1000, 5 * US);
	cc_swift.on_ack(&s, &a, 10 * US);
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, 50020, 1e-9);
	CU_ASSERT_EQUAL(s.srtt, 5 * US);
	/* delay 40 µs above the target t (27.5 µs at 50 packets):
	 * cwnd ×= max(1 − β (40 − t)/40, 1 − max_mdf) */
	double t = swift_target(&s, s.cwnd_b), w = s.cwnd_b;
	a = ack(1000, 40 * US);
	cc_swift.on_ack(&s, &a, 20 * US);
	double f = 1 - 0.8 * (40e6 - t) / 40e6;
	CU_ASSERT(f > 0.5);
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, w * f, 1e-9);
	/* srtt = 7/8 × 5 µs + 1/8 × 40 µs = 9.375 µs */
	CU_ASSERT_EQUAL(s.srtt, 9375000);
	/* at most one decrease per srtt: 9 µs later, none; then (srtt now
	 * 7/8 × 9.375 + 1/8 × 40 = 13.203 µs, the check uses the srtt before
	 * the ACK's sample) that much after the decrease, one */
	w = s.cwnd_b;
	cc_swift.on_ack(&s, &a, 20 * US + 9 * US);
	CU_ASSERT_EQUAL(s.cwnd_b, w);
	simtime_t srtt = s.srtt;
	cc_swift.on_ack(&s, &a, 20 * US + srtt - 1);
	CU_ASSERT_EQUAL(s.cwnd_b, w);
	cc_swift.on_ack(&s, &a, 20 * US + s.srtt);
	CU_ASSERT(s.cwnd_b < w);
	/* a decrease of more than max_mdf is capped: delay 10 ms, f < 0.5 */
	w = s.cwnd_b;
	a = ack(1000, 10000 * US);
	cc_swift.on_ack(&s, &a, 1000 * US);
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, w * 0.5, 1e-9);
	/* a NAK (fast recovery): × (1 − max_mdf), once per RTT */
	w = s.cwnd_b;
	struct cc_ack nak = { .nak = true };
	cc_swift.on_ack(&s, &nak, 1000 * US + 1);
	CU_ASSERT_EQUAL(s.cwnd_b, w);                  /* within srtt of the last cut */
	cc_swift.on_ack(&s, &nak, 1000 * US + s.srtt);
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, w * 0.5, 1e-9);
	/* down to the floor min_cwnd × mtu = 10 B, then below one packet
	 * cwnd += ai × acked: 10 + 100 = 110 B */
	for (int i = 0; i < 40; i++)
		cc_swift.on_ack(&s, &a, 2000 * US + (simtime_t)i * 20000 * US);
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, 10, 1e-9);
	a = ack(100, 1 * US);
	cc_swift.on_ack(&s, &a, 900000 * US);
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, 110, 1e-9);
	/* and the ceiling max_cwnd × mtu */
	for (int i = 0; i < 20000; i++) {
		a = ack(100000, 1 * US);
		cc_swift.on_ack(&s, &a, 900001 * US);
	}
	CU_ASSERT_DOUBLE_EQUAL(s.cwnd_b, 1000 * 1000, 1e-9);
}

/* Below one packet the QP paces (paper: pacing_delay = rtt / cwnd): one
 * packet in flight (window 1 B), full frames of wire_b bytes spaced by
 * srtt × mtu / cwnd, i.e. rate = wire_b × 8 × cwnd / (srtt × mtu). At and
 * above one packet: line rate and the whole packets of cwnd. */
static void test_pacing(void)
{
	struct swift_cfg c = defaults(20 * US, true);
	struct swift s;
	start(&s, &c);
	CU_ASSERT_EQUAL(cc_swift.rate_bps(&s), G100);
	CU_ASSERT_EQUAL(cc_swift.window_b(&s), 50000);
	s.cwnd_b = 2500.5;
	CU_ASSERT_EQUAL(cc_swift.window_b(&s), 2000);  /* a packet leaves only when it fits */
	cc_swift.on_sent(&s, 1078, 0);
	s.cwnd_b = 250;
	s.srtt = 40 * US;
	CU_ASSERT_EQUAL(cc_swift.window_b(&s), 1);
	uint64_t r = cc_swift.rate_bps(&s);
	CU_ASSERT_EQUAL(r, (uint64_t)(1078 * 8e12 * 250 / (40e6 * 1000)));   /* 53.9 Mb/s */
	/* the NIC's gap after a full frame: 1078 × 8 / r = 40 µs × 1000 / 250 = 160 µs */
	CU_ASSERT_DOUBLE_EQUAL(1078 * 8e12 / (double)r, 160e6, 1);
	struct cc_sample sm;
	cc_swift.sample(&s, &sm);
	CU_ASSERT_EQUAL(sm.window_b, 250);
	CU_ASSERT_EQUAL(sm.rtt_ps, 40 * US);
	CU_ASSERT_EQUAL(sm.rate_bps, r);
	CU_ASSERT_EQUAL(sm.have, CC_HAVE_WINDOW | CC_HAVE_RTT);
}

/* [swift] through the loader: hop_scale and fs_range follow base_target
 * (htsim: base/6.55, 5 × base) unless given; fs_min_cwnd must be below
 * fs_max_cwnd. */
static void test_section(void)
{
	struct config cfg;
	const struct swift_cfg *w = cc_section_load(&cfg, &cc_swift, "[swift]\nbase_target = 10us\n");
	CU_ASSERT_EQUAL(w->base_target, 10 * US);
	CU_ASSERT_EQUAL(w->hop_scale, (simtime_t)(10e6 / 6.55));
	CU_ASSERT_EQUAL(w->fs_range, 50 * US);
	struct swift_cfg d = defaults(10 * US, true);
	CU_ASSERT_EQUAL(w->fs_min_cwnd, d.fs_min_cwnd);
	CU_ASSERT_EQUAL(w->fs_max_cwnd, d.fs_max_cwnd);
	CU_ASSERT_EQUAL(w->ai, d.ai);
	CU_ASSERT_EQUAL(w->beta, d.beta);
	CU_ASSERT_EQUAL(w->max_mdf, d.max_mdf);
	CU_ASSERT_EQUAL(w->min_cwnd, d.min_cwnd);
	CU_ASSERT_EQUAL(w->max_cwnd, d.max_cwnd);
	config_free(&cfg);

	static const char bad[] = "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\n"
				  "link_delay = 1us\n[swift]\nfs_min_cwnd = 200\n";
	char *err = NULL;
	CU_ASSERT_NOT_EQUAL(scenario_load_text(&cfg, "test.ini", bad, sizeof bad - 1, NULL, 0, &err), 0);
	static const char *const want[] = { "test.ini:7", "[swift]", "fs_min_cwnd", "200", "fs_max_cwnd", NULL };
	CU_ASSERT(msg_has_all(err, want));
	free(err);
}

static double rtt_sum;
static long rtt_n;
static void count_rtt(struct bn *b, int i, const struct cc_ack *a, simtime_t now)
{
	(void)b; (void)i; (void)now;
	rtt_sum += (double)a->rtt;
	rtt_n++;
}

static struct bn bottleneck(int n, const struct swift_cfg *c, uint64_t c_bps)
{
	struct bn b = { .ops = &cc_swift, .params = c, .n = n, .c_bps = c_bps, .line_bps = G100,
			.d_fwd = 2 * US, .d_back = 2 * US, .mtu_b = 1000, .on_ack_cb = count_rtt };
	return b;
}

/* The delay target (§3.1): a window that grows below the target and
 * shrinks above it holds the RTT at the target. One flow on a 100 Gb/s
 * NIC into a 50 Gb/s link, flow scaling off: target = 10 µs + 1 hop ×
 * 10 µs/6.55 = 11.527 µs; the mean RTT within 2% of it, so the queueing
 * delay is target − base RTT (within 5%), and the link stays full
 * (goodput C × 1000/1078 within 1%). With the defaults (20 µs, flow
 * scaling on) and two flows at 100 Gb/s, the mean RTT is within 2% of
 * the flows' mean target. */
static void test_holds_target(void)
{
	struct swift_cfg c = defaults(10 * US, false);
	struct bn b = bottleneck(1, &c, 50000000000ull);
	bn_start(&b);
	bn_run(&b, 300 * US);
	bn_mark(&b);
	rtt_sum = 0, rtt_n = 0;
	bn_run(&b, 2300 * US);
	double target = 10e6 + (double)(simtime_t)(10e6 / 6.55);
	double rtt = rtt_sum / (double)rtt_n;
	CU_ASSERT_DOUBLE_EQUAL(rtt, target, target * 0.02);
	double base = (double)bn_base_rtt(&b);
	CU_ASSERT_DOUBLE_EQUAL(rtt - base, target - base, (target - base) * 0.05);
	CU_ASSERT_DOUBLE_EQUAL(bn_goodput_bps(&b, 0), 50e9 * 1000 / 1078, 50e9 * 0.01);
	bn_free(&b);

	c = defaults(20 * US, true);
	b = bottleneck(2, &c, G100);
	bn_start(&b);
	bn_run(&b, 2000 * US);     /* the additive increase from one BDP takes ~1.5 ms */
	bn_mark(&b);
	rtt_sum = 0, rtt_n = 0;
	double tsum = 0;
	int tn = 0;
	for (int k = 1; k <= 20; k++) {
		bn_run(&b, 2000 * US + (simtime_t)k * 100 * US);
		for (int i = 0; i < 2; i++, tn++)
			tsum += swift_target(b.st[i], ((struct swift *)b.st[i])->cwnd_b);
	}
	CU_ASSERT_DOUBLE_EQUAL(rtt_sum / (double)rtt_n, tsum / tn, tsum / tn * 0.02);
	CU_ASSERT_DOUBLE_EQUAL(bn_goodput_bps(&b, 0) + bn_goodput_bps(&b, 1), 100e9 * 1000 / 1078, 1e9);
	bn_free(&b);
}

/* Fairness: AIMD on one shared delay signal converges to equal windows
 * (Chiu and Jain: a decrease scales both windows by the same factor, an
 * increase adds ai packets per RTT to each, so their difference shrinks
 * at every decrease), and flow scaling gives the smaller window the
 * higher target. Flow 1 joins at line rate 300 µs after flow 0: over
 * 1–4 ms the goodputs are within 3% of each other and fill the link. */
static void test_fair(void)
{
	struct swift_cfg c = defaults(10 * US, true);
	struct bn b = bottleneck(2, &c, G100);
	b.start[1] = 300 * US;
	bn_start(&b);
	bn_run(&b, 1000 * US);
	bn_mark(&b);
	bn_run(&b, 4000 * US);
	double g0 = bn_goodput_bps(&b, 0), g1 = bn_goodput_bps(&b, 1);
	CU_ASSERT(fabs(g0 - g1) / (g0 + g1) < 0.03);
	CU_ASSERT_DOUBLE_EQUAL(g0 + g1, 100e9 * 1000 / 1078, 1e9);
	bn_free(&b);
}

/* Windows below one packet (§3.4): 8 flows share a 0.5 Gb/s link whose
 * whole delay budget holds fewer than 8 packets (0.5 Gb/s × (20 + 3.05 +
 * 100) µs = 7.7 KB even with all of fs_range), so their windows settle
 * below one packet and the NIC paces them at cwnd / srtt. Checked from
 * 60 ms (the start's line-rate burst drained) to 200 ms: most ACKs find
 * the sender paced, and the link still carries at least 80% of C with
 * Jain's fairness index ≥ 0.95 (it would be 1/8 if one flow took all). */
static long paced_acks, all_acks;
static void count_paced(struct bn *b, int i, const struct cc_ack *a, simtime_t now)
{
	(void)a; (void)now;
	const struct swift *s = b->st[i];
	all_acks++;
	if (s->cwnd_b < s->mtu_b) {
		paced_acks++;
		CU_ASSERT(b->ops->rate_bps(s) < b->line_bps);
		CU_ASSERT_EQUAL(b->ops->window_b(s), 1);
	}
}

static void test_paced(void)
{
	struct swift_cfg c = defaults(20 * US, true);
	struct bn b = bottleneck(8, &c, 500000000ull);
	bn_start(&b);
	bn_run(&b, 60000 * US);
	bn_mark(&b);
	b.on_ack_cb = count_paced;
	bn_run(&b, 200000 * US);
	double sum = 0, sq = 0;
	for (int i = 0; i < 8; i++) {
		double g = bn_goodput_bps(&b, i);
		sum += g;
		sq += g * g;
	}
	CU_ASSERT(all_acks > 1000);
	CU_ASSERT((double)paced_acks > 0.5 * (double)all_acks);
	CU_ASSERT(sum >= 0.8 * 0.5e9 * 1000 / 1078);
	CU_ASSERT(sum * sum / (8 * sq) >= 0.95);
	fprintf(stderr, "\n  paced %.0f%% of ACKs, %.3f Gb/s, Jain %.3f\n", 100.0 * (double)paced_acks / (double)all_acks,
		sum / 1e9, sum * sum / (8 * sq));
	bn_free(&b);
}

/* Cost of on_ack (reported, not asserted). */
static void test_cost(void)
{
	struct swift_cfg c = defaults(20 * US, true);
	struct swift s;
	start(&s, &c);
	const int n = 2000000;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++) {
		struct cc_ack a = ack(1000, (simtime_t)(20 + i % 17) * US);
		cc_swift.on_ack(&s, &a, (simtime_t)i * 100000);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
	fprintf(stderr, "\n  swift on_ack: %.1f ns per call (cwnd %.1f packets)\n", ns, s.cwnd_b / s.mtu_b);
	CU_ASSERT(s.cwnd_b >= s.min_cwnd_b && s.cwnd_b <= s.max_cwnd_b);
}

TEST_MAIN("cc_swift",
	  { "target delay: hop and flow-scaling terms", test_target },
	  { "Algorithm 1: AI above and below a packet, MD once per RTT, NAK, bounds", test_aimd },
	  { "below one packet: paced at cwnd/srtt", test_pacing },
	  { "[swift] through the loader", test_section },
	  { "bottleneck: the RTT held at the target", test_holds_target },
	  { "bottleneck: a joining flow gets an equal share", test_fair },
	  { "bottleneck: windows below a packet pace and share", test_paced },
	  { "cost of on_ack", test_cost })
