/*
 * cc.h — congestion control of a sending queue pair (reaction point),
 * behind one interface so HPCC, TIMELY, DCTCP or Swift can each be added
 * as one cc_*.c file and one line of models/cc/Makefile.inc.
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
 *
 * Its keys are its own section ([dcqcn]), declared beside it (ops->section)
 * and handed to init as `params`, that section's struct. Adding a
 * controller is one cc_*.c file and one `CC_CONTROLLERS +=` line in
 * models/cc/Makefile.inc; its name becomes a value of [nic] cc and its
 * section part of the format.
 */
#ifndef ROCESIM_CC_H
#define ROCESIM_CC_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "simtime.h"

struct cc_sample { uint64_t rate_bps, target_bps; double alpha; };

struct cc_ops {
	const char *name;                 /* "dcqcn": the value of [nic] cc */
	const char *help;
	const struct cfg_section *section;/* its keys; NULL: none */
	size_t state_b;                   /* bytes of per-QP state */
	/* params: its section's struct; line_bps: the NIC port's rate; the
	 * QP starts at line rate. */
	void (*init)(void *st, const void *params, uint64_t line_bps, simtime_t now);
	void (*on_cnp)(void *st, simtime_t now);
	void (*on_sent)(void *st, uint32_t wire_b, simtime_t now);
	void (*on_timer)(void *st, simtime_t now);
	simtime_t (*next_timer)(const void *st);   /* SIMTIME_NEVER when none */
	uint64_t (*rate_bps)(const void *st);      /* current sending rate, > 0 */
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
