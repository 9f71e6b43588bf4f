/*
 * coll_direct.c — collectives without dependencies between messages:
 * alltoall `direct` and sendrecv.
 *
 * Alltoall: every rank posts, at the start, its bytes for every other rank
 * (the spec's n x n matrix, or size / n each — nccl-tests' alltoall, where
 * size counts the rank's own share too), each pair's bytes split over the
 * channels and cut into pieces of at most `chunk` bytes. Peers are taken
 * in the order r+1, r+2, ... (mod n), as NCCL's p2p schedule staggers
 * them so that not every rank starts with the same destination. Diagonal
 * entries move nothing.
 *
 * Sendrecv: rank 0 sends size bytes to rank 1 (groups of exactly two),
 * split over the channels and cut into pieces; all posted at once.
 */
#include <stdlib.h>
#include "coll_internal.h"

static const char *a2a_check(int n) { return n >= 2 ? NULL : "a group of at least 2 ranks"; }
static const char *p2p_check(int n) { return n == 2 ? NULL : "exactly 2 ranks (rank 0 sends to rank 1)"; }

static void direct_layout(struct coll *c)
{
	c->pipes = c->channels;
	c->spr = 1;
	c->a = NULL;
}

static void a2a_progress(struct coll *c, int pipe, int r)
{
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	if (pr->sent[0])
		return;
	pr->sent[0] = 1;
	int n = c->n;
	for (int d = 1; d < n; d++) {
		int dst = (r + d) % n;
		uint64_t pair = c->a2a ? c->a2a[(size_t)r * (size_t)n + (size_t)dst] : c->size_b / (uint64_t)n;
		uint64_t share = coll_split(pair, (uint64_t)c->channels, (uint64_t)pipe);
		if (!share)
			continue;
		uint32_t m = coll_pieces(share, c->chunk_b);
		for (uint32_t k = 0; k < m; k++)
			coll_send(c, pipe, r, dst, 0, coll_split(share, m, k));
	}
}

static void p2p_progress(struct coll *c, int pipe, int r)
{
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	if (r != 0 || pr->sent[0])
		return;
	pr->sent[0] = 1;
	uint64_t share = coll_split(c->size_b, (uint64_t)c->channels, (uint64_t)pipe);
	if (!share)
		return;
	uint32_t m = coll_pieces(share, c->chunk_b);
	for (uint32_t k = 0; k < m; k++)
		coll_send(c, pipe, 0, 1, 0, coll_split(share, m, k));
}

static int one_round(const struct coll *c) { (void)c; return 1; }

static const struct coll_algo coll_direct_alltoall = {
	.name = "direct", .op = COLL_ALLTOALL, .check = a2a_check, .layout = direct_layout,
	.progress = a2a_progress, .rounds = one_round,
};
static const struct coll_algo coll_direct_sendrecv_ring = {
	.name = "ring", .op = COLL_SENDRECV, .check = p2p_check, .layout = direct_layout,
	.progress = p2p_progress, .rounds = one_round,
};
static const struct coll_algo coll_direct_sendrecv = {
	.name = "direct", .op = COLL_SENDRECV, .check = p2p_check, .layout = direct_layout,
	.progress = p2p_progress, .rounds = one_round,
};

/* This file's algorithms, in registry order (after the files listed before it in
 * COLL_FAMILIES, models/coll/Makefile.inc): an op's first entry is its default. */
const struct coll_algo *const coll_direct[] = { &coll_direct_alltoall, &coll_direct_sendrecv_ring, &coll_direct_sendrecv, NULL };
