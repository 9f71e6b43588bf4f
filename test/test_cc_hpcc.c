/*
 * test_cc_hpcc.c — the HPCC reaction point (models/cc/cc_hpcc.c): alone
 * against hand-computed telemetry (the estimate U, its smoothing over T,
 * the multiplicative and additive steps, per-RTT versus per-ACK updates,
 * the bounds), [hpcc] through the scenario loader, and on the single
 * bottleneck of test/cc_bottleneck.h against HPCC's closed forms (SIGCOMM
 * 2019, §3.2–3.3): the link held at η with a near-empty queue, and two
 * flows brought to equal rates at the rate the additive step predicts.
 */
#include <math.h>
#include <time.h>
#include "cc_bottleneck.h"
#include "cc_section.h"
#include "cc_hpcc.h"
#include "config.h"
#include "nic.h"
#include "run.h"
#include "testutil.h"

#define G100 100000000000ull
#define MBPS 1000000ull

static struct hpcc_cfg defaults(void)
{
	/* [hpcc]'s defaults, HPCC run.py's for --cc hp */
	return (struct hpcc_cfg){ .eta = 0.95, .max_stage = 0, .rai_default = true, .fast_react = true,
				  .util_high = 0.98, .min_rate_bps = 1000 * MBPS };
}

static struct cc_int_hop hop(uint64_t qlen, uint64_t tx, simtime_t ts)
{
	return (struct cc_int_hop){ .qlen_b = qlen, .tx_b = tx, .ts = ts, .rate_bps = G100 };
}

static struct cc_ack ack(uint64_t una, uint64_t nxt, const struct cc_int_hop *h, int n)
{
	return (struct cc_ack){ .acked_b = 1000, .snd_una_b = una, .snd_nxt_b = nxt, .rtt = 10 * US,
				.n_hops = (uint8_t)n, .hop = h };
}

/* A QP on a 100 Gb/s NIC with T = 10 µs. */
static void start(struct hpcc *s, const struct hpcc_cfg *c)
{
	struct cc_env env = { .line_bps = G100, .base_rtt = 10 * US, .mtu_b = 1000, .hops = 2 };
	cc_hpcc.init(s, c, &env, 0);
}

/* R_AI = 10 Mb/s × line / 25 Gb/s (run.py: 40 Mb/s at 100 Gb/s, config_hpcc
 * RATE_AI 40Mb/s); the QP starts at line rate with u = 1 (ns-3). */
static void test_init(void)
{
	struct hpcc_cfg c = defaults();
	struct hpcc s;
	start(&s, &c);
	CU_ASSERT_EQUAL(s.rai_bps, 40 * MBPS);
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), G100);
	CU_ASSERT_EQUAL(s.cur_bps, G100);
	CU_ASSERT_EQUAL(s.u, 1.0);
	struct cc_env env25 = { .line_bps = 25000000000ull, .base_rtt = 10 * US, .mtu_b = 1000 };
	cc_hpcc.init(&s, &c, &env25, 0);
	CU_ASSERT_EQUAL(s.rai_bps, 10 * MBPS);
	c.rai_default = false;
	c.rai_bps = 7 * MBPS;
	cc_hpcc.init(&s, &c, &env25, 0);
	CU_ASSERT_EQUAL(s.rai_bps, 7 * MBPS);
	CU_ASSERT_EQUAL(cc_hpcc.needs & CC_NEEDS_INT, CC_NEEDS_INT);
	CU_ASSERT_PTR_NULL(cc_hpcc.window_b);      /* W = R × T is the NIC's window */
	CU_ASSERT_EQUAL(cc_hpcc.next_timer(&s), SIMTIME_NEVER);
}

/* The first ACK only stores the records; the next one past snd_nxt of
 * that moment is a per-RTT update. Two hops, T = 10 µs:
 *   hop 0: 5 000 B in 1 µs = 40 Gb/s → 0.4; min(50 000, 30 000) B queue
 *          → 30 000 × 8 / (100 Gb/s × 10 µs) = 0.24; u0 = 0.64
 *   hop 1: 20 000 B in 2 µs = 80 Gb/s → 0.8; min(0, 10 000) → 0; u1 = 0.8
 * U = max = 0.8 with τ = 2 µs: u = (1 × (10 − 2) + 0.8 × 2) / 10 = 0.96;
 * u/η = 0.96/0.95 >= 1: R = Rc / (u/η) + R_AI, stage 0. */
