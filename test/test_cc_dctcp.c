/*
 * test_cc_dctcp.c — DCTCP (models/cc/cc_dctcp.c) alone, ACK by ACK against
 * HandleAckDctcp's closed forms (α per window, the once-per-window cut,
 * additive increase), then N senders on one ECN-marking bottleneck
 * (test/cc_bottleneck.h) against the analysis of Alizadeh et al., "Data
 * Center TCP (DCTCP)", SIGCOMM 2010, §3.3.
 */
#include <math.h>
#include <time.h>
#include "cc_bottleneck.h"
#include "cc_section.h"
#include "cc_dctcp.h"
#include "config.h"
#include "nic.h"
#include "run.h"
#include "testutil.h"

#define G100 100000000000ull
#define G50 50000000000ull

static struct dctcp_cfg dcfg;
static struct dctcp st;

static void cfg_default(void)
{
	dcfg = (struct dctcp_cfg){ .g = 1.0 / 16, .rai_bps = 1000000000, .min_rate_bps = 1000000000 };
}

static void start(uint64_t line)
{
	struct cc_env env = { .line_bps = line, .mtu_b = 1000 };
	cc_dctcp.init(&st, &dcfg, &env, 0);
}

static void ack(uint64_t una, uint64_t nxt, bool ecn)
{
	struct cc_ack a = { .acked_b = 1000, .snd_una_b = una, .snd_nxt_b = nxt, .rtt = 10 * US, .ecn = ecn };
	cc_dctcp.on_ack(&st, &a, 0);
}

static void test_registry(void)
{
	CU_ASSERT_STRING_EQUAL(cc_dctcp.name, "dctcp");
	CU_ASSERT_PTR_EQUAL(cc_dctcp.section, &dctcp_section);
	CU_ASSERT_EQUAL(dctcp_section.size, sizeof(struct dctcp_cfg));
	CU_ASSERT(cc_dctcp.state_b >= sizeof(struct dctcp));
	CU_ASSERT_PTR_NULL(cc_dctcp.window_b);
	CU_ASSERT_EQUAL(cc_dctcp.needs, 0);
	/* [nic] cc = dctcp selects it; [dctcp]'s defaults are HPCC ns-3's
	 * (EwmaGain as run.py sets it for DCTCP, DctcpRateAI, MIN_RATE). */
	struct config c;
	const struct dctcp_cfg *d = cc_section_load(&c, &cc_dctcp, "");
	cfg_default();
	CU_ASSERT_EQUAL(d->g, dcfg.g);
	CU_ASSERT_EQUAL(d->rai_bps, dcfg.rai_bps);
	CU_ASSERT_EQUAL(d->min_rate_bps, dcfg.min_rate_bps);
	config_free(&c);

	start(G100);
	CU_ASSERT_EQUAL(cc_dctcp.rate_bps(&st), G100);       /* starts at line rate */
	CU_ASSERT_EQUAL(st.alpha, 1.0);                      /* and α = 1 */
	CU_ASSERT_EQUAL(cc_dctcp.next_timer(&st), SIMTIME_NEVER);
	struct cc_sample smp;
	cc_dctcp.sample(&st, &smp);
	CU_ASSERT_EQUAL(smp.have, CC_HAVE_ALPHA);
	CU_ASSERT_EQUAL(smp.alpha, 1.0);
}

/*
 * One QP, MTU 1000, ACK by ACK (snd_una, snd_nxt, echo):
 *   (1000, 10000, -): the first window ends: the next batch is
 *       10000/1000 + 1 = 11 packets; not in CWR: R = 50G + rai = 51G.
 *   (2000..10000, 12000, echo at 3000, 5000, 9000): the first echo cuts
 *       R = 51G × (1 − α/2) = 25.5G (α = 1) and enters CWR until 12000
 *       is acknowledged; the others cut nothing.
 *   (11000, 20000, -): the batch ends: F = 3/11,
 *       α = (1 − 1/16) × 1 + 3/176; still in CWR: no increase; the next
 *       batch is (20000 − 11000)/1000 + 1 = 10 packets.
 *   (13000, 21000, echo): CWR ends (13000 > 12000), the echo cuts again,
 *       R = 25.5G × (1 − α/2).
 *   (21000, 30000, -): F = 1/10, α' = (1 − 1/16) α + 1/160; CWR until
 *       21000: still in it (21000 is not beyond 21000), no increase.
 *   (31000, 40000, -): F = 0, α'' = (15/16) α'; CWR over: R + rai.
 */
