/*
 * test_topology.c — the topology builders (models/topo/topology.c and
 * topo_*.c): counts, names, tiers, port numbering, link rates, port
 * symmetry, hosts with several NICs (rails, or multi-homed to one switch).
 * The registry, impossible shapes, HPCC files and the builder helpers are
 * in test_topology_kinds.c.
 *
 * Each topology is given as its [topology] keys in scenario text, loaded
 * and built by topo_fixture.h (100 Gb/s links of 1 us, host links at
 * 25 Gb/s unless a test says otherwise). A shape the loader refuses (an
 * odd k, zero hosts) is checked by the loader's located message; one it
 * accepts but the builder refuses (too many ports, hosts that are not a
 * whole number) by the builder's own message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#define TOPO_HOST_LINK_RATE "25Gbps"
#include "topo_fixture.h"
#include "topology.h"

#define HOST_RATE (25ull * 1000 * 1000 * 1000)

/* Every port's peer points back; every link appears at exactly its two
 * ends; host links run at the host rate, switch links at link_rate. */
static void check_invariants(const struct topo *t, uint64_t host_rate)
{
	int ends = 0;
	for (int u = 0; u < t->n_nodes; u++) {
		CU_ASSERT_EQUAL(t->nodes[u].kind == NODE_HOST, u < t->n_hosts);
		CU_ASSERT_EQUAL(t->nodes[u].tier == 0, u < t->n_hosts);
		CU_ASSERT_EQUAL(topo_find(t, t->nodes[u].name), u);
		for (int i = 0; i < topo_n_ports(t, u); i++) {
			const struct topo_port *p = port_at(t, u, i);
			ends++;
			CU_ASSERT_FATAL(p->peer >= 0 && p->peer < t->n_nodes);
			CU_ASSERT_FATAL(p->peer_port >= 0 && p->peer_port < topo_n_ports(t, p->peer));
			const struct topo_port *back = port_at(t, p->peer, p->peer_port);
			CU_ASSERT_EQUAL(back->peer, u);
			CU_ASSERT_EQUAL(back->peer_port, i);
			CU_ASSERT_EQUAL(back->link, p->link);
			const struct topo_link *l = &t->links[p->link];
			CU_ASSERT((l->a == u && l->b == p->peer) || (l->b == u && l->a == p->peer));
			CU_ASSERT_EQUAL(l->delay_ps, DELAY);
			bool host_link = u < t->n_hosts || p->peer < t->n_hosts;
			CU_ASSERT_EQUAL(l->rate_bps, host_link ? host_rate : RATE);
		}
	}
	CU_ASSERT_EQUAL(ends, 2 * t->n_links);
	/* End a is the lower one. */
	for (int i = 0; i < t->n_links; i++)
		CU_ASSERT(t->nodes[t->links[i].a].tier <= t->nodes[t->links[i].b].tier);
	/* Switches come tier by tier after the hosts. */
	for (int u = 1; u < t->n_nodes; u++)
		CU_ASSERT(t->nodes[u - 1].tier <= t->nodes[u].tier);
}

static int count_prefix(const struct topo *t, const char *prefix, int tier)
{
	int n = 0;
	char name[TOPO_NAME_MAX];
	for (;; n++) {
		snprintf(name, sizeof name, "%s%d", prefix, n);
		int u = topo_find(t, name);
		if (u < 0)
			break;
		CU_ASSERT_EQUAL(t->nodes[u].tier, tier);
		CU_ASSERT_EQUAL(t->nodes[u].kind, tier ? NODE_SWITCH : NODE_HOST);
	}
	return n;
}

