/*
 * coll_hd.c — halving-doubling allreduce (Rabenseifner: recursive-halving
 * reduce-scatter, then recursive-doubling all-gather; Thakur et al., "Optimization
 * of Collective Communication Operations in MPICH", 2005), 2 log2 n rounds.
 *
 * Groups must be a power of two (coll_check refuses others; the pre/post step
 * that folds the extra ranks in is not modelled). Per channel, with k = log2 n
 * and the channel's range [0, Bc): reduce-scatter step i (mask = n >> (i+1))
 * pairs r with r ^ mask; each halves its current range, keeps the half its
 * bit selects (lower when r & mask is 0) and sends the other half. After k
 * steps a rank holds about Bc / n; all-gather step i (mask = 1 << i) sends
 * the range held to r ^ mask and keeps the union, undoing reduce-scatter
 * step k-1-i. Per rank 2(n-1)/n x Bc, as the ring.
 *
 * Dependency: a rank opens step s+1 (posts all its pieces) once every piece
 * of step s from its partner has arrived — a per-rank round barrier, as
 * MPI implementations run it (a step's data is the reduction of what the
 * previous step received). A step's bytes go in pieces of at most `chunk`:
 * m_s = ceil(ceil(Bc / 2^(i+1)) / chunk) for reduce-scatter step i and
 * ceil(ceil(Bc / 2^(k-i)) / chunk) for all-gather step i, the same for both
 * partners (their halves differ by at most a byte). Each step has its own
 * receive slot, so a partner running ahead is counted where it belongs.
 */
#include <stdlib.h>
#include "coll_internal.h"
#include "xalloc.h"

struct hd_pipe { uint64_t bc; };
struct hd_a {
	int k;                      /* log2 n */
	struct hd_pipe *p;          /* [pipes] */
	uint32_t *m;                /* [pipes x 2k] pieces per step */
};

static int log2_exact(int n)
{
	int k = 0;
	while ((1 << k) < n)
		k++;
	return (1 << k) == n ? k : -1;
}

static const char *hd_check(int n)
{
	if (n < 2)
		return "a group of at least 2 ranks";
	return log2_exact(n) < 0 ? "a group whose size is a power of two (halving_doubling)" : NULL;
}

static void hd_layout(struct coll *c)
{
	int k = log2_exact(c->n);
	c->pipes = c->channels;
	c->spr = 2 * k;
	struct hd_a *a = xcalloc(1, sizeof *a + (size_t)c->pipes * sizeof *a->p +
				 (size_t)c->pipes * (size_t)(2 * k) * sizeof *a->m);
	a->k = k;
	a->p = (struct hd_pipe *)(a + 1);
	a->m = (uint32_t *)(a->p + c->pipes);
	for (int p = 0; p < c->pipes; p++) {
		uint64_t bc = coll_split(c->size_b, (uint64_t)c->channels, (uint64_t)p);
		a->p[p].bc = bc;
		for (int i = 0; i < k; i++) {
			a->m[p * 2 * k + i] = coll_pieces(coll_ceil_div(bc, 1ull << (i + 1)), c->chunk_b);
			a->m[p * 2 * k + k + i] = coll_pieces(coll_ceil_div(bc, 1ull << (k - i)), c->chunk_b);
		}
	}
	c->a = a;
}

/* Partner and bytes rank r sends at step s of a channel of bc bytes. */
static uint64_t hd_step(int n, int k, uint64_t bc, int r, int s, int *partner)
{
	uint64_t lo = 0, hi = bc, sent = 0, held[32];
	int stop = s < k ? s : k - 1;
	for (int i = 0; i <= stop; i++) {
		int mask = n >> (i + 1);
		uint64_t mid = lo + (hi - lo) / 2;
		if (r & mask) {
			sent = mid - lo;
			lo = mid;
		} else {
			sent = hi - mid;
			hi = mid;
		}
		held[i] = hi - lo;
	}
	if (s < k) {
		*partner = r ^ (n >> (s + 1));
		return sent;
	}
	int i = s - k;
	*partner = r ^ (1 << i);
	return held[k - 1 - i];
}

static void hd_progress(struct coll *c, int pipe, int r)
{
	const struct hd_a *a = c->a;
	int k = a->k, steps = 2 * k;
	const uint32_t *m = &a->m[pipe * steps];
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	while ((int)pr->aux < steps && (pr->aux == 0 || coll_count(c, pipe, r, (int)pr->aux - 1) == m[pr->aux - 1])) {
		int s = (int)pr->aux++, partner;
		uint64_t bytes = hd_step(c->n, k, a->p[pipe].bc, r, s, &partner);
		for (uint32_t j = 0; j < m[s]; j++)
			coll_send(c, pipe, r, partner, s, coll_split(bytes, m[s], j));
	}
}

static int hd_rounds(const struct coll *c) { return 2 * ((const struct hd_a *)c->a)->k; }

static const struct coll_algo coll_hd_allreduce = {
	.name = "halving_doubling", .op = COLL_ALLREDUCE, .check = hd_check, .layout = hd_layout,
	.progress = hd_progress, .rounds = hd_rounds,
};

/* This file's algorithms, in registry order (after the files listed before it in
 * COLL_FAMILIES, models/coll/Makefile.inc): an op's first entry is its default. */
const struct coll_algo *const coll_hd[] = { &coll_hd_allreduce, NULL };
