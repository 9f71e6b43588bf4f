/*
 * routing.c — shortest-path forwarding tables with interned equal-cost sets.
 *
 * For each destination host d: one BFS from d over the undirected graph,
 * in which hosts other than d are leaves (they get a distance but are not
 * expanded: hosts never forward). Then every switch u's next-hop set toward
 * d is the ports whose peer is exactly one hop closer to d and is a switch
 * or d itself; the "switch or d" test matters when a multi-homed host sits
 * one hop closer but may not carry transit traffic.
 *
 * Sets are interned per switch with a small open-addressing hash keyed on
 * the port list, so a table is one uint16 per destination plus its distinct
 * sets (a fat-tree ToR: k/2 + 1 sets whatever the host count). Cost is
 * O(hosts x (nodes + links)): a k=16 fat tree (1024 hosts, 320 switches,
 * 3072 links) takes a few milliseconds.
 *
 * Invariants of a built table: set ids < n_sets <= 65535; every set has
 * >= 1 port, ascending, no repeats; no two sets of a switch are equal.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing.h"
#include "xalloc.h"

#define ROUTING_MAX_SETS 65535

/* Growth state of one switch's table while destinations are added. */
struct rt_grow {
	uint32_t *slots;           /* [slot_mask + 1]: set id + 1, 0 = empty */
	uint32_t slot_mask;
	uint32_t *set_hash;        /* [cap_sets]: hash of each set, for rehashing */
	uint32_t cap_sets;
	uint32_t n_ports, cap_ports;
};

static uint32_t routing_hash(const uint16_t *p, int n)
{
	/* FNV-1a over the port indices: sets are short and few, so mixing
	 * quality matters less than simplicity. */
	uint32_t h = 2166136261u ^ (uint32_t)n;
	for (int i = 0; i < n; i++) {
		h = (h ^ p[i]) * 16777619u;
		h = (h ^ (uint32_t)(p[i] >> 8)) * 16777619u;
	}
	return h ^ (h >> 15);
}

static int rt_rehash(struct route_table *rt, struct rt_grow *g)
{
	uint32_t n_slots = g->slot_mask ? 2 * (g->slot_mask + 1) : 16;
	uint32_t *s = calloc(n_slots, sizeof *s);
	if (!s)
		return -1;
	for (int id = 0; id < rt->n_sets; id++) {
		uint32_t i = g->set_hash[id] & (n_slots - 1);
		while (s[i])
			i = (i + 1) & (n_slots - 1);
		s[i] = (uint32_t)id + 1;
	}
	free(g->slots);
	g->slots = s;
	g->slot_mask = n_slots - 1;
	return 0;
}

/* The id of set p[0..n) in rt, adding it if new. -1 when out of memory,
 * -2 when the switch already holds ROUTING_MAX_SETS sets. */
static int rt_intern(struct route_table *rt, struct rt_grow *g, const uint16_t *p, int n)
{
	uint32_t h = routing_hash(p, n);
	if (g->slot_mask) {
		for (uint32_t i = h & g->slot_mask; g->slots[i]; i = (i + 1) & g->slot_mask) {
			uint32_t id = g->slots[i] - 1;
			if (g->set_hash[id] == h && rt->set_n[id] == n &&
			    memcmp(rt->ports + rt->set_off[id], p, (size_t)n * sizeof *p) == 0)
				return (int)id;
		}
	}
	if (rt->n_sets >= ROUTING_MAX_SETS)
		return -2;
	if ((uint32_t)rt->n_sets == g->cap_sets) {
		uint32_t cap = g->cap_sets ? 2 * g->cap_sets : 8;
		uint32_t *sh = realloc(g->set_hash, cap * sizeof *sh);
		if (sh)
			g->set_hash = sh;
		uint32_t *so = realloc(rt->set_off, cap * sizeof *so);
		if (so)
			rt->set_off = so;
		uint16_t *sn = realloc(rt->set_n, cap * sizeof *sn);
		if (sn)
			rt->set_n = sn;
		if (!sh || !so || !sn)
			return -1;
		g->cap_sets = cap;
	}
	if ((uint64_t)g->n_ports + (uint64_t)n > g->cap_ports) {
		uint64_t cap = g->cap_ports ? 2 * (uint64_t)g->cap_ports : 32;
		while (cap < (uint64_t)g->n_ports + (uint64_t)n)
			cap *= 2;
		if (cap > UINT32_MAX)
			cap = UINT32_MAX;   /* set_off is 32-bit */
		if (cap < (uint64_t)g->n_ports + (uint64_t)n)
			return -1;
		uint16_t *pp = realloc(rt->ports, cap * sizeof *pp);
		if (!pp)
			return -1;
		rt->ports = pp;
		g->cap_ports = (uint32_t)cap;
	}
	int id = rt->n_sets++;
	g->set_hash[id] = h;
	rt->set_off[id] = g->n_ports;
	rt->set_n[id] = (uint16_t)n;
	memcpy(rt->ports + g->n_ports, p, (size_t)n * sizeof *p);
	g->n_ports += (uint32_t)n;
	/* Keep the load factor at most one half so probes stay short; a
	 * rehash places every set, the new one included. */
	if ((uint32_t)rt->n_sets * 2 > (g->slot_mask ? g->slot_mask + 1 : 0)) {
		if (rt_rehash(rt, g) < 0)
			return -1;
	} else {
		uint32_t i = h & g->slot_mask;
		while (g->slots[i])
			i = (i + 1) & g->slot_mask;
		g->slots[i] = (uint32_t)id + 1;
	}
	return id;
}

