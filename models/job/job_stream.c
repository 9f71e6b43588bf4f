/*
 * job_stream.c — one communicator's collectives, one at a time (see
 * job_stream.h).
 *
 * Each queued collective keeps a copy of its spec and GPU list until it
 * starts (the caller's arrays are scratch); it stays at the head while it
 * runs. Its end starts the next one before telling the caller, so a
 * caller that posts more at once queues them behind it. A collective
 * that waited in the queue continues the chain of the one ahead of it:
 * that one's end let it start.
 */
#include <stdlib.h>
#include <string.h>
#include "job_exec.h"
#include "job_stream.h"
#include "nic.h"
#include "xalloc.h"

struct job_stream_item {
	struct coll_spec cs;
	int *gpus;
	coll_done_fn done;
	void *ctx;
	struct job_stream *st;
	struct job_stream_item *next;
};

static void item_done(struct sim *sim, struct coll *c, void *ctx);

static void launch(struct job_stream *st)
{
	struct job_stream_item *it = st->head;
	struct job *j = st->job;
	st->busy = true;
	if (j->fake_coll)
		j->fake_coll(j->w->sim, &it->cs);
	else
		coll_start(j->colls, &it->cs);
}

static void item_done(struct sim *sim, struct coll *c, void *ctx)
{
	struct job_stream_item *it = ctx;
	struct job_stream *st = it->st;
	const struct job_join *jn = it->ctx;
	/* Its chain up to now: the one the next collective continues. */
	struct job_path last = jn->path;
	job_path_extend(&last, jn->cat, sim->now);
	st->head = it->next;
	if (!st->head)
		st->tail = NULL;
	st->busy = false;
	if (st->head) {
		struct job_join *next = st->head->ctx;
		job_path_later(&next->path, &last);
		launch(st);
	}
	it->done(sim, c, it->ctx);
	free(it->gpus);
	free(it);
}

void job_stream_post(struct job_stream *st, const struct coll_spec *cs)
{
	struct job_stream_item *it = xcalloc(1, sizeof *it);
	it->cs = *cs;
	it->gpus = xmalloc((size_t)cs->n * sizeof *it->gpus);
	memcpy(it->gpus, cs->gpus, (size_t)cs->n * sizeof *it->gpus);
	it->cs.gpus = it->gpus;
	it->cs.a2a_b = NULL; /* DP collectives have no matrix */
	it->done = cs->on_done;
	it->ctx = cs->ctx;
	it->cs.on_done = item_done;
	it->cs.ctx = it;
	it->st = st;
	if (st->tail)
		st->tail->next = it;
	else
		st->head = it;
	st->tail = it;
	if (!st->busy)
		launch(st);
}

void job_stream_clear(struct job_stream *st)
{
	while (st->head) {
		struct job_stream_item *it = st->head;
		st->head = it->next;
		free(it->gpus);
		free(it);
	}
	st->tail = NULL;
	st->busy = false;
}
