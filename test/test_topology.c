/*
 * test_topology.c — the topology builders (models/topology.c,
 * topo_fat_tree.c, topo_simple.c, topo_rail.c): counts, names, tiers, port
 * numbering, link rates, port symmetry, hosts with several NICs (rails, or
 * multi-homed to one switch) and the errors of impossible shapes.
 *
 * The config loader is tested elsewhere; here a struct config is filled by
 * hand so these tests do not depend on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo_fixture.h"
#include "topology.h"

#define HOST_RATE (25ull * 1000 * 1000 * 1000)

static struct config make_cfg(enum cfg_topo_type type)
{
	return topo_cfg(type, HOST_RATE);
}

static const struct topo_port *port_at(const struct topo *t, int u, int i)
{
	return &t->ports[t->port_off[u] + i];
}

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
	struct config c = make_cfg(TOPO_FAT_TREE);
	c.topology.k = k;
	c.topology.oversubscription = os;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_PTR_NULL(err);
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
	struct config c = make_cfg(TOPO_FAT_TREE);
	c.topology.k = 4;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
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
	struct config c = make_cfg(TOPO_FAT_TREE);
	c.topology.k = 8;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 128);
	topology_free(&t);
	c.topology.k = 4;
	c.topology.oversubscription = 2;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 32);
	topology_free(&t);
}

static void test_star(void)
{
	struct config c = make_cfg(TOPO_STAR);
	c.topology.hosts = 5;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
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
	struct config c = make_cfg(TOPO_DUMBBELL);
	c.topology.hosts_left = 3;
	c.topology.hosts_right = 2;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
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

static void test_leaf_spine(void)
{
	struct config c = make_cfg(TOPO_LEAF_SPINE);
	c.topology.leaves = 4;
	c.topology.spines = 2;
	c.topology.hosts_per_leaf = 3;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
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
	struct config c = make_cfg(TOPO_RAIL_OPTIMIZED);
	c.topology.hosts = H;
	c.topology.spines = S;
	c.topology.nics_per_host = N;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_PTR_NULL(err);
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
	/* The names SCENARIO.md gives, independently of the checks above. */
	struct config c = make_cfg(TOPO_RAIL_OPTIMIZED);
	c.topology.hosts = 2;
	c.topology.spines = 3;
	c.topology.nics_per_host = 4;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
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
	struct config c = make_cfg(TOPO_STAR);
	c.topology.hosts = 3;
	c.topology.nics_per_host = N;
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
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

	c = make_cfg(TOPO_LEAF_SPINE);
	c.topology.leaves = 2;
	c.topology.spines = 3;
	c.topology.hosts_per_leaf = 2;
	c.topology.nics_per_host = 2;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_links, 4 * 2 + 2 * 3);
	int leaf1 = topo_find(&t, "leaf1");
	CU_ASSERT_EQUAL(topo_n_ports(&t, leaf1), 2 * 2 + 3);
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 0)->peer, 2);        /* host2 NIC 0 */
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 3)->peer, 3);        /* host3 NIC 1 */
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 3)->peer_port, 1);
	CU_ASSERT_EQUAL(port_at(&t, leaf1, 4)->peer, topo_find(&t, "spine0"));
	check_invariants(&t, HOST_RATE);
	topology_free(&t);

	c = make_cfg(TOPO_FAT_TREE);
	c.topology.k = 4;
	c.topology.nics_per_host = 2;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 16);
	CU_ASSERT_EQUAL(t.n_links, 16 * 2 + 32);
	int tor0 = topo_find(&t, "tor0");
	CU_ASSERT_EQUAL(topo_n_ports(&t, tor0), 2 * 2 + 2);
	CU_ASSERT_EQUAL(port_at(&t, tor0, 3)->peer, 1);
	CU_ASSERT_EQUAL(port_at(&t, tor0, 4)->peer, topo_find(&t, "agg0"));
	check_invariants(&t, HOST_RATE);
	topology_free(&t);

	c = make_cfg(TOPO_DUMBBELL);
	c.topology.hosts_left = 2;
	c.topology.hosts_right = 1;
	c.topology.nics_per_host = 3;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	int sw0 = topo_find(&t, "sw0"), sw1 = topo_find(&t, "sw1");
	CU_ASSERT_EQUAL(topo_n_ports(&t, sw0), 2 * 3 + 1);
	CU_ASSERT_EQUAL(port_at(&t, sw0, 6)->peer, sw1);      /* the bottleneck stays last */
	CU_ASSERT_EQUAL(port_at(&t, sw1, 3)->peer, sw0);
	CU_ASSERT_EQUAL(t.links[port_at(&t, sw0, 6)->link].rate_bps, RATE);
	check_invariants(&t, HOST_RATE);
	topology_free(&t);

	/* One NIC: exactly the single-NIC layout (nics_per_host 0 = 1). */
	c = make_cfg(TOPO_STAR);
	c.topology.hosts = 3;
	c.topology.nics_per_host = 1;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_EQUAL(t.nics_per_host, 1);
	CU_ASSERT_EQUAL(t.n_links, 3);
	topology_free(&t);
}

static void test_host_rate_default(void)
{
	struct config c = make_cfg(TOPO_STAR);
	c.topology.hosts = 2;
	c.topology.host_link_rate_bps = 0;   /* as a hand-filled config leaves it */
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	check_invariants(&t, RATE);
	topology_free(&t);
}

