/*
 * cc_timely.c — TIMELY's rate update, once per round trip, from the RTT
 * samples the ACKs carry (see cc_timely.h for the algorithm and sources).
 *
 * Invariant: min_rate <= rate <= line_bps (min_rate is clamped to the
 * line rate at init). A round trip ends at the first ACK whose cumulative
 * acknowledgement passes snd_nxt as of the previous update, as ns-3's
 * `ack_seq > m_lastUpdateSeq`; other ACKs change nothing.
 */
#include <stddef.h>
#include "cc_timely.h"

/* ns-3 DataRate(bps × c): the product in double, truncated. */
static uint64_t rate_scale(uint64_t bps, double c)
{
	return (uint64_t)((double)bps * c);
}

static void timely_init(void *st, const void *params, const struct cc_env *env, simtime_t now)
{
	(void)now;
	const struct timely_cfg *c = params;
	struct timely *s = st;
	uint64_t line = env->line_bps;
	*s = (struct timely){
		.alpha = c->alpha,
		.beta = c->beta,
		.t_low = c->t_low,
		.t_high = c->t_high,
		.min_rtt = c->min_rtt,
		.line_bps = line,
		/* HPCC ns-3's RateAI / RateHAI defaults, 5 and 50 Mb/s, scaled
		 * per 25 Gb/s of line rate: line/5000 and line/500. */
		.rai_bps = c->rai_default ? line / 5000 : c->rai_bps,
		.hai_bps = c->hai_default ? line / 500 : c->hai_bps,
		.hai_after = c->hai_after,
		.min_bps = c->min_rate_bps < line ? c->min_rate_bps : line,
		.rate_bps = line,
	};
}

static uint64_t add_capped(uint64_t r, uint64_t add, uint64_t cap)
{
	return add >= cap - r ? cap : r + add;   /* r <= cap */
}

/* UpdateRateTimely for one round trip's RTT sample. */
static void timely_update(struct timely *s, simtime_t rtt)
{
	double new_diff = (double)(rtt - s->prev_rtt);
	double diff = (1 - s->alpha) * s->rtt_diff_ps + s->alpha * new_diff;
	double gradient = diff / (double)s->min_rtt;
	bool inc;
	double c = 0;
	if (rtt < s->t_low) {
		inc = true;
	} else if (rtt > s->t_high) {
		c = 1 - s->beta * (1 - (double)s->t_high / (double)rtt);
		inc = false;
	} else if (gradient <= 0) {
		inc = true;
	} else {
		c = 1 - s->beta * gradient;
		if (c < 0)
			c = 0;
		inc = false;
	}
	if (inc) {
		uint64_t d = s->inc_stage < s->hai_after ? s->rai_bps : s->hai_bps;
		s->rate_bps = add_capped(s->rate_bps, d, s->line_bps);
		s->inc_stage++;
	} else {
		uint64_t r = rate_scale(s->rate_bps, c);
		s->rate_bps = r > s->min_bps ? r : s->min_bps;
		s->inc_stage = 0;
	}
	s->rtt_diff_ps = diff;
	s->updates++;
}

static void timely_on_ack(void *st, const struct cc_ack *a, simtime_t now)
{
	(void)now;
	struct timely *s = st;
	if (a->rtt <= 0 || a->snd_una_b <= s->update_seq)
		return;                  /* no sample, or not a new round trip */
	if (s->update_seq != 0)          /* the first round trip only records */
		timely_update(s, a->rtt);
	if (a->snd_nxt_b > s->update_seq) {
		s->update_seq = a->snd_nxt_b;
		s->prev_rtt = a->rtt;
	}
}

static void timely_on_sent(void *st, uint32_t wire_b, simtime_t now)
{
	(void)st; (void)wire_b; (void)now;
}

static void timely_on_timer(void *st, simtime_t now)
{
	(void)st; (void)now;
}

static simtime_t timely_next_timer(const void *st)
{
	(void)st;
	return SIMTIME_NEVER;
}

static uint64_t timely_rate_bps(const void *st)
{
	const struct timely *s = st;
	return s->rate_bps ? s->rate_bps : 1;   /* only a min_rate of ~0 */
}

static void timely_sample(const void *st, struct cc_sample *out)
{
	const struct timely *s = st;
	*out = (struct cc_sample){ .rate_bps = s->rate_bps, .rtt_ps = s->prev_rtt, .have = CC_HAVE_RTT };
}

/* ---- [timely] ---- */

#define TC(f) offsetof(struct timely_cfg, f)

static const struct cfg_key timely_keys[] = {
	{ "alpha", KT_NUMBER, "0.875", CFG_UNIT, .off = TC(alpha),
	  .help = "weight of the newest RTT difference in its moving average" },
	{ "beta", KT_NUMBER, "0.8", CFG_UNIT, .off = TC(beta), .help = "multiplicative decrease factor" },
	{ "t_low", KT_TIME, "50us", CFG_POS, .off = TC(t_low), .help = "below this RTT: additive increase" },
	{ "t_high", KT_TIME, "500us", CFG_POS, .off = TC(t_high),
	  .help = "above this RTT: decrease by beta x (1 - t_high/RTT)" },
	{ "min_rtt", KT_TIME, "20us", CFG_POS, .off = TC(min_rtt), .help = "normalises the RTT gradient" },
	{ "rai", KT_RATE, .def_doc = "5Mbps per 25Gbps of host link rate, as HPCC", CFG_POS,
	  .off = TC(rai_bps), .off2 = TC(rai_default), .per_25g = 5e6, .per_host_rate = true,
	  .help = "additive increase" },
	{ "hai", KT_RATE, .def_doc = "50Mbps per 25Gbps of host link rate, as HPCC", CFG_POS,
	  .off = TC(hai_bps), .off2 = TC(hai_default), .per_25g = 50e6, .per_host_rate = true,
	  .help = "hyper additive increase" },
	{ "hai_after", KT_INT, "5", CFG_GE(0), .off = TC(hai_after),
	  .help = "increases in a row before each increase is hai" },
	{ "min_rate", KT_RATE, "1Gbps", CFG_POS, .off = TC(min_rate_bps), .help = "rate floor" },
};

const struct cfg_section timely_section = {
	.name = "timely", .help = "TIMELY, when [nic] cc = timely",
	CFG_KEYS(timely_keys), .size = sizeof(struct timely_cfg),
};

const struct cc_ops cc_timely = {
	.name = "timely",
	.help = "TIMELY (Mittal et al., SIGCOMM 2015), RTT-gradient rate control as HPCC's ns-3",
	.section = &timely_section,
	.state_b = sizeof(struct timely),
	.init = timely_init,
	.on_ack = timely_on_ack,
	.on_sent = timely_on_sent,
	.on_timer = timely_on_timer,
	.next_timer = timely_next_timer,
	.rate_bps = timely_rate_bps,
	.sample = timely_sample,
};
