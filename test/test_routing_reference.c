/*
 * test_routing_reference.c — forwarding tables (models/fabric/routing.c)
 * of random graphs against a plain Floyd-Warshall reference: every
 * switch's set toward every endpoint is exactly the ports on a least-cost
 * path, hosts never transit; with and without several NICs per host, with
 * unit and with random link costs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing.h"
#include "routing_fixture.h"
#include "testutil.h"
#include "topo_fixture.h"

static int cost_of(const struct topo *t, int u, int port)
{
	return t->links[t->ports[t->port_off[u] + port].link].cost;
}

static int is_down(const struct topo *t, const uint8_t *down, int u, int port)
{
	return down && down[t->ports[t->port_off[u] + port].link];
}

/* Reference: Floyd-Warshall over the link costs with only switches as
 * intermediate nodes. */
static void check_against_reference(const struct net *n)
{
	const struct topo *t = &n->t;
	int nn = t->n_nodes, nh = t->n_hosts;
	const int inf = 1 << 28;
	int *dd = malloc((size_t)nn * nn * sizeof *dd);
	for (int i = 0; i < nn * nn; i++)
		dd[i] = inf;
	for (int u = 0; u < nn; u++) {
		dd[u * nn + u] = 0;
		for (int i = 0; i < topo_n_ports(t, u); i++)
			if (cost_of(t, u, i) < dd[u * nn + peer_of(t, u, i)])
				dd[u * nn + peer_of(t, u, i)] = cost_of(t, u, i);
	}
	for (int m = nh; m < nn; m++)
		for (int a = 0; a < nn; a++)
			for (int b = 0; b < nn; b++)
				if (dd[a * nn + m] + dd[m * nn + b] < dd[a * nn + b])
					dd[a * nn + b] = dd[a * nn + m] + dd[m * nn + b];
	for (int u = nh; u < nn; u++)
		for (int d = 0; d < nh; d++) {
			uint16_t want[512];
			int m = 0;
			for (int i = 0; i < topo_n_ports(t, u); i++) {
				int q = peer_of(t, u, i);
				if ((q == d && cost_of(t, u, i) == dd[u * nn + d]) ||
				    (q >= nh && dd[q * nn + d] + cost_of(t, u, i) == dd[u * nn + d]))
					want[m++] = (uint16_t)i;
			}
			CU_ASSERT_EQUAL_FATAL(route_n(&n->rt[u], d), m);
			CU_ASSERT(memcmp(route_ports(&n->rt[u], d), want, (size_t)m * sizeof want[0]) == 0);
		}
	free(dd);
}

/* Reference per endpoint when hosts have N > 1 NICs: endpoint e is entered
 * only from the switch a behind host port e % N, so its cost from u is
 * cost(u, a) over switches plus that last link's, and a next hop is that
 * last port itself or a switch closer to a by the hop's link cost. */
static void check_eps_masked(const struct net *n, const uint8_t *down);

static void check_eps_against_reference(const struct net *n)
{
	check_eps_masked(n, NULL);
}

/* The same over the links that are up (down[l] != 0: link l left out): an
 * endpoint behind a down link, or a switch cut off, gets the empty set. */
