/*
 * cc_dcqcn.c — DCQCN reaction point, variants `hpcc` and `paper` (see
 * cc_dcqcn.h for the sources and the state).
 *
 * Invariants: rate <= target <= line_bps, except that the min_rate floor
 * may lift the rate above a target that is itself below min_rate (only
 * after a first-CNP rate below min_rate). Every internal event at or before
 * `now` is done when a call returns, so next_timer() > now. Internal events
 * due at the same time as a call's input (a CNP, sent bytes) run before
 * that input; a call with an earlier `now` than a previous one is treated
 * as happening at the latest `now`.
 *
 * Rates are integer bit/s, as ns-3's DataRate (HPCC's data-rate.cc):
 *   DataRate × double   = (uint64_t)(bps × c), truncated   (rate_scale)
 *   DataRate / 2        = (uint64_t)(bps / 2.0), i.e. bps / 2 below 2^53
 * so `hpcc` reproduces ns-3 to the bit/s. One consequence kept on purpose:
 * rate/2 + line/2 turns a gap d below an even line rate into ceil(d/2),
 * which never reaches 0, so after any decrease the `hpcc` rate settles at
 * line − 1 bps, as in ns-3 (next_timer() is then SIMTIME_NEVER). The `paper`
 * variant has no bit-exact reference; it rounds its midpoints up,
 * (RT + RC + 1)/2, so RC reaches RT (and the line rate) exactly.
 *
 * α is kept lazily (struct dcqcn_alpha): updates without a CNP multiply by
 * (1 − g) one at a time, as the eager timer would, so values are identical
 * to the last bit (a closed form (1 − g)^k would round differently). Once α
 * < g × 2^-54 it no longer matters: 1 − α/2 rounds to 1.0 and the next
 * update with a CNP, (1 − g)α + g, rounds to g exactly (the added term is
 * below half an ulp of g). From there the multiplications are skipped; only
 * dcqcn_alpha() of such an α (< 2.2e-19 for g = 1/256) approximates it with
 * pow(), and no rate reads that value. This bounds the work after a long
 * quiet period to ~11 000 multiplications (g = 1/256). Bit equality with
 * ns-3 assumes (1 − g)α + g is not contracted into an FMA (plain x86-64
 * builds have no FMA; -march=native may).
 */
#include <math.h>
#include <stddef.h>
#include "cc_dcqcn.h"

/* ScheduleDecreaseRateMlx(q, 1): "add 1 ns to make sure rate decrease is
 * after alpha update" — the decrease grid is offset by 1 ns from the first CNP. */
#define DCQCN_DEC_OFFSET SIMTIME_NS

/* ns-3 DataRate(bps × c): the product in double, truncated. */
static uint64_t rate_scale(uint64_t bps, double c)
{
	return (uint64_t)((double)bps * c);
}

/* ns-3 `m_rate / 2 + m_targetRate / 2` (FastRecoveryMlx and the others). */
static uint64_t mlx_mid(uint64_t rate, uint64_t target)
{
	return rate / 2 + target / 2;
}

static uint64_t cap_add(uint64_t x, uint64_t add, uint64_t cap)
{
	return add >= cap - x ? cap : x + add;   /* x <= cap */
}

/* ---- α on its grid ---------------------------------------------------- */

/* Number of α grid points at or before t (t >= origin). */
static int64_t alpha_k_at(const struct dcqcn *s, simtime_t t)
{
	return (t - s->origin) / s->t_alpha;
}

/* n updates without a CNP: α = (1 − g)α (ns-3 UpdateAlphaMlx, else branch). */
static void alpha_decay(struct dcqcn_alpha *al, double g, double negligible, int64_t n)
{
	bool exact = al->k_exact == al->k;
	al->k += n;
	if (!exact)
		return;                    /* already negligible: stays lazy */
	while (al->k_exact < al->k) {
		if (al->a < negligible)
			return;
		double next = (1 - g) * al->a;
		if (next == al->a) {       /* fixed point (denormals, or g tiny) */
			al->k_exact = al->k;
			return;
		}
		al->a = next;
		al->k_exact++;
	}
}

