/*
 * evq.c — the event queue: a timing wheel in front of two heaps (evq.h).
 */
#include <stdlib.h>
#include <string.h>
#include "evq.h"
#include "evq_heap.h"
#include "log.h"
#include "xalloc.h"

#define EVQ_NB0 4096u            /* initial wheel buckets */
#define EVQ_NB_MAX (1u << 20)
#define EVQ_SHIFT0 10            /* initial bucket width 1024 ps */
#define EVQ_TUNE_EVERY 16384     /* buckets moved between width checks */
#define EVQ_LOAD_HIGH 16         /* events per moved bucket above which buckets narrow */
#define EVQ_LOAD_LOW 2           /* ... below which they widen */
#define EVQ_OVERLOAD 256         /* a bucket of more events, spread over at least ... */
#define EVQ_OVERLOAD_SUBS 8      /* ... this many sub-buckets, narrows them at once */
#define EVQ_NOW_MAX 64           /* a longer sub-bucket list is a burst, run from the hot heap */
#define EVQ_FAR_SHARE 16         /* the wheel grows when more than 1/16 of inserts go far */

#define EVQ_CHUNK 4096           /* nodes per allocation */

struct evq_node evq_pf_end;

static void wheel_alloc(struct evq *q, uint32_t nb)
{
	q->nb = nb;
	q->mask = nb - 1;
	q->wheel = xcalloc(nb, sizeof *q->wheel);
	q->bits = xcalloc(nb / 64, sizeof *q->bits);
}

void evq_init(struct evq *q)
{
	memset(q, 0, sizeof *q);
	evheap_init(&q->hot, 256);
	evheap_init(&q->far, 256);
	wheel_alloc(q, EVQ_NB0);
	q->far_a = UINT64_MAX;
	q->pf = &evq_pf_end;
	q->win_lo = 1;           /* cur_a + 1 */
	q->shift = EVQ_SHIFT0;
	q->sub_shift = EVQ_SHIFT0 - 6;
	q->cur_sub = -1;
	q->next_tune = EVQ_TUNE_EVERY / 16; /* first look early: the width starts as a guess */
}

void evq_free(struct evq *q)
{
	evheap_free(&q->hot);
	evheap_free(&q->far);
	free(q->wheel);
	free(q->bits);
	q->wheel = NULL;
	q->bits = NULL;
	for (size_t i = 0; i < q->n_chunks; i++)
		free(q->chunks[i]);
	free(q->chunks);
	q->chunks = NULL;
	q->n_chunks = 0;
	q->free = NULL;
	q->pf = &evq_pf_end;
	q->wheel_n = 0;
}

/* A chunk of free nodes, threaded in address order. */
static __attribute__((noinline)) void nodes_grow(struct evq *q)
{
	q->chunks = xrealloc(q->chunks, (q->n_chunks + 1) * sizeof *q->chunks);
	struct evq_node *v = xmalloc_lines(EVQ_CHUNK, sizeof *v);
	q->chunks[q->n_chunks++] = v;
	for (size_t i = EVQ_CHUNK; i-- > 0;) {
		v[i].next = q->free;
		q->free = &v[i];
	}
}

static inline struct evq_node *node_get(struct evq *q, const struct event *e)
{
	if (!q->free)
		nodes_grow(q);
	struct evq_node *nd = q->free;
	q->free = nd->next;
	nd->e = *e;
	return nd;
}

static inline void bucket_add(struct evq *q, uint64_t a, const struct event *e)
{
	uint32_t i = (uint32_t)a & (q->nb - 1);
	struct evq_node *nd = node_get(q, e);
	nd->next = q->wheel[i];
	q->wheel[i] = nd;
	q->bits[i >> 6] |= 1ull << (i & 63);
	q->wheel_n++;
}

static inline void far_add(struct evq *q, const struct event *e)
{
	q->far_in++;
	evheap_insert(&q->far, e);
	q->far_a = (uint64_t)q->far.v[0].t >> q->shift;
}

static inline void far_pop(struct evq *q, struct event *out)
{
	evheap_pop(&q->far, out);
	q->far_a = q->far.n ? (uint64_t)q->far.v[0].t >> q->shift : UINT64_MAX;
}

