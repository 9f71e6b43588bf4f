/*
 * test_cc_timely.c — TIMELY (models/cc/cc_timely.c) alone, one rate update
 * at a time against the closed forms of UpdateRateTimely (Mittal et al.,
 * SIGCOMM 2015, Algorithm 1, with HPCC ns-3's defaults), then N senders on
 * one bottleneck (test/cc_bottleneck.h).
 */
#include <math.h>
#include <time.h>
#include "cc_bottleneck.h"
#include "cc_section.h"
#include "cc_timely.h"
#include "config.h"
#include "nic.h"
#include "run.h"
#include "testutil.h"

#define G100 100000000000ull
#define G50 50000000000ull
#define RAI 20000000ull          /* 5 Mb/s per 25 Gb/s at 100 Gb/s */
#define HAI 200000000ull         /* 50 Mb/s per 25 Gb/s at 100 Gb/s */

static struct timely_cfg tc;
static struct timely st;

/* [timely]'s defaults, written out. */
static void cfg_default(void)
{
	tc = (struct timely_cfg){
		.alpha = 0.875, .beta = 0.8, .t_low = 50 * US, .t_high = 500 * US, .min_rtt = 20 * US,
		.rai_default = true, .hai_default = true, .hai_after = 5, .min_rate_bps = 1000000000,
	};
}

/* A 100 Gb/s QP whose rate is set to `rate`, and its first round trip
 * (which only records its RTT) ending with an RTT of rtt0. */
static uint64_t una, nxt;
static void start(uint64_t rate, simtime_t rtt0)
{
	struct cc_env env = { .line_bps = G100, .mtu_b = 1000 };
	cc_timely.init(&st, &tc, &env, 0);
	st.rate_bps = rate;
	una = 1000;
	nxt = 11000;
	struct cc_ack a = { .acked_b = 1000, .snd_una_b = una, .snd_nxt_b = nxt, .rtt = rtt0 };
	cc_timely.on_ack(&st, &a, rtt0);
}

/* The ACK that ends the current round trip (acknowledges past the bytes
 * sent at the previous update), with RTT sample rtt. */
static void round_trip(simtime_t rtt)
{
	una = nxt;
	nxt += 10000;
	struct cc_ack a = { .acked_b = 1000, .snd_una_b = una + 1, .snd_nxt_b = nxt, .rtt = rtt };
	cc_timely.on_ack(&st, &a, 0);
	una++;
}

static void test_registry(void)
{
	CU_ASSERT_STRING_EQUAL(cc_timely.name, "timely");
	CU_ASSERT_PTR_EQUAL(cc_timely.section, &timely_section);
	CU_ASSERT_EQUAL(timely_section.size, sizeof(struct timely_cfg));
	CU_ASSERT(cc_timely.state_b >= sizeof(struct timely));
	CU_ASSERT_PTR_NULL(cc_timely.window_b);
	CU_ASSERT_EQUAL(cc_timely.needs, 0);
	/* [nic] cc = timely selects it; [timely]'s defaults are HPCC ns-3's
	 * (rdma-hw.cc TimelyAlpha, TimelyBeta, TimelyTLow, TimelyTHigh,
	 * TimelyMinRtt; RateAI and RateHAI scaled with the line rate). */
	struct config c;
	const struct timely_cfg *d = cc_section_load(&c, &cc_timely, "");
	cfg_default();
	CU_ASSERT_EQUAL(d->alpha, tc.alpha);
	CU_ASSERT_EQUAL(d->beta, tc.beta);
	CU_ASSERT_EQUAL(d->t_low, tc.t_low);
	CU_ASSERT_EQUAL(d->t_high, tc.t_high);
	CU_ASSERT_EQUAL(d->min_rtt, tc.min_rtt);
	CU_ASSERT(d->rai_default && d->hai_default);
	CU_ASSERT_EQUAL(d->hai_after, tc.hai_after);
	CU_ASSERT_EQUAL(d->min_rate_bps, tc.min_rate_bps);
	config_free(&c);

	/* rai = 5 Mb/s × line / 25 Gb/s, hai = 50 Mb/s × line / 25 Gb/s. */
	struct cc_env env = { .line_bps = G100, .mtu_b = 1000 };
	cc_timely.init(&st, &tc, &env, 0);
	CU_ASSERT_EQUAL(st.rai_bps, RAI);
	CU_ASSERT_EQUAL(st.hai_bps, HAI);
	CU_ASSERT_EQUAL(cc_timely.rate_bps(&st), G100);       /* starts at line rate */
	CU_ASSERT_EQUAL(cc_timely.next_timer(&st), SIMTIME_NEVER);
	env.line_bps = 25000000000ull;
	cc_timely.init(&st, &tc, &env, 0);
	CU_ASSERT_EQUAL(st.rai_bps, 5000000);
	CU_ASSERT_EQUAL(st.hai_bps, 50000000);
}

