/*
 * routing_eps.c — the tables of a built topology (nics_per_host >= 1), one
 * search per class of twin edge switches (routing.h, routing_internal.h).
 *
 * Every endpoint hangs off one switch a (its group's); every other switch
 * reaches it through a, so one search from a gives every switch's set
 * toward all of a's endpoints: the ports whose peer is a switch closer to a
 * by exactly that port's link cost (hosts never transit). a itself holds
 * the local marker: it sends down the one port facing the endpoint (never
 * to another NIC of the same host).
 *
 * Twins. Edge switches with the same switch neighbours over the same link
 * costs (the ToRs of one fat-tree pod, the leaves of a leaf-spine, counted
 * with parallel links) see the rest of the fabric alike: for twins a1 and
 * aj, dist(q, aj) = dist(q, a1) for every switch q but a1 and aj (a path
 * into one twin ends with a link from a shared neighbour, and could as well
 * end in the other), dist(a1, aj) = dist(aj, a1), and dist(a, a) = 0. So
 * one search from a1, the class's lowest switch, serves the class: a switch
 * u neither in the class nor adjacent to it has the same neighbours'
 * distances toward every twin, hence the same set; a switch adjacent to the
 * class (the pod's aggregation switches, the spines) or in it gets its set
 * toward aj from the same distances, with the roles of a1 and aj swapped
 * (dj below): a switch next to the class changes only its ports facing a1
 * and aj (set_swapped), a1 sets its ports once more, a twin other than a1
 * and aj keeps its set toward a1. A fat tree of k pods is k searches
 * instead of k^2/2, so building costs O(classes x links + switches x
 * groups + twins x their neighbours' degrees), and the sets are exactly
 * those of one search per edge switch.
 *
 * Switches with no switch neighbour (or a link to themselves) are classes
 * of their own.
 */
#include <stdlib.h>
#include <string.h>

#include "routing_internal.h"
#include "xalloc.h"

