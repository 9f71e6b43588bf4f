/*
 * sim.c — the run loop, element registration and timers.
 *
 * The loop pops the earliest event, advances the clock and runs it. Every
 * check that is not per event (interrupt flag, progress, the done hook) runs
 * once per SIM_POLL_EVERY events or when the queue momentarily empties, so the
 * hot loop is pop + call.
 */
#include <stdlib.h>
#include "log.h"
#include "sim.h"

#define SIM_POLL_EVERY 4096

void sim_init(struct sim *sim, uint64_t seed)
{
	*sim = (struct sim){ 0 };
	evq_init(&sim->q);
	sim->seed = seed;
	sim->stop_at = SIMTIME_NEVER;
	sim->progress_every = 1u << 20;
	sim_elem_register(sim, &sim->kernel, "kernel");
}

void sim_free(struct sim *sim)
{
	evq_free(&sim->q);
}

void sim_elem_register(struct sim *sim, struct sim_elem *e, const char *name)
{
	e->id = sim->n_elems++;
	e->seq = 0;
	e->name = name;
	if (sim->n_elems >= (1u << (64 - EVQ_SEQ_BITS)))
		die_internal("more than %u schedulable elements", 1u << (64 - EVQ_SEQ_BITS));
}

void sim_past_event(struct sim *sim, const struct sim_elem *e, simtime_t t)
{
	sim_assert_fail(sim, e, "t >= sim->now", __FILE__, __LINE__,
			"event scheduled in the past: at %lld ps, now %lld ps",
			(long long)t, (long long)sim->now);
}

static bool sim_should_stop(struct sim *sim)
{
	if (sim->interrupt && *sim->interrupt) {
		sim->stopped = SIM_INTERRUPTED;
		return true;
	}
	if (sim->done && sim->done(sim, sim->done_ctx)) {
		sim->stopped = SIM_DONE;
		return true;
	}
	return false;
}

int sim_run(struct sim *sim)
{
	struct event ev;
	uint64_t next_poll = sim->events + SIM_POLL_EVERY;
	uint64_t next_progress = sim->events + sim->progress_every;
	sim->stopped = SIM_RAN_DRY;
	while (evq_size(&sim->q)) {
		if (evq_peek(&sim->q)->t > sim->stop_at) {
			sim->now = sim->stop_at;
			sim->stopped = SIM_STOP_TIME;
			goto out;
		}
		evq_pop(&sim->q, &ev);
		sim->now = ev.t;
		ev.fn(sim, ev.obj, ev.arg);
		if (__builtin_expect(sim->poll_now, 0)) {
			sim->poll_now = false;
			if (sim->done && sim->done(sim, sim->done_ctx)) {
				++sim->events;
				sim->stopped = SIM_DONE;
				goto out;
			}
		}
		if (++sim->events >= next_poll) {
			next_poll = sim->events + SIM_POLL_EVERY;
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
	if (sim->progress)
		sim->progress(sim, sim->progress_ctx);
	return sim->stopped;
}

static void sim_timer_fire(struct sim *sim, void *obj, uintptr_t gen)
{
	struct sim_timer *tm = obj;
	if ((uint32_t)gen != tm->gen || !tm->armed)
		return; /* superseded or cancelled */
	tm->armed = false;
	tm->fn(sim, tm->obj);
}

void sim_timer_init(struct sim_timer *tm, struct sim_elem *elem,
		    void (*fn)(struct sim *sim, void *obj), void *obj)
{
	*tm = (struct sim_timer){ .elem = elem, .fn = fn, .obj = obj };
}

void sim_timer_set(struct sim *sim, struct sim_timer *tm, simtime_t t)
{
	tm->gen++;
	tm->armed = true;
	tm->t = t;
	sched_at(sim, t, tm->elem, sim_timer_fire, tm, tm->gen);
}
