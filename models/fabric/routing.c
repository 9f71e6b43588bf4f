/*
 * routing.c — least-cost forwarding tables with interned equal-cost sets.
 *
 * A path costs the sum of its links' routing costs (topology.h: 1 unless
 * the topology says otherwise, so by default the hop count). Destinations
 * are endpoints (NIC i of host d, behind d's port i). In a built topology
 * each endpoint hangs off one switch a; every other switch reaches it
 * through a, so one search from a (over the undirected graph, in which
 * hosts are leaves: they get a cost but are not expanded, hosts never
 * forward) gives every switch's next-hop set toward all of a's endpoints:
 * the ports whose peer is a switch closer to a by exactly that port's link
 * cost. a itself sends down the one port facing d's port i, never to
 * another NIC of d (a host with several NICs or links to one switch may
 * not carry transit traffic, and traffic for NIC i must enter on port i).
 * In a graph built by hand (nics_per_host 0) a host is one endpoint,
 * entered through any of its ports: one search from each host, next hops
 * being the ports whose peer is closer by the link's cost and is a switch
 * or that host.
 *
 * The search is Dial's bucket queue, a breadth-first search generalised to
 * small integer costs; with every cost 1 it finds the distances a BFS
 * finds, so the sets (ports ascending) are those of hop-count routing.
 *
 * Sets are interned per switch with a small open-addressing hash keyed on
 * the port list, so a table is one uint16 per destination plus its distinct
 * sets (a fat-tree ToR: k/2 + 1 sets whatever the host count). Cost is
 * O(switches with hosts x (nodes + links) + endpoints x switches): a k=16
 * fat tree (1024 hosts, 320 switches, 3072 links) takes a few
 * milliseconds.
 *
 * Invariants of a built table: set ids < n_sets <= 65535; every set has
 * >= 1 port, ascending, no repeats; no two sets of a switch are equal.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ideal.h"
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
			if (g->set_hash[id] == h && rt->sets[id].n == n &&
			    (n == 0 || memcmp(rt->ports + rt->sets[id].off, p, (size_t)n * sizeof *p) == 0))
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
		struct route_set *ss = realloc(rt->sets, cap * sizeof *ss);
		if (ss)
			rt->sets = ss;
		if (!sh || !ss)
			return -1;
		g->cap_sets = cap;
	}
	if ((uint64_t)g->n_ports + (uint64_t)n > g->cap_ports) {
		uint64_t cap = g->cap_ports ? 2 * (uint64_t)g->cap_ports : 32;
		while (cap < (uint64_t)g->n_ports + (uint64_t)n)
			cap *= 2;
		if (cap > UINT32_MAX)
			cap = UINT32_MAX;   /* a set's offset is 32-bit */
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

/* Interns p[0..m) as switch u's set toward endpoint e. 0, or -1 with *err. */
static int rt_set(const struct topo *t, struct route_table *tables, struct rt_grow *grow,
		  int u, int e, const uint16_t *p, int m, char **err)
{
	int id = rt_intern(&tables[u], &grow[u], p, m);
	if (id == -2)
		return err_printf(err, "routing: switch %s needs more than %d distinct "
				  "next-hop sets", t->nodes[u].name, ROUTING_MAX_SETS);
	if (id < 0)
		return err_printf(err, "routing: out of memory");
	tables[u].set_of_dst[e] = (uint16_t)id;
	return 0;
}

/* The search's state: dist per node (-1: not reached), the most links of
 * a least-cost path to it, and the nodes waiting at cost d in bucket d mod
 * (TOPO_MAX_COST + 1), doubly linked through next and prev. */
struct rt_search {
	int *dist, *links, *next, *prev;
	const uint8_t *down;    /* [n_links]: links to leave out (failures), or NULL */
	int head[TOPO_MAX_COST + 1];
};

static int link_cost(const struct topo *t, int port)
{
	return t->links[t->ports[port].link].cost;
}

