/*
 * coll_mcast.c — collectives by multicast (docs/architecture.md;
 * docs/protocol.md "Multicast": Cepheus, Gleam): broadcast, allgather, and
 * allreduce as ring reduce-scatter then multicast all-gather; and the
 * delivery of a multicast piece (coll_internal.h, coll_mcast_piece).
 *
 * Algorithms (the buffer split over `channels`, Bc = split(size, channels,
 * c), and cut into pieces of at most `chunk` bytes, as coll_ring.c):
 *   broadcast  the root multicasts Bc in m = ceil(Bc / chunk) pieces, all
 *              posted at the start. 1 round.
 *   allgather  rank r multicasts its shard, segment r = split(Bc, n, r), in
 *              m = ceil(ceil(Bc / n) / chunk) pieces, all at the start (the
 *              ranks send at once; the fabric shares the receivers' links).
 *              1 round.
 *   allreduce  steps 0..n-2 of the ring all-reduce (reduce-scatter: rank r
 *              sends segment r-s to r+1; pieces as the ring's), after which
 *              rank r holds segment r+1 reduced; piece k of it is multicast
 *              once piece k of the last step arrived. n rounds.
 * Receivers count arrivals only: nothing depends on a multicast piece.
 *
 * Delivery of one piece from rank src to every other rank:
 *   - ranks on src's host: NVLink messages from src (msg.h);
 *   - every other host gets ONE copy from the network, addressed to one of
 *     its ranks (the landing rank: its GPU and that GPU's NIC): the first
 *     in rank order whose GPU uses the same NIC index as the source's (on
 *     a rail-optimised fabric: the source's rail, as NCCL's PXN keeps
 *     traffic on rails), else its first rank; the landing rank relays it
 *     over NVLink to its host's other ranks when it arrived (a NIC writes
 *     a received message to one buffer; a host does not need it twice
 *     from the network);
 *   - the network copy goes to a multicast group rooted at src's NIC whose
 *     members are the landing ranks' NICs (sorted by endpoint id), found
 *     with mcast_group_find or created once and reused by every later
 *     collective of the run; with one other host only, a tree of one leaf
 *     is the unicast path, so the copy is a plain RC message and no group
 *     is made; with none (all ranks on one host) there is no network copy.
 * A piece of zero bytes "arrives" everywhere at once (coll_send's rule).
 *
 * Byte and message convention (coll_plan, `--check`): what the flow table
 * records, row for row (mcast_msg.c): a network multicast to k >= 2 NICs
 * is 1 + k rows of its size, the sender's (its bytes once, as the source
 * injects them) and one per member NIC (as each takes them off the
 * network); on a star that is exactly what the tree's links carry, on
 * deeper fabrics the multicast_group row's tree_links says how many links
 * carry each byte. The plain RC copy to a single other host is one row, and
 * NVLink copies (local peers, relays) one row each, as for every other
 * algorithm. So a multicast allgather of S over n >= 3 ranks, one GPU per
 * host, is n x S bytes in n x channels x pieces x n rows, and each NIC
 * injects S/n where the ring's inject (n-1)/n S.
 *
 * Plans without a world place GPU g on host g / gpus_per_host (coll_spec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_internal.h"
#include "nic.h"
#include "xalloc.h"

/* A network copy in flight (real pass): what its arrival at a member means. */
struct mc_post {
	struct coll *c;
	int32_t pipe, src, slot;
	uint64_t size_b;
};

struct mc_a {
	int *host;                  /* [n] host of each rank */
	int *first;                 /* [n] first rank (in rank order) on the same host */
	int *pick;                  /* [n] scratch: the landing rank chosen for the host of first rank q */
	int *mem;                   /* [n x n]: row s = source s's landing ranks on the other hosts, by endpoint */
	int *mem_gpu;               /* [n x n]: their GPUs (mcast_msg.dst_gpus) */
	int *n_mem;                 /* [n] */
	struct mcast_group **grp;   /* [n] the group of each source rank (real pass, made on first use) */
	struct mc_post *post;       /* [n_post] network copies of the real pass, in posting order
				     * (as many as the virtual pass made: c->plan_mcasts) */
	uint64_t n_post;
	struct coll_share p[];      /* [channels] */
};

static const char *mc_check(int n) { return n >= 2 ? NULL : "a group of at least 2 ranks"; }