static void test_acks(void)
{
	cfg_default();
	start(G100);
	st.rate_bps = G50;
	ack(1000, 10000, false);
	CU_ASSERT_EQUAL(st.batch_pkts, 11);
	CU_ASSERT_EQUAL(st.rate_bps, G50 + 1000000000);
	CU_ASSERT_EQUAL(st.alpha, 1.0);
	for (uint64_t u = 2000; u <= 10000; u += 1000)
		ack(u, 12000, u == 3000 || u == 5000 || u == 9000);
	uint64_t r = (uint64_t)(51e9 * (1 - 1.0 / 2));
	CU_ASSERT_EQUAL(st.rate_bps, r);
	CU_ASSERT_EQUAL(st.cuts, 1);
	CU_ASSERT(st.cwr);
	ack(11000, 20000, false);
	double a1 = (1 - 1.0 / 16) * 1 + (1.0 / 16) * (3.0 / 11);
	CU_ASSERT_DOUBLE_EQUAL(st.alpha, a1, 1e-15);
	CU_ASSERT_EQUAL(st.rate_bps, r);
	CU_ASSERT_EQUAL(st.batch_pkts, 10);
	ack(13000, 21000, true);
	r = (uint64_t)((double)r * (1 - a1 / 2));
	CU_ASSERT_EQUAL(st.rate_bps, r);
	CU_ASSERT_EQUAL(st.cuts, 2);
	ack(21000, 30000, false);
	double a2 = (1 - 1.0 / 16) * a1 + (1.0 / 16) * (1.0 / 10);
	CU_ASSERT_DOUBLE_EQUAL(st.alpha, a2, 1e-15);
	CU_ASSERT_EQUAL(st.rate_bps, r);
	ack(31000, 40000, false);
	CU_ASSERT_DOUBLE_EQUAL(st.alpha, (1 - 1.0 / 16) * a2, 1e-15);
	CU_ASSERT_EQUAL(st.rate_bps, r + 1000000000);
}

/* HPCC's ns-3 keeps the first window's echo count (its first batch only
 * opens the next), so an echo on the very first ACK counts in the second
 * batch's fraction: F = 1/11 there. The increase is capped at the line
 * rate, and the cut floored at min_rate. */
static void test_edges(void)
{
	cfg_default();
	start(G100);
	ack(1000, 10000, true);          /* echo: cut 100G × (1 − 1/2), CWR to 10000 */
	CU_ASSERT_EQUAL(st.rate_bps, G50);
	ack(10001, 20000, false);
	CU_ASSERT_DOUBLE_EQUAL(st.alpha, 15.0 / 16 + (1.0 / 16) * (1.0 / 11), 1e-15);
	CU_ASSERT(!st.cwr);
	CU_ASSERT_EQUAL(st.rate_bps, G50 + 1000000000);
	/* the cap */
	st.rate_bps = G100 - 1;
	ack(20001, 30000, false);
	CU_ASSERT_EQUAL(st.rate_bps, G100);
	/* the floor: α = 1 halves; from 1.5G the cut would give 0.75G < 1G */
	st.alpha = 1;
	st.rate_bps = 1500000000;
	ack(20002, 30000, true);
	CU_ASSERT_EQUAL(st.rate_bps, dcfg.min_rate_bps);
	/* min_rate above the line rate is clamped to it */
	dcfg.min_rate_bps = 200000000000ull;
	start(G100);
	CU_ASSERT_EQUAL(st.min_bps, G100);
}

