/*
 * test_dcqcn.c — the DCQCN reaction point (models/cc/cc_dcqcn.c) alone:
 * hand-computed rate, target, α and stage sequences of both variants for
 * given CNP and timer patterns. test_dcqcn_reference.c checks the lazy
 * timers against an eager model of HPCC's ns-3 on random patterns.
 */
#include <math.h>
#include "config.h"
#include "dcqcn_fixture.h"
#include "nic.h"
#include "run.h"

static void test_registry(void)
{
	/* Index 0 is none; the controllers follow in the order of
	 * CC_CONTROLLERS (models/cc/Makefile.inc), DCQCN first. */
	CU_ASSERT_PTR_NULL(cc_lookup(0));
	CU_ASSERT_STRING_EQUAL(cc_name_at(NULL, 0), "none");
	CU_ASSERT_PTR_EQUAL(cc_lookup(1), &cc_dcqcn);
	/* Every name after none is a controller; past the last, nothing. */
	size_t n = 0;
	while (cc_name_at(NULL, n))
		n++;
	CU_ASSERT(n >= 2);
	for (size_t i = 1; i < n; i++) {
		const struct cc_ops *o = cc_lookup((int)i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		CU_ASSERT_STRING_EQUAL(o->name, cc_name_at(NULL, i));
	}
	CU_ASSERT_PTR_NULL(cc_lookup((int)n));
	CU_ASSERT_PTR_NULL(cc_lookup(-1));
	CU_ASSERT_STRING_EQUAL(cc_dcqcn.name, "dcqcn");
	CU_ASSERT(cc_dcqcn.state_b >= sizeof(struct dcqcn));
	/* Its parameters are its own section's struct. */
	CU_ASSERT_PTR_EQUAL(cc_dcqcn.section, &dcqcn_section);
	CU_ASSERT_EQUAL(dcqcn_section.size, sizeof(struct dcqcn_cfg));
	cfg_hpcc();
	dc.cnp_interval = 50 * US;
	CU_ASSERT_EQUAL(cc_dcqcn.cnp_interval(&dc), 50 * US);

	/* The indices are what [nic] cc loads to, and [dcqcn]'s defaults are
	 * the fixture's HPCC settings (rai/rhai scaled with the rate). */
	static const char text[] = "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\n"
				   "link_delay = 1us\n[nic]\ncc = dcqcn\n";
	struct config c;
	char *err = NULL;
	int rc = scenario_load_text(&c, "test.ini", text, sizeof text - 1, NULL, 0, &err);
	if (rc != 0)
		fprintf(stderr, "\n  scenario_load_text: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_EQUAL(cc_lookup(nic_cfg_of(&c)->cc), &cc_dcqcn);
	CU_ASSERT_STRING_EQUAL(cc_name_at(NULL, (size_t)nic_cfg_of(&c)->cc), "dcqcn");
	const struct dcqcn_cfg *d = cc_params(&c, &cc_dcqcn);
	CU_ASSERT_PTR_EQUAL(d, cfg_get(&c, &dcqcn_section));
	CU_ASSERT_FATAL(d != NULL);
	cfg_hpcc();
	CU_ASSERT_EQUAL(d->variant, dc.variant);
	CU_ASSERT_EQUAL(d->g, dc.g);
	CU_ASSERT(d->rai_default && d->rhai_default);
	CU_ASSERT_EQUAL(d->t_alpha, dc.t_alpha);
	CU_ASSERT_EQUAL(d->t_dec, dc.t_dec);
	CU_ASSERT_EQUAL(d->t_inc, dc.t_inc);
	CU_ASSERT_EQUAL(d->byte_counter_off, dc.byte_counter_off);
	CU_ASSERT_EQUAL(d->fast_recovery_times, dc.fast_recovery_times);
	CU_ASSERT_EQUAL(d->min_rate_bps, dc.min_rate_bps);
	CU_ASSERT_EQUAL(d->rate_on_first_cnp, dc.rate_on_first_cnp);
	CU_ASSERT_EQUAL(d->clamp_target_rate, dc.clamp_target_rate);
	CU_ASSERT_EQUAL(d->cnp_interval, 0);
	config_free(&c);

	/* The receivers' CNP spacing is [dcqcn] cnp_interval, also when the
	 * senders run no controller (the notification point does not depend
	 * on the reaction point). */
	static const char spaced[] = "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\n"
				     "link_delay = 1us\n[dcqcn]\ncnp_interval = 50us\n";
	CU_ASSERT_EQUAL_FATAL(scenario_load_text(&c, "test.ini", spaced, sizeof spaced - 1, NULL, 0, &err), 0);
	CU_ASSERT_PTR_EQUAL(cc_lookup(nic_cfg_of(&c)->cc), &cc_dcqcn); /* the default */
	CU_ASSERT_EQUAL(cc_cnp_interval(&c, nic_cfg_of(&c)->cc), 50 * US);
	CU_ASSERT_EQUAL(cc_cnp_interval(&c, 0), 50 * US); /* none */
	config_free(&c);
}

/* rai/rhai defaults: 5 and 50 Mb/s per 25 Gb/s of line rate. */
static void test_default_increments(void)
{
	cfg_hpcc();
	dc.rai_default = dc.rhai_default = true;
	start(G100);
	CU_ASSERT_EQUAL(st.rai_bps, 20000000);
	CU_ASSERT_EQUAL(st.rhai_bps, 200000000);
	start(25000000000ull);
	CU_ASSERT_EQUAL(st.rai_bps, 5000000);
	CU_ASSERT_EQUAL(st.rhai_bps, 50000000);
}

/*
 * hpcc, 100 Gb/s, g = 1/256, F = 1, one CNP at t = 0 and none after.
 * The first CNP sets α = 1 and clears the α flag, so the updates at 1, 2,
 * 3, 4 µs all decay: α(1 µs) = 255/256, α(4 µs) = 255^4/256^4 =
 * 4228250625/4294967296 (exact in a double). The check at 4 µs + 1 ns:
 *   1 − α/2 = 4361683967/8589934592,
 *   100e9 × that = 212972849951171875/4194304 = 50776684272.57 → 50776684272.
 * Stage 0 and no clamp: the target stays 100 Gb/s (set by the first CNP).
 * Increase timer at 304.001 µs then every 300 µs; with the target at line
 * every step (fast recovery, additive, hyper alike) is rate/2 + line/2, so
 * the gap to line d goes to ceil(d/2): d0 = 49223315728 → 24611657864 →
 * 12305828932 → 6152914466 ...; 2^35 < d0 < 2^36 so after 36 steps d = 1
 * and stays 1 (ns-3's integer halving): the rate settles at line − 1 bps
 * at 4.001 + 36 × 300 = 10804.001 µs and the timer goes quiet.
 */
static void test_hpcc_single_cnp(void)
{
	cfg_hpcc();
	start(G100);
	CU_ASSERT_EQUAL(ops->next_timer(&st), SIMTIME_NEVER);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), G100);
	ops->on_cnp(&st, 0);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), G100);
	CU_ASSERT_EQUAL(dcqcn_alpha(&st), 1.0);
	CU_ASSERT_EQUAL(ops->next_timer(&st), 4 * US + 1 * NS);
	ops->on_timer(&st, 1 * US);            /* early call: harmless */
	CU_ASSERT_EQUAL(dcqcn_alpha(&st), 255.0 / 256);
	run_to(4 * US + 1 * NS);
	CU_ASSERT_EQUAL(dcqcn_alpha(&st), 4228250625.0 / 4294967296.0);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 50776684272ull);
	CU_ASSERT_EQUAL(st.target_bps, G100);
	CU_ASSERT_EQUAL(dcqcn_stage(&st), 0);
	CU_ASSERT_EQUAL(ops->next_timer(&st), 304 * US + 1 * NS);

	static const uint64_t first[] = { 75388342136ull, 87694171068ull, 93847085534ull };
	for (int i = 0; i < 3; i++) {
		run_to(304 * US + 1 * NS + i * 300 * US);
		CU_ASSERT_EQUAL(ops->rate_bps(&st), first[i]);
		CU_ASSERT_EQUAL(st.target_bps, G100);
		CU_ASSERT_EQUAL(dcqcn_stage(&st), i + 1);
	}
	run_to(10804 * US);                    /* just before step 36 */
	CU_ASSERT_EQUAL(ops->rate_bps(&st), G100 - 2);
	run_to(10804 * US + 1 * NS);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), G100 - 1);
	CU_ASSERT_EQUAL(ops->next_timer(&st), SIMTIME_NEVER);
	/* The stage keeps counting while quiet: 37 firings by 11104.001 µs. */
	ops->on_timer(&st, 11104 * US + 1 * NS);
	CU_ASSERT_EQUAL(dcqcn_stage(&st), 37);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), G100 - 1);
	struct cc_sample s;
	ops->sample(&st, &s);
	CU_ASSERT_EQUAL(s.rate_bps, G100 - 1);
	CU_ASSERT_EQUAL(s.target_bps, G100);
	CU_ASSERT(s.alpha > 0 && s.alpha < 1e-18);   /* (255/256)^11104 */
}

