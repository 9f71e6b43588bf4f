/*
 * evq_heap.h — a 4-ary min-heap of events by value, ordered by (t, key)
 * (evq.h). The event queue keeps two of them: the events of the current
 * time bucket and the far-future events beyond its wheel (evq.c). Internal
 * to the event queue: not for models, which see evq.h.
 *
 * Why 4-ary: a pop costs log4(n) levels of 4 comparisons among children that
 * share a cache line or two, against log2(n) dependent levels for a binary
 * heap; with 40-byte entries held by value, sifting moves whole entries but
 * never chases pointers. Invariant: v[i] is not after any of v[4i+1..4i+4].
 */
#ifndef ROCESIM_EVQ_HEAP_H
#define ROCESIM_EVQ_HEAP_H

#include <stddef.h>
#include "evq.h"

void evheap_init(struct evheap *h, size_t cap);
void evheap_free(struct evheap *h);
void evheap_insert(struct evheap *h, const struct event *e);
/* Removes the minimum into *out; the heap must not be empty. */
void evheap_pop(struct evheap *h, struct event *out);

#endif
