/*
 * fake_coll.h — free communication for the job tests: a collective that
 * completes at once (an event at the same time, so a worker never recurses
 * through its program), installed with jobs_set_coll_start(fake_coll_start).
 * With it a job's iteration is its compute and the waits the schedule
 * makes, which the tests set against closed forms.
 */
#ifndef ROCESIM_TEST_FAKE_COLL_H
#define ROCESIM_TEST_FAKE_COLL_H

#include <stdint.h>
#include <stdlib.h>
#include "collective.h"
#include "job.h"
#include "run_fixture.h"
#include "sim.h"
#include "xalloc.h"

struct fake_coll { coll_done_fn fn; void *ctx; };
static struct sim_elem fake_coll_elem; /* unregistered: id 0, named "kernel" in messages */
static uint64_t fake_coll_calls;       /* collectives started so far */

static void fake_coll_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)arg;
	struct fake_coll *f = obj;
	if (f->fn)
		f->fn(sim, NULL, f->ctx);
	free(f);
}

static inline void fake_coll_start(struct sim *sim, const struct coll_spec *s)
{
	struct fake_coll *f = xmalloc(sizeof *f);
	f->fn = s->on_done;
	f->ctx = s->ctx;
	fake_coll_calls++;
	sched_at(sim, sim->now, &fake_coll_elem, fake_coll_fire, f, 0);
}

/* Runs a scenario (run_text) with free communication, or on the fabric
 * when free_comm is false; NULL when the run failed. */
static inline sqlite3 *run_text_free(const char *text, bool free_comm)
{
	if (free_comm)
		jobs_set_coll_start(fake_coll_start);
	sqlite3 *db = run_text(text);
	jobs_set_coll_start(NULL);
	return db;
}

#endif
