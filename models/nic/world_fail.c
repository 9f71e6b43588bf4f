/*
 * world_fail.c — which flows each failure touched (the `failure_flow`
 * table, failure.h): the fabric tells of every frame a failure loses
 * (fail_lost_fn); a data frame is counted against its flow's id, which
 * the fabric does not know. Counts sit in a small open-addressing table
 * keyed by (failure, flow): lost frames are rare, so it stays small, and
 * nothing here runs unless the scenario has failures.
 */
#include <stdlib.h>
#include "fabric.h"
#include "flow.h"
#include "results.h"
#include "world.h"
#include "xalloc.h"

struct world_fail_slot {
	uint64_t key;              /* (failure_id + 1) << 40 | flow id; 0: empty */
	uint64_t frames;           /* data frames lost */
};

struct world_fail {
	struct world_fail_slot *slot;
	uint32_t cap, n;           /* cap a power of two, n <= cap / 2 */
};

static uint32_t wf_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

static struct world_fail_slot *wf_find(struct world_fail *wf, uint64_t key)
{
	uint32_t i = wf_hash(key) & (wf->cap - 1);
	while (wf->slot[i].key && wf->slot[i].key != key)
		i = (i + 1) & (wf->cap - 1);
	return &wf->slot[i];
}

static void wf_grow(struct world_fail *wf)
{
	struct world_fail old = *wf;
	wf->cap = old.cap ? 2 * old.cap : 64;
	wf->slot = xcalloc(wf->cap, sizeof *wf->slot);
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.slot[i].key)
			*wf_find(wf, old.slot[i].key) = old.slot[i];
	free(old.slot);
}

static void on_lost(void *ctx, int failure_id, const struct packet *pkt)
{
	struct world *w = ctx;
	struct world_fail *wf = w->fail_flows;
	if (pkt->type != PKT_DATA || !pkt->flow)
		return;
	if (2 * (wf->n + 1) > wf->cap)
		wf_grow(wf);
	uint64_t key = (uint64_t)(failure_id + 1) << 40 | pkt->flow->id;
	struct world_fail_slot *s = wf_find(wf, key);
	if (!s->key) {
		s->key = key;
		wf->n++;
	}
	s->frames++;
}

void world_fail_attach(struct world *w)
{
	struct fail_model *fm = w->fab.fail;
	if (!fm)
		return;
	w->fail_flows = xcalloc(1, sizeof *w->fail_flows);
	fm->lost = on_lost;
	fm->lost_ctx = w;
}

static const char cols[] = "failure_id, flow_id, frames_lost";

int world_fail_prepare(struct world *w, struct results *res)
{
	return !w->fail_flows || results_table(res, "failure_flow", cols) ? 0 : -1;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct world_fail_slot *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

void world_fail_write(struct world *w, struct results *res)
{
	struct world_fail *wf = w->fail_flows;
	if (!wf)
		return;
	failure_write(&w->fab, res);
	struct results_table *t = results_table(res, "failure_flow", cols);
	if (!t || !wf->n)
		return;
	/* Rows in (failure, flow) order, whatever the table's layout. */
	struct world_fail_slot *v = xmalloc(wf->n * sizeof *v);
	uint32_t n = 0;
	for (uint32_t i = 0; i < wf->cap; i++)
		if (wf->slot[i].key)
			v[n++] = wf->slot[i];
	qsort(v, n, sizeof *v, slot_cmp);
	for (uint32_t i = 0; i < n; i++)
		results_row(res, t, "iuu", (int)(v[i].key >> 40), v[i].key & ((1ull << 40) - 1), v[i].frames);
	free(v);
}

void world_fail_free(struct world *w)
{
	if (!w->fail_flows)
		return;
	free(w->fail_flows->slot);
	free(w->fail_flows);
	w->fail_flows = NULL;
}