static int host_of(const struct coll *c, int r)
{
	return c->w ? world_gpu_host(c->w, c->gpus[r]) : c->gpus[r] / c->plan_gph;
}

static int ep_of(const struct coll *c, int r)
{
	return c->w ? world_gpu_ep(c->w, c->gpus[r]) : host_of(c, r);
}

/* The NIC index of rank r's GPU on its host (0 in plans: any rank of a
 * host lands the same rows). */
static int nic_of(const struct coll *c, int r)
{
	return c->w ? world_gpu_ep(c->w, c->gpus[r]) - world_gpu_host(c->w, c->gpus[r]) * c->w->fab.nics_per_host : 0;
}

struct ep_rank { int ep, rank; };

static int ep_cmp(const void *a, const void *b)
{
	int x = ((const struct ep_rank *)a)->ep, y = ((const struct ep_rank *)b)->ep;
	return (x > y) - (x < y);
}

/* Pieces are cut from the whole channel share (broadcast) or from a segment
 * of ceil(Bc / n) (allgather, allreduce). */
static void mc_layout(struct coll *c, bool whole)
{
	int n = c->n;
	struct mc_a *a = xcalloc(1, sizeof *a + (size_t)c->channels * sizeof a->p[0]);
	c->pipes = c->channels;
	c->spr = 2; /* slot 0: the ring's stream (allreduce); slot 1: multicast arrivals */
	for (int p = 0; p < c->pipes; p++)
		a->p[p] = coll_share_of(c, p, whole);
	a->host = xmalloc((size_t)n * sizeof *a->host);
	a->first = xmalloc((size_t)n * sizeof *a->first);
	a->pick = xmalloc((size_t)n * sizeof *a->pick);
	a->n_mem = xcalloc((size_t)n, sizeof *a->n_mem);
	a->mem = xmalloc((size_t)n * (size_t)n * sizeof *a->mem);
	a->mem_gpu = xmalloc((size_t)n * (size_t)n * sizeof *a->mem_gpu);
	a->grp = xcalloc((size_t)n, sizeof *a->grp);
	for (int r = 0; r < n; r++) {
		a->host[r] = host_of(c, r);
		a->first[r] = r;
		for (int q = 0; q < r; q++)
			if (a->host[q] == a->host[r]) {
				a->first[r] = q;
				break;
			}
	}
	struct ep_rank *er = xmalloc((size_t)n * sizeof *er);
	for (int s = 0; s < n; s++) {
		int k = 0, nic = nic_of(c, s);
		for (int r = 0; r < n; r++)
			a->pick[r] = -1;
		for (int r = 0; r < n; r++) {
			int *p = &a->pick[a->first[r]];
			if (a->host[r] != a->host[s] && (*p < 0 || (nic_of(c, *p) != nic && nic_of(c, r) == nic)))
				*p = r;
		}
		for (int q = 0; q < n; q++)
			if (a->pick[q] >= 0)
				er[k++] = (struct ep_rank){ ep_of(c, a->pick[q]), a->pick[q] };
		qsort(er, (size_t)k, sizeof *er, ep_cmp); /* distinct hosts: distinct endpoints */
		a->n_mem[s] = k;
		for (int i = 0; i < k; i++) {
			a->mem[(size_t)s * (size_t)n + (size_t)i] = er[i].rank;
			a->mem_gpu[(size_t)s * (size_t)n + (size_t)i] = c->gpus[er[i].rank];
		}
	}
	free(er);
	c->a = a;
}

static void mc_free_a(void *p)
{
	struct mc_a *a = p;
	free(a->host);
	free(a->first);
	free(a->pick);
	free(a->mem);
	free(a->mem_gpu);
	free(a->n_mem);
	free(a->grp);
	free(a->post);
}

/* ---- delivery ---- */

static void mc_arrive(struct sim *sim, void *ctx, int member)
{
	(void)sim;
	struct mc_post *p = ctx;
	struct coll *c = p->c;
	const struct mc_a *a = c->a;
	int dst = a->mem[(size_t)p->src * (size_t)c->n + (size_t)member];
	struct coll_slot *s = coll_slot_of(c, p->pipe, dst, p->slot);
	coll_mcast_relay(c, s, p->size_b);
	coll_recv(c, s);
}