/* One update that saw a CNP: α = (1 − g)α + g. A negligible α gives g. */
static void alpha_bump(struct dcqcn_alpha *al, double g)
{
	al->a = al->k_exact < al->k ? g : (1 - g) * al->a + g;
	al->k++;
	al->k_exact = al->k;
}

/* Applies every update up to grid index to_k, the flagged one included. */
static void alpha_advance(struct dcqcn_alpha *al, double g, double negligible, int64_t to_k)
{
	if (al->flag_k && al->flag_k <= to_k) {
		alpha_decay(al, g, negligible, al->flag_k - 1 - al->k);
		alpha_bump(al, g);
		al->flag_k = 0;
	}
	if (to_k > al->k)
		alpha_decay(al, g, negligible, to_k - al->k);
}

double dcqcn_alpha(const struct dcqcn *s)
{
	if (!s->active)
		return s->alpha.a;
	struct dcqcn_alpha al = s->alpha;
	alpha_advance(&al, s->g, s->alpha_negligible, alpha_k_at(s, s->now));
	if (al.k_exact < al.k)
		return al.a * pow(1 - s->g, (double)(al.k - al.k_exact));
	return al.a;
}

int64_t dcqcn_stage(const struct dcqcn *s)
{
	if (s->inc_idle && s->now >= s->inc_next)   /* firings that changed nothing */
		return s->stage + (s->now - s->inc_next) / s->t_inc + 1;
	return s->stage;
}

/* ---- hpcc: HPCC ns-3 rdma-hw.cc, "Mellanox's version of DCQCN" ---------- */

/* RateIncEventTimerMlx + RateIncEventMlx: one firing of the increase timer. */
static void hpcc_increase(struct dcqcn *s)
{
	if (s->stage == s->f)                    /* ActiveIncreaseMlx */
		s->target_bps = cap_add(s->target_bps, s->rai_bps, s->line_bps);
	else if (s->stage > s->f)                /* HyperIncreaseMlx */
		s->target_bps = cap_add(s->target_bps, s->rhai_bps, s->line_bps);
	s->rate_bps = mlx_mid(s->rate_bps, s->target_bps);   /* all three (FastRecoveryMlx: only this) */
	s->stage++;
	s->inc_next += s->t_inc;
	/* Target at line (stays there) and the rate at the midpoint's fixed
	 * point: later firings only count stages. */
	if (s->target_bps == s->line_bps && mlx_mid(s->rate_bps, s->target_bps) == s->rate_bps)
		s->inc_idle = true;
}

/* CheckRateDecreaseMlx at the check s->dec_next, a CNP having arrived. */
static void hpcc_decrease(struct dcqcn *s)
{
	simtime_t d = s->dec_next;
	/* α updates due before the check are applied. At a tie ns-3 runs first
	 * the event scheduled first: update k was scheduled at its time − t_alpha,
	 * check m >= 2 at its time − t_dec, check 1 at the first CNP right after
	 * update 1. With the 1 ns offset the grids never meet for whole-µs
	 * periods, as in HPCC's configs. */
	bool alpha_first = s->dec_m == 1 ? s->t_alpha == s->t_dec + DCQCN_DEC_OFFSET
					 : s->t_alpha > s->t_dec;
	alpha_advance(&s->alpha, s->g, s->alpha_negligible, alpha_k_at(s, alpha_first ? d : d - 1));
	/* m_EcnClampTgtRate, or m_rpTimeStage != 0 (an idle timer has fired,
	 * so s->stage >= 1 there too). */
	if (s->clamp_target || s->stage != 0)
		s->target_bps = s->rate_bps;
	uint64_t r = rate_scale(s->rate_bps, 1 - s->alpha.a / 2);
	s->rate_bps = r > s->min_bps ? r : s->min_bps;
	s->stage = 0;
	s->dec_pending = false;
	s->inc_next = d + s->t_inc;              /* Cancel + Schedule(m_rpgTimeReset) */
	s->inc_idle = false;
}