static void test_update(void)
{
	struct hpcc_cfg c = defaults();
	struct hpcc s;
	start(&s, &c);
	struct cc_int_hop h1[2] = { hop(50000, 1000000, 100 * US), hop(0, 3000000, 100 * US) };
	struct cc_ack a = ack(1000, 8000, h1, 2);
	cc_hpcc.on_ack(&s, &a, 101 * US);
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), G100);      /* first RTT: records only */
	CU_ASSERT_EQUAL(s.last_update_seq, 8000);
	struct cc_int_hop h2[2] = { hop(30000, 1005000, 101 * US), hop(10000, 3020000, 102 * US) };
	a = ack(9000, 20000, h2, 2);                       /* 9000 > 8000: a full update */
	cc_hpcc.on_ack(&s, &a, 103 * US);
	double u = (1.0 * 8 + 0.8 * 2) / 10;
	CU_ASSERT_DOUBLE_EQUAL(s.u, u, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.u_last, 0.8, 1e-12);
	uint64_t r = (uint64_t)((double)G100 / (u / 0.95)) + 40 * MBPS;
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), r);
	CU_ASSERT_EQUAL(s.cur_bps, r);
	CU_ASSERT_EQUAL(s.inc_stage, 0);
	CU_ASSERT_EQUAL(s.last_update_seq, 20000);
	CU_ASSERT_EQUAL(s.updates, 1);

	/* An ACK within the RTT (9500 <= 20000): fast reaction from the same
	 * Rc. hop 0: 0 B in 1 µs, queue min(0, 30 000) = 0 → 0; hop 1: 25 000 B
	 * in 1 µs = 200 Gb/s → 2.0 (a burst), queue min(0, 10 000) = 0: U = 2, τ = 1 µs,
	 * u = (0.96 × 9 + 2 × 1) / 10 = 1.064; R = Rc / (1.064/0.95) + R_AI; Rc
	 * and the stage stay, and so does the per-RTT boundary. */
	struct cc_int_hop h3[2] = { hop(0, 1005000, 102 * US), hop(0, 3045000, 103 * US) };
	a = ack(9500, 21000, h3, 2);
	cc_hpcc.on_ack(&s, &a, 104 * US);
	double u2 = (u * 9 + 2.0 * 1) / 10;
	CU_ASSERT_DOUBLE_EQUAL(s.u, u2, 1e-12);
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), (uint64_t)((double)r / (u2 / 0.95)) + 40 * MBPS);
	CU_ASSERT_EQUAL(s.cur_bps, r);
	CU_ASSERT_EQUAL(s.last_update_seq, 20000);
	CU_ASSERT_EQUAL(s.fast_updates, 1);

	/* Without fast_react the same ACK changes nothing, not even the records. */
	c.fast_react = false;
	start(&s, &c);
	a = ack(1000, 8000, h1, 2);
	cc_hpcc.on_ack(&s, &a, 101 * US);
	a = ack(9000, 20000, h2, 2);
	cc_hpcc.on_ack(&s, &a, 103 * US);
	struct hpcc before = s;
	a = ack(9500, 21000, h3, 2);
	cc_hpcc.on_ack(&s, &a, 104 * US);
	CU_ASSERT_EQUAL(memcmp(&before, &s, sizeof s), 0);

	/* An ACK without telemetry changes nothing. */
	a = ack(30000, 40000, NULL, 0);
	cc_hpcc.on_ack(&s, &a, 105 * US);
	CU_ASSERT_EQUAL(memcmp(&before, &s, sizeof s), 0);
}

/* Feeds per-RTT updates that each measure U = `util` on one hop over a
 * whole T (so u = U after the first), from sequence seq on. */
static void feed(struct hpcc *s, double util, int n, uint64_t *seq, simtime_t *t)
{
	static uint64_t tx = 0;
	for (int i = 0; i < n; i++) {
		*t += 10 * US;
		tx += (uint64_t)llround(util * 100e9 * 10e-6 / 8);  /* util × B × T bytes */
		struct cc_int_hop h = hop(0, tx, *t);
		struct cc_ack a = ack(*seq + 1, *seq + 1000, &h, 1);
		*seq += 1000;
		cc_hpcc.on_ack(s, &a, *t);
	}
}

/* max_stage = 3 (MI_THRESH): below η, three additive steps R = Rc + R_AI,
 * then a multiplicative one R = Rc × η/u + R_AI even though u < η; above
 * η, always multiplicative. The rate stays within [min_rate, line]. */
