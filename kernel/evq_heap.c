/*
 * evq_heap.c — the 4-ary min-heap of events (see evq_heap.h).
 */
#include <stdlib.h>
#include <string.h>
#include "evq_heap.h"
#include "xalloc.h"

void evheap_init(struct evheap *h, size_t cap)
{
	h->n = 0;
	h->cap = cap;
	h->v = xmalloc(cap * sizeof *h->v);
}

void evheap_free(struct evheap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

void evheap_insert(struct evheap *q, const struct event *e)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 64;
		q->v = xrealloc(q->v, q->cap * sizeof *q->v);
	}
	size_t i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) >> 2;
		if (!evq_before(e, &q->v[parent]))
			break;
		q->v[i] = q->v[parent];
		i = parent;
	}
	q->v[i] = *e;
}

void evheap_pop(struct evheap *q, struct event *out)
{
	*out = q->v[0];
	size_t n = --q->n;
	if (n == 0)
		return;
	/* Bottom-up (Floyd): walk the hole down along the smallest children to
	 * a leaf without comparing against the moved element, then sift that
	 * element up from there. The element taken from the end usually belongs
	 * near the bottom, so this saves most comparisons of the classic loop. */
	struct event *v = q->v;
	size_t i = 0;
	for (;;) {
		size_t c = 4 * i + 1;
		if (c >= n)
			break;
		size_t best;
		if (c + 4 <= n) {
			/* All four children: a tournament of index arithmetic the
			 * compiler turns into flag-to-register moves, no branches. */
			size_t a = c + (evq_rank(&v[c + 1]) < evq_rank(&v[c]));
			size_t b = c + 2 + (evq_rank(&v[c + 3]) < evq_rank(&v[c + 2]));
			best = evq_rank(&v[b]) < evq_rank(&v[a]) ? b : a;
		} else {
			best = c;
			for (size_t j = c + 1; j < n; j++)
				if (evq_rank(&v[j]) < evq_rank(&v[best]))
					best = j;
		}
		v[i] = v[best];
		i = best;
	}
	struct event last = v[n];
	unsigned __int128 rl = evq_rank(&last);
	while (i > 0) {
		size_t parent = (i - 1) >> 2;
		if (evq_rank(&v[parent]) <= rl)
			break;
		v[i] = v[parent];
		i = parent;
	}
	v[i] = last;
}