static void hpcc_advance(struct dcqcn *s, simtime_t now)
{
	for (;;) {
		simtime_t td = s->dec_pending ? s->dec_next : SIMTIME_NEVER;
		simtime_t ti = s->inc_idle ? SIMTIME_NEVER : s->inc_next;
		if (td > now && ti > now)
			return;
		/* A tied increase was scheduled t_inc earlier, the check t_dec
		 * earlier: the earlier-scheduled runs first (ns-3 FIFO at equal
		 * times); the increase then sees stage != 0 and the clamp. */
		if (ti < td || (ti == td && s->inc_before_dec))
			hpcc_increase(s);
		else
			hpcc_decrease(s);
	}
}

/* cnp_received_mlx. */
static void hpcc_cnp(struct dcqcn *s, simtime_t now)
{
	if (!s->active) {
		s->active = true;
		s->origin = now;
		s->alpha = (struct dcqcn_alpha){ .a = 1 };   /* and m_alpha_cnp_arrived = false */
		s->dec_pending = true;
		s->dec_m = 1;
		s->dec_next = now + s->t_dec + DCQCN_DEC_OFFSET;
		s->rate_bps = s->target_bps = rate_scale(s->rate_bps, s->rate_on_first_cnp);
		return;
	}
	int64_t k = alpha_k_at(s, now);
	if (s->alpha.flag_k != k + 1) {          /* the update after now sees it */
		alpha_advance(&s->alpha, s->g, s->alpha_negligible, k);
		s->alpha.flag_k = k + 1;
	}
	if (!s->dec_pending) {                   /* the first check after now sees it */
		simtime_t x = now - s->origin - DCQCN_DEC_OFFSET;
		int64_t m = x >= 0 ? x / s->t_dec + 1 : 1;
		s->dec_pending = true;
		s->dec_m = m;
		s->dec_next = s->origin + DCQCN_DEC_OFFSET + m * s->t_dec;
	}
}

/* ---- paper: Zhu et al. SIGCOMM 2015, §3.1 ----------------------------- */

/* One rate increase event; the caller has counted it in T or BC. */
static void paper_increase(struct dcqcn *s)
{
	/* Byte counter off: BC never limits, T alone decides. */
	int64_t t = s->t_count, bc = s->byte_counter_b ? s->bc_count : t;
	int64_t hi = t > bc ? t : bc, lo = t < bc ? t : bc;
	if (hi < s->f) {
		/* fast recovery: RT unchanged */
	} else if (lo > s->f) {
		/* Hyper increase: the paper adds i × R_HAI with i = min(T, BC) − F
		 * (HPCC's stage machine adds R_HAI once per step). */
		uint64_t i = (uint64_t)(lo - s->f);
		uint64_t room = s->line_bps - s->target_bps;
		s->target_bps = s->rhai_bps && i > room / s->rhai_bps ? s->line_bps
			      : s->target_bps + i * s->rhai_bps;
	} else {
		s->target_bps = cap_add(s->target_bps, s->rai_bps, s->line_bps);
	}
	s->rate_bps = (s->rate_bps + s->target_bps + 1) / 2;   /* rounded up: reaches RT */
	if (s->rate_bps == s->line_bps && s->target_bps == s->line_bps)
		s->inc_idle = true;                 /* RC = RT = line: nothing left to do */
}

static void paper_advance(struct dcqcn *s, simtime_t now)
{
	while (!s->inc_idle && s->inc_next <= now) {
		s->t_count++;
		s->inc_next += s->t_inc;
		paper_increase(s);
	}
}

/* t_dec does not exist in the paper's RP (every CNP cuts the rate; the NP
 * spaces CNPs, [dcqcn] cnp_interval): it is ignored in this variant. The
 * RP starts at the first CNP (α = 1, no timers before), as the paper's RP
 * rate-limits a flow only once notified: the first CNP halves the rate. */
