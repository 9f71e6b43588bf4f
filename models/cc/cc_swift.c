/*
 * cc_swift.c — Swift's window (see cc_swift.h for the algorithm, its
 * sources and what the NIC is told).
 *
 * Invariants: min_cwnd <= cwnd <= max_cwnd (bytes) after every call;
 * rate_bps() is in [1, line]; window_b() >= 1. No timers: Swift's
 * retransmission timeout belongs to the NIC's loss recovery, which tells
 * the controller of a loss through a NAK.
 *
 * Where this follows htsim rather than the paper (which gives no values):
 * every default of [swift]; "one RTT" for the once-per-RTT decrease is the
 * smoothed RTT before this ACK's sample; a packet leaves only when it fits
 * whole in the window. Where it differs from htsim: the flow-scaling term uses
 * cwnd / mtu as a real number (htsim divides integers, so every window
 * below one packet gets the whole fs_range); the hop count is the switches
 * on the path (the paper's, from the IP TTL), where htsim counts the
 * elements of its route; the first window is one base-RTT BDP at line rate
 * (cc.h: a QP starts at line rate), where htsim starts at 12 bytes unless
 * its driver sets a window.
 */
#include <math.h>
#include <stddef.h>
#include "cc_swift.h"

double swift_target(const struct swift *s, double cwnd_b)
{
	double fs = 0;
	if (s->fs_range > 0 && cwnd_b > 0) {
		fs = s->fs_alpha / sqrt(cwnd_b / s->mtu_b) + s->fs_beta;
		fs = fs > s->fs_range ? s->fs_range : fs < 0 ? 0 : fs;
	}
	return s->fixed_target + fs;
}

static void swift_init(void *st, const void *params, const struct cc_env *env, simtime_t now)
{
	(void)now;
	const struct swift_cfg *c = params;
	struct swift *s = st;
	double mtu = env->mtu_b ? (double)env->mtu_b : 1000;
	/* α and β' of §3.5: the flow term is fs_range at fs_min_cwnd, 0 at fs_max_cwnd. */
	double alpha = (double)c->fs_range / (1 / sqrt(c->fs_min_cwnd) - 1 / sqrt(c->fs_max_cwnd));
	*s = (struct swift){
		.mtu_b = mtu,
		.line_bps = env->line_bps,
		.ai = c->ai, .beta = c->beta, .max_mdf = c->max_mdf,
		.min_cwnd_b = c->min_cwnd * mtu,
		.max_cwnd_b = c->max_cwnd * mtu,
		.fs_alpha = alpha,
		.fs_beta = -alpha / sqrt(c->fs_max_cwnd),
		.fs_range = (double)c->fs_range,
		.fixed_target = (double)c->base_target + (double)env->hops * (double)c->hop_scale,
		.wire_b = (uint32_t)mtu,
	};
	/* One BDP at line rate: the QP starts at line rate (cc.h). */
	double bdp = (double)env->line_bps * (double)env->base_rtt / 8e12;
	s->cwnd_b = env->base_rtt > 0 ? bdp : s->max_cwnd_b;
	if (s->cwnd_b > s->max_cwnd_b)
		s->cwnd_b = s->max_cwnd_b;
	if (s->cwnd_b < s->min_cwnd_b)
		s->cwnd_b = s->min_cwnd_b;
}

static bool can_decrease(const struct swift *s, simtime_t now)
{
	return !s->decreased || now - s->t_last_decrease >= s->srtt;
}

static void clamp_and_note(struct swift *s, double prev, simtime_t now)
{
	if (s->cwnd_b < s->min_cwnd_b)
		s->cwnd_b = s->min_cwnd_b;
	else if (s->cwnd_b > s->max_cwnd_b)
		s->cwnd_b = s->max_cwnd_b;
	if (s->cwnd_b < prev) {
		s->t_last_decrease = now;
		s->decreased = true;
	}
}

static void swift_on_ack(void *st, const struct cc_ack *a, simtime_t now)
{
	struct swift *s = st;
	double prev = s->cwnd_b;
	bool dec_ok = can_decrease(s, now);   /* against the RTT before this sample */
	if (a->nak) {
		/* Fast recovery: at most one cut of max_mdf per RTT. */
		if (dec_ok)
			s->cwnd_b *= 1 - s->max_mdf;
		clamp_and_note(s, prev, now);
		return;
	}
	if (a->rtt <= 0)
		return;                          /* no delay sample */
	simtime_t delay = a->rtt;
	s->last_delay = delay;
	s->srtt = s->srtt ? s->srtt - s->srtt / 8 + delay / 8 : delay;
	double target = swift_target(s, s->cwnd_b);
	if ((double)delay < target) {
		double n = (double)a->acked_b;   /* bytes: × 1/mtu packets */
		if (s->cwnd_b >= s->mtu_b)
			s->cwnd_b += s->mtu_b * s->ai * n / s->cwnd_b;
		else
			s->cwnd_b += s->ai * n;
	} else if (dec_ok) {
		double f = 1 - s->beta * ((double)delay - target) / (double)delay;
		s->cwnd_b *= f > 1 - s->max_mdf ? f : 1 - s->max_mdf;
	}
	clamp_and_note(s, prev, now);
}

static void swift_on_sent(void *st, uint32_t wire_b, simtime_t now)
{
	(void)now;
	struct swift *s = st;
	if (wire_b > s->wire_b)
		s->wire_b = wire_b;              /* the largest frame: a full packet's */
}

