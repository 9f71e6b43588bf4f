/*
 * cc_hpcc.c — HPCC reaction point (see cc_hpcc.h for the algorithm and
 * its sources).
 *
 * Invariants: min_rate <= rate <= line and min_rate <= Rc <= line once an
 * update has run (both start at the line rate); u >= 0. The controller has
 * no timers: everything happens on ACKs carrying telemetry (an ACK
 * without it changes nothing).
 *
 * Deviations from HPCC's ns-3, all where ns-3 has no defined behaviour:
 *   - telemetry is exact (bytes, picoseconds); ns-3 packs the queue in
 *     units of 80 B × INT_MULTI, the byte counter in 128 B × INT_MULTI and
 *     the time in ns, in wrapping fields;
 *   - a hop whose two records carry the same time (τ = 0; ns-3 divides by
 *     zero) is skipped; an ACK whose hop count differs from the stored
 *     records' (the path changed) only replaces the records;
 *   - T is cc_env.base_rtt (the fabric's largest base RTT, as ns-3 with
 *     GLOBAL_T 1), or, when the NIC does not know it, the RTT sample of the
 *     first ACK (an idle path's RTT).
 */
#include <math.h>
#include <stddef.h>
#include "cc_hpcc.h"

static void hpcc_init(void *st, const void *params, const struct cc_env *env, simtime_t now)
{
	(void)now;
	const struct hpcc_cfg *c = params;
	struct hpcc *s = st;
	*s = (struct hpcc){
		.line_bps = env->line_bps,
		/* run.py: RATE_AI = 10 × bw/25 Mb/s for HPCC (40 Mb/s at 100 Gb/s,
		 * config_hpcc), i.e. line/2500, an exact integer at every rate
		 * that is a whole number of 2.5 kb/s. */
		.rai_bps = c->rai_default ? env->line_bps / 2500 : c->rai_bps,
		.min_bps = c->min_rate_bps < env->line_bps ? c->min_rate_bps : env->line_bps,
		.eta = c->eta,
		.max_stage = c->max_stage,
		.fast_react = c->fast_react,
		.t = env->base_rtt,
		.rate_bps = env->line_bps,
		.cur_bps = env->line_bps,
		.u = 1,                      /* ns-3 RdmaQueuePair: hp.u = 1 */
	};
}

static void store_ref(struct hpcc *s, const struct cc_ack *a)
{
	s->n_ref = a->n_hops;
	for (unsigned i = 0; i < a->n_hops; i++)
		s->ref[i] = a->hop[i];
}

/* Rc × η/u + R_AI (or Rc + R_AI), bounded: ns-3's DataRate arithmetic,
 * the division truncated to whole bit/s. */
static uint64_t hpcc_new_rate(const struct hpcc *s, double max_c, bool mi)
{
	double r = (double)s->cur_bps;
	if (mi) {
		if (!(max_c > 0))
			return s->line_bps;      /* an idle path: no inflight at all */
		r /= max_c;
		if (r >= (double)s->line_bps)
			return s->line_bps;
	}
	uint64_t nr = (uint64_t)r;
	nr = s->rai_bps >= s->line_bps - nr ? s->line_bps : nr + s->rai_bps;
	return nr < s->min_bps ? s->min_bps : nr;
}

/* UpdateRateHp: `fast` is a per-ACK reaction between per-RTT updates. */
static void hpcc_update(struct hpcc *s, const struct cc_ack *a, bool fast)
{
	if (!s->have_ref) {                      /* the first RTT: records only */
		s->have_ref = true;
		s->last_update_seq = a->snd_nxt_b;
		store_ref(s, a);
		return;
	}
	if (a->n_hops != s->n_ref) {             /* another path: start over from here */
		store_ref(s, a);
	} else if (s->t > 0) {
		double T = (double)s->t;         /* ps */
		double U = 0;
		simtime_t dt = 0;
		bool any = false;
		for (unsigned i = 0; i < a->n_hops; i++) {
			const struct cc_int_hop *h = &a->hop[i], *r = &s->ref[i];
			if (h->ts <= r->ts || !h->rate_bps)
				continue;        /* no time between the records */
			simtime_t tau = h->ts - r->ts;
			double tx_bps = (double)(h->tx_b - r->tx_b) * 8e12 / (double)tau;
			uint64_t q = h->qlen_b < r->qlen_b ? h->qlen_b : r->qlen_b;
			double u = tx_bps / (double)h->rate_bps + (double)q * 8e12 / ((double)h->rate_bps * T);
			if (u > U) {             /* ns-3: the hop of the largest u, from 0 */
				U = u;
				dt = tau;
			}
			any = true;
			s->ref[i] = *h;
		}
		if (any) {
			if (dt > s->t)
				dt = s->t;
			s->u = (s->u * (T - (double)dt) + U * (double)dt) / T;
			s->u_last = U;
			double max_c = s->u / s->eta;
			bool mi = max_c >= 1 || s->inc_stage >= s->max_stage;
			uint64_t r = hpcc_new_rate(s, max_c, mi);
			s->rate_bps = r;
			if (!fast) {
				s->cur_bps = r;
				s->inc_stage = mi ? 0 : s->inc_stage + 1;
				s->updates++;
			} else {
				s->fast_updates++;
			}
		}
	}
	if (!fast && a->snd_nxt_b > s->last_update_seq)
		s->last_update_seq = a->snd_nxt_b;
}

