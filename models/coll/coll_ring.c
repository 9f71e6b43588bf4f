/*
 * coll_ring.c — ring collectives (allreduce, reduce_scatter, allgather) and
 * the pipelined chain broadcast, as NCCL runs them (docs/protocol.md
 * "Collectives").
 *
 * Ring: rank r sends to r+1 (mod n) in every channel. A channel's share of
 * the buffer, Bc = split(size, channels, c), is cut into n segments
 * split(Bc, n, j); a step moves one segment per rank, and a segment is cut
 * into m = ceil(ceil(Bc / n) / chunk) pieces of at most `chunk` bytes
 * (split(segment, m, k)). Allreduce is reduce-scatter (steps 0..n-2, rank r
 * sends segment r-s) then all-gather (steps n-1..2n-3, segment r+1-t);
 * reduce_scatter and allgather are n-1 steps of one of those halves
 * (segment r-s-1 and r-s). Per rank: 2(n-1)/n x size for allreduce,
 * (n-1)/n x size for the others (size = count x ranks, nccl-tests).
 *
 * Dependency (pipelining): piece k of step s+1 leaves rank r once piece k
 * of step s from r-1 has arrived at r (r reduces or copies it, then
 * forwards); step 0 is posted at once. Pieces of one (channel, rank) are
 * posted in (step, piece) order, so "piece k of step s arrived" is counted
 * as "m x s + k + 1 pieces arrived": the first m pieces need nothing, each
 * arrival releases one more. Messages between one pair share a QP
 * (qps_per_pair) and arrive in posting order, so the count is exact; NCCL's
 * limit of 8 slots in flight per channel is not modelled (the NIC queue
 * holds what is posted).
 *
 * Broadcast: a chain root, root+1, ... (mod n) per channel; the channel's
 * Bc bytes in m = ceil(Bc / chunk) pieces; the root posts all at once, every
 * other rank but the last forwards piece k when it arrived. n-1 hops.
 */
#include <stdlib.h>
#include "coll_internal.h"
#include "xalloc.h"

struct ring_a { uint32_t steps; struct coll_share p[]; };

static const char *ring_check(int n) { return n >= 2 ? NULL : "a group of at least 2 ranks"; }

/* A ring of `steps` steps per pipe, its pieces cut from a segment of
 * ceil(Bc / n) bytes or, for the chain, from the whole channel share Bc. */
static void ring_layout(struct coll *c, uint32_t steps, bool whole)
{
	struct ring_a *a = xcalloc(1, sizeof *a + (size_t)c->channels * sizeof a->p[0]);
	a->steps = steps;
	c->pipes = c->channels;
	c->spr = 1;
	for (int p = 0; p < c->pipes; p++)
		a->p[p] = coll_share_of(c, p, whole);
	c->a = a;
}

static void ring_layout_ar(struct coll *c) { ring_layout(c, 2u * (uint32_t)(c->n - 1), false); }
static void ring_layout_half(struct coll *c) { ring_layout(c, (uint32_t)(c->n - 1), false); }

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* Segment rank r sends at step s. */
static int ring_segment(const struct coll *c, int r, int s)
{
	int n = c->n;
	switch (c->op) {
	case COLL_ALLREDUCE:
		return s < n - 1 ? mod(r - s, n) : mod(r + 1 - (s - (n - 1)), n);
	case COLL_REDUCE_SCATTER:
		return mod(r - s - 1, n);
	default: /* allgather */
		return mod(r - s, n);
	}
}

void coll_ring_post(struct coll *c, int pipe, int r, const struct coll_share *p, uint32_t steps)
{
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	uint64_t total = (uint64_t)steps * p->m;
	uint64_t enabled = (uint64_t)p->m + coll_count(c, pipe, r, 0);
	if (enabled > total)
		enabled = total;
	while (pr->sent[0] < enabled) {
		uint32_t j = pr->sent[0]++;
		int s = (int)(j / p->m);
		uint32_t k = j % p->m;
		uint64_t seg = coll_split(p->bc, (uint64_t)c->n, (uint64_t)ring_segment(c, r, s));
		coll_send(c, pipe, r, (r + 1) % c->n, 0, coll_split(seg, p->m, k));
	}
}

static void ring_progress(struct coll *c, int pipe, int r)
{
	const struct ring_a *a = c->a;
	coll_ring_post(c, pipe, r, &a->p[pipe], a->steps);
}

static int ring_rounds(const struct coll *c) { return (int)((const struct ring_a *)c->a)->steps; }

static const struct coll_algo coll_ring_allreduce = {
	.name = "ring", .op = COLL_ALLREDUCE, .check = ring_check, .layout = ring_layout_ar,
	.progress = ring_progress, .rounds = ring_rounds,
};
static const struct coll_algo coll_ring_reduce_scatter = {
	.name = "ring", .op = COLL_REDUCE_SCATTER, .check = ring_check, .layout = ring_layout_half,
	.progress = ring_progress, .rounds = ring_rounds,
};
static const struct coll_algo coll_ring_allgather = {
	.name = "ring", .op = COLL_ALLGATHER, .check = ring_check, .layout = ring_layout_half,
	.progress = ring_progress, .rounds = ring_rounds,
};

/* ---- broadcast: the pipelined chain ---- */

static void chain_layout(struct coll *c) { ring_layout(c, (uint32_t)(c->n - 1), true); }

static void chain_progress(struct coll *c, int pipe, int r)
{
	const struct ring_a *a = c->a;
	const struct coll_share *p = &a->p[pipe];
	int pos = mod(r - c->root, c->n);
	if (pos == c->n - 1)
		return;
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	uint32_t enabled = pos == 0 ? p->m : coll_count(c, pipe, r, 0);
	while (pr->sent[0] < enabled) {
		uint32_t k = pr->sent[0]++;
		coll_send(c, pipe, r, (r + 1) % c->n, 0, coll_split(p->bc, p->m, k));
	}
}

static const struct coll_algo coll_chain_broadcast = {
	.name = "ring", .op = COLL_BROADCAST, .check = ring_check, .layout = chain_layout,
	.progress = chain_progress, .rounds = ring_rounds,
};

/* This file's algorithms, in registry order (after the files listed before it in
 * COLL_FAMILIES, models/coll/Makefile.inc): an op's first entry is its default. */
const struct coll_algo *const coll_ring[] = { &coll_ring_allreduce, &coll_ring_reduce_scatter, &coll_ring_allgather, &coll_chain_broadcast, NULL };