static void mc_flow_arrive(struct sim *sim, struct flow *f, void *ctx)
{
	(void)f;
	mc_arrive(sim, ctx, 0);
}

static struct mcast_group *mc_group(struct coll *c, int src)
{
	struct mc_a *a = c->a;
	if (a->grp[src])
		return a->grp[src];
	int n = a->n_mem[src];
	const int *mem = &a->mem[(size_t)src * (size_t)c->n];
	int *eps = xmalloc((size_t)n * sizeof *eps);
	for (int i = 0; i < n; i++)
		eps[i] = ep_of(c, mem[i]);
	int src_ep = ep_of(c, src);
	struct mcast_group *g = mcast_group_find(c->w, src_ep, eps, n);
	if (g) { /* made by others ([multicast] group lines): take its member order */
		int *row = &a->mem[(size_t)src * (size_t)c->n], *gpu = &a->mem_gpu[(size_t)src * (size_t)c->n];
		for (int i = 0; i < n; i++)
			for (int j = i; j < n; j++)
				if (ep_of(c, row[j]) == mcast_group_member(g, i)) {
					int t = row[i];
					row[i] = row[j];
					row[j] = t;
					break;
				}
		for (int i = 0; i < n; i++)
			gpu[i] = c->gpus[row[i]];
	} else {
		char name[160], *err = NULL;
		/* The creator's section, op and source GPU: "traffic.ag:allgather:host3.gpu1". */
		char gpu_name[48];
		world_gpu_name(c->w, c->gpus[src], gpu_name, sizeof gpu_name);
		snprintf(name, sizeof name, "%s:%s:%s", c->source ? c->source : "coll", coll_op_name(c->op),
			 gpu_name);
		g = mcast_group_create(c->w, name, src_ep, eps, n, &err);
		if (!g)
			die_internal("collective %lld: multicast group from GPU %d to %d NICs: %s", (long long)c->id,
				     c->gpus[src], n, err ? err : "refused");
	}
	free(eps);
	a->grp[src] = g;
	return g;
}

void coll_mcast_piece(struct coll *c, int pipe, int src, int slot, uint64_t size_b)
{
	struct mc_a *a = c->a;
	int n = c->n;
	if (!size_b) {
		for (int r = 0; r < n; r++)
			if (r != src)
				coll_send(c, pipe, src, r, slot, 0);
		return;
	}
	for (int r = 0; r < n; r++) /* the source's host: NVLink */
		if (r != src && a->host[r] == a->host[src])
			coll_send(c, pipe, src, r, slot, size_b);
	int k = a->n_mem[src];
	if (!k)
		return;
	const int *mem = &a->mem[(size_t)src * (size_t)n];
	c->pending += (uint64_t)k;
	uint64_t rows = k == 1 ? 1 : 1 + (uint64_t)k; /* RC: one row; a group: sender + members */
	c->messages += rows;
	c->bytes += rows * size_b;
	c->mcasts++;
	c->pass->mcast(c, src, mem, k, pipe, slot, size_b);
}

void coll_mcast_post(struct coll *c, int src, const int *mem, int k, int pipe, int slot, uint64_t size_b)
{
	struct mc_a *a = c->a;
	int n = c->n;
	if (!a->post)
		a->post = xcalloc(c->plan_mcasts ? c->plan_mcasts : 1, sizeof *a->post);
	SIM_ASSERT(c->w->sim, &c->w->sim->kernel, a->n_post < c->plan_mcasts,
		   "collective %lld posts more multicast copies than its plan (%llu)", (long long)c->id,
		   (unsigned long long)c->plan_mcasts);
	struct mc_post *p = &a->post[a->n_post++];
	*p = (struct mc_post){ .c = c, .pipe = pipe, .src = src, .slot = slot, .size_b = size_b };
	if (k == 1) { /* one other host: the tree is the unicast path */
		struct msg m = {
			.src_gpu = c->gpus[src], .dst_gpu = c->gpus[mem[0]], .size_b = size_b,
			.source = c->source, .parallelism = c->parallelism, .job = c->job,
			.iteration = c->iteration, .collective_id = c->id,
			.on_recv = mc_flow_arrive, .ctx = p,
		};
		msg_send(c->w, &m);
		return;
	}
	struct mcast_msg m = {
		.size_b = size_b, .source = c->source, .parallelism = c->parallelism, .job = c->job,
		.iteration = c->iteration, .collective_id = c->id, .src_gpu = c->gpus[src],
		.dst_gpus = &a->mem_gpu[(size_t)src * (size_t)n], .on_recv = mc_arrive, .ctx = p,
	};
	mcast_post(c->w, mc_group(c, src), &m);
}