/*
 * The stage machine with g = 1/2 (α exact powers of 2), 100 Gb/s, F = 1:
 *   CNP at 0; check 4.001 µs: α = 2^-4, rate = 100e9 × 0.96875 = 96875000000;
 *   304.001 (stage 0, fast recovery): 48437500000 + 50e9 = 98437500000;
 *   CNP at 400.5 µs flags update 401 and the check at 404.001 µs. α(400) ≈
 *   2^-400, α(401) = 2^-401 + 1/2 = 0.5 (in a double), α(404) = 2^-4. Stage
 *   1 → clamp: target = 98437500000; rate × 31/32 = 95361328125;
 *   704.001 fast recovery: 47680664062 + 49218750000 = 96899414062;
 *   1004.001 additive: target 98457500000, rate 48449707031 + 49228750000
 *   = 97678457031; 1304.001 hyper: target 98657500000, rate 48839228515 +
 *   49328750000 = 98167978515; 1604.001 hyper: target 98857500000, rate
 *   49083989257 + 49428750000 = 98512739257.
 */
static void test_hpcc_stages(void)
{
	cfg_hpcc();
	dc.g = 0.5;
	start(G100);
	ops->on_cnp(&st, 0);
	run_to(4 * US + 1 * NS);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 96875000000ull);
	run_to(304 * US + 1 * NS);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 98437500000ull);
	CU_ASSERT_EQUAL(dcqcn_stage(&st), 1);
	run_to(400 * US + 500 * NS);
	ops->on_cnp(&st, 400 * US + 500 * NS);
	CU_ASSERT_EQUAL(ops->next_timer(&st), 404 * US + 1 * NS);
	run_to(404 * US + 1 * NS);
	CU_ASSERT_EQUAL(dcqcn_alpha(&st), 0.0625);
	CU_ASSERT_EQUAL(st.target_bps, 98437500000ull);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 95361328125ull);
	CU_ASSERT_EQUAL(dcqcn_stage(&st), 0);
	CU_ASSERT_EQUAL(ops->next_timer(&st), 704 * US + 1 * NS);
	static const struct { uint64_t target, rate; } step[] = {
		{ 98437500000ull, 96899414062ull }, { 98457500000ull, 97678457031ull },
		{ 98657500000ull, 98167978515ull }, { 98857500000ull, 98512739257ull },
	};
	for (int i = 0; i < 4; i++) {
		run_to(704 * US + 1 * NS + i * 300 * US);
		CU_ASSERT_EQUAL(st.target_bps, step[i].target);
		CU_ASSERT_EQUAL(ops->rate_bps(&st), step[i].rate);
	}
}