static void check_fat_tree(int k, double os)
{
	char keys[128];
	snprintf(keys, sizeof keys, "type = fat_tree\nk = %d\noversubscription = %g", k, os);
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of(keys, &t), 0);
	int half = k / 2, hpt = (int)(half * os);
	int n_tor = k * half, n_core = half * half, n_host = n_tor * hpt;
	CU_ASSERT_EQUAL(t.n_hosts, n_host);
	CU_ASSERT_EQUAL(t.n_nodes, n_host + 2 * n_tor + n_core);
	CU_ASSERT_EQUAL(t.n_links, n_host + 2 * n_tor * half);
	CU_ASSERT_EQUAL(count_prefix(&t, "host", 0), n_host);
	CU_ASSERT_EQUAL(count_prefix(&t, "tor", 1), n_tor);
	CU_ASSERT_EQUAL(count_prefix(&t, "agg", 2), n_tor);
	CU_ASSERT_EQUAL(count_prefix(&t, "core", 3), n_core);
	check_invariants(&t, HOST_RATE);

	int tor0 = topo_find(&t, "tor0"), agg0 = topo_find(&t, "agg0"), core0 = topo_find(&t, "core0");
	CU_ASSERT_EQUAL(tor0, n_host);
	CU_ASSERT_EQUAL(agg0, n_host + n_tor);
	CU_ASSERT_EQUAL(core0, n_host + 2 * n_tor);
	for (int h = 0; h < n_host; h++) {
		CU_ASSERT_EQUAL(topo_n_ports(&t, h), 1);
		CU_ASSERT_EQUAL(port_at(&t, h, 0)->peer, tor0 + h / hpt);
		CU_ASSERT_EQUAL(port_at(&t, h, 0)->peer_port, h % hpt);
	}
	for (int s = 0; s < n_tor; s++) {
		int p = s / half, j = s % half;
		CU_ASSERT_EQUAL(topo_n_ports(&t, tor0 + s), hpt + half);
		CU_ASSERT_EQUAL(topo_n_ports(&t, agg0 + s), k);
		for (int i = 0; i < hpt; i++)      /* ToR ports 0..hpt-1 face hosts */
			CU_ASSERT_EQUAL(port_at(&t, tor0 + s, i)->peer, s * hpt + i);
		for (int i = 0; i < half; i++) {
			CU_ASSERT_EQUAL(port_at(&t, tor0 + s, hpt + i)->peer, agg0 + p * half + i);
			CU_ASSERT_EQUAL(port_at(&t, agg0 + s, i)->peer, tor0 + p * half + i);
			CU_ASSERT_EQUAL(port_at(&t, agg0 + s, half + i)->peer, core0 + j * half + i);
		}
	}
	for (int cc = 0; cc < n_core; cc++) {
		CU_ASSERT_EQUAL(topo_n_ports(&t, core0 + cc), k);
		for (int p = 0; p < k; p++)
			CU_ASSERT_EQUAL(port_at(&t, core0 + cc, p)->peer, agg0 + p * half + cc / half);
	}
	if (os == 1)
		for (int u = n_host; u < t.n_nodes; u++)
			CU_ASSERT_EQUAL(topo_n_ports(&t, u), k);
	topology_free(&t);
}

static void test_fat_tree_k4(void)
{
	check_fat_tree(4, 1);
	/* The numbers the brief states, independently of the formulas above. */
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = fat_tree\nk = 4", &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 16);
	CU_ASSERT_EQUAL(t.n_nodes, 16 + 8 + 8 + 4);
	CU_ASSERT_EQUAL(t.n_links, 48);
	CU_ASSERT_STRING_EQUAL(t.nodes[15].name, "host15");
	CU_ASSERT_STRING_EQUAL(t.nodes[16].name, "tor0");
	CU_ASSERT_STRING_EQUAL(t.nodes[24].name, "agg0");
	CU_ASSERT_STRING_EQUAL(t.nodes[32].name, "core0");
	CU_ASSERT_STRING_EQUAL(t.nodes[35].name, "core3");
	topology_free(&t);
}

