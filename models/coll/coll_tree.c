/*
 * coll_tree.c — NCCL's double binary tree allreduce (Sanders, Speck,
 * Träff 2009; NCCL src/graph/trees.cc ncclGetBtree / ncclGetDtree).
 *
 * Tree 0 is NCCL's binary tree rooted at rank 0 (the root has one child);
 * tree 1 is its mirror (r -> n-1-r) when n is even and its shift by one
 * rank when n is odd, so most ranks are interior in one tree and a leaf in
 * the other. Each channel's bytes Bc are halved, one half per tree: pipe =
 * channel x 2 + tree. A tree's half is cut into m = ceil(half / chunk)
 * pieces. The tree is built over ranks (NCCL builds it over hosts and
 * chains the GPUs of a host; with one GPU per host that is the same).
 *
 * Dependency, per piece k, as NCCL's Simple protocol pipelines it
 * (reduce up and broadcast down run at once):
 *   up    a rank sends piece k to its parent once piece k arrived from every
 *         child (a leaf sends all at once);
 *   down  the root sends piece k to each child once it has piece k from every
 *         child; any other rank forwards piece k to its children once it
 *         arrived from the parent.
 * Per rank and tree: half up (unless root) + half per child down; over both
 * trees 2(n-1) x size in all, as the ring. Slots: 0 and 1 count pieces from
 * child 0 and 1, slot 2 from the parent.
 */
#include <stdlib.h>
#include "coll_internal.h"
#include "xalloc.h"

struct tree_node { int up, down[2], n_down; };
struct tree_a {
	struct tree_node *t;        /* [2 x n] */
	uint64_t *half;             /* [pipes] bytes of the pipe */
	uint32_t *m;                /* [pipes] pieces */
	int depth;                  /* deepest leaf over both trees, in edges */
};

/* NCCL's ncclGetBtree (trees.cc): root 0, children from the lowest set bit. */
static void btree(int n, int rank, int *u, int *d0, int *d1)
{
	int bit;
	for (bit = 1; bit < n; bit <<= 1)
		if (bit & rank)
			break;
	if (rank == 0) {
		*u = -1;
		*d0 = -1;
		*d1 = n > 1 ? bit >> 1 : -1;
		return;
	}
	int up = (rank ^ bit) | (bit << 1);
	if (up >= n)
		up = rank ^ bit;
	*u = up;
	int lowbit = bit >> 1;
	*d0 = lowbit == 0 ? -1 : rank - lowbit;
	int down1 = lowbit == 0 ? -1 : rank + lowbit;
	while (down1 >= n) {
		down1 = lowbit == 0 ? -1 : rank + lowbit;
		lowbit >>= 1;
	}
	*d1 = down1;
}

static void tree_node_set(struct tree_node *x, int u, int d0, int d1)
{
	x->up = u;
	x->n_down = 0;
	if (d0 >= 0)
		x->down[x->n_down++] = d0;
	if (d1 >= 0)
		x->down[x->n_down++] = d1;
}

/* ncclGetDtree: tree 1 mirrors tree 0 for even n and shifts it for odd n. */
static void dtree(int n, int rank, struct tree_node *t0, struct tree_node *t1)
{
	int u, d0, d1;
	btree(n, rank, &u, &d0, &d1);
	tree_node_set(t0, u, d0, d1);
	if (n % 2 == 1) {
		btree(n, (rank - 1 + n) % n, &u, &d0, &d1);
		tree_node_set(t1, u < 0 ? -1 : (u + 1) % n, d0 < 0 ? -1 : (d0 + 1) % n,
			      d1 < 0 ? -1 : (d1 + 1) % n);
	} else {
		btree(n, n - 1 - rank, &u, &d0, &d1);
		tree_node_set(t1, u < 0 ? -1 : n - 1 - u, d0 < 0 ? -1 : n - 1 - d0, d1 < 0 ? -1 : n - 1 - d1);
	}
}

static const char *tree_check(int n) { return n >= 2 ? NULL : "a group of at least 2 ranks"; }

static void tree_layout(struct coll *c)
{
	int n = c->n;
	c->pipes = 2 * c->channels;
	c->spr = 3;
	struct tree_a *a = xcalloc(1, sizeof *a);
	a->t = xcalloc((size_t)(2 * n), sizeof *a->t);
	a->half = xcalloc((size_t)c->pipes, sizeof *a->half);
	a->m = xcalloc((size_t)c->pipes, sizeof *a->m);
	for (int r = 0; r < n; r++)
		dtree(n, r, &a->t[r], &a->t[n + r]);
	for (int p = 0; p < c->pipes; p++) {
		uint64_t bc = coll_split(c->size_b, (uint64_t)c->channels, (uint64_t)(p / 2));
		a->half[p] = coll_split(bc, 2, (uint64_t)(p % 2));
		a->m[p] = coll_pieces(a->half[p], c->chunk_b);
	}
	for (int t = 0; t < 2; t++)
		for (int r = 0; r < n; r++) {
			int d = 0;
			for (int x = r; a->t[t * n + x].up >= 0 && d <= n; x = a->t[t * n + x].up)
				d++;
			if (d > a->depth)
				a->depth = d;
		}
	c->a = a;
}

static uint32_t min_children(struct coll *c, int pipe, int r, const struct tree_node *x)
{
	uint32_t v = UINT32_MAX;
	for (int i = 0; i < x->n_down; i++) {
		uint32_t k = coll_count(c, pipe, r, i);
		if (k < v)
			v = k;
	}
	return v;
}

static void tree_progress(struct coll *c, int pipe, int r)
{
	const struct tree_a *a = c->a;
	const struct tree_node *t = &a->t[(pipe % 2) * c->n];
	const struct tree_node *x = &t[r];
	uint32_t m = a->m[pipe];
	uint64_t half = a->half[pipe];
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	uint32_t from_children = x->n_down ? min_children(c, pipe, r, x) : m;
	if (x->up >= 0) {
		const struct tree_node *p = &t[x->up];
		int slot = p->down[0] == r ? 0 : 1;
		while (pr->sent[0] < from_children) {
			uint32_t k = pr->sent[0]++;
			coll_send(c, pipe, r, x->up, slot, coll_split(half, m, k));
		}
	}
	if (x->n_down) {
		uint32_t have = x->up < 0 ? from_children : coll_count(c, pipe, r, 2);
		uint32_t enabled = have * (uint32_t)x->n_down;
		while (pr->sent[1] < enabled) {
			uint32_t j = pr->sent[1]++;
			uint32_t k = j / (uint32_t)x->n_down;
			coll_send(c, pipe, r, x->down[j % (uint32_t)x->n_down], 2, coll_split(half, m, k));
		}
	}
}

static int tree_rounds(const struct coll *c) { return 2 * ((const struct tree_a *)c->a)->depth; }

static void tree_free(void *p)
{
	struct tree_a *a = p;
	free(a->t);
	free(a->half);
	free(a->m);
}

static const struct coll_algo coll_tree_allreduce = {
	.name = "tree", .op = COLL_ALLREDUCE, .check = tree_check, .layout = tree_layout,
	.progress = tree_progress, .rounds = tree_rounds, .free_a = tree_free,
};

/* This file's algorithms, in registry order (after the files listed before it in
 * COLL_FAMILIES, models/coll/Makefile.inc): an op's first entry is its default. */
const struct coll_algo *const coll_tree[] = { &coll_tree_allreduce, NULL };