/*
 * g = 1/2, CNPs at 0 and 5 µs (before any increase, stage 0). α: 1/16 at
 * 4 µs, 1/32 at 5 µs; update 6 sees the CNP: 1/64 + 1/2 = 0.515625; then
 * 0.2578125, 0.12890625 at 8 µs. Check 4.001: 96875000000. Check 8.001:
 * rate × (1 − 0.064453125) = 96875000000 × 479/512 = 90631103515.625 →
 * 90631103515. Clamp off: the target stays 100 Gb/s; on: 96875000000.
 */
static void test_hpcc_clamp(void)
{
	for (int clamp = 0; clamp < 2; clamp++) {
		cfg_hpcc();
		dc.g = 0.5;
		dc.clamp_target_rate = clamp;
		start(G100);
		ops->on_cnp(&st, 0);
		run_to(5 * US);
		ops->on_cnp(&st, 5 * US);
		CU_ASSERT_EQUAL(ops->next_timer(&st), 8 * US + 1 * NS);
		run_to(8 * US + 1 * NS);
		CU_ASSERT_EQUAL(dcqcn_alpha(&st), 0.12890625);
		CU_ASSERT_EQUAL(ops->rate_bps(&st), 90631103515ull);
		CU_ASSERT_EQUAL(st.target_bps, clamp ? 96875000000ull : G100);
	}
}

