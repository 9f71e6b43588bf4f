/*
 * cc_dcqcn.h — DCQCN reaction point (the sender's rate controller) behind
 * cc.h, in the two variants of [dcqcn] variant:
 *
 *   hpcc   the Mellanox stage machine of HPCC's ns-3 (simulation/src/
 *          point-to-point/model/rdma-hw.cc: cnp_received_mlx, UpdateAlphaMlx,
 *          CheckRateDecreaseMlx, ScheduleDecreaseRateMlx, RateIncEventTimerMlx,
 *          RateIncEventMlx, FastRecoveryMlx, ActiveIncreaseMlx,
 *          HyperIncreaseMlx), reproduced to the bit/s;
 *   paper  the RP of Zhu et al., "Congestion Control for Large-Scale RDMA
 *          Deployments", SIGCOMM 2015, §3.1 (timer and byte counter).
 *
 * The state is exposed so tests can inspect it; everything else goes
 * through cc_dcqcn. ns-3 runs three periodic timers per QP forever
 * (α update every t_alpha, decrease check every t_dec, increase every t_inc);
 * here only the next *meaningful* time is exposed through next_timer():
 *   - α updates are evaluated lazily (only a decrease reads α);
 *   - a decrease check is an event only while a CNP is pending for it;
 *   - the increase timer stops ("idle") once further firings cannot change
 *     the rate or the target; its stage keeps counting virtually.
 * The results equal the eager ns-3 event sequence exactly (test_dcqcn.c runs
 * both on random CNP patterns), including the grids' alignment to the first
 * CNP and ns-3's order of simultaneous events.
 *
 * Keys read: hpcc ignores byte_counter (HPCC has none); paper ignores t_dec
 * (every CNP cuts the rate; CNPs are spaced by the NP's cnp_interval),
 * rate_on_first_cnp and clamp_target_rate. Neither reads cnp_interval (NP).
 *
 * For the NIC: init at QP creation (rate = target = line, no timers until
 * the first CNP); on_cnp per CNP received; on_sent per data packet with its
 * wire bytes (frame + preamble/IFG, cc.h), only the paper's byte counter
 * uses them; on_timer when the time from next_timer() comes (a call at any
 * other time is harmless). Re-read next_timer() and rate_bps() after every
 * call. Nothing is allocated: the state is this struct, state_b bytes.
 */
#ifndef ROCESIM_CC_DCQCN_H
#define ROCESIM_CC_DCQCN_H

#include <stdbool.h>
#include <stdint.h>
#include "cc.h"

/* [dcqcn] (cc_dcqcn.c) */
enum dcqcn_variant { DCQCN_PAPER, DCQCN_HPCC };
struct dcqcn_cfg {
	int variant;                      /* enum dcqcn_variant [hpcc] */
	double g;                         /* [1/256] */
	bool rai_default, rhai_default;   /* 5 / 50 x rate/25G Mb/s when true */
	uint64_t rai_bps, rhai_bps;
	simtime_t t_alpha, t_dec, t_inc;  /* [1us] [4us] [300us] */
	bool byte_counter_off;            /* [off] */
	uint64_t byte_counter_b;
	int fast_recovery_times;          /* [1] */
	uint64_t min_rate_bps;            /* [1Gbps] */
	simtime_t cnp_interval;           /* [0] */
	double rate_on_first_cnp;         /* [1.0] */
	bool clamp_target_rate;           /* [off] */
};
extern const struct cfg_section dcqcn_section;

/* α, updated on a periodic grid: the update number k happens at
 * origin + k × t_alpha (hpcc: origin = the first CNP; paper: the last CNP). */
struct dcqcn_alpha {
	double a;            /* α after update number k_exact */
	int64_t k;           /* updates accounted for (the grid index reached) */
	int64_t k_exact;     /* updates applied to a; < k only once a is negligible */
	int64_t flag_k;      /* hpcc: the update that sees a CNP (ns-3 m_alpha_cnp_arrived); 0: none */
};

struct dcqcn {
	/* Configuration, copied at init. */
	enum dcqcn_variant variant;
	double g;                    /* α gain */
	double alpha_negligible;     /* g × 2^-54: below it α changes nothing observable */
	double rate_on_first_cnp;    /* hpcc */
	uint64_t line_bps, min_bps, rai_bps, rhai_bps;
	uint64_t byte_counter_b;     /* paper; 0 = off */
	simtime_t t_alpha, t_dec, t_inc;
	int64_t f;                   /* fast_recovery_times */
	bool clamp_target;           /* hpcc */
	bool inc_before_dec;         /* hpcc: at a tie the increase timer fires first */

	/* Rates. rate ≤ line; target ≤ line. */
	uint64_t rate_bps;           /* RC, ns-3 m_rate */
	uint64_t target_bps;         /* RT, ns-3 mlx.m_targetRate */
	struct dcqcn_alpha alpha;

	bool active;                 /* a CNP has arrived (ns-3: !m_first_cnp) */
	simtime_t origin;            /* time of the α grid's update 0 */
	simtime_t now;               /* the latest `now` given; all events <= now are done */

	/* hpcc decrease check: at origin + 1 ns + m × t_dec, m >= 1. */
	bool dec_pending;            /* ns-3 m_decrease_cnp_arrived */
	int64_t dec_m;               /* grid index of the next check that sees it */
	simtime_t dec_next;          /* its time */

	/* Increase timer (both variants). */
	simtime_t inc_next;          /* next firing; SIMTIME_NEVER before any */
	bool inc_idle;               /* firings would change nothing: not exposed */
	int64_t stage;               /* hpcc m_rpTimeStage, counted up to inc_next */

	/* paper: increase event counters since the last CNP. */
	int64_t t_count;             /* timer events, T */
	int64_t bc_count;            /* byte-counter events, BC */
	uint64_t bytes;              /* wire bytes toward the next byte-counter event */
};

extern const struct cc_ops cc_dcqcn;

/* Inspection for tests and tables, as of the latest call's `now`. */
double dcqcn_alpha(const struct dcqcn *s);
int64_t dcqcn_stage(const struct dcqcn *s);

#endif