/* Builds and expects failure with an error containing `needle`. */
static void expect_error(const struct config *c, const char *needle)
{
	struct topo t;
	char *err = NULL;
	int rc = topology_build(c, &t, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	if (!strstr(err, needle)) {
		fprintf(stderr, "\n  error '%s' lacks '%s'\n", err, needle);
		CU_FAIL("error message");
	}
	CU_ASSERT_PTR_NULL(t.nodes);   /* nothing left allocated */
	CU_ASSERT_EQUAL(t.n_nodes, 0);
	free(err);
}

static void test_errors(void)
{
	struct config c = make_cfg(TOPO_FAT_TREE);
	int bad_k[] = { 3, 0, 1, -2, 7 };
	for (size_t i = 0; i < sizeof bad_k / sizeof bad_k[0]; i++) {
		c.topology.k = bad_k[i];
		expect_error(&c, "even k");
	}
	c.topology.k = 4;
	c.topology.oversubscription = 1.3;    /* 2.6 hosts per ToR */
	expect_error(&c, "whole number");
	c.topology.oversubscription = 0.25;   /* half a host */
	expect_error(&c, "whole number");
	c.topology.oversubscription = 0;
	expect_error(&c, "whole number");
	c.topology.oversubscription = 1;
	c.topology.k = 70000;
	expect_error(&c, "ports");
	c.topology.k = 1000;                  /* 250M hosts */
	expect_error(&c, "at most");

	c = make_cfg(TOPO_STAR);
	expect_error(&c, "at least 1 host");
	c.topology.hosts = 70000;
	expect_error(&c, "65535");
	c.topology.hosts = 3;
	c.topology.link_rate_bps = 0;
	expect_error(&c, "link_rate");

	c = make_cfg(TOPO_DUMBBELL);
	c.topology.hosts_left = 2;
	expect_error(&c, "each side");

	c = make_cfg(TOPO_LEAF_SPINE);
	c.topology.leaves = 2;
	c.topology.hosts_per_leaf = 2;
	expect_error(&c, "at least 1 of each");
	c.topology.spines = 65535;
	expect_error(&c, "ports");

	c = make_cfg(TOPO_RAIL_OPTIMIZED);
	c.topology.spines = 2;
	expect_error(&c, "hosts = 0, spines = 2: rail_optimized needs at least 1 of each");
	c.topology.hosts = 4;
	c.topology.spines = 0;
	expect_error(&c, "at least 1 of each");
	c.topology.hosts = 65000;
	c.topology.spines = 600;
	expect_error(&c, "a leaf would have 65600 ports");
	c.topology.hosts = 4;
	c.topology.spines = 2;
	c.topology.nics_per_host = 70000;
	expect_error(&c, "a spine would have more than 65535 ports");

	/* Multi-homing counts every NIC against the switch's ports. */
	c = make_cfg(TOPO_STAR);
	c.topology.hosts = 10000;
	c.topology.nics_per_host = 8;
	expect_error(&c, "sw0 would have 80000 ports");
	/* hpcc reads its graph from a file (test_hpcc.c): without one, it says so. */
	c = make_cfg(TOPO_HPCC);
	expect_error(&c, "[topology] file: type hpcc needs the path of an HPCC topology.txt");
}

/* Every type the config accepts has a row: a builder or the refusal. */
static void test_registry(void)
{
	for (int ty = TOPO_FAT_TREE; ty <= TOPO_HPCC; ty++) {
		struct config c = make_cfg((enum cfg_topo_type)ty);
		struct topo t;
		char *err = NULL;
		int rc = topology_build(&c, &t, &err);
		if (rc < 0) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(err);
			CU_ASSERT_PTR_NOT_NULL(strstr(err, cfg_topo_type_name((enum cfg_topo_type)ty)));
			free(err);
		} else {
			CU_ASSERT(t.n_hosts > 0);
			topology_free(&t);
		}
	}
}

static void test_helpers(void)
{
	struct topo t;
	memset(&t, 0, sizeof t);
	CU_ASSERT_EQUAL(topo_add_node(&t, "a", NODE_HOST, 0), 0);
	CU_ASSERT_EQUAL(topo_add_node(&t, "b", NODE_SWITCH, 1), 1);
	CU_ASSERT_EQUAL(topo_add_node(&t, "a-name-far-too-long-for-the-field", NODE_SWITCH, 1), -1);
	CU_ASSERT_EQUAL(topo_add_link(&t, 0, 0, RATE, DELAY), -1);  /* self loop */
	CU_ASSERT_EQUAL(topo_add_link(&t, 0, 2, RATE, DELAY), -1);  /* no node 2 */
	/* Many adds exercise growth past the initial capacity. */
	for (int i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(topo_add_link(&t, 0, 1, RATE, DELAY), i);
	t.n_hosts = 1;
	topo_finalize(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.port_off);
	CU_ASSERT_EQUAL(topo_n_ports(&t, 0), 100);
	CU_ASSERT_EQUAL(topo_n_ports(&t, 1), 100);
	CU_ASSERT_EQUAL(port_at(&t, 1, 42)->peer_port, 42);
	CU_ASSERT_EQUAL(topo_find(&t, "b"), 1);
	CU_ASSERT_EQUAL(topo_find(&t, "c"), -1);
	topology_free(&t);
	topology_free(&t);   /* idempotent */
}

TEST_MAIN("topology",
	  { "fat_tree k=4", test_fat_tree_k4 },
	  { "fat_tree sizes and oversubscription", test_fat_tree_sizes },
	  { "star", test_star },
	  { "dumbbell", test_dumbbell },
	  { "leaf_spine", test_leaf_spine },
	  { "rail_optimized: rails, spines, names", test_rail },
	  { "several NICs multi-homed to one switch", test_multi_homed },
	  { "host_link_rate defaults to link_rate", test_host_rate_default },
	  { "impossible shapes", test_errors },
	  { "registry names", test_registry },
	  { "builder helpers", test_helpers })