/*
 * rate_on_first_cnp = 0.5, g = 1/2: the first CNP sets rate = target =
 * 50e9; check 4.001: 50e9 × 0.96875 = 48437500000; 304.001 fast recovery:
 * 24218750000 + 25e9 = 49218750000; 604.001 additive: target 50.02e9,
 * rate 24609375000 + 25010000000 = 49619375000.
 */
static void test_hpcc_rate_on_first_cnp(void)
{
	cfg_hpcc();
	dc.g = 0.5;
	dc.rate_on_first_cnp = 0.5;
	start(G100);
	ops->on_cnp(&st, 0);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 50000000000ull);
	CU_ASSERT_EQUAL(st.target_bps, 50000000000ull);
	run_to(4 * US + 1 * NS);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 48437500000ull);
	run_to(304 * US + 1 * NS);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 49218750000ull);
	run_to(604 * US + 1 * NS);
	CU_ASSERT_EQUAL(st.target_bps, 50020000000ull);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 49619375000ull);
}

/* min_rate floors the decrease: 96.875 Gb/s < 97 Gb/s; and a CNP storm
 * at g = 1/256 stops at 1 Gb/s. Paper: RC floors too. */
static void test_min_rate(void)
{
	cfg_hpcc();
	dc.g = 0.5;
	dc.min_rate_bps = 97000000000ull;
	start(G100);
	ops->on_cnp(&st, 0);
	run_to(4 * US + 1 * NS);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 97000000000ull);

	cfg_hpcc();
	start(G100);
	for (simtime_t t = 0; t < 2000 * US; t += 2 * US) {
		run_to(t);
		ops->on_cnp(&st, t);
		CU_ASSERT(ops->rate_bps(&st) >= 1000000000ull);
	}
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 1000000000ull);

	cfg_paper();
	start(G100);
	for (int i = 0; i < 20; i++)
		ops->on_cnp(&st, i * NS);          /* α stays 1: halves each time */
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 1000000000ull);
}

/*
 * paper, byte counter off, 100 Gb/s, g = 1/256, F = 2. CNP at 0: α = 1 →
 * RT = 100e9, RC = 50e9, α = (1 − g) + g = 1. CNP at 1 µs (no α decay yet,
 * t_alpha 55 µs): RT = 50e9, RC = 25e9, α = 1; timers restart from 1 µs.
 *   56 µs  T=1 < F        fast recovery RC = 37.5e9, α = 255/256
 *  111 µs  T=2 = F        additive RT = 50.02e9, RC = 43.76e9, α = (255/256)^2
 *  166 µs  T=3, i = 1     hyper RT = 50.22e9, RC = 46.99e9
 *  221 µs  T=4, i = 2     hyper RT = 50.62e9, RC = 48.805e9
 */
static void test_paper_timer_only(void)
{
	cfg_paper();
	start(G100);
	CU_ASSERT_EQUAL(ops->next_timer(&st), SIMTIME_NEVER);
	ops->on_cnp(&st, 0);
	CU_ASSERT_EQUAL(st.target_bps, G100);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 50000000000ull);
	CU_ASSERT_EQUAL(dcqcn_alpha(&st), 1.0);
	ops->on_cnp(&st, 1 * US);
	CU_ASSERT_EQUAL(st.target_bps, 50000000000ull);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 25000000000ull);
	CU_ASSERT_EQUAL(ops->next_timer(&st), 56 * US);
	ops->on_sent(&st, 1000000000, 2 * US);   /* byte counter off: ignored */
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 25000000000ull);
	static const struct { uint64_t rt, rc; } step[] = {
		{ 50000000000ull, 37500000000ull }, { 50020000000ull, 43760000000ull },
		{ 50220000000ull, 46990000000ull }, { 50620000000ull, 48805000000ull },
	};
	for (int i = 0; i < 4; i++) {
		run_to(56 * US + i * 55 * US);
		CU_ASSERT_EQUAL(st.target_bps, step[i].rt);
		CU_ASSERT_EQUAL(ops->rate_bps(&st), step[i].rc);
		if (i == 0) {
			CU_ASSERT_EQUAL(dcqcn_alpha(&st), 255.0 / 256);
		}
		if (i == 1) {
			CU_ASSERT_EQUAL(dcqcn_alpha(&st), 65025.0 / 65536);
		}
	}
}

