/*
 * cc_dctcp.h — DCTCP (Alizadeh et al., "Data Center TCP", SIGCOMM 2010)
 * as a rate controller behind cc.h, as HPCC's ns-3 runs it for RDMA
 * (rdma-hw.cc, CC_MODE 8: HandleAckDctcp).
 *
 * Every ACK carries the ECN echo of the data packet it answers. Per
 * window of data (a batch: from the first ACK beyond the bytes sent at
 * the previous batch's start), α follows the fraction F of echoes in the
 * batch:
 *
 *   α ← (1 − g) α + g F,   F = min(1, marked ACKs / batch packets),
 *   batch packets = (snd_nxt − snd_una) / mtu + 1 at the batch's start
 *
 * (the first batch only opens the next one: its echoes count in the
 * second). An echo outside congestion-window-reduced (CWR) state cuts the
 * rate once, R ← max(min_rate, R (1 − α/2)), and enters CWR until an ACK
 * acknowledges beyond what had been sent at the cut (DCTCP's once per
 * window). At each batch start outside CWR the rate grows by rai, capped
 * at the line rate (DCTCP's one MSS per RTT when rai = MTU × 8 / RTT).
 * α starts at 1 and the rate at the line rate. Rates are integer bit/s
 * as ns-3's DataRate: R × c truncates.
 *
 * No timers, no window of its own: HPCC's ns-3 runs DCTCP with the NIC's
 * window on, at rate × T ([nic] window = on, var_window = on).
 */
#ifndef ROCESIM_CC_DCTCP_H
#define ROCESIM_CC_DCTCP_H

#include <stdbool.h>
#include <stdint.h>
#include "cc.h"

/* [dctcp] (cc_dctcp.c) */
struct dctcp_cfg {
	double g;                  /* [1/16] */
	uint64_t rai_bps;          /* [1000Mbps] */
	uint64_t min_rate_bps;     /* [1Gbps] */
};
extern const struct cfg_section dctcp_section;

struct dctcp {
	/* Configuration. */
	double g;
	uint64_t line_bps, rai_bps, min_bps;
	uint32_t mtu_b;

	uint64_t rate_bps;         /* ns-3 m_rate */
	double alpha;              /* ns-3 dctcp.m_alpha */
	uint64_t batch_seq;        /* snd_nxt at the batch's start; 0: none yet */
	uint64_t batch_pkts;       /* packets the batch's fraction is out of */
	uint64_t ecn_cnt;          /* ECN echoes since the batch's start */
	bool cwr;                  /* rate cut, waiting for high_seq to be acknowledged */
	uint64_t high_seq;         /* snd_nxt at the cut */
	uint64_t batches, cuts;    /* counts, for tests and tables */
};

extern const struct cc_ops cc_dctcp;

#endif
