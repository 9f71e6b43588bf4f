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
 * posting (every copy of the model posts it) to its delivery.
 */
#include <stdlib.h>
#include "idmap.h"
#include "log.h"
#include "msg.h"
#include "world.h"
#include "xalloc.h"

/* What a late message's delivery runs. */
struct late {
	flow_done_fn fn;
	void *ctx;
	simtime_t delay;
	int dst_host;
};

struct msg_late {
	struct idmap kept;         /* message id -> struct late, posting to delivery */
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

void msg_late_keep(struct world *w, uint64_t id, const struct msg *m)
{
	struct msg_late *l = w->late;
	SIM_ASSERT(w->sim, &w->sim->kernel, l, "a message with recv_delay before msg_late_enable");
	struct late *e = xmalloc(sizeof *e);
	*e = (struct late){ .fn = m->on_recv, .ctx = m->ctx, .delay = m->recv_delay,
			    .dst_host = world_gpu_host(w, m->dst_gpu) };
	idmap_put(&l->kept, id, e);
}

static void deliver(struct sim *sim, void *obj, uintptr_t arg)
{
	struct world *w = obj;
	struct late *e = idmap_take(&w->late->kept, (uint64_t)arg);
	SIM_ASSERT(sim, &sim->kernel, e, "late message %llu delivered but not kept", (unsigned long long)arg);
	struct late d = *e;
	free(e);
	if (d.fn)
		d.fn(sim, NULL, d.ctx);
}

void msg_late_arrived(struct world *w, uint64_t id)
{
	const struct late *e = w->late ? idmap_get(&w->late->kept, id) : NULL;
	if (!e)
		return;
	struct sim *sim = w->sim;
	struct sim_elem *el = &w->late->elem[e->dst_host];
	simtime_t t = sim->now + e->delay;
	uint64_t key = el->key;
	sched_at(sim, t, el, deliver, w, (uintptr_t)id);
	if (w->late_far)
		w->late_far(w, id, t, key);
}

void msg_late_land(struct world *w, uint64_t id, simtime_t t, uint64_t key)
{
	struct event ev = { .t = t, .key = key, .fn = deliver, .obj = w, .arg = (uintptr_t)id };
	evq_insert(&w->sim->q, &ev);
}

static void free_late(void *ctx, uint64_t id, void *v)
{
	(void)ctx;
	(void)id;
	free(v);
}

void msg_late_free(struct world *w)
{
	if (!w->late)
		return;
	for (int h = 0; h < w->late->n_hosts; h++)
		free(w->late->names[h]);
	free(w->late->names);
	idmap_each(&w->late->kept, free_late, NULL);
	idmap_free(&w->late->kept);
	free(w->late->elem);
	free(w->late);
	w->late = NULL;
}
