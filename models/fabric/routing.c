/*
 * routing.c — least-cost forwarding tables with interned equal-cost sets:
 * the tables, their sets, the search, and graphs built by hand.
 *
 * A path costs the sum of its links' routing costs (topology.h: 1 unless
 * the topology says otherwise, so by default the hop count). Destinations
 * are endpoints (NIC i of host d, behind d's port i). In a built topology
 * each endpoint hangs off one switch, its group's (routing.h); the tables
 * are per group and routing_eps.c fills them. In a graph built by hand
 * (nics_per_host 0) a host is one endpoint and its own group, entered
 * through any of its ports: one search from each host, next hops being the
 * ports whose peer is closer by the link's cost and is a switch or that
 * host.
 *
 * The search is Dial's bucket queue, a breadth-first search generalised to
 * small integer costs; with every cost 1 it finds the distances a BFS
 * finds, so the sets (ports ascending) are those of hop-count routing.
 *
 * Sets are interned per switch with a small open-addressing hash keyed on
 * the port list, so a table is one uint16 per group plus its distinct sets
 * (a fat-tree ToR: its local marker and one upward set). The local marker
 * is appended outside the hash, so no port list ever matches it.
 *
 * Invariants of a built table: set ids < n_sets <= 65535; every set but
 * the local marker has >= 1 port, ascending, no repeats; no two sets of a
 * switch are equal; a switch's own group (and only it) maps to its marker.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ideal.h"
#include "routing.h"
#include "routing_internal.h"
#include "xalloc.h"

#define ROUTING_MAX_SETS 65535

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
		if (id == g->local_sid)
			continue;   /* outside the hash */
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

/* Room for one more set in rt. 0, or -1 when out of memory. */
static int rt_room(struct route_table *rt, struct rt_grow *g)
{
	if ((uint32_t)rt->n_sets < g->cap_sets)
		return 0;
	uint32_t cap = g->cap_sets ? 2 * g->cap_sets : 8;
	uint32_t *sh = realloc(g->set_hash, cap * sizeof *sh);
	if (sh)
		g->set_hash = sh;
	struct route_set *ss = realloc(rt->sets, cap * sizeof *ss);
	if (ss)
		rt->sets = ss;
	if (!sh || !ss)
		return -1;
	g->cap_sets = cap;
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
			if (g->set_hash[id] == h && rt->sets[id].n == n &&
			    (n == 0 || memcmp(rt->ports + rt->sets[id].off, p, (size_t)n * sizeof *p) == 0))
				return (int)id;
		}
	}
	if (rt->n_sets >= ROUTING_MAX_SETS)
		return -2;
	if (rt_room(rt, g) < 0)
		return -1;
	if ((uint64_t)g->n_ports + (uint64_t)n > g->cap_ports) {
		uint64_t cap = g->cap_ports ? 2 * (uint64_t)g->cap_ports : 32;
		while (cap < (uint64_t)g->n_ports + (uint64_t)n)
			cap *= 2;
		if (cap > UINT32_MAX - 1)
			cap = UINT32_MAX - 1;   /* a set's offset is 32-bit, UINT32_MAX the marker */
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
	rt->sets[id] = (struct route_set){ .off = g->n_ports, .n = (uint16_t)n,
					   .port0 = n ? p[0] : ROUTE_UNREACHABLE };
	if (n) /* the empty set (no route, after failures) may come first */
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
		struct route_set *ss = realloc(rt->sets, (size_t)rt->n_sets * sizeof *ss);
		if (ss)
			rt->sets = ss;
	}
	if (g->n_ports > 0) {
		uint16_t *pp = realloc(rt->ports, (size_t)g->n_ports * sizeof *pp);
		if (pp)
			rt->ports = pp;
	}
}

static int rt_full(const struct rt_build *b, int u, int id, char **err)
{
	if (id == -2)
		return err_printf(err, "routing: switch %s needs more than %d distinct "
				  "next-hop sets", b->t->nodes[u].name, ROUTING_MAX_SETS);
	return err_printf(err, "routing: out of memory");
}

int rt_set(struct rt_build *b, int u, int g, const uint16_t *p, int m, char **err)
{
	int id = rt_intern(&b->tables[u], &b->grow[u], p, m);
	if (id < 0)
		return rt_full(b, u, id, err);
	b->tables[u].set_of_grp[g] = (uint16_t)id;
	return 0;
}