static void check_eps_masked(const struct net *n, const uint8_t *down)
{
	const struct topo *t = &n->t;
	int nn = t->n_nodes, nh = t->n_hosts, N = t->nics_per_host;
	const int inf = 1 << 28;
	int *dd = malloc((size_t)nn * nn * sizeof *dd);
	for (int i = 0; i < nn * nn; i++)
		dd[i] = inf;
	for (int u = 0; u < nn; u++) {
		dd[u * nn + u] = 0;
		for (int i = 0; i < topo_n_ports(t, u); i++)
			if (u >= nh && peer_of(t, u, i) >= nh && !is_down(t, down, u, i) &&
			    cost_of(t, u, i) < dd[u * nn + peer_of(t, u, i)])
				dd[u * nn + peer_of(t, u, i)] = cost_of(t, u, i);
	}
	for (int m = nh; m < nn; m++)
		for (int a = nh; a < nn; a++)
			for (int b = nh; b < nn; b++)
				if (dd[a * nn + m] + dd[m * nn + b] < dd[a * nn + b])
					dd[a * nn + b] = dd[a * nn + m] + dd[m * nn + b];
	for (int e = 0; e < topo_n_eps(t); e++) {
		const struct topo_port *last = &t->ports[t->port_off[e / N] + e % N];
		int a = last->peer;
		for (int u = nh; u < nn; u++) {
			uint16_t want[512];
			int m = 0;
			for (int i = 0; i < topo_n_ports(t, u); i++) {
				int q = peer_of(t, u, i);
				if (is_down(t, down, u, i))
					continue;
				if ((u == a && i == last->peer_port) ||
				    (q >= nh && dd[q * nn + a] < inf && dd[q * nn + a] + cost_of(t, u, i) == dd[u * nn + a]))
					want[m++] = (uint16_t)i;
			}
			CU_ASSERT_EQUAL_FATAL(route_n(&n->rt[u], e), m);
			if (m)   /* a switch with only empty sets has no port list */
				CU_ASSERT(memcmp(route_ports(&n->rt[u], e), want, (size_t)m * sizeof want[0]) == 0);
		}
	}
	free(dd);
}

/* Random switch graphs; hosts multi-homed (nics 0: one endpoint per host,
 * one to three homes) or with exactly `nics` NICs on random switches (the
 * same switch possibly twice; nics 1 checks the per-switch grouping against
 * the plain reference). Links cost 1, or with max_cost > 1 a random cost
 * from 1 to max_cost each. */
static void random_against_reference(int nics, int max_cost)
{
	for (int iter = 0; iter < 60; iter++) {
		struct net n;
		memset(&n, 0, sizeof n);
		int nh = 1 + rand() % 12, ns = 1 + rand() % 10;
		for (int h = 0; h < nh; h++)
			topo_add_named(&n.t, "host", h, NODE_HOST, 0);
		for (int s = 0; s < ns; s++)
			topo_add_named(&n.t, "sw", s, NODE_SWITCH, 1);
		n.t.n_hosts = nh;
		n.t.nics_per_host = nics;
		/* A chain keeps the switches connected; extra random links
		 * (parallel ones included) make equal-cost choices. */
		for (int s = 1; s < ns; s++)
			topo_add_link(&n.t, nh + rand() % s, nh + s, RATE, DELAY);
		for (int e = rand() % (2 * ns + 1); e > 0; e--) {
			int a = nh + rand() % ns, b = nh + rand() % ns;
			if (a != b)
				topo_add_link(&n.t, a, b, RATE, DELAY);
		}
		for (int h = 0; h < nh; h++)
			for (int e = nics ? nics : 1 + rand() % 3; e > 0; e--)
				topo_add_link(&n.t, h, nh + rand() % ns, RATE, DELAY);
		if (max_cost > 1)
			for (int l = 0; l < n.t.n_links; l++)
				n.t.links[l].cost = 1 + rand() % max_cost;
		topo_finalize(&n.t);
		n.rt = calloc((size_t)n.t.n_nodes, sizeof *n.rt);
		char *err = NULL;
		CU_ASSERT_EQUAL_FATAL(routing_build(&n.t, n.rt, &err), 0);
		check_tables(&n);
		if (nics > 1)
			check_eps_against_reference(&n);
		else
			check_against_reference(&n);
		net_free(&n);
	}
}

static void test_random_against_reference(void)
{
	srand(12345);
	random_against_reference(0, 1);
}

static void test_random_nics_against_reference(void)
{
	srand(54321);
	random_against_reference(1, 1);
	random_against_reference(2, 1);
	random_against_reference(3, 1);
}

/* Link costs: the same graphs with costs up to TOPO_MAX_COST (parallel
 * links of different costs included). */
static void test_random_costs_against_reference(void)
{
	srand(2024);
	random_against_reference(0, 4);
	random_against_reference(2, 4);
	random_against_reference(1, TOPO_MAX_COST);
	random_against_reference(3, TOPO_MAX_COST);
}