/* The rank of an event: (t, key) as one number (evq_rank). */
static inline unsigned __int128 node_rank(const struct evq_node *nd)
{
	return evq_rank(&nd->e);
}

/* In held mode: the hot heap is in use or a burst waits (sub_mask is 0). */
static inline bool held(const struct evq *q)
{
	return (q->sub_held | q->hot.n) != 0;
}

/* Enters held mode: the fast path's sub-buckets wait in sub_held. */
static inline void hold(struct evq *q)
{
	q->sub_held |= q->sub_mask;
	q->sub_mask = 0;
}

/* Leaves held mode when neither the hot heap nor a burst needs it. */
static inline void unhold(struct evq *q)
{
	if (!q->hot.n && !(q->sub_held & q->burst)) {
		q->sub_mask |= q->sub_held;
		q->sub_held = 0;
	}
}

/* Marks the sub-bucket k's list a burst (unsorted, run from the hot heap). */
static void make_burst(struct evq *q, int k)
{
	q->burst |= 1ull << k;
	hold(q);
	q->sub_held |= 1ull << k;
}

/* Inserts nd into sub-bucket k's sorted list; a list that grows past
 * EVQ_NOW_MAX becomes a burst (nd then simply goes first). */
static void sub_insert(struct evq *q, int k, struct evq_node *nd)
{
	uint64_t bit = 1ull << k;
	if (!(q->burst & bit)) {
		unsigned __int128 r = node_rank(nd);
		struct evq_node **at = &q->sub[k];
		uint32_t walked = 0;
		while (*at && node_rank(*at) < r && walked < EVQ_NOW_MAX) {
			at = &(*at)->next;
			walked++;
		}
		if (walked < EVQ_NOW_MAX) {
			nd->next = *at;
			*at = nd;
			if (held(q))
				q->sub_held |= bit;
			else
				q->sub_mask |= bit;
			return;
		}
		make_burst(q, k);
	}
	nd->next = q->sub[k]; /* a burst: its bit is held already */
	q->sub[k] = nd;
}

/* Moves the burst of sub-bucket k, the first held, into the hot heap. */
static void burst_to_hot(struct evq *q, int k)
{
	for (struct evq_node *nd = q->sub[k], *next; nd; nd = next) {
		next = nd->next;
		evheap_insert(&q->hot, &nd->e);
		evq_release(q, nd);
	}
	q->sub[k] = NULL;
	q->sub_held &= ~(1ull << k);
	q->burst &= ~(1ull << k);
	q->cur_sub = k;
}

/* An event of bucket a, the current one or an earlier one (inserted after
 * a peek moved on: it precedes the whole bucket, so sub-bucket 0 takes
 * it): into its sub-bucket's list (the usual case, an empty one outside
 * held mode, without a walk), or into the hot heap when that is in use
 * and the event is not after the burst's sub-bucket. */
static inline void now_insert(struct evq *q, const struct event *e, uint64_t a)
{
	int k = a == q->cur_a ? (int)(((uint64_t)e->t >> q->sub_shift) & (EVQ_SUBS - 1)) : 0;
	if (!held(q)) {
		if (!q->sub[k]) {
			struct evq_node *nd = node_get(q, e);
			nd->next = NULL;
			q->sub[k] = nd;
			q->sub_mask |= 1ull << k;
			return;
		}
	} else if (q->hot.n && k <= q->cur_sub) {
		evheap_insert(&q->hot, e);
		return;
	}
	sub_insert(q, k, node_get(q, e));
}

/* Files e by its bucket. */
static inline void file_event(struct evq *q, const struct event *e)
{
	uint64_t a = (uint64_t)e->t >> q->shift;
	if (a <= q->cur_a)
		now_insert(q, e, a);
	else if (a - q->cur_a < q->nb)
		bucket_add(q, a, e);
	else
		far_add(q, e);
}

void evq_insert_slow(struct evq *q, const struct event *e)
{
	file_event(q, e);
}