static void paper_cnp(struct dcqcn *s, simtime_t now)
{
	if (s->active)                           /* decays since the last CNP */
		alpha_advance(&s->alpha, s->g, s->alpha_negligible, alpha_k_at(s, now));
	s->target_bps = s->rate_bps;
	uint64_t r = rate_scale(s->rate_bps, 1 - s->alpha.a / 2);
	s->rate_bps = r > s->min_bps ? r : s->min_bps;
	alpha_bump(&s->alpha, s->g);
	s->alpha = (struct dcqcn_alpha){ .a = s->alpha.a };   /* α timer restarts */
	s->origin = now;
	s->active = true;
	s->t_count = s->bc_count = 0;
	s->bytes = 0;
	s->inc_next = now + s->t_inc;
	s->inc_idle = false;
}

/* ---- cc_ops ------------------------------------------------------------ */

static void dcqcn_advance(struct dcqcn *s, simtime_t now)
{
	if (now > s->now)
		s->now = now;
	if (s->variant == DCQCN_HPCC)
		hpcc_advance(s, s->now);
	else
		paper_advance(s, s->now);
}

static void dcqcn_init(void *st, const void *params, const struct cc_env *env, simtime_t now)
{
	uint64_t line_bps = env->line_bps;
	const struct dcqcn_cfg *c = params;
	struct dcqcn *s = st;
	*s = (struct dcqcn){
		.variant = (enum dcqcn_variant)c->variant,
		.g = c->g,
		.alpha_negligible = ldexp(c->g, -54),
		.rate_on_first_cnp = c->rate_on_first_cnp,
		.line_bps = line_bps,
		.min_bps = c->min_rate_bps,
		/* docs/protocol.md "DCQCN", HPCC run.py: R_AI = 5 Mb/s and R_HAI = 50 Mb/s per
		 * 25 Gb/s of line rate, i.e. line/5000 and line/500 (exact integers). */
		.rai_bps = c->rai_default ? line_bps / 5000 : c->rai_bps,
		.rhai_bps = c->rhai_default ? line_bps / 500 : c->rhai_bps,
		.byte_counter_b = c->byte_counter_off ? 0 : c->byte_counter_b,
		.t_alpha = c->t_alpha,
		.t_dec = c->t_dec,
		.t_inc = c->t_inc,
		.f = c->fast_recovery_times,
		.clamp_target = c->clamp_target_rate,
		.inc_before_dec = c->t_inc > c->t_dec,
		.rate_bps = line_bps,
		.target_bps = line_bps,
		.alpha = { .a = 1 },                 /* ns-3 RdmaQueuePair: mlx.m_alpha = 1 */
		.now = now,
		.inc_next = SIMTIME_NEVER,
	};
}

static void dcqcn_on_cnp(void *st, simtime_t now)
{
	struct dcqcn *s = st;
	dcqcn_advance(s, now);
	if (s->variant == DCQCN_HPCC)
		hpcc_cnp(s, s->now);
	else
		paper_cnp(s, s->now);
}

static void dcqcn_on_sent(void *st, uint32_t wire_b, simtime_t now)
{
	struct dcqcn *s = st;
	dcqcn_advance(s, now);
	if (s->variant != DCQCN_PAPER || !s->active || !s->byte_counter_b || s->inc_idle)
		return;
	s->bytes += wire_b;
	while (s->bytes >= s->byte_counter_b && !s->inc_idle) {
		s->bytes -= s->byte_counter_b;
		s->bc_count++;
		paper_increase(s);
	}
}

static void dcqcn_on_timer(void *st, simtime_t now)
{
	dcqcn_advance(st, now);
}

static simtime_t dcqcn_next_timer(const void *st)
{
	const struct dcqcn *s = st;
	simtime_t t = s->inc_idle ? SIMTIME_NEVER : s->inc_next;
	if (s->dec_pending && s->dec_next < t)
		t = s->dec_next;
	return t;
}

static uint64_t dcqcn_rate_bps(const void *st)
{
	const struct dcqcn *s = st;
	return s->rate_bps ? s->rate_bps : 1;   /* only a first-CNP rate of ~0 */
}

