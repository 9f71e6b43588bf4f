/*
 * test_cc_bottleneck.c — the single-bottleneck model the controller tests
 * use (test/cc_bottleneck.h), checked with two trivial controllers whose
 * behaviour has a closed form: a fixed rate and a fixed window.
 */
#include <CUnit/Basic.h>
#include "cc_bottleneck.h"
#include "testutil.h"

/* A controller that sends at a fixed rate, or under a fixed window. */
struct fixed { uint64_t rate, win; simtime_t last_rtt; uint64_t acks; };
static uint64_t fixed_rate_param, fixed_win_param;
static void fixed_init(void *st, const void *params, const struct cc_env *env, simtime_t now)
{
	(void)params; (void)now;
	struct fixed *f = st;
	f->rate = fixed_rate_param ? fixed_rate_param : env->line_bps;
	f->win = fixed_win_param;
}
static void fixed_on_ack(void *st, const struct cc_ack *a, simtime_t now)
{
	(void)now;
	struct fixed *f = st;
	f->last_rtt = a->rtt;
	f->acks++;
}
static void fixed_on_sent(void *st, uint32_t wire_b, simtime_t now) { (void)st; (void)wire_b; (void)now; }
static void fixed_on_timer(void *st, simtime_t now) { (void)st; (void)now; }
static simtime_t fixed_next_timer(const void *st) { (void)st; return SIMTIME_NEVER; }
static uint64_t fixed_rate_bps(const void *st) { return ((const struct fixed *)st)->rate; }
static uint64_t fixed_window_b(const void *st) { return ((const struct fixed *)st)->win; }
static void fixed_sample(const void *st, struct cc_sample *out) { *out = (struct cc_sample){ .rate_bps = fixed_rate_bps(st) }; }

static struct cc_ops fixed_ops = {
	.name = "fixed", .state_b = sizeof(struct fixed), .needs = CC_NEEDS_INT,
	.init = fixed_init, .on_ack = fixed_on_ack, .on_sent = fixed_on_sent, .on_timer = fixed_on_timer,
	.next_timer = fixed_next_timer, .rate_bps = fixed_rate_bps, .sample = fixed_sample,
};

static struct bn setup(int n, uint64_t rate, uint64_t win)
{
	fixed_rate_param = rate;
	fixed_win_param = win;
	fixed_ops.window_b = win ? fixed_window_b : NULL;
	struct bn b = { .ops = &fixed_ops, .n = n, .c_bps = 100000000000ull, .line_bps = 100000000000ull,
			.d_fwd = 2 * US, .d_back = 2 * US, .mtu_b = 1000 };
	bn_start(&b);
	return b;
}

/* One sender at 50 Gb/s into 100 Gb/s: no queue, goodput = 50G × 1000/1078,
 * and every RTT sample is the base RTT d_fwd + 1078 B × 8 / C + d_back. */
static void test_underloaded(void)
{
	struct bn b = setup(1, 50000000000ull, 0);
	bn_run(&b, 100 * US);
	bn_mark(&b);
	bn_run(&b, 1100 * US);
	CU_ASSERT_DOUBLE_EQUAL(bn_goodput_bps(&b, 0), 50e9 * 1000 / 1078, 50e9 * 0.002);
	CU_ASSERT_EQUAL(b.q_max_b, 1078);       /* the packet being sent */
	struct fixed *f = b.st[0];
	CU_ASSERT_EQUAL(f->last_rtt, 4 * US + 86240);   /* 1078 × 8 / 100 Gb/s = 86.24 ns */
	CU_ASSERT_EQUAL(bn_base_rtt(&b), 4 * US + 86240);
	bn_free(&b);
}

/* Two senders at line rate into one link: fair FIFO shares C/2 each and the
 * queue grows at C (2C in, C out): after T it holds about T × C / 8 bytes. */
static void test_overloaded(void)
{
	struct bn b = setup(2, 0, 0);
	bn_mark(&b);
	bn_run(&b, 100 * US);
	double grown = 100e-6 * 100e9 / 8;      /* 1.25 MB */
	CU_ASSERT_DOUBLE_EQUAL((double)b.qlen_b, grown, grown * 0.05);
	CU_ASSERT_DOUBLE_EQUAL((double)b.delivered_b[0], (double)b.delivered_b[1], 2000);
	bn_free(&b);
}

/* A window of W bytes on an idle path: throughput = W / base RTT
 * (W = 20 packets, RTT 4.086 µs: 39.2 Gb/s of payload). */
static void test_window(void)
{
	struct bn b = setup(1, 0, 20000);
	bn_run(&b, 50 * US);
	bn_mark(&b);
	bn_run(&b, 1050 * US);
	double expect = 20000 * 8 / (4e-6 + 86.24e-12 * 1000);
	CU_ASSERT_DOUBLE_EQUAL(bn_goodput_bps(&b, 0), expect, expect * 0.02);
	bn_free(&b);
}

/* Marking: with kmin = kmax = K the switch marks exactly the arrivals that
 * find more than K bytes queued (DCTCP's step); two line-rate senders
 * overfill the queue, so marks start once it passes K. */
static void test_marking(void)
{
	struct bn b = setup(2, 0, 0);
	b.kmin_b = b.kmax_b = 100000;
	b.pmax = 1;
	bn_mark(&b);
	bn_run(&b, 20 * US);
	/* arrivals at 2 × 100 Gb/s from d_fwd = 2 µs on; the queue grows at
	 * 100 Gb/s and passes 100 KB 8 µs later, so the arrivals of the last
	 * 10 of the 18 µs are marked */
	double arrivals = 2 * 18e-6 * 100e9 / 8 / 1078;
	CU_ASSERT_DOUBLE_EQUAL((double)b.marked, arrivals * 10 / 18, arrivals * 0.02);
	bn_free(&b);
}

TEST_MAIN("cc_bottleneck",
	  { "one sender under the bottleneck rate", test_underloaded },
	  { "two line-rate senders overfill it", test_overloaded },
	  { "a window caps throughput at W/RTT", test_window },
	  { "step marking above K", test_marking })
