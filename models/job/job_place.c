/*
 * job_place.c — the placement policies (see job_place.h).
 *
 * Runs once per job at setup, over the job's pool of hosts: sorting and a
 * few arrays of the pool's size, nothing kept.
 */
#include <stdlib.h>
#include <string.h>
#include "job_place.h"
#include "xalloc.h"

const char *const job_place_names[JOB_PLACE_N + 1] = {
	"packed", "spread", "random", "fragmented", "hosts", NULL
};

/* A group of free hosts (an edge switch or a pod): its key (node id), how
 * many free hosts it holds, where its first one is in the free list, and
 * for an edge switch, its pod's rank in the pods' order. */
struct group {
	int key;                    /* node id of the switch */
	int n_free;                 /* its free hosts in the pool */
	int first;                  /* index of its first free host in the free list */
	int pod_rank;               /* edge switches: position of its pod (spread, packed) */
	int rank_in_pod;            /* edge switches: position among its pod's (spread) */
};

/* Most free hosts first, then first seen first. */
static int by_free(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->n_free != y->n_free)
		return x->n_free > y->n_free ? -1 : 1;
	return x->first - y->first;
}

/* spread's order: the i-th switch of every pod before any (i+1)-th. */
static int by_round(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->rank_in_pod != y->rank_in_pod)
		return x->rank_in_pod - y->rank_in_pod;
	return x->pod_rank - y->pod_rank;
}

/* Groups the free hosts by key[host] (edge or pod), in order of first
 * appearance; grp has room for n_free; returns the number of groups and
 * sets of[i], the group of free host i. */
static int group_by(const int *key, const int *free_h, int n_free, struct group *grp, int *of)
{
	int n = 0;
	for (int i = 0; i < n_free; i++) {
		int k = key[free_h[i]], g = 0;
		while (g < n && grp[g].key != k) /* groups are few next to hosts: a scan is enough */
			g++;
		if (g == n)
			grp[n++] = (struct group){ .key = k, .first = i };
		grp[g].n_free++;
		of[i] = g;
	}
	return n;
}

static int find(const struct group *grp, int n, int key)
{
	for (int g = 0; g < n; g++)
		if (grp[g].key == key)
			return g;
	return -1;
}

static void packed(const struct job_place_fabric *f, const int *fh, int nf, int need, int *out)
{
	struct group *pods = xcalloc((size_t)nf, sizeof *pods), *edges = xcalloc((size_t)nf, sizeof *edges);
	int *pod_of = xmalloc((size_t)nf * sizeof *pod_of), *edge_of = xmalloc((size_t)nf * sizeof *edge_of);
	int np = group_by(f->pod, fh, nf, pods, pod_of);
	int ne = group_by(f->edge, fh, nf, edges, edge_of);
	/* Fewest pods: the fullest first, until they hold the job. */
	qsort(pods, (size_t)np, sizeof *pods, by_free);
	int chosen = 0;
	for (int sum = 0; chosen < np && sum < need; chosen++)
		sum += pods[chosen].n_free;
	for (int e = 0; e < ne; e++) {
		int p = find(pods, np, f->pod[fh[edges[e].first]]);
		edges[e].pod_rank = p < chosen ? p : np; /* not chosen: never reached */
	}
	/* Within the chosen pods, in their order, the fullest switches first. */
	struct group *order = xmalloc((size_t)ne * sizeof *order);
	memcpy(order, edges, (size_t)ne * sizeof *order);
	qsort(order, (size_t)ne, sizeof *order, by_free);
	int n = 0;
	for (int p = 0; p < chosen && n < need; p++)
		for (int e = 0; e < ne && n < need; e++) {
			if (order[e].pod_rank != p)
				continue;
			for (int i = order[e].first; i < nf && n < need; i++)
				if (f->edge[fh[i]] == order[e].key)
					out[n++] = fh[i];
		}
	free(order);
	free(pods);
	free(edges);
	free(pod_of);
	free(edge_of);
}