/* The first round trip only records its RTT; later ACKs of the same round
 * trip (cumulative ack not past snd_nxt at the update) and ACKs without an
 * RTT sample change nothing. */
static void test_once_per_round_trip(void)
{
	cfg_default();
	start(G50, 30 * US);
	CU_ASSERT_EQUAL(st.rate_bps, G50);
	CU_ASSERT_EQUAL(st.prev_rtt, 30 * US);
	CU_ASSERT_EQUAL(st.updates, 0);
	for (uint64_t u = una; u <= nxt; u += 1000) {
		struct cc_ack a = { .acked_b = 1000, .snd_una_b = u, .snd_nxt_b = nxt + 5000, .rtt = 400 * US };
		cc_timely.on_ack(&st, &a, 0);
	}
	CU_ASSERT_EQUAL(st.rate_bps, G50);
	struct cc_ack none = { .acked_b = 1000, .snd_una_b = nxt + 1, .snd_nxt_b = nxt + 9000, .rtt = 0 };
	cc_timely.on_ack(&st, &none, 0);
	CU_ASSERT_EQUAL(st.rate_bps, G50);
	CU_ASSERT_EQUAL(st.updates, 0);
	round_trip(30 * US);
	CU_ASSERT_EQUAL(st.updates, 1);
	CU_ASSERT_EQUAL(st.rate_bps, G50 + RAI);
}

/* Below t_low every round trip adds δ, whatever the gradient: δ = rai for
 * the first hai_after = 5 increases in a row, then hai:
 *   R_k = R_0 + k × rai (k <= 5),  R_k = R_0 + 5 rai + (k − 5) hai,
 * capped at the line rate. A decrease restarts the count. */
static void test_additive_below_t_low(void)
{
	cfg_default();
	start(G50, 10 * US);
	for (int k = 1; k <= 8; k++) {
		round_trip((simtime_t)(10 + 4 * k) * US);         /* rising RTT, still < 50 µs */
		uint64_t want = G50 + (uint64_t)(k < 5 ? k : 5) * RAI + (uint64_t)(k > 5 ? k - 5 : 0) * HAI;
		CU_ASSERT_EQUAL(st.rate_bps, want);
	}
	/* a decrease (RTT 600 µs > t_high) resets the stage: the next step is rai */
	round_trip(600 * US);
	uint64_t r = st.rate_bps;
	CU_ASSERT(r < G50);
	round_trip(20 * US);
	CU_ASSERT_EQUAL(st.rate_bps, r + RAI);
	/* the cap: at line − 1 bps one increase reaches the line rate exactly */
	st.rate_bps = G100 - 1;
	round_trip(20 * US);
	CU_ASSERT_EQUAL(st.rate_bps, G100);
	round_trip(20 * US);
	CU_ASSERT_EQUAL(st.rate_bps, G100);
}

/* Between the thresholds the rate follows the RTT gradient:
 *   rtt_diff ← (1 − α) rtt_diff + α (rtt − prev_rtt),  g = rtt_diff / min_rtt,
 *   g <= 0: R + rai;  g > 0: R × (1 − β g), floored at min_rate.
 * From RTT 100 µs: 110 µs gives rtt_diff = 0.875 × 10 µs = 8.75 µs,
 * g = 0.4375, R = 50G × (1 − 0.8 × 0.4375) = 50G × 0.65 = 32.5 Gb/s; 110 µs
 * again: rtt_diff = 0.125 × 8.75 = 1.09375 µs, g = 0.0546875,
 * R = 32.5G × 0.95625; 105 µs: rtt_diff = 0.125 × 1.09375 − 0.875 × 5
 * = −4.23828125 µs < 0: R + rai. */
static void test_gradient(void)
{
	cfg_default();
	start(G50, 100 * US);
	round_trip(110 * US);
	CU_ASSERT_DOUBLE_EQUAL(st.rtt_diff_ps, 0.875 * 10e6, 1e-6);
	CU_ASSERT_EQUAL(st.rate_bps, (uint64_t)(50e9 * (1 - 0.8 * (0.875 * 10.0 / 20))));
	uint64_t r1 = st.rate_bps;
	round_trip(110 * US);
	double d2 = 0.125 * 0.875 * 10e6;
	CU_ASSERT_DOUBLE_EQUAL(st.rtt_diff_ps, d2, 1e-6);
	uint64_t r2 = (uint64_t)((double)r1 * (1 - 0.8 * d2 / 20e6));
	CU_ASSERT_EQUAL(st.rate_bps, r2);
	round_trip(105 * US);
	CU_ASSERT_DOUBLE_EQUAL(st.rtt_diff_ps, 0.125 * d2 + 0.875 * -5e6, 1e-6);
	CU_ASSERT_EQUAL(st.rate_bps, r2 + RAI);

	/* g >= 1/β = 1.25 gives c = max(0, 1 − β g) = 0: the floor, min_rate.
	 * 100 → 130 µs: rtt_diff = 26.25 µs, g = 1.3125. */
	start(G50, 100 * US);
	round_trip(130 * US);
	CU_ASSERT_EQUAL(st.rate_bps, tc.min_rate_bps);
	/* at the floor a further decrease stays there */
	round_trip(200 * US);
	CU_ASSERT_EQUAL(st.rate_bps, tc.min_rate_bps);
}