/* Trims a finished table's arrays to their final sizes. */
static void rt_shrink(struct route_table *rt, const struct rt_grow *g)
{
	if (rt->n_sets > 0) {
		uint32_t *so = realloc(rt->set_off, (size_t)rt->n_sets * sizeof *so);
		if (so)
			rt->set_off = so;
		uint16_t *sn = realloc(rt->set_n, (size_t)rt->n_sets * sizeof *sn);
		if (sn)
			rt->set_n = sn;
	}
	if (g->n_ports > 0) {
		uint16_t *pp = realloc(rt->ports, (size_t)g->n_ports * sizeof *pp);
		if (pp)
			rt->ports = pp;
	}
}

int routing_build(const struct topo *t, struct route_table *tables, char **err)
{
	int n = t->n_nodes, nh = t->n_hosts, rc = -1;
	memset(tables, 0, (size_t)n * sizeof *tables);
	int *dist = malloc(((size_t)n + 1) * sizeof *dist);
	int *queue = malloc(((size_t)n + 1) * sizeof *queue);
	struct rt_grow *grow = calloc((size_t)n + 1, sizeof *grow);
	uint16_t *buf = malloc((TOPO_MAX_PORTS + 1) * sizeof *buf);
	if (!dist || !queue || !grow || !buf) {
		err_printf(err, "routing: out of memory");
		goto out;
	}
	for (int u = nh; u < n; u++) {
		if (topo_n_ports(t, u) > TOPO_MAX_PORTS) {
			err_printf(err, "routing: %s has %d ports; at most %d are supported",
				     t->nodes[u].name, topo_n_ports(t, u), TOPO_MAX_PORTS);
			goto out;
		}
		tables[u].n_hosts = nh;
		tables[u].set_of_dst = malloc(((size_t)nh + 1) * sizeof *tables[u].set_of_dst);
		if (!tables[u].set_of_dst) {
			err_printf(err, "routing: out of memory");
			goto out;
		}
	}

	for (int d = 0; d < nh; d++) {
		for (int u = 0; u < n; u++)
			dist[u] = -1;
		int head = 0, tail = 0;
		dist[d] = 0;
		queue[tail++] = d;
		while (head < tail) {
			int v = queue[head++];
			if (v < nh && v != d)
				continue;          /* hosts do not forward */
			for (int i = t->port_off[v]; i < t->port_off[v + 1]; i++) {
				int q = t->ports[i].peer;
				if (dist[q] < 0) {
					dist[q] = dist[v] + 1;
					queue[tail++] = q;
				}
			}
		}
		for (int u = nh; u < n; u++) {
			if (dist[u] < 0) {
				err_printf(err, "routing: switch %s cannot reach host %s",
					     t->nodes[u].name, t->nodes[d].name);
				goto out;
			}
			int m = 0, want = dist[u] - 1, base = t->port_off[u];
			for (int i = base; i < t->port_off[u + 1]; i++) {
				int q = t->ports[i].peer;
				if (dist[q] == want && (q >= nh || q == d))
					buf[m++] = (uint16_t)(i - base);
			}
			/* BFS reached u from d or a switch, so m >= 1. */
			int id = rt_intern(&tables[u], &grow[u], buf, m);
			if (id == -2) {
				err_printf(err, "routing: switch %s needs more than %d distinct "
					     "next-hop sets", t->nodes[u].name, ROUTING_MAX_SETS);
				goto out;
			}
			if (id < 0) {
				err_printf(err, "routing: out of memory");
				goto out;
			}
			tables[u].set_of_dst[d] = (uint16_t)id;
		}
	}
	for (int u = nh; u < n; u++)
		rt_shrink(&tables[u], &grow[u]);
	rc = 0;
out:
	if (grow)
		for (int u = 0; u < n; u++) {
			free(grow[u].slots);
			free(grow[u].set_hash);
		}
	free(grow);
	free(dist);
	free(queue);
	free(buf);
	if (rc < 0)
		routing_free(tables, n);
	return rc;
}

void routing_free(struct route_table *tables, int n_nodes)
{
	if (!tables)
		return;
	for (int u = 0; u < n_nodes; u++) {
		free(tables[u].set_of_dst);
		free(tables[u].set_off);
		free(tables[u].set_n);
		free(tables[u].ports);
		memset(&tables[u], 0, sizeof tables[u]);
	}
}
