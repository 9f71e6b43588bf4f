/*
 * sim.h — the simulation context and the scheduling interface.
 *
 * One struct sim holds everything a run needs (clock, event queue, seed,
 * configuration, results writer, counters) and is passed explicitly, so tests
 * can build and destroy worlds freely and a parallel run can hold one per
 * partition.
 *
 * Every object that schedules events embeds a struct sim_elem: its id (given
 * in build order, identical in every partitioning) and its own event
 * sequence, packed as the next event's key. The pair is the tie-breaker of
 * equal-time events (evq.h).
 */
#ifndef ROCESIM_SIM_H
#define ROCESIM_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "evq.h"
#include "simtime.h"

struct config;
struct results;

/* The key of the element's next event: EVQ_KEY(id, events scheduled so
 * far), counted up in place (one add a schedule). The id is unique,
 * assigned by sim_elem_register in build order; its name, for assertion
 * messages, is sim.elem_names[id]. The count would carry into the id only
 * after 2^40 events of one element (12 days of a port at 10^6 events/s). */
struct sim_elem {
	uint64_t key;
};
static inline uint32_t sim_elem_id(const struct sim_elem *e)
{
	return (uint32_t)(e->key >> EVQ_SEQ_BITS);
}

struct sim {
	simtime_t now;              /* current simulated time */
	struct evq q;               /* pending events */
	uint64_t events;            /* events executed (while the loop runs: as of its last poll) */
	uint64_t key_now;           /* a partitioned run's windows (sim_run_bounded): the key of
				     * the event running, which orders equal times alike on
				     * every rank */
	uint32_t poll_left;         /* events until the run loop's next poll, which counts the
				     * events run (sim_loop.h) */
	uint64_t seed;              /* scenario seed, root of every RNG stream */
	uint32_t n_elems;           /* elements registered so far */
	const char **elem_names;    /* [n_elems]: each one's name ("tor3:p5"), not owned */
	uint32_t elem_names_cap;
	simtime_t stop_at;          /* stop once the clock passes this (SIMTIME_NEVER = run dry) */
	volatile sig_atomic_t *interrupt; /* set by a signal handler: stop after this event */
	int stopped;                /* why the run loop returned (enum sim_stop) */
	struct sim_elem kernel;     /* the element used for scheduling done outside any model */
	const struct config *cfg;   /* the scenario, read-only during the run */
	struct results *res;        /* results writer, NULL when writing nothing */
	/* Called every progress_every events (and at the end) when set. */
	void (*progress)(struct sim *sim, void *ctx);
	void *progress_ctx;
	uint64_t progress_every;
	/* Set by models: return true when the run can end (all finite work done). */
	bool (*done)(struct sim *sim, void *ctx);
	void *done_ctx;
	bool poll_forced;           /* a model asked for a poll after this event (sim_poll_soon) */
	uint32_t poll_rest;         /* then: the events from that poll to the periodic one */
	/* Counters every model updates, reported in the run row. */
	uint64_t packets_sent;      /* data packets put on the wire by NICs (incl. retransmissions) */
	uint64_t packets_delivered; /* data packets that reached their receiving NIC */
	uint64_t packets_dropped;   /* data packets dropped in the network */
};

enum sim_stop {
	SIM_RAN_DRY = 0,   /* no event left */
	SIM_STOP_TIME,     /* [simulation] stop reached */
	SIM_DONE,          /* the done() hook said all work is finished */
	SIM_INTERRUPTED,   /* a signal asked us to stop */
};

void sim_init(struct sim *sim, uint64_t seed);
void sim_free(struct sim *sim);
void sim_elem_register(struct sim *sim, struct sim_elem *e, const char *name);

/* Runs events in order until one of enum sim_stop happens; returns it
 * (the loop is sim_loop.h's sim_run_with). */
int sim_run(struct sim *sim);

void sim_past_event(struct sim *sim, const struct sim_elem *e, simtime_t t);

/* For a handler whose event is not one of the run's (a sampler's): it is
 * not counted in sim->events, nor toward the loop's next periodic poll. */
static inline void sim_uncount_event(struct sim *sim)
{
	if (sim->poll_forced)
		sim->poll_rest++;
	else
		sim->poll_left++;
}

/* For a model whose work may just have finished: the done hook is asked
 * after this event, not at the next periodic poll. The loop's countdown
 * is cut to this event; what was left of it waits in poll_rest. */
static inline void sim_poll_soon(struct sim *sim)
{
	if (!sim->poll_forced) {
		sim->poll_forced = true;
		sim->poll_rest = sim->poll_left - 1;
		sim->poll_left = 1;
	}
}

/* sched_at's slow path: an event in the current bucket, past the wheel or
 * in the past (an error: sim_past_event). */
void sched_slow(struct sim *sim, simtime_t t, const struct sim_elem *e, uint64_t key,
		event_fn fn, void *obj, uintptr_t arg);

/* Schedule fn(sim, obj, arg) at absolute time t on behalf of element e.
 * An event the wheel takes lies in a bucket after the current one, which
 * holds now, so only the slow path need check that t is not in the past. */
static inline void sched_at(struct sim *sim, simtime_t t, struct sim_elem *e,
			    event_fn fn, void *obj, uintptr_t arg)
{
	uint64_t key = e->key++;
#if SIM_DEBUG
	if (t < sim->now) /* what the wheel's window implies: checked in debug builds */
		sim_past_event(sim, e, t);
#endif
	if (!evq_push_fast(&sim->q, t, key, fn, obj, arg))
		sched_slow(sim, t, e, key, fn, obj, arg);
}

static inline void sched_in(struct sim *sim, simtime_t dt, struct sim_elem *e,
			    event_fn fn, void *obj, uintptr_t arg)
{
	sched_at(sim, sim->now + dt, e, fn, obj, arg);
}

/*
 * A timer that may be re-armed or cancelled (a retransmission timeout, a
 * congestion controller's, ...).
 * Cancellation is lazy: arming bumps a generation and the stale event, when
 * it fires, sees a different generation and does nothing.
 */
struct sim_timer {
	uint32_t gen;          /* generation of the live arming */
	bool armed;            /* a live arming is pending */
	simtime_t t;           /* when the live arming fires */
	struct sim_elem *elem; /* scheduling element */
	void (*fn)(struct sim *sim, void *obj);
	void *obj;
};

void sim_timer_init(struct sim_timer *tm, struct sim_elem *elem,
		    void (*fn)(struct sim *sim, void *obj), void *obj);
void sim_timer_set(struct sim *sim, struct sim_timer *tm, simtime_t t);
static inline void sim_timer_cancel(struct sim_timer *tm) { tm->gen++; tm->armed = false; }

#endif