/* Above t_high the cut depends on the RTT alone, not on the gradient:
 * R × (1 − β (1 − t_high / rtt)); at 600 µs, 1 − 0.8 × (1 − 5/6) = 13/15,
 * even with a falling RTT (from 800 µs). At exactly t_high the gradient
 * rule applies (rtt > t_high is strict), as at exactly t_low (rtt < t_low). */
static void test_above_t_high(void)
{
	cfg_default();
	start(G50, 800 * US);
	round_trip(600 * US);
	CU_ASSERT_EQUAL(st.rate_bps, (uint64_t)(50e9 * (1 - 0.8 * (1 - 500.0 / 600))));
	CU_ASSERT(st.rtt_diff_ps < 0);
	uint64_t r = st.rate_bps;
	round_trip(1000 * US);          /* 1 − 0.8 × 0.5 = 0.6 */
	CU_ASSERT_EQUAL(st.rate_bps, (uint64_t)((double)r * 0.6));
	/* exactly t_high with a falling RTT: the gradient (< 0) rule, an increase */
	start(G50, 600 * US);
	round_trip(500 * US);
	CU_ASSERT_EQUAL(st.rate_bps, G50 + RAI);
	/* exactly t_low with a rising RTT: the gradient rule, a decrease */
	start(G50, 40 * US);
	round_trip(50 * US);
	CU_ASSERT_EQUAL(st.rate_bps, (uint64_t)(50e9 * (1 - 0.8 * (0.875 * 10.0 / 20))));
}

/* ---- on a bottleneck ---- */

/* Every ACK on the bottleneck, checked against an independent evaluation
 * of the update rule from the state before it (the cc_timely.h formulas);
 * counts of updates per region and the RTT samples' range. */
enum { R_LOW, R_GRAD_UP, R_GRAD_DOWN, R_HIGH, R_N };
struct watch {
	struct timely before[BN_MAX_SENDERS];
	uint64_t region[R_N], mismatches;
	simtime_t from, rtt_min, rtt_max;
	double rtt_sum;
	uint64_t rtt_n;
};

static void watch_ack(struct bn *b, int i, const struct cc_ack *a, simtime_t now)
{
	struct watch *w = b->user;
	const struct timely *s = b->st[i], *p = &w->before[i];
	if (s->updates != p->updates) {
		double diff = (1 - tc.alpha) * p->rtt_diff_ps + tc.alpha * (double)(a->rtt - p->prev_rtt);
		double g = diff / (double)tc.min_rtt;
		uint64_t want;
		int r;
		if (a->rtt < tc.t_low || (a->rtt <= tc.t_high && g <= 0)) {
			r = a->rtt < tc.t_low ? R_LOW : R_GRAD_UP;
			want = p->rate_bps + (p->inc_stage < tc.hai_after ? p->rai_bps : p->hai_bps);
			if (want > b->line_bps)
				want = b->line_bps;
		} else {
			double c = a->rtt > tc.t_high ? 1 - tc.beta * (1 - (double)tc.t_high / (double)a->rtt)
						      : fmax(0, 1 - tc.beta * g);
			r = a->rtt > tc.t_high ? R_HIGH : R_GRAD_DOWN;
			want = (uint64_t)((double)p->rate_bps * c);
			if (want < tc.min_rate_bps)
				want = tc.min_rate_bps;
		}
		if (s->rate_bps != want)
			w->mismatches++;
		if (now >= w->from)
			w->region[r]++;
	} else if (s->rate_bps != p->rate_bps) {
		w->mismatches++;              /* a change outside an update */
	}
	w->before[i] = *s;
	if (now >= w->from) {
		if (!w->rtt_min || a->rtt < w->rtt_min)
			w->rtt_min = a->rtt;
		if (a->rtt > w->rtt_max)
			w->rtt_max = a->rtt;
		w->rtt_sum += (double)a->rtt;
		w->rtt_n++;
	}
}