/* ---- on a bottleneck ---- */

struct qwatch {
	simtime_t from, last_t;
	uint64_t last_q;
	double area, area2;          /* ∫q dt, ∫q² dt */
	uint64_t qmax, qmin;
	double alpha_sum;
	uint64_t n_alpha;
};

static void watch(struct bn *b, int snd, const struct cc_ack *a, simtime_t now)
{
	(void)a;
	struct qwatch *w = b->user;
	if (now < w->from) {
		w->last_t = now;
		w->last_q = b->qlen_b;
		return;
	}
	double dt = (double)(now - w->last_t);
	w->area += (double)w->last_q * dt;
	w->area2 += (double)w->last_q * (double)w->last_q * dt;
	w->last_t = now;
	w->last_q = b->qlen_b;
	if (b->qlen_b > w->qmax)
		w->qmax = b->qlen_b;
	if (!w->qmin || b->qlen_b < w->qmin)
		w->qmin = b->qlen_b;
	w->alpha_sum += ((struct dctcp *)b->st[snd])->alpha;
	w->n_alpha++;
}

/*
 * N DCTCP senders share a 10 Gb/s link that marks every arrival finding
 * at least K packets queued (kmin = kmax = K, pmax = 1), as HPCC's ns-3
 * runs DCTCP: paced at the rate and capped by the NIC's window, rate × T
 * (T the base RTT), so each sender's window is W = R T / 8 and rai =
 * MTU × 8 / T adds one packet of window per round trip, DCTCP's
 * congestion avoidance. The analysis of §3.3 (all in packets; C × RTT the
 * bandwidth-delay product at the base RTT) then gives, for N synchronised
 * senders:
 *   W* = (C × RTT + K) / N            the window at which the queue reaches K
 *   α  ≈ sqrt(2 / W*)                 (eq. 7)
 *   A  = ½ sqrt(2N (C × RTT + K))     the queue's oscillation amplitude (eq. 8)
 *   Q_max = K + N,  Q_min = Q_max − A (eq. 9, 10)
 * The queue is a sawtooth: it climbs N packets per round trip from Q_min
 * to Q_max and drops at once when the windows are cut, so in time it is
 * spread uniformly over [Q_min, Q_max]: mean Q_max − A/2 and standard
 * deviation A / sqrt(12). α, an average of per-window marked fractions,
 * converges to the fraction of packets marked.
 */
struct case_result { double bdp, a, mean, sd, qmax, alpha, marked, goodput; };

static struct case_result run_case(int n, double k_pkts, simtime_t d)
{
	cfg_default();
	struct bn b = { .ops = &cc_dctcp, .params = &dcfg, .n = n, .c_bps = 10000000000ull,
			.line_bps = 10000000000ull, .d_fwd = d, .d_back = d, .mtu_b = 1000, .pmax = 1 };
	const double wire = 1000 + BN_OVERHEAD_B;           /* a packet on the wire */
	simtime_t T = bn_base_rtt(&b);
	b.kmin_b = b.kmax_b = (uint64_t)(k_pkts * wire);
	b.nic_window = BN_WIN_VAR;        /* line × T / 8 bytes, scaled by rate / line */
	dcfg.rai_bps = (uint64_t)(1000 * 8 / ((double)T * 1e-12));
	dcfg.min_rate_bps = 100000000;
	struct qwatch w = { .from = 50000 * US };
	b.user = &w;
	b.on_ack_cb = watch;
	bn_start(&b);
	bn_run(&b, 50000 * US);           /* 50 ms to settle, 200 ms observed */
	bn_mark(&b);
	bn_run(&b, 250000 * US);
	struct case_result r = { .bdp = 10e9 * (double)T * 1e-12 / 8 / wire };
	r.a = 0.5 * sqrt(2 * n * (r.bdp + k_pkts));
	double span = (double)(w.last_t - w.from);
	r.mean = w.area / span / wire;
	r.sd = sqrt(w.area2 / span / wire / wire - r.mean * r.mean);
	r.qmax = (double)w.qmax / wire;
	r.alpha = w.alpha_sum / (double)w.n_alpha;
	r.marked = (double)b.marked / (double)b.dequeued;
	for (int i = 0; i < n; i++)
		r.goodput += bn_goodput_bps(&b, i);
	bn_free(&b);
	return r;
}

