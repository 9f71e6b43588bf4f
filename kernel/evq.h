/*
 * evq.h — the pending-event set.
 *
 * Order is (t, key): key packs the id of the element that scheduled the
 * event and that element's own sequence number, so equal-time events fire in
 * an order that depends only on what each element did — never on global
 * insertion order — which keeps a run a pure function of (scenario, seed)
 * and lets a partitioned parallel run order events exactly as the
 * sequential one (docs/architecture.md "Kernel contracts").
 *
 * Structure: a timing wheel (a calendar queue with one year in view)
 * between a sorted current bucket and a 4-ary heap (evq_heap.h) for the far
 * future. Time is cut into buckets of 2^shift ps; `cur_a` is the bucket being
 * run.
 *   sub    the events of buckets <= cur_a: the current bucket is cut into
 *          64 sub-buckets, each a list sorted by (time, key), with a mask
 *          of the non-empty ones; a pop takes the head of the first list.
 *          Most lists hold one event; those that got more (ties: equal
 *          times are common where links and frames are alike) are sorted
 *          once, when the bucket is spread, and an insert into the current
 *          bucket walks its list. A list too long to sort by insertion (a
 *          burst of simultaneous events) is a "burst": it stays unsorted
 *          and moves into the `hot` heap when it comes first;
 *   wheel  nb unsorted buckets for cur_a+1 .. cur_a+nb-1, each a list of
 *          nodes (struct evq_node), with a bitmap of the non-empty ones;
 *   far    a heap of the events beyond the wheel (timers, late starts).
 * When the current bucket is used up, far events that entered the wheel's
 * window go to their buckets and the next non-empty bucket (found through
 * the bitmap) becomes current: its list is spread over the sub-buckets. An
 * event thus costs two pushes, rarely a sort, and a pop from a list,
 * instead of the O(log n) sifts of one heap over everything pending. The
 * bucket width adapts to the event density (up to about 16 events per
 * bucket, each sub-bucket then holding one or none, so the times of a
 * bucket are ordered without comparisons, which random times would
 * mispredict), and the wheel grows while many inserts fall beyond it; a
 * rebuild re-files every event and cannot change the order.
 *
 * Tuned for: a few thousand pending events (about one per port, NIC and
 * traffic source), tens of millions of insert/pop pairs per second.
 * Cancellation is lazy (see sim_timer in sim.h); the queue never searches.
 */
#ifndef ROCESIM_EVQ_H
#define ROCESIM_EVQ_H

#include <stdbool.h>
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

/* An event held by the wheel or the current bucket: nodes come from a free
 * list, last freed first, so an insert writes a line that a pop has just
 * read (arrays per bucket would be walked cyclically and, sized by their
 * busiest moment, outgrow the cache). */
struct __attribute__((aligned(64))) evq_node {
	struct event e;
	struct evq_node *next;
};

/* The prefetch cursor's end (its next is NULL): the cursor is never NULL. */
extern struct evq_node evq_pf_end;

#define EVQ_SUBS 64                /* sub-buckets of the current bucket */