static void test_fat_tree_sizes(void)
{
	check_fat_tree(2, 1);
	check_fat_tree(8, 1);
	check_fat_tree(4, 2);     /* 4 hosts per ToR: 32 hosts */
	check_fat_tree(4, 1.5);   /* 3 hosts per ToR */
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = fat_tree\nk = 8", &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 128);
	topology_free(&t);
	CU_ASSERT_EQUAL_FATAL(topo_of("type = fat_tree\nk = 4\noversubscription = 2", &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 32);
	topology_free(&t);
}

static void test_star(void)
{
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = star\nhosts = 5", &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 5);
	CU_ASSERT_EQUAL(t.n_nodes, 6);
	CU_ASSERT_EQUAL(t.n_links, 5);
	CU_ASSERT_STRING_EQUAL(t.nodes[5].name, "sw0");
	CU_ASSERT_EQUAL(t.nodes[5].tier, 1);
	CU_ASSERT_EQUAL(topo_n_ports(&t, 5), 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(port_at(&t, 5, i)->peer, i);
	check_invariants(&t, HOST_RATE);
	topology_free(&t);
}

static void test_dumbbell(void)
{
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = dumbbell\nhosts_left = 3\nhosts_right = 2", &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 5);
	CU_ASSERT_EQUAL(t.n_nodes, 7);
	CU_ASSERT_EQUAL(t.n_links, 6);
	int sw0 = topo_find(&t, "sw0"), sw1 = topo_find(&t, "sw1");
	CU_ASSERT_EQUAL(sw0, 5);
	CU_ASSERT_EQUAL(sw1, 6);
	CU_ASSERT_EQUAL(topo_n_ports(&t, sw0), 4);
	CU_ASSERT_EQUAL(topo_n_ports(&t, sw1), 3);
	for (int h = 0; h < 5; h++)
		CU_ASSERT_EQUAL(port_at(&t, h, 0)->peer, h < 3 ? sw0 : sw1);
	/* The bottleneck is the last port of each switch, at link_rate. */
	CU_ASSERT_EQUAL(port_at(&t, sw0, 3)->peer, sw1);
	CU_ASSERT_EQUAL(port_at(&t, sw0, 3)->peer_port, 2);
	CU_ASSERT_EQUAL(t.links[port_at(&t, sw0, 3)->link].rate_bps, RATE);
	CU_ASSERT_EQUAL(port_at(&t, sw1, 0)->peer, 3);
	check_invariants(&t, HOST_RATE);
	topology_free(&t);
}

/* Dragonfly (Kim et al., ISCA 2008): a = 4 routers per group, p = 2 hosts
 * per router, h = 2 global links per router, so a x h + 1 = 9 groups, each
 * pair joined by exactly one global link, wired consecutively; global
 * links cost 3 to route, the others 1 (minimal routing: test_routing.c). */
static void test_dragonfly(void)
{
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = dragonfly\nrouters_per_group = 4\nhosts_per_router = 2\n"
				      "global_links = 2\nglobal_link_delay = 5us", &t), 0);
	const int g = 9, a = 4, p = 2, h = 2, r0 = g * a * p;
	CU_ASSERT_EQUAL(t.n_hosts, g * a * p);
	CU_ASSERT_EQUAL(t.n_nodes, g * a * p + g * a);
	CU_ASSERT_EQUAL(t.n_links, g * a * p + g * a * (a - 1) / 2 + g * (g - 1) / 2);
	CU_ASSERT_EQUAL(topo_find(&t, "g0r0"), r0);
	CU_ASSERT_EQUAL(topo_find(&t, "g8r3"), r0 + g * a - 1);
	/* Every router: its hosts first, then a - 1 local links, then h global ones. */
	for (int r = r0; r < t.n_nodes; r++) {
		CU_ASSERT_EQUAL(topo_n_ports(&t, r), p + (a - 1) + h);
		for (int i = 0; i < p; i++) {
			CU_ASSERT_EQUAL(port_at(&t, r, i)->peer, (r - r0) * p + i);
			CU_ASSERT_EQUAL(t.links[port_at(&t, r, i)->link].cost, 1);
		}
		for (int i = p; i < p + a - 1; i++) {
			CU_ASSERT_EQUAL((port_at(&t, r, i)->peer - r0) / a, (r - r0) / a);
			CU_ASSERT_EQUAL(t.links[port_at(&t, r, i)->link].cost, 1);
		}
		for (int i = p + a - 1; i < p + a - 1 + h; i++) {
			const struct topo_link *l = &t.links[port_at(&t, r, i)->link];
			CU_ASSERT_NOT_EQUAL((port_at(&t, r, i)->peer - r0) / a, (r - r0) / a);
			CU_ASSERT_EQUAL(l->delay_ps, 5 * SIMTIME_US);
			CU_ASSERT_EQUAL(l->rate_bps, RATE);
			CU_ASSERT_EQUAL(l->cost, 3);
		}
	}
	/* Exactly one global link between each pair of groups; the one between
	 * groups i < j leaves router (j - 1) / h of group i and enters router
	 * i / h of group j. */
	int pairs[9][9] = { { 0 } };
	for (int l = 0; l < t.n_links; l++) {
		int ga = (t.links[l].a - r0) / a, gb = (t.links[l].b - r0) / a;
		if (t.links[l].a >= r0 && ga != gb) {
			pairs[ga][gb]++;
			pairs[gb][ga]++;
			CU_ASSERT(ga < gb);
			CU_ASSERT_EQUAL(t.links[l].a, r0 + ga * a + (gb - 1) / h);
			CU_ASSERT_EQUAL(t.links[l].b, r0 + gb * a + ga / h);
		}
	}
	for (int i = 0; i < g; i++)
		for (int j = 0; j < g; j++)
			CU_ASSERT_EQUAL(pairs[i][j], i != j);
	topology_free(&t);

	/* Fewer groups than the routers allow: unused global ports; global
	 * links take link_delay by default. */
	CU_ASSERT_EQUAL_FATAL(topo_of("type = dragonfly\nrouters_per_group = 2\nhosts_per_router = 1\n"
				      "global_links = 2\ngroups = 3", &t), 0);
	CU_ASSERT_EQUAL(t.n_links, 3 * 2 + 3 * 1 + 3);
	check_invariants(&t, HOST_RATE);
	topology_free(&t);
	topo_expect_load_error("type = dragonfly\nrouters_per_group = 2\nhosts_per_router = 1\n"
			       "global_links = 2\ngroups = 6",
			       "topo.ini:6: [topology] groups = '6': expected at most 5 groups: routers_per_group "
			       "x global_links = 2 x 2 global ports per group, one for each other group");
	topo_expect_build_error("type = dragonfly\nrouters_per_group = 30000\nhosts_per_router = 30000\n"
				"global_links = 10000\ngroups = 2",
				"[topology] hosts_per_router = 30000, routers_per_group = 30000, "
				"global_links = 10000: a router would have 69999 ports");
	topo_expect_build_error("type = dragonfly\nrouters_per_group = 300\nhosts_per_router = 100\n"
				"global_links = 100",
				"[topology] routers_per_group = 300, hosts_per_router = 100, global_links = 100, "
				"groups = 30001: 909030300 nodes and");
	topo_expect_load_error("type = dragonfly\nrouters_per_group = 2\nhosts_per_router = 1",
			       "missing required key 'global_links' for type dragonfly");
}