/*
 * paper, byte counter 1 MB, t_inc 100 µs, same two CNPs (RT 50e9, RC 25e9):
 *   1 MB at 2 µs         BC=1, T=0: max < F, fast recovery RC = 37.5e9
 *   999999 B + 1 B       BC=2: additive RT 50.02e9, RC 43.76e9
 *   3 MB                 BC=3,4,5, min(T, BC) = 0: additive ×3:
 *                        RT 50.04 / 50.06 / 50.08e9, RC 46.90 / 48.48 / 49.28e9
 *   101 µs T=1           min = 1: additive RT 50.10e9, RC 49.69e9
 *   201 µs T=2           additive RT 50.12e9, RC 49.905e9
 *   301 µs T=3           min(3, 5) > F: hyper i = 1: RT 50.32e9, RC 50.1125e9
 */
static void test_paper_byte_counter(void)
{
	cfg_paper();
	dc.byte_counter_off = false;
	dc.byte_counter_b = 1000000;
	dc.t_inc = 100 * US;
	start(G100);
	ops->on_sent(&st, 5000000, 0);         /* before any CNP: no state */
	ops->on_cnp(&st, 0);
	ops->on_cnp(&st, 1 * US);
	ops->on_sent(&st, 1000000, 2 * US);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 37500000000ull);
	ops->on_sent(&st, 999999, 2 * US);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 37500000000ull);
	ops->on_sent(&st, 1, 2 * US);
	CU_ASSERT_EQUAL(st.target_bps, 50020000000ull);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 43760000000ull);
	ops->on_sent(&st, 3000000, 2 * US);
	CU_ASSERT_EQUAL(st.bc_count, 5);
	CU_ASSERT_EQUAL(st.target_bps, 50080000000ull);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), 49280000000ull);
	static const struct { uint64_t rt, rc; } step[] = {
		{ 50100000000ull, 49690000000ull }, { 50120000000ull, 49905000000ull },
		{ 50320000000ull, 50112500000ull },
	};
	for (int i = 0; i < 3; i++) {
		run_to(101 * US + i * 100 * US);
		CU_ASSERT_EQUAL(st.target_bps, step[i].rt);
		CU_ASSERT_EQUAL(ops->rate_bps(&st), step[i].rc);
	}
}

/* paper: after one CNP (RC = 50e9, RT = line) the rounded-up midpoints
 * close the gap d as floor(d/2): 36 steps (2^35 < 5e10 < 2^36) to line
 * exactly, then no timer. */
static void test_paper_recovers_to_line(void)
{
	cfg_paper();
	start(G100);
	ops->on_cnp(&st, 0);
	run_to(35 * 55 * US);
	CU_ASSERT(ops->rate_bps(&st) < G100);
	CU_ASSERT_EQUAL(ops->next_timer(&st), 36 * 55 * US);
	run_to(36 * 55 * US);
	CU_ASSERT_EQUAL(ops->rate_bps(&st), G100);
	CU_ASSERT_EQUAL(ops->next_timer(&st), SIMTIME_NEVER);
}

TEST_MAIN("dcqcn",
	  { "registry", test_registry },
	  { "default rai/rhai scale with the line rate", test_default_increments },
	  { "hpcc: one CNP, decrease at 4us+1ns, 36 steps back", test_hpcc_single_cnp },
	  { "hpcc: fast recovery, additive, hyper", test_hpcc_stages },
	  { "hpcc: clamp_target_rate", test_hpcc_clamp },
	  { "hpcc: rate_on_first_cnp", test_hpcc_rate_on_first_cnp },
	  { "min_rate floor", test_min_rate },
	  { "paper: timer-only increases", test_paper_timer_only },
	  { "paper: byte counter, hyper only when both exceed F", test_paper_byte_counter },
	  { "paper: back to line exactly, then no timer", test_paper_recovers_to_line })
