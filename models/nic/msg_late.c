/*
 * msg_late.c — late messages (msg.h): on_recv runs recv_delay after the
 * last byte reached the destination GPU, ordered by that host's delivery
 * element.
 *
 * Why the delay and the element. A job reacts to arrivals at zero delay
 * (a ring's next piece, a collective's end, the compute it releases), so
 * its hosts cannot be split over ranks that only trade every lookahead.
 * With a delay of at least the lookahead, every rank can run a copy of
 * the job: the rank that owns the destination GPU sees the arrival, keys
 * the delivery with its host's element (whose count only that rank
 * advances, in the order the sequential run does), runs it there and
 * sends (id, time, key) to every other rank; the copies all deliver at
 * the same time with the same key, so they post the same messages in the
 * same order, and the ids and keys stay the sequential run's.
 *
 * The table keeps, on every rank, each late message's on_recv from its
 * posting (every copy of the model posts it) to its delivery: open
 * addressing on the id, deleted by backward shift.
 */
#include <stdlib.h>
#include "hash.h"
#include "log.h"
#include "msg.h"
#include "world.h"
#include "xalloc.h"

struct late {
	uint64_t id;               /* 0: empty */
	flow_done_fn fn;
	void *ctx;
	simtime_t delay;
	int dst_host;
};

struct msg_late {
	struct late *t;
	size_t n, cap;             /* cap a power of two */
	struct sim_elem *elem;     /* [n_hosts]: each host's deliveries */
	char **names;              /* [n_hosts]: theirs ("host3:deliver") */
	int n_hosts;
};

void msg_late_enable(struct world *w)
{
	if (w->late)
		return;
	struct msg_late *l = xcalloc(1, sizeof *l);
	int nh = w->fab.topo.n_hosts;
	l->n_hosts = nh;
	l->elem = xcalloc((size_t)nh, sizeof *l->elem);
	l->names = xcalloc((size_t)nh, sizeof *l->names);
	for (int h = 0; h < nh; h++) {
		l->names[h] = str_printf("%s:deliver", w->fab.topo.nodes[h].name);
		sim_elem_register(w->sim, &l->elem[h], l->names[h]);
	}
	w->late = l;
}

static size_t home(const struct msg_late *l, uint64_t id)
{
	return (size_t)splitmix64(id) & (l->cap - 1);
}

/* The slot of id, or of the empty slot where it would go. */
static size_t probe(const struct msg_late *l, uint64_t id)
{
	size_t k = home(l, id);
	while (l->t[k].id && l->t[k].id != id)
		k = (k + 1) & (l->cap - 1);
	return k;
}

static void grow(struct msg_late *l)
{
	struct late *old = l->t;
	size_t n = l->cap;
	l->cap = n ? 2 * n : 1024;
	l->t = xcalloc(l->cap, sizeof *l->t);
	for (size_t i = 0; i < n; i++)
		if (old[i].id)
			l->t[probe(l, old[i].id)] = old[i];
	free(old);
}

void msg_late_keep(struct world *w, uint64_t id, const struct msg *m)
{
	struct msg_late *l = w->late;
	SIM_ASSERT(w->sim, &w->sim->kernel, l, "a message with recv_delay before msg_late_enable");
	if (2 * (l->n + 1) > l->cap)
		grow(l);
	size_t k = probe(l, id);
	SIM_ASSERT(w->sim, &w->sim->kernel, !l->t[k].id, "late message %llu kept twice",
		   (unsigned long long)id);
	l->t[k] = (struct late){ .id = id, .fn = m->on_recv, .ctx = m->ctx, .delay = m->recv_delay,
				 .dst_host = world_gpu_host(w, m->dst_gpu) };
	l->n++;
}

static void drop(struct msg_late *l, size_t hole)
{
	for (size_t j = (hole + 1) & (l->cap - 1); l->t[j].id; j = (j + 1) & (l->cap - 1)) {
		size_t h = home(l, l->t[j].id);
		bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
		if (stays)
			continue;
		l->t[hole] = l->t[j];
		hole = j;
	}
	l->t[hole].id = 0;
	l->n--;
}

static void deliver(struct sim *sim, void *obj, uintptr_t arg)
{
	struct world *w = obj;
	struct msg_late *l = w->late;
	size_t k = probe(l, (uint64_t)arg);
	SIM_ASSERT(sim, &sim->kernel, l->t[k].id, "late message %llu delivered but not kept",
		   (unsigned long long)arg);
	struct late e = l->t[k];
	drop(l, k);
	if (e.fn)
		e.fn(sim, NULL, e.ctx);
}

void msg_late_arrived(struct world *w, uint64_t id)
{
	struct msg_late *l = w->late;
	if (!l || !l->cap)
		return;
	size_t k = probe(l, id);
	if (!l->t[k].id)
		return;
	struct sim *sim = w->sim;
	struct sim_elem *e = &l->elem[l->t[k].dst_host];
	simtime_t t = sim->now + l->t[k].delay;
	uint64_t key = e->key;
	sched_at(sim, t, e, deliver, w, (uintptr_t)id);
	if (w->late_far)
		w->late_far(w, id, t, key);
}

void msg_late_land(struct world *w, uint64_t id, simtime_t t, uint64_t key)
{
	struct event ev = { .t = t, .key = key, .fn = deliver, .obj = w, .arg = (uintptr_t)id };
	evq_insert(&w->sim->q, &ev);
}

size_t msg_late_pending(const struct world *w)
{
	return w->late ? w->late->n : 0;
}

void msg_late_free(struct world *w)
{
	if (!w->late)
		return;
	for (int h = 0; h < w->late->n_hosts; h++)
		free(w->late->names[h]);
	free(w->late->names);
	free(w->late->t);
	free(w->late->elem);
	free(w->late);
	w->late = NULL;
}
