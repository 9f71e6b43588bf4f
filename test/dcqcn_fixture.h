/*
 * dcqcn_fixture.h — one DCQCN reaction point driven through cc_ops as a NIC
 * would, with HPCC's run.py settings or the paper's (test_dcqcn.c,
 * test_dcqcn_reference.c). Header-only, like testutil.h.
 */
#ifndef ROCESIM_DCQCN_FIXTURE_H
#define ROCESIM_DCQCN_FIXTURE_H

#include <string.h>
#include "cc.h"
#include "cc_dcqcn.h"
#include "testutil.h"

#define US SIMTIME_US
#define NS SIMTIME_NS
#define G100 100000000000ull

static const struct cc_ops *ops;
static struct dcqcn_cfg dc;     /* the [dcqcn] section's struct, init's params */
static struct dcqcn st;

/* HPCC run.py settings at 100 Gb/s (docs/protocol.md "DCQCN"), rai/rhai explicit. */
static inline void cfg_hpcc(void)
{
	dc = (struct dcqcn_cfg){
		.variant = DCQCN_HPCC, .g = 1.0 / 256,
		.rai_bps = 20000000, .rhai_bps = 200000000,
		.t_alpha = 1 * US, .t_dec = 4 * US, .t_inc = 300 * US,
		.byte_counter_off = true, .fast_recovery_times = 1,
		.min_rate_bps = 1000000000, .rate_on_first_cnp = 1.0,
	};
	ops = &cc_dcqcn;
}

/* The paper's RP with F = 2, R_AI 20 Mb/s, R_HAI 200 Mb/s, 55 µs timers. */
static inline void cfg_paper(void)
{
	cfg_hpcc();
	dc.variant = DCQCN_PAPER;
	dc.t_alpha = 55 * US;
	dc.t_inc = 55 * US;
	dc.fast_recovery_times = 2;
}

static inline void start(uint64_t line_bps)
{
	struct cc_env env = { .line_bps = line_bps, .mtu_b = 1000 };
	ops->init(&st, &dc, &env, 0);
}

/* Fires the timer at next_timer() up to `until`, checking it never goes back. */
static inline void run_to(simtime_t until)
{
	simtime_t t;
	while ((t = ops->next_timer(&st)) <= until) {
		CU_ASSERT_FATAL(t > st.now);
		ops->on_timer(&st, t);
	}
}

#endif
