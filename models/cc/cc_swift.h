/*
 * cc_swift.h — Swift (Kumar et al., "Swift: Delay is Simple and Effective
 * for Congestion Control in the Datacenter", SIGCOMM 2020) behind cc.h: a
 * congestion window driven by the RTT against a target delay, with the
 * defaults of htsim's Swift (github.com/Broadcom/csg-htsim, sim/swift.cpp)
 * where the paper gives none.
 *
 * On every ACK (the paper's Algorithm 1), with delay the RTT sample:
 *
 *   delay < target:   cwnd += ai × num_acked / cwnd   (cwnd >= 1 packet)
 *                     cwnd += ai × num_acked          (cwnd <  1 packet)
 *   otherwise, if the last decrease is at least one RTT old:
 *                     cwnd ×= max(1 − β (delay − target)/delay, 1 − max_mdf)
 *
 * (cwnd and num_acked in packets of mtu_b bytes), then cwnd is clamped to
 * [min_cwnd, max_cwnd]. A NAK (loss, out of order) is the paper's fast
 * recovery: cwnd ×= 1 − max_mdf, at most once per RTT. "One RTT" is the
 * smoothed RTT, srtt = 7/8 srtt + 1/8 delay (htsim's update_rtt).
 *
 * The target delay (§3.5) grows with the path's hop count and shrinks as
 * the flow's window grows, so that flows with small windows get a larger
 * share of the queue (flow-based scaling):
 *
 *   target = base_target + hops × hop_scale
 *            + clamp(α / sqrt(cwnd) + β', 0, fs_range)
 *   α  = fs_range / (1/sqrt(fs_min_cwnd) − 1/sqrt(fs_max_cwnd)),
 *   β' = −α / sqrt(fs_max_cwnd),
 *
 * so the flow term is fs_range at fs_min_cwnd and 0 at fs_max_cwnd.
 *
 * To the NIC: with cwnd of at least one packet, window_b() is the whole
 * packets of cwnd (a packet leaves only when it fits, as in htsim) and
 * rate_bps() is the line rate; below one packet the QP paces (the paper's
 * pacing_delay = rtt / cwnd between packets): window_b() lets one packet
 * out at a time and rate_bps() spaces full frames by srtt × mtu / cwnd.
 */
#ifndef ROCESIM_CC_SWIFT_H
#define ROCESIM_CC_SWIFT_H

#include <stdbool.h>
#include <stdint.h>
#include "cc.h"

/* [swift] (cc_swift.c) */
struct swift_cfg {
	simtime_t base_target;       /* [20us] htsim _base_delay */
	simtime_t hop_scale;         /* [base_target / 6.55] htsim _h */
	simtime_t fs_range;          /* [5 × base_target] htsim _fs_range */
	double fs_min_cwnd;          /* [0.1] packets */
	double fs_max_cwnd;          /* [100] packets */
	double ai;                   /* [1] packets per RTT */
	double beta;                 /* [0.8] */
	double max_mdf;              /* [0.5] */
	double min_cwnd;             /* [0.01] packets (htsim: 10 bytes) */
	double max_cwnd;             /* [1000] packets */
};
extern const struct cfg_section swift_section;

struct swift {
	/* Configuration, copied at init; windows in bytes, times in ps. */
	double mtu_b;
	uint64_t line_bps;
	double ai, beta, max_mdf;
	double min_cwnd_b, max_cwnd_b;
	double fs_alpha, fs_beta, fs_range;   /* ps; fs_alpha in ps × sqrt(packets) */
	double fixed_target;                  /* base_target + hops × hop_scale, ps */

	double cwnd_b;               /* the congestion window, bytes (may be < one packet) */
	simtime_t srtt;              /* smoothed RTT; 0 before the first sample */
	simtime_t last_delay;        /* the latest RTT sample */
	simtime_t t_last_decrease;
	bool decreased;              /* t_last_decrease is set */
	uint32_t wire_b;             /* wire bytes of the latest full packet sent */
};

extern const struct cc_ops cc_swift;

/* The target delay (ps) at a window of cwnd_b bytes. */
double swift_target(const struct swift *s, double cwnd_b);

#endif