static void test_stages(void)
{
	struct hpcc_cfg c = defaults();
	c.max_stage = 3;
	struct hpcc s;
	start(&s, &c);
	s.cur_bps = s.rate_bps = 50 * 1000 * MBPS;
	uint64_t seq = 0;
	simtime_t t = 0;
	feed(&s, 0.5, 1, &seq, &t);                        /* records */
	for (int k = 1; k <= 3; k++) {
		feed(&s, 0.5, 1, &seq, &t);
		CU_ASSERT_EQUAL(s.inc_stage, k);
		CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), 50000 * MBPS + (uint64_t)k * 40 * MBPS);
	}
	uint64_t rc = s.cur_bps;
	feed(&s, 0.5, 1, &seq, &t);                        /* stage 3 >= 3: MI */
	CU_ASSERT_EQUAL(s.inc_stage, 0);
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), (uint64_t)((double)rc / (s.u / 0.95)) + 40 * MBPS);
	CU_ASSERT_DOUBLE_EQUAL(s.u, 0.5, 1e-9);

	/* A heavily loaded hop drives R to the floor, a nearly idle one to the
	 * line (an update that measures U = 0 on every hop leaves u as it is:
	 * ns-3 smooths with the τ of the largest u, and none exceeds 0). */
	feed(&s, 50, 30, &seq, &t);
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), 1000 * MBPS);
	double u_before = s.u;
	feed(&s, 0, 1, &seq, &t);
	CU_ASSERT_EQUAL(s.u, u_before);
	feed(&s, 0.01, 30, &seq, &t);
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), G100);

	/* With max_stage 0 (the default), every update is multiplicative:
	 * Rc → Rc × η/u + R_AI; at u = 0.5 from Rc = 40 Gb/s: 76.04 Gb/s. */
	c.max_stage = 0;
	start(&s, &c);
	s.cur_bps = s.rate_bps = 40000 * MBPS;
	feed(&s, 0.5, 2, &seq, &t);
	CU_ASSERT_EQUAL(s.inc_stage, 0);
	CU_ASSERT_EQUAL(cc_hpcc.rate_bps(&s), (uint64_t)(40e9 / (0.5 / 0.95)) + 40 * MBPS);
}

/* [hpcc] through the loader: defaults, [nic] cc = hpcc selects it, a bad
 * value is refused with the key named. */
static void test_section(void)
{
	struct config cfg;
	const struct hpcc_cfg *h = cc_section_load(&cfg, &cc_hpcc, "");
	struct hpcc_cfg d = defaults();
	CU_ASSERT_EQUAL(h->eta, d.eta);
	CU_ASSERT_EQUAL(h->max_stage, d.max_stage);
	CU_ASSERT(h->rai_default);
	CU_ASSERT(h->fast_react);
	CU_ASSERT_EQUAL(h->util_high, d.util_high);
	CU_ASSERT_EQUAL(h->min_rate_bps, d.min_rate_bps);
	config_free(&cfg);

	static const char bad[] = "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\n"
				  "link_delay = 1us\n[hpcc]\neta = 1.5\n";
	char *err = NULL;
	CU_ASSERT_NOT_EQUAL(scenario_load_text(&cfg, "test.ini", bad, sizeof bad - 1, NULL, 0, &err), 0);
	static const char *const want[] = { "test.ini:7", "[hpcc]", "eta", "1.5", NULL };
	CU_ASSERT(msg_has_all(err, want));
	free(err);
}

/* The bottleneck of cc_bottleneck.h with HPCC ns-3's NIC window (VAR_WIN:
 * one line-rate BDP × R/line) and its switches' stamping point: as a packet
 * starts to serialise, with the queue waiting behind it (SwitchNotifyDequeue). */
static struct bn bottleneck(int n, const struct hpcc_cfg *c)
{
	struct bn b = { .ops = &cc_hpcc, .params = c, .n = n, .c_bps = G100, .line_bps = G100,
			.d_fwd = 2 * US, .d_back = 2 * US, .mtu_b = 1000, .nic_window = BN_WIN_VAR,
			.int_at_start = true };
	return b;
}

/* One flow alone, then two that start together at line rate into one
 * 100 Gb/s link. At the fixed point every per-RTT update returns its own
 * rate, R_i = R_i × η/u + R_AI, with u = ΣR/C on an empty queue, so
 * ΣR = η C + n R_AI: utilisation η + n R_AI / C (0.9504 for one flow,
 * 0.9508 for two), payload goodput that × C × 1000/1078 (within 1%), u
 * at η + n R_AI/C, and the queue (the packet in service included) under
 * three packets on average and ten at most after the start (HPCC's
 * near-zero queue, §3.2). */
