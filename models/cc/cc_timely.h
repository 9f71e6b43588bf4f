/*
 * cc_timely.h — TIMELY (Mittal et al., "TIMELY: RTT-based Congestion
 * Control for the Datacenter", SIGCOMM 2015) behind cc.h, as HPCC's ns-3
 * runs it (rdma-hw.cc, CC_MODE 7: UpdateRateTimely; its per-ACK
 * FastReactTimely does nothing).
 *
 * Once per round trip (the first ACK that acknowledges beyond the bytes
 * sent at the previous update) the RTT sample of that ACK updates the rate
 * from the rate set at the previous update, R:
 *
 *   new_rtt_diff = rtt − prev_rtt
 *   rtt_diff     = (1 − alpha) × rtt_diff + alpha × new_rtt_diff
 *   gradient     = rtt_diff / min_rtt
 *   rtt < t_low:     R + δ                      (additive increase)
 *   rtt > t_high:    R × (1 − beta × (1 − t_high / rtt))
 *   gradient <= 0:   R + δ
 *   otherwise:       R × max(0, 1 − beta × gradient)
 *
 * with δ = rai, or hai once hai_after increases in a row have happened
 * (HPCC's ns-3: `m_incStage < 5`); decreases are floored at min_rate and
 * increases capped at the line rate. The first round trip only records
 * its RTT. Rates are integer bit/s as ns-3's DataRate: R × c truncates.
 *
 * No timers, no window of its own (the NIC's [nic] window applies), no
 * reaction to CNPs.
 */
#ifndef ROCESIM_CC_TIMELY_H
#define ROCESIM_CC_TIMELY_H

#include <stdbool.h>
#include <stdint.h>
#include "cc.h"

/* [timely] (cc_timely.c) */
struct timely_cfg {
	double alpha;                     /* [0.875] weight of the newest RTT difference */
	double beta;                      /* [0.8] multiplicative decrease factor */
	simtime_t t_low, t_high;          /* [50us] [500us] */
	simtime_t min_rtt;                /* [20us] normalises the gradient */
	bool rai_default, hai_default;    /* 5 / 50 Mb/s per 25 Gb/s of line rate when true */
	uint64_t rai_bps, hai_bps;
	int hai_after;                    /* [5] increases before hyper increase */
	uint64_t min_rate_bps;            /* [1Gbps] */
};
extern const struct cfg_section timely_section;

struct timely {
	/* Configuration, resolved at init. */
	double alpha, beta;
	simtime_t t_low, t_high, min_rtt;
	uint64_t line_bps, rai_bps, hai_bps, min_bps;
	int64_t hai_after;

	uint64_t rate_bps;           /* ns-3 m_rate = tmly.m_curRate */
	double rtt_diff_ps;          /* the EWMA of RTT differences */
	simtime_t prev_rtt;          /* RTT at the previous update (ns-3 lastRtt) */
	uint64_t update_seq;         /* snd_nxt at the previous update; 0: none yet */
	int64_t inc_stage;           /* increases in a row since the last decrease */
	uint64_t updates;            /* rate updates done (the first RTT excluded) */
};

extern const struct cc_ops cc_timely;

#endif