size_t evq_size(const struct evq *q)
{
	size_t n = q->hot.n + q->wheel_n + q->far.n;
	for (uint64_t m = q->sub_mask | q->sub_held; m; m &= m - 1)
		for (const struct evq_node *nd = q->sub[__builtin_ctzll(m)]; nd; nd = nd->next)
			n++;
	return n;
}

/* Puts e at all[k] when it fits in the n counted, and counts it either
 * way (rebuild then sees a wrong count). */
static inline size_t gather(struct event *all, size_t k, size_t n, const struct event *e)
{
	if (k < n)
		all[k] = *e;
	return k + 1;
}

/* Takes the events out of a node list into all + k, freeing the nodes. */
static size_t drain_list(struct evq *q, struct evq_node *nd, struct event *all, size_t k, size_t n)
{
	while (nd) {
		struct evq_node *next = nd->next;
		k = gather(all, k, n, &nd->e);
		evq_release(q, nd);
		nd = next;
	}
	return k;
}

/* Re-files every event for a new width and wheel size (order is untouched:
 * it is decided by (t, key) alone). */
static void rebuild(struct evq *q, int shift, uint32_t nb)
{
	size_t n = evq_size(q), k = 0;
	struct event *all = xmalloc((n ? n : 1) * sizeof *all);
	for (size_t i = 0; i < q->hot.n; i++)
		k = gather(all, k, n, &q->hot.v[i]);
	for (size_t i = 0; i < q->far.n; i++)
		k = gather(all, k, n, &q->far.v[i]);
	for (uint32_t i = 0; i < q->nb; i++)
		k = drain_list(q, q->wheel[i], all, k, n);
	for (int i = 0; i < EVQ_SUBS; i++) {
		k = drain_list(q, q->sub[i], all, k, n);
		q->sub[i] = NULL;
	}
	q->sub_mask = q->sub_held = q->burst = 0;
	q->cur_sub = -1;
	if (k != n)
		die_internal("event queue lost count: %zu held, %zu counted", k, n);
	simtime_t tmin = n ? all[0].t : 0;
	for (size_t i = 1; i < n; i++)
		if (all[i].t < tmin)
			tmin = all[i].t;
	q->hot.n = q->far.n = 0;
	q->far_a = UINT64_MAX;
	q->pf = &evq_pf_end; /* its nodes were freed */
	if (nb != q->nb) {
		free(q->wheel);
		free(q->bits);
		wheel_alloc(q, nb);
	} else {
		memset(q->wheel, 0, q->nb * sizeof *q->wheel);
		memset(q->bits, 0, q->nb / 64 * sizeof *q->bits);
	}
	q->wheel_n = 0;
	q->shift = shift;
	q->sub_shift = shift > 6 ? shift - 6 : 0;
	q->cur_a = (uint64_t)tmin >> shift;
	q->win_lo = q->cur_a + 1;
	for (size_t i = 0; i < n; i++)
		file_event(q, &all[i]);
	free(all);
}

/* Every EVQ_TUNE_EVERY entered buckets: narrow the buckets when they hold
 * many events (sorting grows quadratically), widen them when they hold few
 * (each bucket entered costs more than spreading an event); grow the wheel
 * while it holds fewer buckets than half the events, or when many inserts
 * fall beyond it. An overloaded bucket (a dense phase after a sparse one
 * widened the buckets) tunes at once and narrows by as many halvings as
 * bring it near EVQ_LOAD_HIGH, up to one sub-bucket's width: a burst of
 * equal times, which no narrowing splits, is not counted (its events fill
 * few sub-buckets) and goes to the hot heap as usual. */
static void tune(struct evq *q)
{
	uint64_t load = q->moved / (q->moves ? q->moves : 1);
	size_t n = evq_size(q);
	int shift = q->shift;
	if (q->overload) {
		int steps = 63 - __builtin_clzll(q->overload / EVQ_LOAD_HIGH);
		steps = steps > 6 ? 6 : steps;
		shift = shift > steps ? shift - steps : 0;
		q->overload = 0;
	} else if (load > EVQ_LOAD_HIGH && shift > 0) {
		shift--;
	} else if (load < EVQ_LOAD_LOW && shift < 40) {
		shift++;
	}
	uint32_t nb = q->nb;
	while (nb < EVQ_NB_MAX && n > 2 * (size_t)nb)
		nb *= 2;
	if (nb < EVQ_NB_MAX && q->far_in * EVQ_FAR_SHARE > q->moved)
		nb *= 2;
	q->moves = q->moved = q->far_in = 0;
	q->next_tune = EVQ_TUNE_EVERY;
	if (shift != q->shift || nb != q->nb)
		rebuild(q, shift, nb);
}