/* Twin classes of the groups' switches. */
struct rt_twins {
	uint64_t *key;          /* per group, its sorted (peer << 8 | cost) list over switch links up */
	int *key_off;           /* [n_grps + 1] */
	int *rep;               /* [n_grps]: the class's lowest group */
	int *next;              /* [n_grps]: the next group of the class, -1 at the end */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t key_hash(const uint64_t *k, int n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++)
		h = (h ^ k[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

static void twins_free(struct rt_twins *tw)
{
	free(tw->key);
	free(tw->key_off);
	free(tw->rep);
	free(tw->next);
}

/* Groups in twin classes (file comment). 0, or -1 when out of memory. */
static int twins_find(const struct rt_build *b, struct rt_twins *tw)
{
	const struct topo *t = b->t;
	const struct route_dst *dst = b->dst;
	int nh = t->n_hosts, ng = dst->n_grps, rc = -1;
	size_t n_keys = 0;
	for (int g = 0; g < ng; g++)
		n_keys += (size_t)topo_n_ports(t, dst->grp_switch[g]);
	tw->key = malloc((n_keys + 1) * sizeof *tw->key);
	tw->key_off = malloc(((size_t)ng + 1) * sizeof *tw->key_off);
	tw->rep = malloc(((size_t)ng + 1) * sizeof *tw->rep);
	tw->next = malloc(((size_t)ng + 1) * sizeof *tw->next);
	uint32_t n_slots = 16;
	while (n_slots < 2 * (uint32_t)ng)
		n_slots *= 2;
	int *slot = malloc(n_slots * sizeof *slot), *tail = malloc(((size_t)ng + 1) * sizeof *tail);
	uint64_t *hash = malloc(((size_t)ng + 1) * sizeof *hash);
	if (!tw->key || !tw->key_off || !tw->rep || !tw->next || !slot || !tail || !hash)
		goto out;
	for (uint32_t i = 0; i < n_slots; i++)
		slot[i] = -1;
	int k = 0;
	for (int g = 0; g < ng; g++) {
		int a = dst->grp_switch[g], self = 0;
		tw->key_off[g] = k;
		for (int i = t->port_off[a]; i < t->port_off[a + 1]; i++) {
			int q = t->ports[i].peer;
			if (q < nh || rt_link_out(&b->s, t, i))
				continue;
			self |= q == a;
			tw->key[k++] = (uint64_t)q << 8 | (uint64_t)rt_link_cost(t, i);
		}
		tw->key_off[g + 1] = k;
		tw->rep[g] = g;
		tw->next[g] = -1;
		tail[g] = g;
		int nk = k - tw->key_off[g];
		if (nk == 0 || self)
			continue;   /* a class of its own */
		uint64_t *kg = tw->key + tw->key_off[g];
		qsort(kg, (size_t)nk, sizeof *kg, cmp_u64);
		hash[g] = key_hash(kg, nk);
		uint32_t i = (uint32_t)hash[g] & (n_slots - 1);
		for (; slot[i] >= 0; i = (i + 1) & (n_slots - 1)) {
			int r = slot[i];
			if (hash[r] == hash[g] && tw->key_off[r + 1] - tw->key_off[r] == nk &&
			    memcmp(tw->key + tw->key_off[r], kg, (size_t)nk * sizeof *kg) == 0)
				break;
		}
		if (slot[i] < 0) {
			slot[i] = g;
		} else {
			int r = slot[i];
			tw->rep[g] = r;
			tw->next[tail[r]] = g;
			tail[r] = g;
		}
	}
	rc = 0;
out:
	free(slot);
	free(tail);
	free(hash);
	return rc;
}

/* Distance toward twin aj of node q, from the search from a1 (file comment). */
static inline int dj(const int *dist, int q, int a1, int aj)
{
	return q == aj ? 0 : q == a1 ? dist[aj] : dist[q];
}

/* Switch u's set toward twin aj (aj == a1: the search's own root). */
static int set_toward(struct rt_build *b, int u, int g, int a1, int aj, char **err)
{
	const struct topo *t = b->t;
	const int *dist = b->s.dist;
	int nh = t->n_hosts, du = dj(dist, u, a1, aj), m = 0, base = t->port_off[u];
	for (int i = base; du >= 0 && i < t->port_off[u + 1]; i++) {
		int q = t->ports[i].peer;
		if (q < nh || rt_link_out(&b->s, t, i))
			continue;
		int dq = dj(dist, q, a1, aj);
		if (dq >= 0 && dq + rt_link_cost(t, i) == du)
			b->buf[m++] = (uint16_t)(i - base);
	}
	/* u was reached from a switch, so m >= 1; m == 0 only after failures:
	 * no route (ROUTE_UNREACHABLE). */
	return rt_set(b, u, g, b->buf, m, err);
}

/* Appends to buf[0..m) the ports of u facing a (links up) whose cost plus
 * da equals du. Returns the new m. */
static int add_facing(struct rt_build *b, int u, int a, int du, int da, int m)
{
	const struct topo *t = b->t;
	for (int i = t->port_off[a]; i < t->port_off[a + 1]; i++)
		if (t->ports[i].peer == u && !rt_link_out(&b->s, t, i) && da + rt_link_cost(t, i) == du)
			b->buf[m++] = (uint16_t)t->ports[i].peer_port;
	return m;
}

/* Switch u next to the class (not in it) toward twin aj, from its set
 * toward a1 (group g): dj differs from the search's distances only at a1
 * and aj, so only the ports facing them change (dist[aj] is the twins'
 * distance to each other). */
static int set_swapped(struct rt_build *b, int u, int g, int gj, int a1, int aj, char **err)
{
	const struct topo *t = b->t;
	const int *dist = b->s.dist;
	const struct route_table *rt = &b->tables[u];
	const struct route_set *rs = &rt->sets[rt->set_of_grp[g]];
	int du = dist[u], base = t->port_off[u], m = 0;
	for (int k = 0; k < rs->n; k++) {
		int p = rt->ports[rs->off + k], q = t->ports[base + p].peer;
		if (q != a1 && q != aj)
			b->buf[m++] = (uint16_t)p;
	}
	m = add_facing(b, u, aj, du, 0, m);
	m = add_facing(b, u, a1, du, dist[aj], m);
	for (int i = 1; i < m; i++)   /* ascending; the added ports are few */
		for (int j = i; j > 0 && b->buf[j - 1] > b->buf[j]; j--) {
			uint16_t x = b->buf[j];
			b->buf[j] = b->buf[j - 1];
			b->buf[j - 1] = x;
		}
	return rt_set(b, u, gj, b->buf, m, err);
}

/* The class whose lowest group is g: one search, then its members. */
static int build_class(struct rt_build *b, const struct rt_twins *tw, int g, int *mark, int *near, char **err)
{
	const struct topo *t = b->t;
	const struct route_dst *dst = b->dst;
	struct route_table *tables = b->tables;
	const int *dist = b->s.dist;
	int n = t->n_nodes, nh = t->n_hosts, a1 = dst->grp_switch[g], nics = t->nics_per_host;
	rt_search(t, a1, &b->s, 1);
	if (rt_check_length(t, &b->s, a1, 2, err) < 0)
		return -1;
	for (int u = nh; u < n; u++) {
		if (dist[u] < 0 && !b->s.down) {
			int e = b->first_ep[g];
			if (nics > 1)
				return err_printf(err, "routing: switch %s cannot reach host %s NIC %d",
						  t->nodes[u].name, t->nodes[e / nics].name, e % nics);
			return err_printf(err, "routing: switch %s cannot reach host %s",
					  t->nodes[u].name, t->nodes[e / nics].name);
		}
		if ((u == a1 ? rt_set_local(b, u, g, err) : set_toward(b, u, g, a1, a1, err)) < 0)
			return -1;
	}
	if (tw->next[g] < 0)
		return 0;
	/* Every member first takes the sets toward a1, ... */
	for (int u = nh; u < n; u++) {
		uint16_t id = tables[u].set_of_grp[g];
		for (int gj = tw->next[g]; gj >= 0; gj = tw->next[gj])
			tables[u].set_of_grp[gj] = id;
	}
	/* ... then the switches next to the class, a1 and aj their own (a
	 * twin ai other than a1 and aj keeps its set toward a1: its
	 * neighbours are the class's, at the same distances toward aj). */
	int n_near = 0;
	for (int i = t->port_off[a1]; i < t->port_off[a1 + 1]; i++) {
		int q = t->ports[i].peer;
		if (q >= nh && !rt_link_out(&b->s, t, i) && mark[q] != g) {
			mark[q] = g;
			near[n_near++] = q;
		}
	}
	for (int gj = tw->next[g]; gj >= 0; gj = tw->next[gj]) {
		int aj = dst->grp_switch[gj];
		if (rt_set_local(b, aj, gj, err) < 0 || set_toward(b, a1, gj, a1, aj, err) < 0)
			return -1;
		for (int k = 0; k < n_near; k++)
			if (set_swapped(b, near[k], g, gj, a1, aj, err) < 0)
				return -1;
	}
	return 0;
}

int rt_build_eps(struct rt_build *b, char **err)
{
	const struct topo *t = b->t;
	int n = t->n_nodes, rc = -1;
	struct rt_twins tw = { 0 };
	int *mark = malloc(((size_t)n + 1) * sizeof *mark), *near = malloc(((size_t)n + 1) * sizeof *near);
	if (!mark || !near || twins_find(b, &tw) < 0) {
		err_printf(err, "routing: out of memory");
		goto out;
	}
	for (int u = 0; u < n; u++)
		mark[u] = -1;
	for (int g = 0; g < b->dst->n_grps; g++)
		if (tw.rep[g] == g && build_class(b, &tw, g, mark, near, err) < 0)
			goto out;
	rc = 0;
out:
	twins_free(&tw);
	free(mark);
	free(near);
	return rc;
}