struct evq {
	/* The current bucket, cut into EVQ_SUBS sub-buckets of 2^sub_shift ps:
	 * lists sorted by (t, key), bursts excepted. Bit k of sub_mask: sub[k]
	 * holds events. The pop's fast path takes sub_mask's first list; while
	 * the hot heap is in use or a burst waits, sub_mask is 0 and the
	 * lists' bits wait in sub_held (the slow path's "held" mode). */
	uint64_t sub_mask;
	uint64_t sub_held;
	uint64_t burst;           /* sub-buckets whose lists are unsorted bursts (always
				   * among sub_held) */
	int cur_sub;              /* while the hot heap is in use: the sub-bucket it holds */
	int sub_shift;
	struct evq_node *sub[EVQ_SUBS];
	struct evheap hot;        /* a burst of the current bucket, while it lasts (cur_sub) */
	struct evq_node **wheel;  /* [nb]: bucket a > cur_a at wheel[a & (nb - 1)], unsorted */
	uint64_t *bits;           /* [nb / 64]: non-empty wheel buckets */
	struct evq_node *free;    /* free nodes */
	struct evq_node *pf;      /* prefetch cursor: walks the next bucket's list a
				   * node per pop, so spreading it finds it cached;
				   * at its end, evq_pf_end */
	struct evheap far;        /* buckets >= cur_a + nb */
	uint64_t far_a;           /* bucket of far's first event (UINT64_MAX: far is empty) */
	uint64_t cur_a;           /* absolute number (t >> shift) of the current bucket */
	uint64_t win_lo;          /* cur_a + 1, the wheel's first bucket (for evq_push_fast) */
	uint32_t nb;              /* wheel buckets, a power of two */
	uint32_t mask;            /* nb - 1 */
	int shift;                /* bucket width 2^shift ps */
	size_t wheel_n;           /* events in the wheel (the queue's size is counted only
				   * when asked: evq_size) */
	/* Width tuning: buckets entered, the events they held, far-heap inserts;
	 * overload: the events of a bucket that asked for an early narrowing. */
	uint64_t moves, moved, far_in, next_tune, overload;
	void **chunks;            /* node chunks, freed with the queue */
	size_t n_chunks;
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
/* Inserts the event (t, key, fn, obj, arg) when it goes to a wheel bucket
 * (later than the current one) and a node is free, the usual case, and
 * returns true; else returns false and the caller calls evq_insert_slow.
 * Takes the fields, not a struct event: a caller's struct built with 8-byte
 * stores and copied with 16-byte loads would stall on store forwarding. */
void evq_insert_slow(struct evq *q, const struct event *e);
static inline bool evq_push_fast(struct evq *q, simtime_t t, uint64_t key, event_fn fn, void *obj,
				 uintptr_t arg)
{
	uint64_t a = (uint64_t)t >> q->shift;
	uint32_t mask = q->mask;
	struct evq_node *nd = q->free;
	if (a - q->win_lo < mask && nd) { /* cur_a < a < cur_a + nb */
		uint32_t i = (uint32_t)a & mask;
		struct evq_node **w = &q->wheel[i];
		uint64_t *bw = &q->bits[i >> 6];
		q->free = nd->next;
		q->wheel_n++;
		nd->e.t = t;
		nd->e.key = key;
		nd->e.fn = fn;
		nd->e.obj = obj;
		nd->e.arg = arg;
		nd->next = *w;
		*w = nd;
		*bw |= 1ull << (i & 63);
		return true;
	}
	return false;
}
static inline void evq_insert(struct evq *q, const struct event *e)
{
	if (!evq_push_fast(q, e->t, e->key, e->fn, e->obj, e->arg))
		evq_insert_slow(q, e);
}
/* Removes the minimum and hands back its node (NULL when the queue is
 * empty); the caller reads it, then gives it back with evq_release before
 * inserting anything. */
struct evq_node *evq_pop_node_slow(struct evq *q);
/* The head of the first list among the sub-buckets of *m (not 0), taken
 * out of it; its bit is cleared when the list ends (a select, not a
 * branch). */
static inline struct evq_node *evq_sub_take(struct evq *q, uint64_t *m)
{
	uint64_t mask = *m;
	int k = __builtin_ctzll(mask);
	struct evq_node *nd = q->sub[k];
	struct evq_node *nx = nd->next;
	q->sub[k] = nx;
	*m = nx ? mask : mask & (mask - 1);
	return nd;
}
static inline struct evq_node *evq_pop_node(struct evq *q)
{
	/* The usual case: the head of the first non-empty sub-bucket. */
	if (q->sub_mask) {
		struct evq_node *nd = evq_sub_take(q, &q->sub_mask);
		struct evq_node *pf = q->pf->next;
		pf = pf ? pf : &evq_pf_end; /* (a select, not a branch) */
		q->pf = pf;
		__builtin_prefetch(pf);
		return nd;
	}
	return evq_pop_node_slow(q);
}
static inline void evq_release(struct evq *q, struct evq_node *nd)
{
	nd->next = q->free;
	q->free = nd;
}
/* Removes the minimum into *out; returns 0 when the queue is empty. */
static inline int evq_pop(struct evq *q, struct event *out)
{
	struct evq_node *nd = evq_pop_node(q);
	if (!nd)
		return 0;
	*out = nd->e;
	evq_release(q, nd);
	return 1;
}
/* The minimum, or NULL when empty (it stays in the queue). */
const struct event *evq_peek(struct evq *q);
/* Events held (counted: for tests and the rare caller). */
size_t evq_size(const struct evq *q);
/* True when no event is held. */
static inline bool evq_empty(const struct evq *q)
{
	return !q->sub_mask && !q->sub_held && !q->hot.n && !q->wheel_n && !q->far.n;
}

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
