/*
 * evq.h — the pending-event set.
 *
 * Order is (t, key): key packs the id of the element that scheduled the
 * event and that element's own sequence number, so equal-time events fire in
 * an order that depends only on what each element did — never on global
 * insertion order — which keeps a run a pure function of (scenario, seed)
 * and lets a partitioned parallel run order events exactly as the
 * sequential one (DESIGN.md §2).
 *
 * Structure: a timing wheel (a calendar queue with one year in view)
 * between a sorted current bucket and a 4-ary heap (evq_heap.h) for the far
 * future. Time is cut into buckets of 2^shift ps; `cur` is the bucket being
 * run.
 *   now    the events of buckets <= cur, a sorted array popped from its
 *          head; a small one (the usual case) takes inserts by insertion
 *          from the end; a large one (a burst of simultaneous events)
 *          moves into the `hot` heap until it is used up;
 *   wheel  nb unsorted buckets for cur+1 .. cur+nb-1, each an array the
 *          events are appended to, with a bitmap of the non-empty ones;
 *   far    a heap of the events beyond the wheel (timers, late starts).
 * When the current bucket is used up, far events that entered the wheel's
 * window go to their buckets and the next non-empty bucket (found through
 * the bitmap) becomes current: its array is swapped in and sorted. An event
 * thus costs an append, its share of a small sort and a pop from an array,
 * instead of the O(log n) sifts of one heap over everything pending. The
 * bucket width adapts to the event density (a few events per bucket); a
 * rebuild re-files every event and cannot change the order.
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

struct evheap {
	struct event *v;  /* heap array, v[0] is the minimum */
	size_t n;         /* events held */
	size_t cap;       /* allocated slots */
};

struct evq_bucket {
	struct event *v;  /* unsorted */
	uint32_t n, cap;
};

struct evq {
	struct evq_bucket now;    /* buckets <= cur, sorted; v[head..n) pending */
	uint32_t head;
	struct evheap hot;        /* instead of `now` while a large current bucket lasts */
	struct evq_bucket *wheel; /* [nb]: bucket a > cur at wheel[a & (nb - 1)] */
	uint64_t *bits;           /* [nb / 64]: non-empty wheel buckets */
	struct evheap far;        /* buckets >= cur + nb */
	uint64_t cur;             /* absolute number (t >> shift) of the current bucket */
	uint32_t nb;              /* wheel buckets, a power of two */
	int shift;                /* bucket width 2^shift ps */
	size_t n;                 /* events held in all three */
	size_t wheel_n;           /* events in the wheel */
	/* Width tuning: buckets moved to hot and the events they held. */
	uint64_t moves, moved, next_tune;
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
/* Inserts e: inline when it goes to a wheel bucket with room (the usual
 * case), else evq_insert_slow. */
void evq_insert_slow(struct evq *q, const struct event *e);
static inline void evq_insert(struct evq *q, const struct event *e)
{
	uint64_t a = (uint64_t)e->t >> q->shift;
	if (a - q->cur - 1 < (uint64_t)q->nb - 1) { /* cur < a < cur + nb */
		uint32_t i = (uint32_t)a & (q->nb - 1);
		struct evq_bucket *b = &q->wheel[i];
		if (b->n < b->cap) {
			b->v[b->n++] = *e;
			q->bits[i >> 6] |= 1ull << (i & 63);
			q->wheel_n++;
			q->n++;
			return;
		}
	}
	evq_insert_slow(q, e);
}
/* Makes the next bucket current (the current one is used up). */
void evq_advance(struct evq *q);
/* The minimum, or NULL when empty. */
static inline const struct event *evq_peek(struct evq *q)
{
	if (q->head < q->now.n)
		return &q->now.v[q->head];
	if (!q->hot.n && q->n)
		evq_advance(q);
	if (q->head < q->now.n)
		return &q->now.v[q->head];
	return q->hot.n ? &q->hot.v[0] : NULL;
}
/* Removes the minimum into *out; returns 0 when the queue is empty. */
int evq_pop_slow(struct evq *q, struct event *out);
static inline int evq_pop(struct evq *q, struct event *out)
{
	if (q->head < q->now.n) {
		*out = q->now.v[q->head++];
		q->n--;
		return 1;
	}
	return evq_pop_slow(q, out);
}
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
