/*
 * cc_hpcc.h — HPCC reaction point (Li et al., "HPCC: High Precision
 * Congestion Control", SIGCOMM 2019) behind cc.h, as HPCC's ns-3 runs it
 * (simulation/src/point-to-point/model/rdma-hw.cc: HandleAckHp,
 * UpdateRateHp, FastReactHp; CC_MODE 3 with MULTI_RATE 0 and
 * SAMPLE_FEEDBACK 0, the settings of its run.py).
 *
 * Every data packet collects, at each switch egress it leaves, that port's
 * queue, transmitted bytes, time and rate (struct cc_int_hop); the ACK
 * brings them back. From two ACKs' records of the same hop the sender
 * estimates the hop's normalised inflight bytes
 *
 *     u_j = txRate_j / B_j + min(qlen_j, qlen_j') × 8 / (B_j × T)
 *
 * (txRate_j: bytes transmitted between the two stamps over the time
 * between them; the smaller of the two queue lengths filters a queue seen
 * only once), takes U = max over hops of u_j with τ the time between that
 * hop's stamps, and smooths it over one base RTT T:
 *
 *     u = (u × (T − τ) + U × τ) / T,   τ capped at T.
 *
 * The rate follows the reference rate Rc, which changes once per RTT (an
 * ACK beyond the sequence number sent at the previous update):
 *
 *     u/η >= 1 or stage >= max_stage:  R = Rc × η / u + R_AI, stage = 0
 *     otherwise:                       R = Rc + R_AI,        stage + 1
 *
 * bounded to [min_rate, line]. At that per-RTT update Rc and the stage take
 * the new values; with fast_react on, every other ACK recomputes R from the
 * same Rc with the latest u (per-ACK reaction, Rc and the stage unchanged).
 * The window W = R × T of the paper is the NIC's ([nic] window with
 * var_window, as HPCC's ns-3 with VAR_WIN 1), so window_b is NULL here.
 *
 * Rates are integer bit/s, as ns-3's DataRate: Rc / (u/η) truncated, then
 * + R_AI. An update whose hops all measure U = 0 leaves u as it was (ns-3
 * smooths with the τ of the hop whose u exceeds the running maximum, which
 * starts at 0), so u never reaches 0; a quotient above the line rate is
 * the line rate.
 */
#ifndef ROCESIM_CC_HPCC_H
#define ROCESIM_CC_HPCC_H

#include <stdbool.h>
#include <stdint.h>
#include "cc.h"

/* [hpcc] (cc_hpcc.c) */
struct hpcc_cfg {
	double eta;                  /* [0.95] target utilisation η (U_TARGET) */
	int max_stage;               /* [0] additive stages before a multiplicative step (MI_THRESH) */
	bool rai_default;            /* rai unset: 10 Mb/s per 25 Gb/s of line rate */
	uint64_t rai_bps;            /* additive increase R_AI */
	bool fast_react;             /* [on] per-ACK reaction (FAST_REACT) */
	double util_high;            /* [0.98] HPCC ns-3's UtilHigh: declared there, never read */
	uint64_t min_rate_bps;       /* [1Gbps] rate floor (MIN_RATE) */
};
extern const struct cfg_section hpcc_section;

struct hpcc {
	/* Configuration, copied at init. */
	uint64_t line_bps, rai_bps, min_bps;
	double eta;
	int max_stage;
	bool fast_react;
	simtime_t t;                 /* T: the base RTT; 0 until known */

	uint64_t rate_bps;           /* R: the sending rate (ns-3 m_rate) */
	uint64_t cur_bps;            /* Rc: the reference rate of the last per-RTT update */
	int inc_stage;               /* additive stages since the last multiplicative one */
	double u;                    /* smoothed normalised inflight, starts at 1 (ns-3) */
	double u_last;               /* U of the latest ACK that updated u (for samples) */
	bool have_ref;               /* the first ACK with telemetry has arrived */
	uint64_t last_update_seq;    /* snd_nxt at the last per-RTT update */
	uint8_t n_ref;               /* hops in ref */
	struct cc_int_hop ref[CC_INT_MAX_HOPS];  /* each hop's previous record */
	uint64_t updates, fast_updates;          /* per-RTT and per-ACK rate updates */
};

extern const struct cc_ops cc_hpcc;

#endif