/* HandleAckHp: an ACK past the sequence number sent at the last update
 * closes an RTT (a full update); the others react at once if fast_react. */
static void hpcc_on_ack(void *st, const struct cc_ack *a, simtime_t now)
{
	(void)now;
	struct hpcc *s = st;
	if (!a->n_hops || a->n_hops > CC_INT_MAX_HOPS)
		return;
	if (!s->t && a->rtt > 0)
		s->t = a->rtt;                   /* T unknown to the NIC: an idle RTT */
	bool full = a->snd_una_b > s->last_update_seq;
	if (full || s->fast_react)
		hpcc_update(s, a, !full);
}

static void hpcc_on_sent(void *st, uint32_t wire_b, simtime_t now)
{
	(void)st; (void)wire_b; (void)now;
}

static void hpcc_on_timer(void *st, simtime_t now)
{
	(void)st; (void)now;
}

static simtime_t hpcc_next_timer(const void *st)
{
	(void)st;
	return SIMTIME_NEVER;
}

static uint64_t hpcc_rate_bps(const void *st)
{
	return ((const struct hpcc *)st)->rate_bps;
}

static void hpcc_sample(const void *st, struct cc_sample *out)
{
	const struct hpcc *s = st;
	/* target: the reference rate Rc; util: the smoothed U. */
	*out = (struct cc_sample){ .rate_bps = s->rate_bps, .target_bps = s->cur_bps, .util = s->u,
				   .have = CC_HAVE_TARGET | CC_HAVE_UTIL };
}

/* ---- [hpcc] ---- */

#define HP(f) offsetof(struct hpcc_cfg, f)

static const struct cfg_key hpcc_keys[] = {
	{ "eta", KT_NUMBER, "0.95", CFG_UNIT, .off = HP(eta),
	  .help = "target utilisation of the bottleneck (HPCC U_TARGET)" },
	{ "max_stage", KT_INT, "0", CFG_GE(0), .off = HP(max_stage),
	  .help = "additive-increase stages before a multiplicative step (HPCC MI_THRESH)" },
	{ "rai", KT_RATE, .def_doc = "10Mbps per 25Gbps of host link rate, as HPCC", CFG_POS,
	  .off = HP(rai_bps), .off2 = HP(rai_default), .per_25g = 10e6, .per_host_rate = true,
	  .help = "additive increase per update" },
	{ "fast_react", KT_BOOL, "on", .off = HP(fast_react),
	  .help = "react to every ACK, not only once per RTT" },
	{ "util_high", KT_NUMBER, "0.98", CFG_UNIT, .off = HP(util_high),
	  .help = "HPCC ns-3's UtilHigh; declared there but read by no algorithm: no effect" },
	{ "min_rate", KT_RATE, "1Gbps", CFG_POS, .off = HP(min_rate_bps),
	  .help = "rate floor (HPCC MIN_RATE)" },
};

const struct cfg_section hpcc_section = {
	.name = "hpcc", .help = "HPCC, when [nic] cc = hpcc",
	CFG_KEYS(hpcc_keys), .size = sizeof(struct hpcc_cfg),
};

const struct cc_ops cc_hpcc = {
	.name = "hpcc",
	.help = "HPCC (Li et al., SIGCOMM 2019): rate from in-band telemetry, as HPCC's ns-3",
	.section = &hpcc_section,
	.state_b = sizeof(struct hpcc),
	.needs = CC_NEEDS_INT,
	.init = hpcc_init,
	.on_ack = hpcc_on_ack,
	.on_sent = hpcc_on_sent,
	.on_timer = hpcc_on_timer,
	.next_timer = hpcc_next_timer,
	.rate_bps = hpcc_rate_bps,
	.sample = hpcc_sample,
};