int rt_set_local(struct rt_build *b, int u, int g, char **err)
{
	struct route_table *rt = &b->tables[u];
	struct rt_grow *gr = &b->grow[u];
	if (gr->local_sid < 0) {
		if (rt->n_sets >= ROUTING_MAX_SETS)
			return rt_full(b, u, -2, err);
		if (rt_room(rt, gr) < 0)
			return rt_full(b, u, -1, err);
		gr->local_sid = rt->n_sets++;
		gr->set_hash[gr->local_sid] = 0;
		rt->sets[gr->local_sid] = (struct route_set){ .off = ROUTE_LOCAL, .n = 1,
							      .port0 = ROUTE_UNREACHABLE };
	}
	rt->set_of_grp[g] = (uint16_t)gr->local_sid;
	return 0;
}

static void rt_unlink(struct rt_search *s, int v)
{
	int b = s->dist[v] % (TOPO_MAX_COST + 1);
	if (s->prev[v] >= 0)
		s->next[s->prev[v]] = s->next[v];
	else
		s->head[b] = s->next[v];
	if (s->next[v] >= 0)
		s->prev[s->next[v]] = s->prev[v];
}

static void rt_push(struct rt_search *s, int v, int d)
{
	int b = d % (TOPO_MAX_COST + 1);
	s->dist[v] = d;
	s->prev[v] = -1;
	s->next[v] = s->head[b];
	if (s->head[b] >= 0)
		s->prev[s->head[b]] = v;
	s->head[b] = v;
}

/* Least-cost distances from `src` (which is expanded whatever it is);
 * other hosts get a distance but are not expanded, or with switches_only
 * are left out. Buckets are emptied in increasing cost d; a node expanded
 * at d reaches its peers at most TOPO_MAX_COST further, so bucket d mod
 * (TOPO_MAX_COST + 1) holds only nodes at exactly d when its turn comes,
 * and a node is expanded once, at its least cost. */
void rt_search(const struct topo *t, int src, struct rt_search *s, int switches_only)
{
	int nh = t->n_hosts;
	for (int u = 0; u < t->n_nodes; u++)
		s->dist[u] = -1;
	for (int b = 0; b <= TOPO_MAX_COST; b++)
		s->head[b] = -1;
	rt_push(s, src, 0);
	s->links[src] = 0;
	for (int d = 0, waiting = 1; waiting > 0; d++) {
		int *head = &s->head[d % (TOPO_MAX_COST + 1)];
		while (*head >= 0) {
			int v = *head;
			*head = s->next[v];
			if (*head >= 0)
				s->prev[*head] = -1;
			waiting--;
			if (v < nh && v != src)
				continue;          /* hosts do not forward */
			for (int i = t->port_off[v]; i < t->port_off[v + 1]; i++) {
				int q = t->ports[i].peer;
				if ((switches_only && q < nh) || rt_link_out(s, t, i))
					continue;
				int dq = d + rt_link_cost(t, i);
				if (s->dist[q] >= 0 && s->dist[q] <= dq) {
					/* Another least-cost way in: its predecessors are
					 * all expanded before q (a link costs at least 1). */
					if (s->dist[q] == dq && s->links[v] + 1 > s->links[q])
						s->links[q] = s->links[v] + 1;
					continue;
				}
				if (s->dist[q] >= 0)
					rt_unlink(s, q);   /* waiting at a higher cost */
				else
					waiting++;
				rt_push(s, q, dq);
				s->links[q] = s->links[v] + 1;
			}
		}
	}
}

/* Every path on the tables is followed hop by hop into arrays of
 * IDEAL_MAX_HOPS links (ideal times, flow paths, multicast trees): refuse
 * a fabric with a longer least-cost route. A route from switch u toward
 * the search's root crosses at most links[u] links, plus `ends` host
 * links. */
int rt_check_length(const struct topo *t, const struct rt_search *s, int root, int ends, char **err)
{
	int far = -1;
	if (s->down)
		return 0;   /* detours after failures: walks stop at IDEAL_MAX_HOPS (path.h) */
	for (int u = t->n_hosts; u < t->n_nodes; u++)
		if (s->dist[u] >= 0 && (far < 0 || s->links[u] > s->links[far]))
			far = u;
	if (far < 0 || s->links[far] + ends <= IDEAL_MAX_HOPS)
		return 0;
	return err_printf(err, "routing: a route from %s toward %s crosses up to %d links, host links "
			  "included; routes of at most %d links are supported", t->nodes[far].name,
			  t->nodes[root].name, s->links[far] + ends, IDEAL_MAX_HOPS);
}

