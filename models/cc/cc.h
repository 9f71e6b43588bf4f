/*
 * cc.h — congestion control of a sending queue pair (reaction point),
 * behind one interface so HPCC, TIMELY, DCTCP or Swift can each be added
 * as one cc_*.c file and one registry line (cc.c).
 *
 * The NIC owns one state block per requester QP (ops->state_b bytes,
 * zeroed, then ops->init) and calls:
 *   on_cnp     a CNP for this QP arrived (DCQCN: rate decrease input);
 *   on_sent    a data packet of `wire_b` bytes left (byte counters);
 *   on_timer   at (or after) the time next_timer() returned;
 * and paces the QP at rate_bps(): after sending W wire bytes at rate R the
 * QP may send again W x 8 / R later. After every call that may change
 * timing the NIC reads next_timer() again and re-arms one lazily-cancelled
 * timer per QP, so a controller with several logical timers (DCQCN: α
 * update, rate-decrease check, rate increase) exposes only the earliest and
 * may evaluate periodic updates lazily, as long as the result equals the
 * eager timer sequence.
 *
 * A controller never schedules events itself and never reads the clock
 * except through the `now` it is given, so it is unit-testable alone.
 */
#ifndef ROCESIM_CC_H
#define ROCESIM_CC_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "simtime.h"

struct cc_sample { uint64_t rate_bps, target_bps; double alpha; };

struct cc_ops {
	const char *name;                 /* "dcqcn" */
	size_t state_b;                   /* bytes of per-QP state */
	/* line_bps: the NIC port's rate; the QP starts at line rate. */
	void (*init)(void *st, const struct config *cfg, uint64_t line_bps, simtime_t now);
	void (*on_cnp)(void *st, simtime_t now);
	void (*on_sent)(void *st, uint32_t wire_b, simtime_t now);
	void (*on_timer)(void *st, simtime_t now);
	simtime_t (*next_timer)(const void *st);   /* SIMTIME_NEVER when none */
	uint64_t (*rate_bps)(const void *st);      /* current sending rate, > 0 */
	/* cc_sample table: the state as of the latest call. The sampler
	 * (sampler.c) calls it on a memcpy of the state brought to the sample
	 * time with on_timer, so a state must not point into itself. */
	void (*sample)(const void *st, struct cc_sample *out);
};

/* The controller of [nic] cc, NULL for cc = none (send at line rate). */
const struct cc_ops *cc_lookup(enum cfg_cc cc);

#endif