static void spread(const struct job_place_fabric *f, const int *fh, int nf, int need, int *out)
{
	struct group *pods = xcalloc((size_t)nf, sizeof *pods), *edges = xcalloc((size_t)nf, sizeof *edges);
	int *pod_of = xmalloc((size_t)nf * sizeof *pod_of), *edge_of = xmalloc((size_t)nf * sizeof *edge_of);
	int np = group_by(f->pod, fh, nf, pods, pod_of);
	int ne = group_by(f->edge, fh, nf, edges, edge_of);
	int *seen = xcalloc((size_t)(np ? np : 1), sizeof *seen);
	for (int e = 0; e < ne; e++) { /* edges are in order of first appearance */
		int p = find(pods, np, f->pod[fh[edges[e].first]]);
		edges[e].pod_rank = p;
		edges[e].rank_in_pod = seen[p]++;
	}
	qsort(edges, (size_t)ne, sizeof *edges, by_round);
	/* Round after round, the next free host of each switch. */
	int *next = xmalloc((size_t)(ne ? ne : 1) * sizeof *next);
	for (int e = 0; e < ne; e++)
		next[e] = edges[e].first;
	int n = 0;
	while (n < need) {
		for (int e = 0; e < ne && n < need; e++) {
			while (next[e] < nf && f->edge[fh[next[e]]] != edges[e].key)
				next[e]++;
			if (next[e] < nf)
				out[n++] = fh[next[e]++];
		}
	}
	free(next);
	free(seen);
	free(pods);
	free(edges);
	free(pod_of);
	free(edge_of);
}

/* Moves k uniformly chosen elements of v[0..n) to its front, in the order
 * drawn (the first k steps of a Fisher–Yates shuffle). */
static void draw_front(int *v, int n, int k, gsl_rng *rng)
{
	for (int i = 0; i < k && i < n - 1; i++) {
		int j = i + (int)gsl_rng_uniform_int(rng, (unsigned long)(n - i));
		int t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

int job_place(const struct job_place_fabric *f, enum job_place_policy pol, const int *pool, int n_pool,
	      int need, double busy, gsl_rng *rng, unsigned char *taken, int *out, int *avail, int *clash)
{
	*clash = -1;
	if (pol == JOB_PLACE_HOSTS) {
		*avail = n_pool;
		if (n_pool < need)
			return -1;
		for (int i = 0; i < need; i++)
			if (taken[pool[i]] != JOB_HOST_FREE) {
				*clash = pool[i];
				*avail = i;
				return -1;
			}
		for (int i = 0; i < need; i++) {
			out[i] = pool[i];
			taken[pool[i]] = JOB_HOST_TAKEN;
		}
		return 0;
	}
	int *fh = xmalloc((size_t)(n_pool ? n_pool : 1) * sizeof *fh), nf = 0;
	for (int i = 0; i < n_pool; i++)
		if (taken[pool[i]] == JOB_HOST_FREE)
			fh[nf++] = pool[i];
	int n_busy = 0;
	if (pol == JOB_PLACE_FRAGMENTED)
		n_busy = (int)(busy * nf + 0.5);
	*avail = nf - n_busy;
	if (nf - n_busy < need) {
		free(fh);
		return -1;
	}
	switch (pol) {
	case JOB_PLACE_PACKED:
		packed(f, fh, nf, need, out);
		break;
	case JOB_PLACE_SPREAD:
		spread(f, fh, nf, need, out);
		break;
	case JOB_PLACE_RANDOM:
		draw_front(fh, nf, need, rng);
		memcpy(out, fh, (size_t)need * sizeof *out);
		break;
	case JOB_PLACE_FRAGMENTED: {
		/* Draw the busy hosts, then take the free ones in pool order. */
		int *idx = xmalloc((size_t)(nf ? nf : 1) * sizeof *idx);
		unsigned char *is_busy = xcalloc((size_t)(nf ? nf : 1), 1);
		for (int i = 0; i < nf; i++)
			idx[i] = i;
		draw_front(idx, nf, n_busy, rng);
		for (int i = 0; i < n_busy; i++)
			is_busy[idx[i]] = 1;
		int n = 0;
		for (int i = 0; i < nf && n < need; i++)
			if (!is_busy[i])
				out[n++] = fh[i];
		for (int i = 0; i < nf; i++)
			if (is_busy[i])
				taken[fh[i]] = JOB_HOST_BUSY;
		free(idx);
		free(is_busy);
		break;
	}
	case JOB_PLACE_HOSTS:
	case JOB_PLACE_N:
		break;
	}
	for (int i = 0; i < need; i++)
		taken[out[i]] = JOB_HOST_TAKEN;
	free(fh);
	return 0;
}
