/*
 * evq.c — the event queue: a timing wheel in front of two heaps (evq.h).
 */
#include <stdlib.h>
#include <string.h>
#include "evq.h"
#include "evq_heap.h"
#include "log.h"

#define EVQ_NB0 4096u            /* initial wheel buckets */
#define EVQ_NB_MAX (1u << 20)
#define EVQ_SHIFT0 10            /* initial bucket width 1024 ps */
#define EVQ_TUNE_EVERY 16384     /* buckets moved between width checks */
#define EVQ_LOAD_HIGH 16         /* events per moved bucket above which buckets narrow */
#define EVQ_LOAD_LOW 4           /* ... below which they widen, if far holds many */
#define EVQ_NOW_MAX 64           /* a larger current bucket is run from the hot heap */

static void wheel_alloc(struct evq *q, uint32_t nb)
{
	q->nb = nb;
	q->wheel = calloc(nb, sizeof *q->wheel);
	q->bits = calloc(nb / 64, sizeof *q->bits);
	if (!q->wheel || !q->bits)
		die_internal("out of memory for the event queue (%u buckets)", nb);
}

void evq_init(struct evq *q)
{
	memset(q, 0, sizeof *q);
	evheap_init(&q->hot, 256);
	evheap_init(&q->far, 256);
	wheel_alloc(q, EVQ_NB0);
	q->shift = EVQ_SHIFT0;
	q->next_tune = EVQ_TUNE_EVERY / 16; /* first look early: the width starts as a guess */
}

static void wheel_free(struct evq *q)
{
	for (uint32_t i = 0; i < q->nb; i++)
		free(q->wheel[i].v);
	free(q->wheel);
	free(q->bits);
	q->wheel = NULL;
	q->bits = NULL;
}

void evq_free(struct evq *q)
{
	free(q->now.v);
	q->now.v = NULL;
	q->now.n = q->head = 0;
	evheap_free(&q->hot);
	evheap_free(&q->far);
	wheel_free(q);
	q->n = q->wheel_n = 0;
}

static __attribute__((noinline)) void bucket_grow(struct evq_bucket *b, size_t held)
{
	uint32_t cap = b->cap ? b->cap * 2 : 4;
	struct event *v = realloc(b->v, cap * sizeof *v);
	if (!v)
		die_internal("out of memory for the event queue (%zu events)", held);
	b->v = v;
	b->cap = cap;
}

static inline void bucket_add(struct evq *q, uint64_t a, const struct event *e)
{
	uint32_t i = (uint32_t)a & (q->nb - 1);
	struct evq_bucket *b = &q->wheel[i];
	if (b->n == b->cap)
		bucket_grow(b, q->n);
	b->v[b->n++] = *e;
	q->bits[i >> 6] |= 1ull << (i & 63);
	q->wheel_n++;
}

/* Moves what is left of the current bucket into the hot heap. */
static void now_to_hot(struct evq *q)
{
	for (uint32_t k = q->head; k < q->now.n; k++)
		evheap_insert(&q->hot, &q->now.v[k]);
	q->now.n = q->head = 0;
}

/* An event of the current bucket: sorted into `now` from its end (new
 * events are usually the latest), or into the hot heap when that is in use
 * or `now` grew large. */
static void now_insert(struct evq *q, const struct event *e)
{
	if (q->hot.n || q->now.n - q->head >= EVQ_NOW_MAX) {
		now_to_hot(q);
		evheap_insert(&q->hot, e);
		return;
	}
	struct evq_bucket *b = &q->now;
	if (b->n == b->cap) {
		if (q->head) {
			memmove(b->v, b->v + q->head, (b->n - q->head) * sizeof *b->v);
			b->n -= q->head;
			q->head = 0;
		} else {
			bucket_grow(b, q->n);
		}
	}
	uint32_t j = b->n++;
	unsigned __int128 r = evq_rank(e);
	while (j > q->head && r < evq_rank(&b->v[j - 1])) {
		b->v[j] = b->v[j - 1];
		j--;
	}
	b->v[j] = *e;
}

/* Files e by its bucket (q->n is not touched). */
static inline void file_event(struct evq *q, const struct event *e)
{
	uint64_t a = (uint64_t)e->t >> q->shift;
	if (a <= q->cur)
		now_insert(q, e);
	else if (a - q->cur < q->nb)
		bucket_add(q, a, e);
	else
		evheap_insert(&q->far, e);
}

void evq_insert_slow(struct evq *q, const struct event *e)
{
	q->n++;
	file_event(q, e);
}

/* Appends n events from v (NULL when n is 0: a bucket never used) at all + k. */
static size_t gather(struct event *all, size_t k, const struct event *v, size_t n)
{
	if (n)
		memcpy(all + k, v, n * sizeof *all);
	return k + n;
}

/* Re-files every event for a new width and wheel size (order is untouched:
 * it is decided by (t, key) alone). */