static void dcqcn_sample(const void *st, struct cc_sample *out)
{
	const struct dcqcn *s = st;
	*out = (struct cc_sample){ .rate_bps = s->rate_bps, .target_bps = s->target_bps,
				   .alpha = dcqcn_alpha(s),
				   .have = CC_HAVE_TARGET | CC_HAVE_ALPHA };
}

static simtime_t dcqcn_cnp_interval(const void *params)
{
	return ((const struct dcqcn_cfg *)params)->cnp_interval;
}

/* ---- [dcqcn] ---- */

#define DC(f) offsetof(struct dcqcn_cfg, f)
static const char *const v_variant[] = { "paper", "hpcc", NULL };

static const struct cfg_key dcqcn_keys[] = {
	{ "variant", KT_ENUM, "hpcc", .vocab = v_variant, .off = DC(variant),
	  .help = "paper, or HPCC ns-3's stage machine" },
	{ "g", KT_NUMBER, "1/256", CFG_UNIT, .off = DC(g), .help = "alpha gain" },
	{ "rai", KT_RATE, .def_doc = "5Mbps per 25Gbps of host link rate, as HPCC", CFG_POS,
	  .off = DC(rai_bps), .off2 = DC(rai_default), .per_25g = 5e6, .per_host_rate = true,
	  .help = "additive increase" },
	{ "rhai", KT_RATE, .def_doc = "50Mbps per 25Gbps of host link rate, as HPCC", CFG_POS,
	  .off = DC(rhai_bps), .off2 = DC(rhai_default), .per_25g = 50e6, .per_host_rate = true,
	  .help = "hyper increase" },
	{ "t_alpha", KT_TIME, "1us", CFG_POS, .off = DC(t_alpha), .help = "alpha update period" },
	{ "t_dec", KT_TIME, "4us", CFG_POS, .off = DC(t_dec), .help = "minimum spacing of rate decreases" },
	{ "t_inc", KT_TIME, "300us", CFG_POS, .off = DC(t_inc), .help = "rate increase timer" },
	{ "byte_counter", KT_SIZE_OFF, "off", CFG_POS, .off = DC(byte_counter_b),
	  .off2 = DC(byte_counter_off), .help = "bytes per increase event" },
	{ "fast_recovery_times", KT_INT, "1", CFG_GE(0), .off = DC(fast_recovery_times),
	  .help = "F: fast recovery stages" },
	{ "min_rate", KT_RATE, "1Gbps", CFG_POS, .off = DC(min_rate_bps), .help = "rate floor" },
	{ "cnp_interval", KT_TIME, "0s", .off = DC(cnp_interval),
	  .help = "minimum spacing of CNPs per QP (0: one per CE mark)" },
	{ "rate_on_first_cnp", KT_NUMBER, "1.0", CFG_UNIT, .off = DC(rate_on_first_cnp),
	  .help = "fraction of line rate set by the first CNP" },
	{ "clamp_target_rate", KT_BOOL, "off", .off = DC(clamp_target_rate),
	  .help = "always set the target rate on a decrease" },
};

const struct cfg_section dcqcn_section = {
	.name = "dcqcn", .help = "DCQCN, when [nic] cc = dcqcn",
	CFG_KEYS(dcqcn_keys), .size = sizeof(struct dcqcn_cfg),
};

const struct cc_ops cc_dcqcn = {
	.name = "dcqcn",
	.help = "DCQCN (Zhu et al., SIGCOMM 2015), the paper's or HPCC ns-3's stage machine",
	.section = &dcqcn_section,
	.cnp_interval = dcqcn_cnp_interval,
	.state_b = sizeof(struct dcqcn),
	.init = dcqcn_init,
	.on_cnp = dcqcn_on_cnp,
	.on_sent = dcqcn_on_sent,
	.on_timer = dcqcn_on_timer,
	.next_timer = dcqcn_next_timer,
	.rate_bps = dcqcn_rate_bps,
	.sample = dcqcn_sample,
};