static void test_leaf_spine(void)
{
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = leaf_spine\nleaves = 4\nspines = 2\nhosts_per_leaf = 3", &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 12);
	CU_ASSERT_EQUAL(t.n_nodes, 18);
	CU_ASSERT_EQUAL(t.n_links, 12 + 8);
	CU_ASSERT_EQUAL(count_prefix(&t, "host", 0), 12);
	CU_ASSERT_EQUAL(count_prefix(&t, "leaf", 1), 4);
	CU_ASSERT_EQUAL(count_prefix(&t, "spine", 2), 2);
	int leaf0 = topo_find(&t, "leaf0"), spine0 = topo_find(&t, "spine0");
	CU_ASSERT_EQUAL(leaf0, 12);
	CU_ASSERT_EQUAL(spine0, 16);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(topo_n_ports(&t, leaf0 + i), 5);
		for (int h = 0; h < 3; h++)
			CU_ASSERT_EQUAL(port_at(&t, leaf0 + i, h)->peer, i * 3 + h);
		for (int s = 0; s < 2; s++) {
			CU_ASSERT_EQUAL(port_at(&t, leaf0 + i, 3 + s)->peer, spine0 + s);
			CU_ASSERT_EQUAL(port_at(&t, spine0 + s, i)->peer, leaf0 + i);
		}
	}
	check_invariants(&t, HOST_RATE);
	topology_free(&t);
}

/* rail_optimized: H hosts, N NICs (leaves), S spines. NIC i of every host
 * on leaf i; every leaf on every spine. */
