/*
 * sim_loop.h — the run loop, inline so that a model can run it with its
 * most frequent handlers called directly (and inlined) instead of through
 * the event's pointer: sim_run is sim_run_with(sim, NULL, NULL).
 *
 * The loop pops the earliest event, advances the clock and runs it. Every
 * check that is not per event (interrupt flag, progress, the done hook) runs
 * once per SIM_POLL_EVERY events, after an event whose model asked for it
 * (sim_poll_soon: the done hook only) and when the queue empties, so the
 * hot loop is pop + call + one countdown.
 */
#ifndef ROCESIM_SIM_LOOP_H
#define ROCESIM_SIM_LOOP_H

#include <stdbool.h>
#include "sim.h"

#define SIM_POLL_EVERY 4096

/* True when the run should end now (interrupt or done hook); sets stopped. */
bool sim_should_stop(struct sim *sim);

/* Runs fn(sim, obj, arg), by a direct (inlinable) call when fn is hot_a
 * or hot_b. */
static inline __attribute__((always_inline)) void sim_call(struct sim *sim, event_fn fn, void *obj,
							   uintptr_t arg, event_fn hot_a, event_fn hot_b)
{
	if (hot_a && fn == hot_a)
		hot_a(sim, obj, arg);
	else if (hot_b && fn == hot_b)
		hot_b(sim, obj, arg);
	else
		fn(sim, obj, arg);
}

/* sim_run, with events whose handler is hot_a or hot_b (either may be
 * NULL) run by a direct call: same order, same results. */
static inline __attribute__((always_inline)) int sim_run_with(struct sim *sim, event_fn hot_a, event_fn hot_b)
{
	struct evq_node *nd;
	/* The events run so far are base - poll_left - poll_rest: the loop
	 * counts them by its countdown alone (one instruction an event, in
	 * memory) and writes sim->events at each poll and at the end. */
	uint64_t base = sim->events + SIM_POLL_EVERY;
	uint64_t next_progress = sim->events + sim->progress_every;
	sim->poll_left = SIM_POLL_EVERY;
	sim->poll_rest = 0;
	if (sim->poll_forced) { /* asked before the run: after its first event */
		sim->poll_rest = SIM_POLL_EVERY - 1;
		sim->poll_left = 1;
	}
	sim->stopped = SIM_RAN_DRY;
	while ((nd = evq_pop_node(&sim->q))) {
		if (__builtin_expect(nd->e.t > sim->stop_at, 0)) {
			struct event ev = nd->e;
			evq_release(&sim->q, nd);
			evq_insert(&sim->q, &ev); /* it stays pending, for a later run */
			sim->now = sim->stop_at;
			sim->stopped = SIM_STOP_TIME;
			goto out;
		}
		event_fn fn = nd->e.fn;
		void *obj = nd->e.obj;
		uintptr_t arg = nd->e.arg;
		sim->now = nd->e.t;
		evq_release(&sim->q, nd);
		sim_call(sim, fn, obj, arg, hot_a, hot_b);
		if (__builtin_expect(--sim->poll_left == 0, 0)) {
			/* A poll: one a model asked for (sim_poll_soon), which
			 * leaves the rest of the periodic countdown, or the
			 * periodic one, or both. */
			sim->poll_left = sim->poll_rest;
			sim->poll_rest = 0;
			sim->events = base - sim->poll_left;
			if (sim->poll_forced) {
				sim->poll_forced = false;
				if (sim->done && sim->done(sim, sim->done_ctx)) {
					sim->stopped = SIM_DONE;
					goto out;
				}
			}
			if (sim->poll_left)
				continue;
			base = sim->events + SIM_POLL_EVERY;
			sim->poll_left = SIM_POLL_EVERY;
			if (sim_should_stop(sim))
				goto out;
			if (sim->progress && sim->events >= next_progress) {
				next_progress = sim->events + sim->progress_every;
				sim->progress(sim, sim->progress_ctx);
			}
		}
	}
	if (sim->interrupt && *sim->interrupt)
		sim->stopped = SIM_INTERRUPTED;
	else if (sim->done && sim->done(sim, sim->done_ctx))
		sim->stopped = SIM_DONE;
out:
	sim->events = base - sim->poll_left - sim->poll_rest;
	sim->poll_rest = 0;
	sim->poll_forced = false;
	if (sim->progress)
		sim->progress(sim, sim->progress_ctx);
	return sim->stopped;
}

/*
 * One window of a partitioned run (models/parallel): runs, in order, the
 * events ranked before (bound_t, bound_key), stopping early, when
 * check_done, after an event whose model asked for a poll (sim_poll_soon)
 * and the done hook then says the local work is finished. Returns true
 * when it stopped for the done hook; sim->key_now is the key of the event
 * running, then of the last run (the moment done became true, with
 * sim->now).
 * An event is counted in sim->events when owner[its element] is `me`,
 * or is -1 (an element every rank runs alike: a traffic source, the
 * watchdog) and `me` is 0, so the ranks' counts add up to the sequential
 * run's (-2: every rank's, never counted, as a sampler's events are not); *foreign counts events of elements another rank owns
 * (none, unless a model reached across the partition: a bug).
 */
static inline __attribute__((always_inline)) bool sim_run_bounded(struct sim *sim, simtime_t bound_t,
	uint64_t bound_key, bool check_done, const int16_t *owner, int me, uint64_t *foreign,
	event_fn hot_a, event_fn hot_b)
{
	struct evq_node *nd;
	unsigned __int128 bound = ((unsigned __int128)(uint64_t)bound_t << 64) | bound_key;
	while ((nd = evq_pop_node(&sim->q))) {
		if (__builtin_expect(evq_rank(&nd->e) >= bound, 0)) {
			struct event ev = nd->e;
			evq_release(&sim->q, nd);
			evq_insert(&sim->q, &ev); /* the next window's */
			return false;
		}
		event_fn fn = nd->e.fn;
		void *obj = nd->e.obj;
		uintptr_t arg = nd->e.arg;
		uint64_t key = nd->e.key;
		sim->now = nd->e.t;
		evq_release(&sim->q, nd);
		int o = owner[key >> EVQ_SEQ_BITS];
		if (o == me || (o == -1 && me == 0))
			sim->events++;
		else if (o >= 0)
			(*foreign)++;
		sim->key_now = key;
		sim_call(sim, fn, obj, arg, hot_a, hot_b);
		if (__builtin_expect(sim->poll_forced, 0)) {
			sim->poll_forced = false;
			if (check_done && sim->done && sim->done(sim, sim->done_ctx))
				return true;
		}
	}
	return false;
}

#endif
