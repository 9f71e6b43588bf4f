/*
 * pkt_tel.c — the fabric's pool of frame side records (see pkt_tel.h): one
 * array grown by doubling, with a free list threaded through the free
 * records' aux.
 */
#include <stdlib.h>
#include <string.h>
#include "pkt_tel.h"
#include "xalloc.h"

uint32_t pkt_tel_new(struct pkt_tel_pool *tp)
{
	if (!tp->free_head) {
		uint32_t old = tp->cap, cap = old ? 2 * old : 256;
		tp->rec = xrealloc(tp->rec, cap * sizeof *tp->rec);
		/* Thread the new records, lowest index first. */
		for (uint32_t i = old; i < cap; i++)
			tp->rec[i].aux = i + 1 < cap ? i + 2 : 0;
		tp->free_head = old + 1;
		tp->cap = cap;
	}
	uint32_t idx = tp->free_head - 1;
	struct pkt_tel *r = &tp->rec[idx];
	tp->free_head = r->aux;
	r->sent_at = 0;
	r->aux = 0;
	r->n_hops = 0;
	r->stamp = false;
	r->ce = false;
	tp->live++;
	return idx;
}

void pkt_tel_put(struct pkt_tel_pool *tp, uint32_t idx)
{
	tp->rec[idx].aux = tp->free_head;
	tp->free_head = idx + 1;
	tp->live--;
}

void pkt_tel_pool_free(struct pkt_tel_pool *tp)
{
	free(tp->rec);
	memset(tp, 0, sizeof *tp);
}