static void check_rail(int H, int N, int S)
{
	char keys[128];
	snprintf(keys, sizeof keys, "type = rail_optimized\nhosts = %d\nspines = %d\nnics_per_host = %d", H, S, N);
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of(keys, &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, H);
	CU_ASSERT_EQUAL(t.nics_per_host, N);
	CU_ASSERT_EQUAL(topo_n_eps(&t), H * N);
	CU_ASSERT_EQUAL(t.n_nodes, H + N + S);
	CU_ASSERT_EQUAL(t.n_links, H * N + N * S);
	CU_ASSERT_EQUAL(count_prefix(&t, "host", 0), H);
	CU_ASSERT_EQUAL(count_prefix(&t, "leaf", 1), N);
	CU_ASSERT_EQUAL(count_prefix(&t, "spine", 2), S);
	int leaf0 = topo_find(&t, "leaf0"), spine0 = topo_find(&t, "spine0");
	CU_ASSERT_EQUAL(leaf0, H);
	CU_ASSERT_EQUAL(spine0, H + N);
	for (int h = 0; h < H; h++) {
		CU_ASSERT_EQUAL(topo_n_ports(&t, h), N);
		for (int i = 0; i < N; i++) {       /* host port i = NIC i, on rail i */
			CU_ASSERT_EQUAL(port_at(&t, h, i)->peer, leaf0 + i);
			CU_ASSERT_EQUAL(port_at(&t, h, i)->peer_port, h);
		}
	}
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(topo_n_ports(&t, leaf0 + i), H + S);
		for (int h = 0; h < H; h++) {       /* leaf i port h = NIC i of host h */
			CU_ASSERT_EQUAL(port_at(&t, leaf0 + i, h)->peer, h);
			CU_ASSERT_EQUAL(port_at(&t, leaf0 + i, h)->peer_port, i);
		}
		for (int s = 0; s < S; s++) {
			CU_ASSERT_EQUAL(port_at(&t, leaf0 + i, H + s)->peer, spine0 + s);
			CU_ASSERT_EQUAL(port_at(&t, spine0 + s, i)->peer, leaf0 + i);
		}
	}
	for (int s = 0; s < S; s++)
		CU_ASSERT_EQUAL(topo_n_ports(&t, spine0 + s), N);
	check_invariants(&t, HOST_RATE);
	topology_free(&t);
}

static void test_rail(void)
{
	check_rail(4, 8, 2);
	check_rail(1, 1, 1);
	check_rail(16, 2, 5);
	/* The names docs/scenario.md gives, independently of the checks above. */
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = rail_optimized\nhosts = 2\nspines = 3\nnics_per_host = 4", &t), 0);
	CU_ASSERT_STRING_EQUAL(t.nodes[1].name, "host1");
	CU_ASSERT_STRING_EQUAL(t.nodes[2].name, "leaf0");
	CU_ASSERT_STRING_EQUAL(t.nodes[5].name, "leaf3");
	CU_ASSERT_STRING_EQUAL(t.nodes[6].name, "spine0");
	CU_ASSERT_STRING_EQUAL(t.nodes[8].name, "spine2");
	CU_ASSERT_EQUAL(t.n_links, 8 + 12);
	topology_free(&t);
}

/* Single-NIC builders with nics_per_host = N: each host link becomes N
 * consecutive links to the same switch (host port i = NIC i), and the
 * switch's down ports are (host, NIC) in order, before its up ports. */