static void swift_on_timer(void *st, simtime_t now)
{
	(void)st; (void)now;
}

static simtime_t swift_next_timer(const void *st)
{
	(void)st;
	return SIMTIME_NEVER;
}

static uint64_t swift_rate_bps(const void *st)
{
	const struct swift *s = st;
	if (s->cwnd_b >= s->mtu_b || !s->srtt)
		return s->line_bps;
	/* pacing_delay = srtt × mtu / cwnd between full frames of wire_b bytes */
	double r = (double)s->wire_b * 8e12 * s->cwnd_b / ((double)s->srtt * s->mtu_b);
	if (r >= (double)s->line_bps)
		return s->line_bps;
	return r < 1 ? 1 : (uint64_t)r;
}

static uint64_t swift_window_b(const void *st)
{
	const struct swift *s = st;
	if (s->cwnd_b < s->mtu_b)
		return 1;                        /* one packet at a time, paced */
	return (uint64_t)(s->cwnd_b / s->mtu_b) * (uint64_t)s->mtu_b;
}

static void swift_sample(const void *st, struct cc_sample *out)
{
	const struct swift *s = st;
	*out = (struct cc_sample){ .rate_bps = swift_rate_bps(s), .window_b = (uint64_t)s->cwnd_b,
				   .rtt_ps = s->srtt, .have = CC_HAVE_WINDOW | CC_HAVE_RTT };
}

/* ---- [swift] ---- */

/* Defaults that follow base_target (htsim: _h = _base_delay / 6.55,
 * _fs_range = 5 × _base_delay) when they are not given. */
static int swift_rules(struct cfg_check *c)
{
	struct swift_cfg *o = c->data;
	if (o->hop_scale == SIMTIME_NEVER)
		o->hop_scale = (simtime_t)((double)o->base_target / 6.55);
	if (o->fs_range == SIMTIME_NEVER)
		o->fs_range = 5 * o->base_target;
	if (o->fs_min_cwnd >= o->fs_max_cwnd)
		return cfg_fail(c, cfg_given(c, "fs_min_cwnd") ? "fs_min_cwnd" : "fs_max_cwnd",
				"fs_min_cwnd (%g) below fs_max_cwnd (%g): the flow-scaling term falls "
				"from fs_range at fs_min_cwnd to 0 at fs_max_cwnd", o->fs_min_cwnd, o->fs_max_cwnd);
	if (o->min_cwnd > o->max_cwnd)
		return cfg_fail(c, cfg_given(c, "min_cwnd") ? "min_cwnd" : "max_cwnd",
				"min_cwnd (%g) at most max_cwnd (%g)", o->min_cwnd, o->max_cwnd);
	return 0;
}

#define SW(f) offsetof(struct swift_cfg, f)

static const struct cfg_key swift_keys[] = {
	{ "base_target", KT_TIME, "20us", CFG_POS, .off = SW(base_target),
	  .help = "target RTT before the hop and flow terms (htsim's default)" },
	{ "hop_scale", KT_TIME, .def_doc = "base_target / 6.55, as htsim", CFG_GE(0), .off = SW(hop_scale),
	  .help = "target added per switch on the path" },
	{ "fs_range", KT_TIME, .def_doc = "5 x base_target, as htsim", CFG_GE(0), .off = SW(fs_range),
	  .help = "flow scaling: the most the target grows for a small window (0: off)" },
	{ "fs_min_cwnd", KT_NUMBER, "0.1", CFG_POS, .off = SW(fs_min_cwnd),
	  .help = "flow scaling: window (packets) at which the target gets all of fs_range" },
	{ "fs_max_cwnd", KT_NUMBER, "100", CFG_POS, .off = SW(fs_max_cwnd),
	  .help = "flow scaling: window (packets) at which the flow term reaches 0" },
	{ "ai", KT_NUMBER, "1", CFG_POS, .off = SW(ai),
	  .help = "additive increase, packets per RTT" },
	{ "beta", KT_NUMBER, "0.8", CFG_UNIT, .off = SW(beta),
	  .help = "multiplicative decrease per unit of (delay - target)/delay" },
	{ "max_mdf", KT_NUMBER, "0.5", CFG_IN(0, 1), .off = SW(max_mdf),
	  .help = "largest fraction of the window one decrease removes" },
	{ "min_cwnd", KT_NUMBER, "0.01", CFG_POS, .off = SW(min_cwnd),
	  .help = "least window, packets (below 1: paced)" },
	{ "max_cwnd", KT_NUMBER, "1000", CFG_POS, .off = SW(max_cwnd),
	  .help = "largest window, packets" },
};

const struct cfg_section swift_section = {
	.name = "swift", .help = "Swift, when [nic] cc = swift",
	CFG_KEYS(swift_keys), .size = sizeof(struct swift_cfg), .rules = swift_rules,
};

const struct cc_ops cc_swift = {
	.name = "swift",
	.help = "Swift (Kumar et al., SIGCOMM 2020): a window on the RTT against a scaled target delay",
	.section = &swift_section,
	.state_b = sizeof(struct swift),
	.init = swift_init,
	.on_ack = swift_on_ack,
	.on_sent = swift_on_sent,
	.on_timer = swift_on_timer,
	.next_timer = swift_next_timer,
	.rate_bps = swift_rate_bps,
	.window_b = swift_window_b,
	.sample = swift_sample,
};
