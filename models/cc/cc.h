/*
 * cc.h — congestion control of a sending queue pair (reaction point),
 * behind one interface so DCQCN, HPCC, TIMELY, DCTCP and Swift are each
 * one cc_*.c file and one line of models/cc/Makefile.inc.
 *
 * The NIC owns one state block per requester QP (ops->state_b bytes,
 * zeroed, then ops->init) and calls:
 *   on_ack     an ACK (or NAK) of this QP arrived: what it newly
 *              acknowledged, the RTT sample of the packet it answers, that
 *              packet's ECN mark, and the in-band telemetry it carried
 *              (struct cc_ack); NULL: the controller ignores ACKs;
 *   on_cnp     a CNP for this QP arrived (DCQCN's decrease input); NULL:
 *              ignored;
 *   on_sent    a data packet of `wire_b` bytes left (byte counters);
 *   on_timer   at (or after) the time next_timer() returned;
 * and paces the QP at rate_bps(): after sending W wire bytes at rate R the
 * QP may send again W x 8 / R later. A controller with a window of its own
 * (window_b non-NULL, e.g. Swift's cwnd) also caps the QP's unacknowledged
 * payload bytes at window_b(); otherwise [nic] window decides whether the
 * NIC caps them (at rate x T, or one BDP at line rate). After every call
 * that may change timing the NIC reads next_timer() again and re-arms one
 * lazily-cancelled timer per QP, so a controller with several logical
 * timers (DCQCN: alpha update, rate-decrease check, rate increase) exposes
 * only the earliest and may evaluate periodic updates lazily, as long as
 * the result equals the eager timer sequence.
 *
 * A controller never schedules events itself and never reads the clock
 * except through the `now` it is given, so it is unit-testable alone.
 *
 * Its keys are its own section ([dcqcn], [hpcc], ...), declared beside it
 * (ops->section) and handed to init as `params`, that section's struct.
 * Adding a controller is one cc_*.c file and one `CC_CONTROLLERS +=` line
 * in models/cc/Makefile.inc; its name becomes a value of [nic] cc and its
 * section part of the format.
 */
#ifndef ROCESIM_CC_H
#define ROCESIM_CC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "simtime.h"

/* What a QP's controller knows of its path when it starts. */
struct cc_env {
	uint64_t line_bps;      /* the NIC port's rate; the QP starts at it */
	simtime_t base_rtt;     /* T: the fabric's largest base RTT (an MTU data
				 * packet out, its ACK back, no queueing), as HPCC's
				 * ns-3 uses with GLOBAL_T 1; 0 when unknown */
	uint32_t mtu_b;         /* payload bytes of a full data packet */
	uint32_t hops;          /* switches on this QP's path (0 when unknown) */
};

/* In-band network telemetry of one switch egress, stamped on a data packet
 * as it leaves the port and echoed by the receiver in its ACK (HPCC,
 * SIGCOMM'19, figure 4): the port's queue, its transmitted-bytes counter
 * and the time of the stamp, and its rate. */
struct cc_int_hop {
	uint64_t qlen_b;        /* egress queue bytes (all classes) when it left */
	uint64_t tx_b;          /* line bytes the port has transmitted, the packet included:
				 * frames + 20 B preamble and gap each, so its rate reaches
				 * rate_bps on a saturated link */
	simtime_t ts;           /* when it left */
	uint64_t rate_bps;      /* the port's line rate */
};
#define CC_INT_MAX_HOPS 8

/* One ACK or NAK, as the sender's NIC hands it to the controller. */
struct cc_ack {
	uint64_t acked_b;       /* payload bytes this ACK newly acknowledged (0: a duplicate) */
	uint64_t snd_una_b;     /* the QP's payload bytes acknowledged in all, this ACK's included */
	uint64_t snd_nxt_b;     /* the QP's payload bytes sent so far (first transmissions) */
	simtime_t rtt;          /* now minus the send time of the data packet this ACK
				 * answers: the one that made the responder send it (with
				 * coalesced ACKs the latest accepted; a retransmission's own
				 * send time); 0 when unknown */
	bool ecn;               /* that data packet arrived CE-marked (ECN echo) */
	bool nak;               /* a NAK (loss or out-of-order: go-back-N / SR) */
	uint8_t n_hops;         /* telemetry hops carried (0: none; ops->needs_int off) */
	const struct cc_int_hop *hop;   /* [n_hops], the first switch first */
};