static void rebuild(struct evq *q, int shift, uint32_t nb)
{
	size_t n = q->n, k = 0;
	struct event *all = malloc((n ? n : 1) * sizeof *all);
	if (!all)
		die_internal("out of memory for the event queue (%zu events)", n);
	k = gather(all, k, q->hot.v, q->hot.n);
	k = gather(all, k, q->now.v ? q->now.v + q->head : NULL, q->now.n - q->head);
	k = gather(all, k, q->far.v, q->far.n);
	for (uint32_t i = 0; i < q->nb; i++)
		k = gather(all, k, q->wheel[i].v, q->wheel[i].n);
	if (k != n)
		die_internal("event queue lost count: %zu held, %zu counted", k, n);
	simtime_t tmin = n ? all[0].t : 0;
	for (size_t i = 1; i < n; i++)
		if (all[i].t < tmin)
			tmin = all[i].t;
	q->hot.n = q->far.n = 0;
	q->now.n = q->head = 0;
	if (nb != q->nb) {
		wheel_free(q);
		wheel_alloc(q, nb);
	} else {
		for (uint32_t i = 0; i < q->nb; i++)
			q->wheel[i].n = 0;
		memset(q->bits, 0, q->nb / 64 * sizeof *q->bits);
	}
	q->wheel_n = 0;
	q->shift = shift;
	q->cur = (uint64_t)tmin >> shift;
	for (size_t i = 0; i < n; i++)
		file_event(q, &all[i]);
	free(all);
}

/* Every EVQ_TUNE_EVERY moved buckets: narrow the buckets when they hold
 * many events (the hot heap grows), widen them when they hold few while
 * many events wait beyond the wheel (the far heap does the work). */
static void tune(struct evq *q)
{
	uint64_t load = q->moved / (q->moves ? q->moves : 1);
	int shift = q->shift;
	if (load > EVQ_LOAD_HIGH && shift > 0)
		shift--;
	else if (load < EVQ_LOAD_LOW && q->far.n * 4 > q->n && shift < 40)
		shift++;
	uint32_t nb = q->nb;
	while (nb < EVQ_NB_MAX && q->n > 2 * (size_t)nb)
		nb *= 2;
	q->moves = q->moved = 0;
	q->next_tune = EVQ_TUNE_EVERY;
	if (shift != q->shift || nb != q->nb)
		rebuild(q, shift, nb);
}

/* The next non-empty wheel bucket after cur, as an absolute bucket number;
 * the wheel must not be empty. */
static uint64_t next_bucket(const struct evq *q)
{
	uint32_t mask = q->nb - 1, words = q->nb / 64;
	uint32_t start = (uint32_t)(q->cur + 1) & mask;
	uint32_t w = start >> 6;
	uint64_t bits = q->bits[w] & (~0ull << (start & 63));
	for (uint32_t k = 0; !bits; k++) {
		w = (w + 1) & (words - 1);
		bits = q->bits[w];
		if (k > words)
			die_internal("event queue: wheel count %zu but no bucket set", q->wheel_n);
	}
	uint32_t i = (w << 6) | (uint32_t)__builtin_ctzll(bits);
	return q->cur + 1 + ((i - start) & mask);
}

void evq_advance(struct evq *q)
{
	if (q->next_tune == 0)
		tune(q);
	if (q->head < q->now.n || q->hot.n || !q->n)
		return;
	uint64_t a;
	if (q->wheel_n)
		a = next_bucket(q);
	else
		a = (uint64_t)q->far.v[0].t >> q->shift; /* jump to the far heap's first event */
	q->cur = a;
	q->now.n = q->head = 0;
	/* Far events now inside the window: to their bucket, or to `now` if in
	 * a. None is before bucket a: far events were beyond the old window. */
	while (q->far.n && ((uint64_t)q->far.v[0].t >> q->shift) - a < q->nb) {
		struct event e;
		evheap_pop(&q->far, &e);
		file_event(q, &e);
	}
	uint32_t i = (uint32_t)a & (q->nb - 1);
	uint64_t bit = 1ull << (i & 63);
	if (q->bits[i >> 6] & bit) {
		struct evq_bucket *b = &q->wheel[i];
		uint32_t m = b->n;
		q->wheel_n -= m;
		q->moved += m;
		q->bits[i >> 6] &= ~bit;
		if (q->now.n == 0 && m <= EVQ_NOW_MAX) {
			/* The usual case: swap the bucket's array in and sort it. */
			struct evq_bucket t = q->now;
			q->now = *b;
			*b = t;
			b->n = 0;
			struct event *v = q->now.v;
			for (uint32_t k = 1; k < m; k++) {
				struct event e = v[k];
				unsigned __int128 r = evq_rank(&e);
				uint32_t j = k;
				while (j > 0 && r < evq_rank(&v[j - 1])) {
					v[j] = v[j - 1];
					j--;
				}
				v[j] = e;
			}
		} else {
			for (uint32_t k = 0; k < m; k++)
				now_insert(q, &b->v[k]);
			b->n = 0;
		}
	}
	q->moves++;
	q->next_tune--;
}

int evq_pop_slow(struct evq *q, struct event *out)
{
	if (q->head == q->now.n && !q->hot.n) {
		if (!q->n)
			return 0;
		evq_advance(q);
	}
	if (q->head < q->now.n)
		*out = q->now.v[q->head++];
	else
		evheap_pop(&q->hot, out);
	q->n--;
	return 1;
}