/* Twin edge switches (the same switch neighbours over the same costs: one
 * search serves them all, routing_eps.c) in random layered graphs: edge
 * switches in classes that share a random multiset of upper switches and
 * link costs (parallel links included), upper switches linked at random,
 * a few edge switches with neighbours of their own; one or two NICs per
 * host. Checked against Floyd-Warshall whole, then with random links down
 * (twins split, switches and hosts cut off). */
static void random_twins_against_reference(int nics, int max_cost)
{
	for (int iter = 0; iter < 40; iter++) {
		struct net n;
		memset(&n, 0, sizeof n);
		int n_up = 1 + rand() % 5, n_cls = 1 + rand() % 4, per = 1 + rand() % 4;
		int n_edge = n_cls * per + rand() % 3, nh = n_edge + rand() % 6;
		for (int h = 0; h < nh; h++)
			topo_add_named(&n.t, "host", h, NODE_HOST, 0);
		for (int s = 0; s < n_edge; s++)
			topo_add_named(&n.t, "edge", s, NODE_SWITCH, 1);
		for (int s = 0; s < n_up; s++)
			topo_add_named(&n.t, "up", s, NODE_SWITCH, 2);
		n.t.n_hosts = nh;
		n.t.nics_per_host = nics;
		int edge0 = nh, up0 = nh + n_edge;
		int ln[8], lc[8];
		for (int c = 0; c < n_cls; c++) {
			int m = 1 + rand() % 4;
			for (int i = 0; i < m; i++) {
				ln[i] = up0 + rand() % n_up;
				lc[i] = 1 + rand() % max_cost;
			}
			/* Members list their links in different orders. */
			for (int k = 0; k < per; k++) {
				int sw = edge0 + c * per + k;
				for (int i = 0; i < m; i++) {
					int j = (i + k) % m;
					int l = topo_add_link(&n.t, sw, ln[j], RATE, DELAY);
					n.t.links[l].cost = lc[j];
				}
			}
		}
		for (int sw = edge0 + n_cls * per; sw < up0; sw++)
			for (int i = 1 + rand() % 3; i > 0; i--) {
				int l = topo_add_link(&n.t, sw, up0 + rand() % n_up, RATE, DELAY);
				n.t.links[l].cost = 1 + rand() % max_cost;
			}
		for (int s = 1; s < n_up; s++) {
			int l = topo_add_link(&n.t, up0 + rand() % s, up0 + s, RATE, DELAY);
			n.t.links[l].cost = 1 + rand() % max_cost;
		}
		/* Every edge switch gets a host; the rest go anywhere. */
		for (int h = 0; h < nh; h++)
			for (int e = 0; e < nics; e++)
				topo_add_link(&n.t, h, edge0 + (h < n_edge && e == 0 ? h : rand() % n_edge), RATE, DELAY);
		topo_finalize(&n.t);
		n.rt = calloc((size_t)n.t.n_nodes, sizeof *n.rt);
		char *err = NULL;
		int rc = routing_build(&n.t, n.rt, &err);
		if (rc < 0) {   /* switches cut off from each other: no routes, rightly */
			CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot reach"));
			free(err);
			free(n.rt);
			topology_free(&n.t);
			continue;
		}
		check_tables(&n);
		check_eps_masked(&n, NULL);
		routing_free(n.rt, n.t.n_nodes);
		uint8_t *down = calloc((size_t)n.t.n_links, 1);
		for (int l = 0; l < n.t.n_links; l++)
			down[l] = rand() % 6 == 0;
		CU_ASSERT_EQUAL_FATAL(routing_build_masked(&n.t, n.rt, down, &err), 0);
		check_eps_masked(&n, down);
		free(down);
		net_free(&n);
	}
}

static void test_random_twins_against_reference(void)
{
	srand(777);
	random_twins_against_reference(1, 1);
	random_twins_against_reference(2, 1);
	random_twins_against_reference(1, 3);
	random_twins_against_reference(2, 3);
}

TEST_MAIN("routing_reference",
	  { "random graphs against Floyd-Warshall", test_random_against_reference },
	  { "random graphs, several NICs, against Floyd-Warshall", test_random_nics_against_reference },
	  { "random graphs with link costs against Floyd-Warshall", test_random_costs_against_reference },
	  { "twin edge switches, links down, against Floyd-Warshall", test_random_twins_against_reference })