static void test_holds_eta(void)
{
	struct hpcc_cfg c = defaults();
	for (int n = 1; n <= 2; n++) {
		struct bn b = bottleneck(n, &c);
		bn_start(&b);
		bn_run(&b, 500 * US);
		bn_mark(&b);
		bn_run(&b, 2500 * US);
		double util = 0.95 + n * 40e6 / 100e9;
		double expect = util * 100e9 * 1000 / 1078, got = 0;
		for (int i = 0; i < n; i++)
			got += bn_goodput_bps(&b, i);
		CU_ASSERT_DOUBLE_EQUAL(got, expect, expect * 0.01);
		CU_ASSERT(bn_mean_queue_b(&b) < 3 * 1078);
		CU_ASSERT(b.q_max_b < 10 * 1078);
		struct hpcc *s = b.st[0];
		CU_ASSERT_DOUBLE_EQUAL(s->u, util, 0.01);
		bn_free(&b);
	}
}

/* Fairness (§3.3). Flow 1 joins at line rate C while flow 0 holds
 * ηC + R_AI. Every multiplicative step scales both rates by the same η/u,
 * so within a few RTTs of the join the shares are those of the rates at
 * the join: |R0 − R1| / (R0 + R1) <= (C − ηC − R_AI) / (C + ηC + R_AI)
 * = 2.5%, checked on the goodput from 10 RTTs after the join on. Only
 * the additive step closes that gap: R_i' = R_i (1 − 2R_AI/ΣR) + R_AI
 * has one fixed point for both flows, R_i = (ηC + 2R_AI)/2, reached after
 * many times ΣR / (2 R_AI) RTTs (about 1 200 at the default R_AI of
 * 40 Mb/s, 50 with R_AI = 1 Gb/s): with 1 Gb/s both reference rates are
 * at 48.5 Gb/s (within 0.5%) 3 ms after the join. */
static void test_fair(void)
{
	struct hpcc_cfg c = defaults();
	struct bn b = bottleneck(2, &c);
	b.start[1] = 300 * US;
	bn_start(&b);
	bn_run(&b, 300 * US + 40 * US);
	bn_mark(&b);
	bn_run(&b, 300 * US + 1000 * US);
	double g0 = bn_goodput_bps(&b, 0), g1 = bn_goodput_bps(&b, 1);
	double bound = (100e9 - 0.95 * 100e9 - 40e6) / (100e9 + 0.95 * 100e9 + 40e6);
	CU_ASSERT(fabs(g0 - g1) / (g0 + g1) <= bound);
	double expect = (0.95 + 2 * 40e6 / 100e9) * 100e9 * 1000 / 1078;
	CU_ASSERT_DOUBLE_EQUAL(g0 + g1, expect, expect * 0.01);
	bn_free(&b);

	c.rai_default = false;
	c.rai_bps = 1000 * MBPS;
	b = bottleneck(2, &c);
	b.start[1] = 300 * US;
	bn_start(&b);
	bn_run(&b, 300 * US + 3000 * US);
	double fair = (0.95 * 100e9 + 2 * 1e9) / 2;
	for (int i = 0; i < 2; i++)
		CU_ASSERT_DOUBLE_EQUAL((double)((struct hpcc *)b.st[i])->cur_bps, fair, fair * 0.005);
	bn_free(&b);
}

/* Cost: on_ack with five hops of telemetry (reported, not asserted). */
static void test_cost(void)
{
	struct hpcc_cfg c = defaults();
	struct hpcc s;
	start(&s, &c);
	struct cc_int_hop h[5];
	const int n = 2000000;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < 5; j++)
			h[j] = hop((uint64_t)(i % 7) * 1000, (uint64_t)i * 1078, (simtime_t)i * 86240 + j);
		struct cc_ack a = ack((uint64_t)i * 1000 + 1, (uint64_t)i * 1000 + 50000, h, 5);
		cc_hpcc.on_ack(&s, &a, (simtime_t)i * 86240);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
	fprintf(stderr, "\n  hpcc on_ack (5 hops): %.1f ns per call (rate %.3f Gb/s)\n", ns,
		(double)cc_hpcc.rate_bps(&s) / 1e9);
	CU_ASSERT(s.updates + s.fast_updates > 0);
}

TEST_MAIN("cc_hpcc",
	  { "defaults: R_AI scales with line rate, starts at line", test_init },
	  { "U from telemetry, per-RTT and per-ACK updates", test_update },
	  { "max_stage additive steps, bounds, default MI", test_stages },
	  { "[hpcc] through the loader", test_section },
	  { "bottleneck: utilisation eta + n R_AI/C, near-empty queue", test_holds_eta },
	  { "a joining flow: shares within the ratio at the join, R_AI's fixed point", test_fair },
	  { "cost of on_ack", test_cost })
