/*
 * test_dcqcn_reference.c — DCQCN's lazy timers (models/cc/cc_dcqcn.c)
 * against a literal, eager model of HPCC's ns-3 Mellanox functions on
 * random CNP patterns (a reference comparison), and next_timer()
 * never in the past under random calls of every kind, both variants.
 */
#include <math.h>
#include "dcqcn_fixture.h"
#include "hash.h"

/* Random draws: splitmix64 over a counter. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t v = splitmix64(rng_state);
	rng_state += 0x9e3779b97f4a7c15ull;
	return v;
}

enum { EV_ALPHA, EV_DEC, EV_INC, EV_N };

/* The Mellanox functions of rdma-hw.cc over a 3-slot event list ordered by
 * (time, scheduling order) like ns-3's scheduler; rescheduling a slot is
 * Simulator::Cancel + Schedule. DataRate arithmetic as data-rate.cc. */
struct ref {
	const struct dcqcn_cfg *c;
	uint64_t line, rate, target;
	double alpha;
	bool first_cnp, alpha_cnp, dec_cnp;
	int64_t stage;
	struct { simtime_t t; uint64_t uid; bool live; } ev[EV_N];
	uint64_t uid;
};

static void ref_sched(struct ref *r, int e, simtime_t t)
{
	r->ev[e].t = t;
	r->ev[e].uid = r->uid++;
	r->ev[e].live = true;
}

static uint64_t dr_mul(uint64_t bps, double c) { return (uint64_t)((double)bps * c); }
static uint64_t dr_half(uint64_t bps) { return (uint64_t)((double)bps / 2.0); }

static void ref_run(struct ref *r, simtime_t until)
{
	for (;;) {
		int e = -1;
		for (int i = 0; i < EV_N; i++)
			if (r->ev[i].live && r->ev[i].t <= until &&
			    (e < 0 || r->ev[i].t < r->ev[e].t ||
			     (r->ev[i].t == r->ev[e].t && r->ev[i].uid < r->ev[e].uid)))
				e = i;
		if (e < 0)
			return;
		simtime_t now = r->ev[e].t;
		const struct dcqcn_cfg *c = r->c;
		if (e == EV_ALPHA) {                   /* UpdateAlphaMlx */
			r->alpha = r->alpha_cnp ? (1 - c->g) * r->alpha + c->g : (1 - c->g) * r->alpha;
			r->alpha_cnp = false;
			ref_sched(r, EV_ALPHA, now + c->t_alpha);
		} else if (e == EV_DEC) {              /* CheckRateDecreaseMlx */
			ref_sched(r, EV_DEC, now + c->t_dec);
			if (r->dec_cnp) {
				if (c->clamp_target_rate || r->stage != 0)
					r->target = r->rate;
				uint64_t x = dr_mul(r->rate, 1 - r->alpha / 2);
				r->rate = x > c->min_rate_bps ? x : c->min_rate_bps;
				r->stage = 0;
				r->dec_cnp = false;
				ref_sched(r, EV_INC, now + c->t_inc);
			}
		} else {                               /* RateIncEventTimerMlx */
			ref_sched(r, EV_INC, now + c->t_inc);
			if (r->stage == c->fast_recovery_times)
				r->target += c->rai_bps;
			else if (r->stage > c->fast_recovery_times)
				r->target += c->rhai_bps;
			if (r->target > r->line)
				r->target = r->line;
			r->rate = dr_half(r->rate) + dr_half(r->target);
			r->stage++;
		}
	}
}

static void ref_cnp(struct ref *r, simtime_t now)   /* cnp_received_mlx */
{
	ref_run(r, now);
	r->alpha_cnp = r->dec_cnp = true;
	if (r->first_cnp) {
		r->alpha = 1;
		r->alpha_cnp = false;
		ref_sched(r, EV_ALPHA, now + r->c->t_alpha);
		ref_sched(r, EV_DEC, now + r->c->t_dec + 1 * NS);
		r->target = r->rate = dr_mul(r->rate, r->c->rate_on_first_cnp);
		r->first_cnp = false;
	}
}

static int n_compared;
static void compare(const struct ref *r)
{
	CU_ASSERT_EQUAL_FATAL(st.rate_bps, r->rate);
	CU_ASSERT_EQUAL_FATAL(st.target_bps, r->target);
	CU_ASSERT_EQUAL_FATAL(dcqcn_stage(&st), r->stage);
	double a = dcqcn_alpha(&st);
	if (r->alpha >= st.alpha_negligible) {
		CU_ASSERT_EQUAL_FATAL(a, r->alpha);
	} else {
		CU_ASSERT_FATAL(a < st.alpha_negligible);
	}
	n_compared++;
}

/* A CNP time after t: random, or on the α grid, the decrease grid or the
 * increase grid of a CNP-at-0 run, to exercise simultaneous events. */
static simtime_t next_cnp(simtime_t t, const struct dcqcn_cfg *c)
{
	uint64_t u = rnd();
	simtime_t d = c->t_dec;   /* gaps scale with the decrease period */
	simtime_t gap = (simtime_t)(rnd() % (uint64_t)((u & 7) < 5 ? 3 * d / 2 : 750 * d));
	simtime_t x = t + 1 + gap;
	switch ((u >> 8) % 4) {
	case 1: return (x + c->t_alpha - 1) / c->t_alpha * c->t_alpha;
	case 2: return (x - NS + c->t_dec - 1) / c->t_dec * c->t_dec + NS;
	case 3: return (x - NS + c->t_inc - 1) / c->t_inc * c->t_inc + NS;
	default: return x;
	}
}