/* The next non-empty wheel bucket after cur_a, as an absolute bucket
 * number, its bit cleared; the wheel must not be empty. */
static inline uint64_t next_bucket(struct evq *q)
{
	uint32_t mask = q->nb - 1, words = q->nb / 64;
	uint32_t start = (uint32_t)(q->cur_a + 1) & mask;
	uint32_t w = start >> 6;
	uint64_t bits = q->bits[w] & (~0ull << (start & 63));
	for (uint32_t k = 0; !bits; k++) {
		w = (w + 1) & (words - 1);
		bits = q->bits[w];
		if (k > words)
			die_internal("event queue: wheel count %zu but no bucket set", q->wheel_n);
	}
	q->bits[w] &= ~(bits & -bits); /* clear the bit found */
	uint32_t i = (w << 6) | (uint32_t)__builtin_ctzll(bits);
	return q->cur_a + 1 + ((i - start) & mask);
}

/* 1 << k for k < 64. */
static const uint64_t evq_bit[EVQ_SUBS] = {
#define EVQ_BIT4(k) 1ull << (k), 1ull << ((k) + 1), 1ull << ((k) + 2), 1ull << ((k) + 3)
	EVQ_BIT4(0), EVQ_BIT4(4), EVQ_BIT4(8), EVQ_BIT4(12), EVQ_BIT4(16), EVQ_BIT4(20),
	EVQ_BIT4(24), EVQ_BIT4(28), EVQ_BIT4(32), EVQ_BIT4(36), EVQ_BIT4(40), EVQ_BIT4(44),
	EVQ_BIT4(48), EVQ_BIT4(52), EVQ_BIT4(56), EVQ_BIT4(60),
#undef EVQ_BIT4
};

/* Sorts sub-bucket k's list by (t, key) (it got more than one event in a
 * spread); a list too long to sort by insertion is left as a burst. */
static void sort_sub(struct evq *q, int k)
{
	struct evq_node *v[EVQ_NOW_MAX];
	uint32_t m = 0;
	for (struct evq_node *nd = q->sub[k]; nd; nd = nd->next) {
		if (m == EVQ_NOW_MAX) {
			make_burst(q, k);
			return;
		}
		v[m++] = nd;
	}
	if (m == 2) { /* the usual tie: no loop */
		struct evq_node *x = v[0], *y = v[1];
		uintptr_t flip = ((uintptr_t)x ^ (uintptr_t)y) & -(uintptr_t)(node_rank(y) < node_rank(x));
		v[0] = (struct evq_node *)((uintptr_t)x ^ flip); /* y first if it ranks first */
		v[1] = (struct evq_node *)((uintptr_t)y ^ flip);
	} else {
		for (uint32_t j = 1; j < m; j++) {
			struct evq_node *x = v[j];
			unsigned __int128 r = node_rank(x);
			uint32_t i = j;
			while (i > 0 && r < node_rank(v[i - 1])) {
				v[i] = v[i - 1];
				i--;
			}
			v[i] = x;
		}
	}
	for (uint32_t j = 0; j + 1 < m; j++)
		v[j]->next = v[j + 1];
	v[m - 1]->next = NULL;
	q->sub[k] = v[0];
}

/* Makes the next bucket current, its events spread over the sub-buckets;
 * the current one is used up and the queue is not empty. */