static struct watch run_bottleneck(int n)
{
	static struct watch w;
	w = (struct watch){ .from = 20000 * US };
	struct bn b = { .ops = &cc_timely, .params = &tc, .n = n, .c_bps = 10000000000ull,
			.line_bps = 10000000000ull, .d_fwd = 6 * US, .d_back = 6 * US, .mtu_b = 1000,
			.on_ack_cb = watch_ack, .user = &w };
	bn_start(&b);
	for (int i = 0; i < n; i++)
		w.before[i] = *(struct timely *)b.st[i];
	bn_run(&b, 20000 * US);
	bn_mark(&b);
	bn_run(&b, 100000 * US);
	double gp = 0;
	for (int i = 0; i < n; i++)
		gp += bn_goodput_bps(&b, i);
	printf("\n    N=%d t_low %.0f t_high %.0f: RTT %.1f..%.1f mean %.1f us; updates low %lu grad+ %lu grad- %lu high %lu; goodput %.2f G; mismatches %lu",
	       n, tc.t_low / 1e6, tc.t_high / 1e6, w.rtt_min / 1e6, w.rtt_max / 1e6, w.rtt_sum / (double)w.rtt_n / 1e6,
	       (unsigned long)w.region[R_LOW], (unsigned long)w.region[R_GRAD_UP], (unsigned long)w.region[R_GRAD_DOWN],
	       (unsigned long)w.region[R_HIGH], gp / 1e9, (unsigned long)w.mismatches);
	bn_free(&b);
	return w;
}

/* Two and eight senders at 10 Gb/s share a 10 Gb/s link (base RTT 12.9 µs)
 * with [timely]'s defaults. Every round-trip update on the live RTT
 * sequence equals the rule evaluated independently from the state before
 * it; below t_low the rate only grows, so the queue is pushed up to t_low,
 * where any rise of the RTT (gradient > 0) cuts: the RTT oscillates below
 * and just above t_low and never reaches t_high (no update of that
 * region). */
static void test_bottleneck(void)
{
	static const int ns[] = { 2, 8 };
	for (int k = 0; k < 2; k++) {
		cfg_default();
		struct watch w = run_bottleneck(ns[k]);
		CU_ASSERT_EQUAL(w.mismatches, 0);
		CU_ASSERT(w.region[R_LOW] > 0);
		CU_ASSERT(w.region[R_GRAD_DOWN] > 0);
		CU_ASSERT_EQUAL(w.region[R_HIGH], 0);
		CU_ASSERT(w.rtt_max > tc.t_low && w.rtt_max < tc.t_high);
		CU_ASSERT(w.rtt_sum / (double)w.rtt_n < (double)tc.t_low);
		CU_ASSERT(w.rtt_min >= 12 * US + 862);     /* base RTT: 12 µs + 1078 B at 10 Gb/s */
	}
}

/* With a negligible gradient (min_rtt = 1 ms) and thresholds of 20 and
 * 30 µs, the t_high rule does the cutting: updates above t_high happen,
 * each equal to R × (1 − β (1 − t_high / rtt)). */
static void test_bottleneck_t_high(void)
{
	cfg_default();
	tc.t_low = 20 * US;
	tc.t_high = 30 * US;
	tc.min_rtt = 1000 * US;
	struct watch w = run_bottleneck(4);
	CU_ASSERT_EQUAL(w.mismatches, 0);
	CU_ASSERT(w.region[R_HIGH] > 0);
	CU_ASSERT(w.region[R_LOW] > 0);
	CU_ASSERT(w.rtt_max > tc.t_high);
}

/* The cost of one on_ack call (reported, not asserted): every call ends a
 * round trip, the worst case. */
static void test_cost(void)
{
	cfg_default();
	start(G50, 30 * US);
	const long n = 20000000;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		una = nxt + 1;
		nxt += 2000;
		struct cc_ack a = { .acked_b = 1000, .snd_una_b = una, .snd_nxt_b = nxt,
				    .rtt = (simtime_t)(40 + (i & 31)) * US };
		cc_timely.on_ack(&st, &a, (simtime_t)i);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
	printf("\n    on_ack: %.2f ns per call (%lu updates)", ns, (unsigned long)st.updates);
	CU_ASSERT_EQUAL(st.updates, (uint64_t)n);
}

TEST_MAIN("cc_timely",
	  { "registry, keys and defaults", test_registry },
	  { "one update per round trip", test_once_per_round_trip },
	  { "below t_low: additive, then hyper increase", test_additive_below_t_low },
	  { "between thresholds: the RTT gradient", test_gradient },
	  { "above t_high: 1 - beta (1 - t_high/rtt)", test_above_t_high },
	  { "2 and 8 senders on a bottleneck: RTT held at t_low", test_bottleneck },
	  { "4 senders, weak gradient: the t_high rule", test_bottleneck_t_high },
	  { "cost of on_ack", test_cost })