static void test_multi_homed(void)
{
	const int N = 4;
	char keys[64];
	snprintf(keys, sizeof keys, "type = star\nhosts = 3\nnics_per_host = %d", N);
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of(keys, &t), 0);
	CU_ASSERT_EQUAL(t.n_links, 3 * N);
	CU_ASSERT_EQUAL(topo_n_eps(&t), 3 * N);
	CU_ASSERT_EQUAL(topo_n_ports(&t, 3), 3 * N);
	for (int h = 0; h < 3; h++)
		for (int i = 0; i < N; i++) {       /* sw0 port e = endpoint e */
			CU_ASSERT_EQUAL(port_at(&t, 3, h * N + i)->peer, h);
			CU_ASSERT_EQUAL(port_at(&t, 3, h * N + i)->peer_port, i);
			CU_ASSERT_EQUAL(port_at(&t, h, i)->peer_port, h * N + i);
		}
	check_invariants(&t, HOST_RATE);
	topology_free(&t);

	CU_ASSERT_EQUAL_FATAL(topo_of("type = leaf_spine\nleaves = 2\nspines = 3\nhosts_per_leaf = 2\n"
				      "nics_per_host = 2", &t), 0);
	CU_ASSERT_EQUAL(t.n_links, 4 * 2 + 2 * 3);
	int leaf1 = topo_find(&t, "leaf1");
	CU_ASSERT_EQUAL(topo_n_ports(&t, leaf1), 2 * 2 + 3);
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 0)->peer, 2);        /* host2 NIC 0 */
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 3)->peer, 3);        /* host3 NIC 1 */
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 3)->peer_port, 1);
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 4)->peer, topo_find(&t, "spine0"));
	check_invariants(&t, HOST_RATE);
	topology_free(&t);

	CU_ASSERT_EQUAL_FATAL(topo_of("type = fat_tree\nk = 4\nnics_per_host = 2", &t), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 16);
	CU_ASSERT_EQUAL(t.n_links, 16 * 2 + 32);
	int tor0 = topo_find(&t, "tor0");
	CU_ASSERT_EQUAL(topo_n_ports(&t, tor0), 2 * 2 + 2);
	CU_ASSERT_EQUAL(port_at(&t, tor0, 3)->peer, 1);
	CU_ASSERT_EQUAL(port_at(&t, tor0, 4)->peer, topo_find(&t, "agg0"));
	check_invariants(&t, HOST_RATE);
	topology_free(&t);

	CU_ASSERT_EQUAL_FATAL(topo_of("type = dumbbell\nhosts_left = 2\nhosts_right = 1\nnics_per_host = 3", &t), 0);
	int sw0 = topo_find(&t, "sw0"), sw1 = topo_find(&t, "sw1");
	CU_ASSERT_EQUAL(topo_n_ports(&t, sw0), 2 * 3 + 1);
	CU_ASSERT_EQUAL(port_at(&t, sw0, 6)->peer, sw1);      /* the bottleneck stays last */
	CU_ASSERT_EQUAL(port_at(&t, sw1, 3)->peer, sw0);
	CU_ASSERT_EQUAL(t.links[port_at(&t, sw0, 6)->link].rate_bps, RATE);
	check_invariants(&t, HOST_RATE);
	topology_free(&t);

	/* One NIC: exactly the single-NIC layout, whether nics_per_host = 1 is
	 * given or left to its default. */
	const char *one_nic[] = { "type = star\nhosts = 3\nnics_per_host = 1", "type = star\nhosts = 3" };
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(topo_of(one_nic[i], &t), 0);
		CU_ASSERT_EQUAL(t.nics_per_host, 1);
		CU_ASSERT_EQUAL(t.n_links, 3);
		check_invariants(&t, HOST_RATE);
		topology_free(&t);
	}
	topo_expect_load_error("type = star\nhosts = 3\nnics_per_host = 0",
			       "topo.ini:4: [topology] nics_per_host = '0': expected an integer >= 1");
}

static void test_host_rate_default(void)
{
	/* Unset in the scenario: the loader fills host_link_rate with
	 * link_rate, and host links run at it. */
	struct config cfg;
	char *err = NULL;
	const char *text = "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n";
	CU_ASSERT_EQUAL_FATAL(scenario_load_text(&cfg, TOPO_INI, text, strlen(text), NULL, 0, &err), 0);
	CU_ASSERT_EQUAL(topology_cfg(&cfg)->host_link_rate_bps, RATE);
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topology_build(&cfg, &t, &err), 0);
	check_invariants(&t, RATE);
	topology_free(&t);
	config_free(&cfg);
	/* Given, it wins over link_rate (the fixture's 25 Gb/s; and 400 Gb/s,
	 * faster than the switch links). */
	CU_ASSERT_EQUAL_FATAL(topo_of("type = star\nhosts = 2", &t), 0);
	check_invariants(&t, HOST_RATE);
	topology_free(&t);
	CU_ASSERT_EQUAL_FATAL(topo_of("type = star\nhosts = 2\nhost_link_rate = 400Gbps", &t), 0);
	check_invariants(&t, 400 * 1000ull * 1000 * 1000);
	topology_free(&t);
}

TEST_MAIN("topology",
	  { "fat_tree k=4", test_fat_tree_k4 },
	  { "fat_tree sizes and oversubscription", test_fat_tree_sizes },
	  { "star", test_star },
	  { "dumbbell", test_dumbbell },
	  { "leaf_spine", test_leaf_spine },
	  { "dragonfly: groups, local and global links, arrangement", test_dragonfly },
	  { "rail_optimized: rails, spines, names", test_rail },
	  { "several NICs multi-homed to one switch", test_multi_homed },
	  { "host_link_rate defaults to link_rate", test_host_rate_default })