static void advance(struct evq *q)
{
	if (__builtin_expect(q->next_tune == 0, 0)) {
		tune(q);
		if (q->sub_mask || held(q))
			return;
	}
	uint64_t a;
	if (__builtin_expect(q->wheel_n != 0, 1)) {
		a = next_bucket(q);
	} else {
		a = q->far_a; /* jump to the far heap's first event */
	}
	/* Far events now inside the window go to their buckets, bucket a
	 * included (far events lie beyond the old window, so none is before a). */
	if (__builtin_expect(q->far_a - a < q->nb, 0)) {
		uint32_t ia = (uint32_t)a & (q->nb - 1);
		while (q->far_a - a < q->nb) {
			struct event e;
			far_pop(q, &e);
			bucket_add(q, (uint64_t)e.t >> q->shift, &e);
		}
		q->bits[ia >> 6] &= ~(1ull << (ia & 63));
	}
	q->cur_a = a;
	q->win_lo = a + 1;
	q->cur_sub = -1;
	uint32_t i = (uint32_t)a & (q->nb - 1);
	struct evq_node *nd = q->wheel[i];
	q->wheel[i] = NULL;
	int ss = q->sub_shift;
	struct evq_node **sub = q->sub;
	uint64_t mask = 0, coll = 0;
	uint32_t m = 0;
	while (nd) {
		struct evq_node *next = nd->next;
		/* Its handler reads its object and, where the argument is a
		 * pointer (a landing's frame, a port's hint of a line it will
		 * read), that too: a bucket is a few events, so these lines
		 * arrive in time and the run loop needs no look ahead. Small
		 * arguments (classes, generations) are not pointers. */
		__builtin_prefetch(nd->e.obj);
		if (nd->e.arg > 65535)
			__builtin_prefetch((const void *)nd->e.arg);
		unsigned k = (unsigned)((uint64_t)nd->e.t >> ss) & (EVQ_SUBS - 1);
		uint64_t bit = evq_bit[k]; /* a table, not 1 << k: the shift count register keeps ss */
		coll |= mask & bit;        /* sub[k] held an event already */
		nd->next = sub[k];
		sub[k] = nd;
		mask |= bit;
		m++;
		nd = next;
	}
	q->sub_mask = mask;
	while (__builtin_expect(coll != 0, 0)) {
		int k = __builtin_ctzll(coll);
		coll &= coll - 1;
		sort_sub(q, k);
	}
	/* The next bucket's list, walked ahead during this one's pops. */
	struct evq_node *pf = q->wheel[(i + 1) & (q->nb - 1)];
	q->pf = pf ? pf : &evq_pf_end;
	__builtin_prefetch(q->pf);
	q->wheel_n -= m;
	q->moved += m;
	q->moves++;
	q->next_tune--;
	if (__builtin_expect(m > EVQ_OVERLOAD, 0) && __builtin_popcountll(mask) >= EVQ_OVERLOAD_SUBS) {
		q->overload = m;
		tune(q); /* re-files this bucket's events too */
	}
}

/* Brings the minimum to the first sub-bucket list of the fast path, the
 * first held list (sorted) or the top of the hot heap; 0 when the queue is
 * empty. */
static __attribute__((noinline)) int ready(struct evq *q)
{
	for (;;) {
		if (q->sub_mask || q->hot.n)
			return 1;
		if (q->sub_held) {
			int k = __builtin_ctzll(q->sub_held);
			if (q->burst & (1ull << k)) {
				burst_to_hot(q, k);
				continue;
			}
			unhold(q);
			return 1;
		}
		if (q->wheel_n || q->far.n)
			advance(q);
		else
			return 0;
	}
}

/* The hot heap's minimum, in a node. */
static struct evq_node *hot_pop(struct evq *q)
{
	struct event e;
	evheap_pop(&q->hot, &e);
	if (!q->hot.n)
		unhold(q);
	return node_get(q, &e);
}

struct evq_node *evq_pop_node_slow(struct evq *q)
{
	if (!ready(q))
		return NULL;
	if (q->hot.n)
		return hot_pop(q);
	if (!q->sub_mask) /* held: the first list is sorted, a burst waits after it */
		return evq_sub_take(q, &q->sub_held);
	return evq_pop_node(q);
}

const struct event *evq_peek(struct evq *q)
{
	if (!ready(q))
		return NULL;
	if (q->hot.n)
		return &q->hot.v[0];
	return &q->sub[__builtin_ctzll(q->sub_mask | q->sub_held)]->e;
}