void coll_mcast_relay(struct coll *c, struct coll_slot *landing, uint64_t size_b)
{
	const struct mc_a *a = c->a;
	int n = c->n, pipe = (int)(landing->pr / (uint32_t)n), l = (int)(landing->pr % (uint32_t)n);
	int slot = (int)(landing - coll_slot_of(c, pipe, l, 0));
	for (int r = a->first[l]; r < n; r++) /* the source is on another host */
		if (r != l && a->host[r] == a->host[l])
			coll_send(c, pipe, l, r, slot, size_b);
}

/* ---- algorithms ---- */

static void bcast_layout(struct coll *c) { mc_layout(c, true); }
static void seg_layout(struct coll *c) { mc_layout(c, false); }

static void bcast_progress(struct coll *c, int pipe, int r)
{
	const struct mc_a *a = c->a;
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	if (r != c->root || pr->sent[1])
		return;
	const struct coll_share *p = &a->p[pipe];
	pr->sent[1] = p->m;
	for (uint32_t k = 0; k < p->m; k++)
		coll_mcast_piece(c, pipe, r, 1, coll_split(p->bc, p->m, k));
}

static void ag_progress(struct coll *c, int pipe, int r)
{
	const struct mc_a *a = c->a;
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	if (pr->sent[1])
		return;
	const struct coll_share *p = &a->p[pipe];
	uint64_t seg = coll_split(p->bc, (uint64_t)c->n, (uint64_t)r);
	pr->sent[1] = p->m;
	for (uint32_t k = 0; k < p->m; k++)
		coll_mcast_piece(c, pipe, r, 1, coll_split(seg, p->m, k));
}

/* Reduce-scatter as coll_ring.c's all-reduce steps 0..n-2 (slot 0, piece
 * k of step s+1 once piece k of step s arrived), then the multicast of the
 * reduced segment r+1, piece k once piece k of step n-2 arrived. */
static void ar_progress(struct coll *c, int pipe, int r)
{
	const struct mc_a *a = c->a;
	const struct coll_share *p = &a->p[pipe];
	struct coll_pr *pr = coll_pr_of(c, pipe, r);
	int n = c->n;
	uint64_t got = coll_count(c, pipe, r, 0);
	coll_ring_post(c, pipe, r, p, (uint32_t)(n - 1));
	uint64_t before = (uint64_t)(n - 2) * p->m;
	uint64_t ready = got > before ? got - before : 0;
	uint64_t seg = coll_split(p->bc, (uint64_t)n, (uint64_t)((r + 1) % n));
	while (pr->sent[1] < ready) {
		uint32_t k = pr->sent[1]++;
		coll_mcast_piece(c, pipe, r, 1, coll_split(seg, p->m, k));
	}
}

static int one_round(const struct coll *c) { (void)c; return 1; }
static int ar_rounds(const struct coll *c) { return c->n; }

static const struct coll_algo coll_mcast_broadcast = {
	.name = "multicast", .op = COLL_BROADCAST, .check = mc_check, .layout = bcast_layout,
	.progress = bcast_progress, .rounds = one_round, .free_a = mc_free_a,
};
static const struct coll_algo coll_mcast_allgather = {
	.name = "multicast", .op = COLL_ALLGATHER, .check = mc_check, .layout = seg_layout,
	.progress = ag_progress, .rounds = one_round, .free_a = mc_free_a,
};
static const struct coll_algo coll_mcast_allreduce = {
	.name = "multicast", .op = COLL_ALLREDUCE, .check = mc_check, .layout = seg_layout,
	.progress = ar_progress, .rounds = ar_rounds, .free_a = mc_free_a,
};

/* This file's algorithms, in registry order (after the files listed before it in
 * COLL_FAMILIES, models/coll/Makefile.inc): an op's first entry is its default. */
const struct coll_algo *const coll_mcast[] = { &coll_mcast_allreduce, &coll_mcast_allgather, &coll_mcast_broadcast, NULL };
