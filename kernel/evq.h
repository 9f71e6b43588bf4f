/*
 * evq.h — the pending-event set.
 *
 * A 4-ary min-heap of events stored by value. Order is (t, key): key packs the
 * id of the element that scheduled the event and that element's own sequence
 * number, so equal-time events fire in an order that depends only on what
 * each element did — never on global insertion order — which keeps a run a
 * pure function of (scenario, seed) and lets a partitioned parallel run order
 * events exactly as the sequential one (DESIGN.md §2).
 *
 * Tuned for: a few thousand pending events (about one per port, NIC and
 * traffic source), tens of millions of insert/pop pairs per second.
 * Cancellation is lazy (see sim_timer in sim.h); the queue never searches.
 */
#ifndef ROCESIM_EVQ_H
#define ROCESIM_EVQ_H

#include <stddef.h>
#include <stdint.h>
#include "simtime.h"

struct sim;
typedef void (*event_fn)(struct sim *sim, void *obj, uintptr_t arg);

/* Bits of the key that hold the scheduling element's sequence number. */
#define EVQ_SEQ_BITS 40
#define EVQ_KEY(elem_id, seq) (((uint64_t)(elem_id) << EVQ_SEQ_BITS) | ((seq) & ((1ull << EVQ_SEQ_BITS) - 1)))

struct event {
	simtime_t t;      /* when it fires */
	uint64_t key;     /* scheduling element id << 40 | its sequence number */
	event_fn fn;      /* handler */
	void *obj;        /* handler's object */
	uintptr_t arg;    /* handler's argument (a packet, a generation, ...) */
};

struct evq {
	struct event *v;  /* heap array, v[0] is the minimum */
	size_t n;         /* events held */
	size_t cap;       /* allocated slots */
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
void evq_insert(struct evq *q, const struct event *e);
/* Removes the minimum into *out; returns 0 when the queue is empty. */
int evq_pop(struct evq *q, struct event *out);
/* The minimum, or NULL when empty. */
static inline const struct event *evq_peek(const struct evq *q) { return q->n ? &q->v[0] : NULL; }
static inline size_t evq_size(const struct evq *q) { return q->n; }

/* (t, key) as one unsigned 128-bit number: a single compare, no branch on
 * equal times. Valid because t >= 0. */
static inline unsigned __int128 evq_rank(const struct event *e)
{
	return ((unsigned __int128)(uint64_t)e->t << 64) | e->key;
}

static inline int evq_before(const struct event *a, const struct event *b)
{
	return evq_rank(a) < evq_rank(b);
}

#endif