/* Whether the link at port is left out of routing (down). */
static int link_out(const struct rt_search *s, const struct topo *t, int port)
{
	return s->down && s->down[t->ports[port].link];
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
 * other hosts get a distance but are not expanded. Buckets are emptied in
 * increasing cost d; a node expanded at d reaches its peers at most
 * TOPO_MAX_COST further, so bucket d mod (TOPO_MAX_COST + 1) holds only
 * nodes at exactly d when its turn comes, and a node is expanded once,
 * at its least cost. */
static void rt_search(const struct topo *t, int src, struct rt_search *s)
{
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
			if (v < t->n_hosts && v != src)
				continue;          /* hosts do not forward */
			for (int i = t->port_off[v]; i < t->port_off[v + 1]; i++) {
				if (link_out(s, t, i))
					continue;
				int q = t->ports[i].peer, dq = d + link_cost(t, i);
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
static int rt_check_length(const struct topo *t, const struct rt_search *s, int root, int ends, char **err)
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

/* Graphs built by hand (nics_per_host 0): host d is one endpoint, entered
 * through any of its ports. One search per host. */
static int rt_build_hosts(const struct topo *t, struct route_table *tables, struct rt_grow *grow,
			  struct rt_search *s, uint16_t *buf, char **err)
{
	int n = t->n_nodes, nh = t->n_hosts;
	const int *dist = s->dist;
	for (int d = 0; d < nh; d++) {
		rt_search(t, d, s);
		if (rt_check_length(t, s, d, 1, err) < 0)
			return -1;
		for (int u = nh; u < n; u++) {
			if (dist[u] < 0 && !s->down)
				return err_printf(err, "routing: switch %s cannot reach host %s",
						  t->nodes[u].name, t->nodes[d].name);
			int m = 0, base = t->port_off[u];
			for (int i = base; dist[u] >= 0 && i < t->port_off[u + 1]; i++) {
				int q = t->ports[i].peer;
				if (link_out(s, t, i))
					continue;
				if (dist[q] >= 0 && dist[q] + link_cost(t, i) == dist[u] && (q >= nh || q == d))
					buf[m++] = (uint16_t)(i - base);
			}
			/* The search reached u from d or a switch, so m >= 1;
			 * m == 0 only after failures: no route (ROUTE_UNREACHABLE). */
			if (rt_set(t, tables, grow, u, d, buf, m, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* Built topologies: endpoint e (NIC i of host d) hangs off exactly one
 * switch a, at d's port i. Every other switch reaches e through a, so its
 * set toward e is its set toward a: one search from a serves every endpoint
 * a carries (a ToR's hosts, a rail's NICs), and a itself sends down the
 * one port facing d's port i. */
static int rt_build_eps(const struct topo *t, struct route_table *tables, struct rt_grow *grow,
			struct rt_search *s, uint16_t *buf, char **err)
{
	const int *dist = s->dist;
	int n = t->n_nodes, nh = t->n_hosts, nics = t->nics_per_host, n_eps = topo_n_eps(t), rc = -1;
	int *first = calloc((size_t)n + 2, sizeof *first);    /* endpoints by switch, counting sort */
	int *order = malloc(((size_t)n_eps + 1) * sizeof *order);
	int *gid = malloc(((size_t)n + 1) * sizeof *gid);     /* set toward the group's switch */
	if (!first || !order || !gid) {
		err_printf(err, "routing: out of memory");
		goto out;
	}
	for (int e = 0; e < n_eps; e++) {
		int a = t->ports[t->port_off[e / nics] + e % nics].peer;
		if (a < nh) {
			err_printf(err, "routing: host %s NIC %d is linked to host %s, not to a switch",
				   t->nodes[e / nics].name, e % nics, t->nodes[a].name);
			goto out;
		}
		first[a + 1]++;
	}
	for (int u = 0; u < n; u++)
		first[u + 1] += first[u];
	for (int e = 0; e < n_eps; e++)
		order[first[t->ports[t->port_off[e / nics] + e % nics].peer]++] = e;
	/* first[u] now ends u's group; shift back so [first[u], first[u + 1]) is it. */
	for (int u = n; u > 0; u--)
		first[u] = first[u - 1];
	first[0] = 0;
	for (int a = nh; a < n; a++) {
		if (first[a] == first[a + 1])
			continue;
		rt_search(t, a, s);
		if (rt_check_length(t, s, a, 2, err) < 0)
			goto out;
		for (int u = nh; u < n; u++) {
			if (dist[u] < 0 && !s->down) {
				int e = order[first[a]];
				if (nics > 1)
					err_printf(err, "routing: switch %s cannot reach host %s NIC %d",
						   t->nodes[u].name, t->nodes[e / nics].name, e % nics);
				else
					err_printf(err, "routing: switch %s cannot reach host %s",
						   t->nodes[u].name, t->nodes[e / nics].name);
				goto out;
			}
			if (u == a)
				continue;
			int m = 0, base = t->port_off[u];
			for (int i = base; dist[u] >= 0 && i < t->port_off[u + 1]; i++) {
				int q = t->ports[i].peer;
				if (q >= nh && !link_out(s, t, i) && dist[q] >= 0 &&
				    dist[q] + link_cost(t, i) == dist[u])
					buf[m++] = (uint16_t)(i - base);
			}
			/* u was reached from a switch, so m >= 1; m == 0 only after
			 * failures: no route (ROUTE_UNREACHABLE). */
			if (rt_set(t, tables, grow, u, order[first[a]], buf, m, err) < 0)
				goto out;
			gid[u] = tables[u].set_of_dst[order[first[a]]];
		}
		for (int k = first[a]; k < first[a + 1]; k++) {
			int e = order[k];
			int hp = t->port_off[e / nics] + e % nics;
			const struct topo_port *last = &t->ports[hp];
			buf[0] = (uint16_t)last->peer_port;
			if (rt_set(t, tables, grow, a, e, buf, link_out(s, t, hp) ? 0 : 1, err) < 0)
				goto out;
			for (int u = nh; u < n; u++)
				if (u != a)
					tables[u].set_of_dst[e] = (uint16_t)gid[u];
		}
	}
	rc = 0;
out:
	free(first);
	free(order);
	free(gid);
	return rc;
}

int routing_build(const struct topo *t, struct route_table *tables, char **err)
{
	return routing_build_masked(t, tables, NULL, err);
}

int routing_build_masked(const struct topo *t, struct route_table *tables, const uint8_t *down, char **err)
{
	int n = t->n_nodes, nh = t->n_hosts, n_eps = topo_n_eps(t), rc = -1;
	memset(tables, 0, (size_t)n * sizeof *tables);
	struct rt_search s = {
		.dist = malloc(((size_t)n + 1) * sizeof *s.dist),
		.links = malloc(((size_t)n + 1) * sizeof *s.links),
		.next = malloc(((size_t)n + 1) * sizeof *s.next),
		.prev = malloc(((size_t)n + 1) * sizeof *s.prev),
		.down = down,
	};
	struct rt_grow *grow = calloc((size_t)n + 1, sizeof *grow);
	uint16_t *buf = malloc((TOPO_MAX_PORTS + 1) * sizeof *buf);
	if (!s.dist || !s.links || !s.next || !s.prev || !grow || !buf) {
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
	for (int u = nh; u < n; u++) {
		if (topo_n_ports(t, u) > TOPO_MAX_PORTS) {
			err_printf(err, "routing: %s has %d ports; at most %d are supported",
				     t->nodes[u].name, topo_n_ports(t, u), TOPO_MAX_PORTS);
			goto out;
		}
		tables[u].n_eps = n_eps;
		tables[u].set_of_dst = malloc(((size_t)n_eps + 1) * sizeof *tables[u].set_of_dst);
		if (!tables[u].set_of_dst) {
			err_printf(err, "routing: out of memory");
			goto out;
		}
	}
	if ((t->nics_per_host >= 1 ? rt_build_eps : rt_build_hosts)(t, tables, grow, &s, buf, err) < 0)
		goto out;
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
	free(s.dist);
	free(s.links);
	free(s.next);
	free(s.prev);
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
		free(tables[u].ports);
		free(tables[u].sets);
		memset(&tables[u], 0, sizeof tables[u]);
	}
}
