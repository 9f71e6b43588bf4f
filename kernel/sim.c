/*
 * sim.c — the run loop (sim_loop.h), element registration and timers.
 */
#include <stdlib.h>
#include "log.h"
#include "sim.h"
#include "sim_loop.h"
#include "xalloc.h"

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

void sched_slow(struct sim *sim, simtime_t t, const struct sim_elem *e, uint64_t key,
		event_fn fn, void *obj, uintptr_t arg)
{
	if (t < sim->now)
		sim_past_event(sim, e, t);
	evq_insert_slow(&sim->q, &(struct event){ .t = t, .key = key, .fn = fn, .obj = obj, .arg = arg });
}

bool sim_should_stop(struct sim *sim)
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
	return sim_run_with(sim, NULL, NULL);
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
