/*
 * cc_dctcp.c — DCTCP's α and its once-per-window rate cut, driven by the
 * ECN echoes the ACKs carry (see cc_dctcp.h for the algorithm and sources).
 *
 * Invariant: min_rate <= rate <= line_bps (min_rate is clamped to the line
 * rate at init); 0 <= α <= 1. Sequence numbers are the QP's cumulative
 * payload bytes (cc_ack snd_una_b, snd_nxt_b), as ns-3's ack_seq and
 * snd_nxt.
 */
#include <stddef.h>
#include "cc_dctcp.h"

/* ns-3 DataRate(bps × c): the product in double, truncated. */
static uint64_t rate_scale(uint64_t bps, double c)
{
	return (uint64_t)((double)bps * c);
}

static void dctcp_init(void *st, const void *params, const struct cc_env *env, simtime_t now)
{
	(void)now;
	const struct dctcp_cfg *c = params;
	struct dctcp *s = st;
	uint64_t line = env->line_bps;
	*s = (struct dctcp){
		.g = c->g,
		.line_bps = line,
		.rai_bps = c->rai_bps,
		.min_bps = c->min_rate_bps < line ? c->min_rate_bps : line,
		.mtu_b = env->mtu_b ? env->mtu_b : 1,
		.rate_bps = line,
		.alpha = 1,              /* ns-3 RdmaQueuePair: dctcp.m_alpha = 1 */
	};
}

static void dctcp_on_ack(void *st, const struct cc_ack *a, simtime_t now)
{
	(void)now;
	struct dctcp *s = st;
	uint64_t una = a->snd_una_b, nxt = a->snd_nxt_b;
	bool new_batch = false;

	s->ecn_cnt += a->ecn;
	if (una > s->batch_seq) {        /* a window of feedback is complete */
		new_batch = true;
		if (s->batch_seq == 0) {
			/* The first: it opens the next batch; ns-3 keeps its
			 * echo count, which then counts in the second. */
			s->batch_pkts = nxt / s->mtu_b + 1;
		} else {
			double f = (double)s->ecn_cnt / (double)s->batch_pkts;
			if (f > 1)
				f = 1;
			s->alpha = (1 - s->g) * s->alpha + s->g * f;
			s->ecn_cnt = 0;
			s->batch_pkts = (nxt - una) / s->mtu_b + 1;
			s->batches++;
		}
		s->batch_seq = nxt;
	}
	if (s->cwr && una > s->high_seq)  /* the window cut at high_seq is over */
		s->cwr = false;
	if (a->ecn && !s->cwr) {
		uint64_t r = rate_scale(s->rate_bps, 1 - s->alpha / 2);
		s->rate_bps = r > s->min_bps ? r : s->min_bps;
		s->cwr = true;
		s->high_seq = nxt;
		s->cuts++;
	}
	if (!s->cwr && new_batch) {       /* additive increase, once per window */
		uint64_t room = s->line_bps - s->rate_bps;
		s->rate_bps = s->rai_bps >= room ? s->line_bps : s->rate_bps + s->rai_bps;
	}
}

static void dctcp_on_sent(void *st, uint32_t wire_b, simtime_t now)
{
	(void)st; (void)wire_b; (void)now;
}

static void dctcp_on_timer(void *st, simtime_t now)
{
	(void)st; (void)now;
}

static simtime_t dctcp_next_timer(const void *st)
{
	(void)st;
	return SIMTIME_NEVER;
}

static uint64_t dctcp_rate_bps(const void *st)
{
	const struct dctcp *s = st;
	return s->rate_bps ? s->rate_bps : 1;   /* only a min_rate of ~0 */
}

static void dctcp_sample(const void *st, struct cc_sample *out)
{
	const struct dctcp *s = st;
	*out = (struct cc_sample){ .rate_bps = s->rate_bps, .alpha = s->alpha, .have = CC_HAVE_ALPHA };
}

/* ---- [dctcp] ---- */

#define DT(f) offsetof(struct dctcp_cfg, f)

static const struct cfg_key dctcp_keys[] = {
	{ "g", KT_NUMBER, "1/16", CFG_UNIT, .off = DT(g), .help = "alpha gain" },
	{ "rai", KT_RATE, "1000Mbps", CFG_POS, .off = DT(rai_bps),
	  .help = "additive increase per window (one MTU per RTT: MTU x 8 / RTT)" },
	{ "min_rate", KT_RATE, "1Gbps", CFG_POS, .off = DT(min_rate_bps), .help = "rate floor" },
};

const struct cfg_section dctcp_section = {
	.name = "dctcp", .help = "DCTCP, when [nic] cc = dctcp",
	CFG_KEYS(dctcp_keys), .size = sizeof(struct dctcp_cfg),
};

const struct cc_ops cc_dctcp = {
	.name = "dctcp",
	.help = "DCTCP (Alizadeh et al., SIGCOMM 2010), ECN-fraction rate control as HPCC's ns-3",
	.section = &dctcp_section,
	.state_b = sizeof(struct dctcp),
	.init = dctcp_init,
	.on_ack = dctcp_on_ack,
	.on_sent = dctcp_on_sent,
	.on_timer = dctcp_on_timer,
	.next_timer = dctcp_next_timer,
	.rate_bps = dctcp_rate_bps,
	.sample = dctcp_sample,
};