/* The cc_sample table's columns: each present only where the controller
 * keeps such a state (the `have` bits); absent ones are NULL. */
enum cc_sample_have {
	CC_HAVE_TARGET = 1 << 0,    /* target_bps */
	CC_HAVE_ALPHA = 1 << 1,     /* alpha (DCQCN, DCTCP) */
	CC_HAVE_WINDOW = 1 << 2,    /* window_b */
	CC_HAVE_RTT = 1 << 3,       /* rtt_ps: the latest (or smoothed) RTT */
	CC_HAVE_UTIL = 1 << 4,      /* util: HPCC's normalised inflight U */
};
struct cc_sample {
	uint64_t rate_bps;      /* always present */
	uint64_t target_bps;
	double alpha;
	uint64_t window_b;
	simtime_t rtt_ps;
	double util;
	unsigned have;          /* enum cc_sample_have */
};

/* What a controller asks of the NIC and the fabric (ops->needs). */
enum cc_needs {
	CC_NEEDS_INT = 1 << 0,      /* switches stamp telemetry on its data packets */
};

struct cc_ops {
	const char *name;                 /* "dcqcn": the value of [nic] cc */
	const char *help;
	const struct cfg_section *section;/* its keys; NULL: none */
	size_t state_b;                   /* bytes of per-QP state */
	unsigned needs;                   /* enum cc_needs */
	/* params: its section's struct. */
	void (*init)(void *st, const void *params, const struct cc_env *env, simtime_t now);
	void (*on_ack)(void *st, const struct cc_ack *ack, simtime_t now);   /* NULL: ignored */
	void (*on_cnp)(void *st, simtime_t now);                             /* NULL: ignored */
	void (*on_sent)(void *st, uint32_t wire_b, simtime_t now);
	void (*on_timer)(void *st, simtime_t now);
	simtime_t (*next_timer)(const void *st);   /* SIMTIME_NEVER when none */
	uint64_t (*rate_bps)(const void *st);      /* current sending rate, > 0 */
	/* Its own cap on unacknowledged payload bytes (>= 1); NULL: none (the
	 * NIC's [nic] window applies). */
	uint64_t (*window_b)(const void *st);
	/* cc_sample table: the state as of the latest call. The sampler
	 * (sampler.c) calls it on a memcpy of the state brought to the sample
	 * time with on_timer, so a state must not point into itself. */
	void (*sample)(const void *st, struct cc_sample *out);
	/* Notification point: the least spacing of the CNPs a receiver sends
	 * per QP for CE-marked data (0: one for every mark); NULL: 0. */
	simtime_t (*cnp_interval)(const void *params);
};

/* The controller of [nic] cc (the registry index: 0 is none, then the
 * controllers), NULL for cc = none (send at line rate). */
const struct cc_ops *cc_lookup(int index);
/* Its parameters in a loaded scenario (its section's struct), NULL when
 * it has no section. */
const void *cc_params(const struct config *cfg, const struct cc_ops *ops);
/* The registry's names in order (the vocabulary of [nic] cc), NULL past
 * the last; arg is unused. */
const char *cc_name_at(const void *arg, size_t i);
/* The sections of the registered controllers, in registry order, NULL
 * past the last. */
const struct cfg_section *cc_section_at(size_t i);
/* The least spacing of the CNPs a receiver sends a QP (the notification
 * point's): [nic] cc's controller's cnp_interval; with a controller that
 * defines none (cc = none), the first registered one that does ([dcqcn]
 * cnp_interval), since receivers send CNPs whatever the senders run. */
simtime_t cc_cnp_interval(const struct config *cfg, int index);

#endif
