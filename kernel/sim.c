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
#include "xalloc.h"

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
	free(sim->elem_names);
	sim->elem_names = NULL;
	sim->elem_names_cap = 0;
}

void sim_elem_register(struct sim *sim, struct sim_elem *e, const char *name)
{
	if (sim->n_elems + 1 >= (1u << (64 - EVQ_SEQ_BITS)))
		die_internal("more than %u schedulable elements", 1u << (64 - EVQ_SEQ_BITS));
	if (sim->n_elems == sim->elem_names_cap) {
		sim->elem_names_cap = sim->elem_names_cap ? 2 * sim->elem_names_cap : 64;
		sim->elem_names = xrealloc(sim->elem_names, sim->elem_names_cap * sizeof *sim->elem_names);
	}
	sim->elem_names[sim->n_elems] = name;
	e->key = EVQ_KEY(sim->n_elems, 0);
	sim->n_elems++;
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
	struct evq_node *nd;
	uint64_t next_poll = sim->events + SIM_POLL_EVERY;
	uint64_t next_progress = sim->events + sim->progress_every;
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
		fn(sim, obj, arg);
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