static void check_case(int n, double k, simtime_t d)
{
	struct case_result r = run_case(n, k, d);
	double wstar = (r.bdp + k) / n;
	double qmax = k + n, a = r.a;
	/* the queue's top is K + N, within 5 % */
	CU_ASSERT_DOUBLE_EQUAL(r.qmax, qmax, 0.05 * qmax);
	/* A = ½ sqrt(2N(C × RTT + K)) from the spread: sqrt(12) × sd, within 20 % */
	CU_ASSERT_DOUBLE_EQUAL(sqrt(12) * r.sd, a, 0.2 * a);
	/* it oscillates around K: mean Q_max − A/2, within 2 packets */
	CU_ASSERT_DOUBLE_EQUAL(r.mean, qmax - a / 2, 2);
	/* α converges to the marked fraction (within 10 %), itself near
	 * sqrt(2 / W*) (within 20 %: eq. 7 holds for W* >> 1 and synchronised
	 * senders) */
	CU_ASSERT_DOUBLE_EQUAL(r.alpha, r.marked, 0.1 * r.marked);
	CU_ASSERT_DOUBLE_EQUAL(r.alpha, sqrt(2 / wstar), 0.2 * sqrt(2 / wstar));
	/* and the queue never empties: the link carries C × 1000/1078 of payload */
	CU_ASSERT(r.goodput > 0.995 * 10e9 * 1000 / 1078);
	printf("\n    N=%d K=%.0f C×RTT=%.1f: Q_max %.1f (K+N %.0f), A %.2f (½sqrt(2N(C×RTT+K)) %.2f),"
	       " mean %.1f (%.1f), α %.3f (marked %.3f, sqrt(2/W*) %.3f)",
	       n, k, r.bdp, r.qmax, qmax, sqrt(12) * r.sd, a, r.mean, qmax - a / 2, r.alpha, r.marked,
	       sqrt(2 / wstar));
}

/* Two senders, K = 40 packets, base RTT 40.9 µs (C × RTT = 47.4 packets). */
static void test_two_senders(void)
{
	check_case(2, 40, 20 * US);
}

/* Eight senders, K = 65 packets, base RTT 100.9 µs (C × RTT = 117 packets). */
static void test_eight_senders(void)
{
	check_case(8, 65, 50 * US);
}

/* The cost of one on_ack call (reported, not asserted). */
static void test_cost(void)
{
	cfg_default();
	start(G100);
	const long n = 20000000;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t una = 0;
	for (long i = 0; i < n; i++) {
		una += 1000;
		struct cc_ack a = { .acked_b = 1000, .snd_una_b = una, .snd_nxt_b = una + 50000,
				    .rtt = 10 * US, .ecn = (i & 15) == 0 };
		cc_dctcp.on_ack(&st, &a, (simtime_t)i);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
	printf("\n    on_ack: %.2f ns per call (rate %lu)", ns, (unsigned long)st.rate_bps);
	CU_ASSERT(st.rate_bps >= dcfg.min_rate_bps && st.rate_bps <= G100);
}

TEST_MAIN("cc_dctcp",
	  { "registry, keys and defaults", test_registry },
	  { "alpha, cut and increase, ACK by ACK", test_acks },
	  { "first window, cap and floor", test_edges },
	  { "2 senders: queue around K, DCTCP §3.3", test_two_senders },
	  { "8 senders: queue around K, DCTCP §3.3", test_eight_senders },
	  { "cost of on_ack", test_cost })