static void reference_run(uint64_t line, uint64_t seed, int n_cnp)
{
	struct ref r = { .c = &dc, .line = line, .rate = line, .target = line,
			 .alpha = 1, .first_cnp = true };
	start(line);
	rng_state = seed;
	simtime_t cnp = 0, now = 0;
	for (int i = 0; i < n_cnp;) {
		simtime_t nt = ops->next_timer(&st);
		CU_ASSERT_FATAL(nt > now);
		if (nt <= cnp) {
			now = nt;
			ops->on_timer(&st, now);
			ref_run(&r, now);
		} else {
			now = cnp;
			ops->on_cnp(&st, now);
			ref_cnp(&r, now);
			cnp = next_cnp(cnp, &dc);
			i++;
		}
		compare(&r);
	}
	now += 5000 * dc.t_dec;          /* a quiet stretch, one call */
	ops->on_timer(&st, now);
	ref_run(&r, now);
	compare(&r);
}

static void test_hpcc_lazy_equals_eager(void)
{
	/* HPCC's settings, t_inc a multiple of t_dec (ties: increase first). */
	cfg_hpcc();
	dc.t_inc = 40 * US;
	for (uint64_t seed = 1; seed <= 4; seed++)
		reference_run(G100, seed, 300);
	/* t_alpha > t_dec (α first at ties), t_inc = t_dec (check first), F = 3. */
	cfg_hpcc();
	dc.g = 1.0 / 16;
	dc.t_alpha = 8 * US;
	dc.t_inc = 4 * US;
	dc.fast_recovery_times = 3;
	dc.clamp_target_rate = true;
	for (uint64_t seed = 10; seed <= 12; seed++)
		reference_run(40000000000ull, seed, 300);
	/* Update 1 coincides with check 1; t_inc < t_dec; g = 1/2; odd line. */
	cfg_hpcc();
	dc.g = 0.5;
	dc.t_alpha = 4 * US + 1 * NS;
	dc.t_inc = 2 * US;
	dc.rate_on_first_cnp = 0.7;
	dc.min_rate_bps = 5000000000ull;
	for (uint64_t seed = 20; seed <= 22; seed++)
		reference_run(25000000001ull, seed, 300);
	/* F = 0, t_dec = t_alpha, g tiny (α barely moves). */
	cfg_hpcc();
	dc.g = 1e-6;
	dc.t_dec = 1 * US;
	dc.t_inc = 3 * US;
	dc.fast_recovery_times = 0;
	reference_run(G100, 30, 300);
	/* Nanosecond periods, so that the α, decrease and increase grids meet
	 * often: check first at ties with α (t_alpha < t_dec), increase first
	 * (t_inc > t_dec); then α first (t_alpha > t_dec), check first
	 * (t_inc = t_dec); then t_alpha = t_dec = 1 ns, where they meet at
	 * every check. */
	static const simtime_t tiny[][3] = { { 3, 5, 20 }, { 7, 5, 5 }, { 1, 1, 3 }, { 2, 5, 4 } };
	for (int i = 0; i < 4; i++) {
		cfg_hpcc();
		dc.g = 1.0 / 8;
		dc.t_alpha = tiny[i][0] * NS;
		dc.t_dec = tiny[i][1] * NS;
		dc.t_inc = tiny[i][2] * NS;
		dc.fast_recovery_times = 2;
		dc.rai_bps = 500000000;
		dc.rhai_bps = 5000000000ull;
		for (uint64_t seed = 40; seed <= 42; seed++)
			reference_run(G100, seed + 10 * (uint64_t)i, 400);
	}
	CU_ASSERT(n_compared > 3000);
}

/* Random calls of every kind, both variants: next_timer() always lies
 * after the latest `now`, and the rate stays in [1, line]. */
static void test_next_timer_not_in_past(void)
{
	for (int v = 0; v < 2; v++) {
		v ? cfg_paper() : cfg_hpcc();
		dc.byte_counter_off = false;
		dc.byte_counter_b = 100000;
		dc.t_inc = 20 * US;
		start(G100);
		rng_state = 99 + v;
		simtime_t now = 0;
		for (int i = 0; i < 20000; i++) {
			simtime_t nt = ops->next_timer(&st);
			uint64_t u = rnd();
			if (nt != SIMTIME_NEVER && u % 3 == 0) {
				now = nt;
				ops->on_timer(&st, now);
			} else {
				simtime_t step = (simtime_t)(rnd() % (u & 1 ? 50 * US : 2 * US));
				if (nt != SIMTIME_NEVER && now + step > nt)
					step = nt - now;       /* a NIC never passes its timer */
				now += step;
				if (u % 5 == 1)
					ops->on_cnp(&st, now);
				else
					ops->on_sent(&st, 1100, now);
			}
			nt = ops->next_timer(&st);
			CU_ASSERT_FATAL(nt > now);
			CU_ASSERT_FATAL(ops->rate_bps(&st) >= 1 && ops->rate_bps(&st) <= G100);
			CU_ASSERT_FATAL(st.target_bps <= G100);
		}
	}
}


TEST_MAIN("dcqcn-reference",
	  { "hpcc: lazy timers equal ns-3's eager events", test_hpcc_lazy_equals_eager },
	  { "next_timer never in the past", test_next_timer_not_in_past })