/* Graphs built by hand (nics_per_host 0): host d is one endpoint and its
 * own group, entered through any of its ports. One search per host. */
static int rt_build_hosts(struct rt_build *b, char **err)
{
	const struct topo *t = b->t;
	struct rt_search *s = &b->s;
	int n = t->n_nodes, nh = t->n_hosts;
	const int *dist = s->dist;
	for (int d = 0; d < nh; d++) {
		rt_search(t, d, s, 0);
		if (rt_check_length(t, s, d, 1, err) < 0)
			return -1;
		for (int u = nh; u < n; u++) {
			if (dist[u] < 0 && !s->down)
				return err_printf(err, "routing: switch %s cannot reach host %s",
						  t->nodes[u].name, t->nodes[d].name);
			int m = 0, base = t->port_off[u];
			for (int i = base; dist[u] >= 0 && i < t->port_off[u + 1]; i++) {
				int q = t->ports[i].peer;
				if (rt_link_out(s, t, i))
					continue;
				if (dist[q] >= 0 && dist[q] + rt_link_cost(t, i) == dist[u] && (q >= nh || q == d))
					b->buf[m++] = (uint16_t)(i - base);
			}
			/* The search reached u from d or a switch, so m >= 1;
			 * m == 0 only after failures: no route (ROUTE_UNREACHABLE). */
			if (rt_set(b, u, d, b->buf, m, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* The shared endpoint map: groups are the switches with endpoints, in
 * node order (built topologies), or the hosts (graphs built by hand).
 * 0, or -1 with *err (a NIC wired to a host, out of memory). */
static int rt_groups(struct rt_build *b, char **err)
{
	const struct topo *t = b->t;
	int n = t->n_nodes, nh = t->n_hosts, nics = t->nics_per_host, n_eps = topo_n_eps(t);
	struct route_dst *dst = calloc(1, sizeof *dst);
	if (!dst)
		return err_printf(err, "routing: out of memory");
	b->dst = dst;
	dst->n_eps = n_eps;
	dst->eps = malloc(((size_t)n_eps + 1) * sizeof *dst->eps);
	dst->grp_switch = malloc(((size_t)(nics >= 1 ? n - nh : nh) + 1) * sizeof *dst->grp_switch);
	b->first_ep = malloc(((size_t)(nics >= 1 ? n - nh : nh) + 1) * sizeof *b->first_ep);
	if (!dst->eps || !dst->grp_switch || !b->first_ep)
		return err_printf(err, "routing: out of memory");
	if (nics < 1) {
		for (int d = 0; d < nh; d++) {
			dst->eps[d] = (struct route_ep){ .grp = (uint32_t)d, .port = ROUTE_UNREACHABLE };
			dst->grp_switch[d] = -1;
			b->first_ep[d] = d;
		}
		dst->n_grps = nh;
		return 0;
	}
	int *grp = malloc(((size_t)n + 1) * sizeof *grp);   /* group of each switch, -1 none */
	if (!grp)
		return err_printf(err, "routing: out of memory");
	for (int u = 0; u < n; u++)
		grp[u] = -1;
	for (int e = 0; e < n_eps; e++) {
		int a = t->ports[t->port_off[e / nics] + e % nics].peer;
		if (a < nh) {
			free(grp);
			return err_printf(err, "routing: host %s NIC %d is linked to host %s, not to a switch",
					  t->nodes[e / nics].name, e % nics, t->nodes[a].name);
		}
		grp[a] = 0;
	}
	for (int u = nh; u < n; u++)
		if (grp[u] == 0) {
			grp[u] = dst->n_grps;
			dst->grp_switch[dst->n_grps] = u;
			b->first_ep[dst->n_grps++] = -1;
		}
	for (int e = 0; e < n_eps; e++) {
		int hp = t->port_off[e / nics] + e % nics;
		int g = grp[t->ports[hp].peer];
		dst->eps[e] = (struct route_ep){ .grp = (uint32_t)g,
						 .port = rt_link_out(&b->s, t, hp) ? ROUTE_UNREACHABLE
										   : (uint16_t)t->ports[hp].peer_port };
		if (b->first_ep[g] < 0)
			b->first_ep[g] = e;
	}
	free(grp);
	return 0;
}

int routing_build(const struct topo *t, struct route_table *tables, char **err)
{
	return routing_build_masked(t, tables, NULL, err);
}

int routing_build_masked(const struct topo *t, struct route_table *tables, const uint8_t *down, char **err)
{
	int n = t->n_nodes, nh = t->n_hosts, n_eps = topo_n_eps(t), rc = -1;
	memset(tables, 0, (size_t)n * sizeof *tables);
	struct rt_build b = {
		.t = t,
		.tables = tables,
		.s = {
			.dist = malloc(((size_t)n + 1) * sizeof *b.s.dist),
			.links = malloc(((size_t)n + 1) * sizeof *b.s.links),
			.next = malloc(((size_t)n + 1) * sizeof *b.s.next),
			.prev = malloc(((size_t)n + 1) * sizeof *b.s.prev),
			.down = down,
		},
		.grow = calloc((size_t)n + 1, sizeof *b.grow),
		.buf = malloc((TOPO_MAX_PORTS + 1) * sizeof *b.buf),
	};
	if (!b.s.dist || !b.s.links || !b.s.next || !b.s.prev || !b.grow || !b.buf) {
		err_printf(err, "routing: out of memory");
		goto out;
	}
	for (int l = 0; l < t->n_links; l++)
		if (t->links[l].cost < 1 || t->links[l].cost > TOPO_MAX_COST) {
			err_printf(err, "routing: the link %s - %s has cost %d; expected 1 to %d",
				   t->nodes[t->links[l].a].name, t->nodes[t->links[l].b].name,
				   t->links[l].cost, TOPO_MAX_COST);
			goto out;
		}
	for (int u = nh; u < n; u++)
		if (topo_n_ports(t, u) > TOPO_MAX_PORTS) {
			err_printf(err, "routing: %s has %d ports; at most %d are supported",
				     t->nodes[u].name, topo_n_ports(t, u), TOPO_MAX_PORTS);
			goto out;
		}
	if (rt_groups(&b, err) < 0)
		goto out;
	for (int u = nh; u < n; u++) {
		b.grow[u].local_sid = -1;
		tables[u].n_eps = n_eps;
		tables[u].n_grps = b.dst->n_grps;
		tables[u].dst = b.dst;
		b.dst->refs++;
		tables[u].set_of_grp = malloc(((size_t)b.dst->n_grps + 1) * sizeof *tables[u].set_of_grp);
		if (!tables[u].set_of_grp) {
			err_printf(err, "routing: out of memory");
			goto out;
		}
	}
	if ((t->nics_per_host >= 1 ? rt_build_eps : rt_build_hosts)(&b, err) < 0)
		goto out;
	for (int u = nh; u < n; u++)
		rt_shrink(&tables[u], &b.grow[u]);
	rc = 0;
out:
	if (b.grow)
		for (int u = 0; u < n; u++) {
			free(b.grow[u].slots);
			free(b.grow[u].set_hash);
		}
	free(b.grow);
	free(b.s.dist);
	free(b.s.links);
	free(b.s.next);
	free(b.s.prev);
	free(b.buf);
	free(b.first_ep);
	if (rc < 0) {
		if (b.dst && b.dst->refs == 0) {   /* no table took it */
			free(b.dst->eps);
			free(b.dst->grp_switch);
			free(b.dst);
		}
		routing_free(tables, n);   /* frees the map with the last table holding it */
	}
	return rc;
}

void routing_free(struct route_table *tables, int n_nodes)
{
	if (!tables)
		return;
	for (int u = 0; u < n_nodes; u++) {
		struct route_dst *dst = tables[u].dst;
		if (dst && --dst->refs == 0) {
			free(dst->eps);
			free(dst->grp_switch);
			free(dst);
		}
		free(tables[u].set_of_grp);
		free(tables[u].ports);
		free(tables[u].sets);
		memset(&tables[u], 0, sizeof tables[u]);
	}
}

uint64_t routing_estimate_b(const struct topo *t)
{
	int n = t->n_nodes, nh = t->n_hosts, nics = t->nics_per_host;
	uint64_t switches = (uint64_t)(n - nh), grps = 0, eps = (uint64_t)topo_n_eps(t);
	if (nics < 1) {
		grps = (uint64_t)nh;
	} else if (t->port_off) {
		/* Switches with a host link: every endpoint is one. */
		for (int u = nh; u < n; u++)
			for (int i = t->port_off[u]; i < t->port_off[u + 1]; i++)
				if (t->ports[i].peer < nh) {
					grps++;
					break;
				}
	} else {
		grps = switches;
	}
	/* A uint16 per (switch, group) plus room for its sets, and the shared
	 * endpoint map. */
	return switches * (grps + 64) * sizeof(uint16_t) + eps * sizeof(struct route_ep);
}
