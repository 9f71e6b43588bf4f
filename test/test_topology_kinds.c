/*
 * test_topology_kinds.c — the topology registry and what every kind shares:
 * each registered type loads, round-trips through its resolved text and
 * builds from a sample; an unknown type lists them all; impossible shapes
 * are refused with the loader's or the builder's located message; the
 * hpcc type takes rates and delays from its file; the builder helpers
 * (nodes, links, ports) refuse what they must. The shapes of each kind
 * are test_topology.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_fixture.h"
#include "testutil.h"
#define TOPO_HOST_LINK_RATE "25Gbps"
#include "topo_fixture.h"
#include "topology.h"

/* A topology.txt of HPCC ns-3 (topology.h, hpcc_topology_parse): host0 and host1 on one
 * switch, 40 Gb/s links of 2 us. Written once; removed at exit. */
static const char *hpcc_file(void)
{
	static char p[300];
	if (!p[0]) {
		const char *f = tmp_file("topology.txt", "3 1 2\n2\n0 2 40Gbps 2us 0\n1 2 40Gbps 2us 0\n");
		CU_ASSERT_FATAL(strlen(f) < sizeof p);
		memcpy(p, f, strlen(f) + 1);
	}
	return p;
}

static void test_errors(void)
{
	/* fat_tree: k must be even and >= 2 (the loader); the ports of a switch,
	 * the node count and whole hosts per ToR are the builder's. */
	const char *bad_k[] = { "3", "0", "1", "-2", "7" };
	char keys[512], want[160];
	for (size_t i = 0; i < sizeof bad_k / sizeof bad_k[0]; i++) {
		snprintf(keys, sizeof keys, "type = fat_tree\nk = %s", bad_k[i]);
		snprintf(want, sizeof want, "topo.ini:3: [topology] k = '%s': expected an even integer >= 2",
			 bad_k[i]);
		topo_expect_load_error(keys, want);
	}
	topo_expect_load_error("type = fat_tree", "topo.ini:1: [topology] missing required key 'k' for type fat_tree");
	/* 2.6 hosts per ToR */
	topo_expect_build_error("type = fat_tree\nk = 4\noversubscription = 1.3",
				"[topology] oversubscription = 1.3: with k = 4 a ToR would have 2.6 hosts; "
				"(k/2) x oversubscription must be a whole number >= 1");
	/* half a host */
	topo_expect_build_error("type = fat_tree\nk = 4\noversubscription = 0.25", "whole number");
	topo_expect_load_error("type = fat_tree\nk = 4\noversubscription = 0",
			       "topo.ini:4: [topology] oversubscription = '0': expected a number > 0");
	/* Above 0 but rounding to no host per ToR: the builder's. */
	topo_expect_build_error("type = fat_tree\nk = 4\noversubscription = 1e-12",
				"a ToR would have 2e-12 hosts; (k/2) x oversubscription must be a whole number >= 1");
	topo_expect_build_error("type = fat_tree\nk = 70000",
				"[topology] k = 70000: a switch would have more than 65535 ports");
	topo_expect_build_error("type = fat_tree\nk = 1000", "at most");   /* 250M hosts */

	/* star */
	topo_expect_load_error("type = star", "topo.ini:1: [topology] missing required key 'hosts' for type star");
	topo_expect_load_error("type = star\nhosts = 0", "topo.ini:3: [topology] hosts = '0': expected an integer >= 1");
	topo_expect_build_error("type = star\nhosts = 70000",
				"[topology] hosts = 70000: sw0 would have more than 65535 ports");
	topo_expect_load_error("type = star\nhosts = 3\nlink_rate = 0Gbps",
			       "topo.ini:4: [topology] link_rate = '0Gbps': expected a rate > 0");
	topo_expect_load_error("type = star\nhosts = 3\nlink_delay = -1us",
			       "topo.ini:4: [topology] link_delay = '-1us': expected a non-negative time");
	/* A type with one NIC per host refuses more (hpcc is the one today). */
	snprintf(keys, sizeof keys, "type = hpcc\nfile = %s\nnics_per_host = 2", hpcc_file());
	topo_expect_build_error(keys, "[topology] nics_per_host = 2: hpcc supports one NIC per host");

	/* dumbbell */
	topo_expect_load_error("type = dumbbell\nhosts_left = 2",
			       "topo.ini:1: [topology] missing required key 'hosts_right' for type dumbbell");
	topo_expect_load_error("type = dumbbell\nhosts_left = 2\nhosts_right = 0",
			       "topo.ini:4: [topology] hosts_right = '0': expected an integer >= 1");
	topo_expect_build_error("type = dumbbell\nhosts_left = 65535\nhosts_right = 1",
				"a switch would have more than 65535 ports");

	/* leaf_spine */
	topo_expect_load_error("type = leaf_spine\nleaves = 2\nhosts_per_leaf = 2",
			       "topo.ini:1: [topology] missing required key 'spines' for type leaf_spine");
	topo_expect_load_error("type = leaf_spine\nleaves = 2\nhosts_per_leaf = 2\nspines = 0",
			       "topo.ini:5: [topology] spines = '0': expected an integer >= 1");
	topo_expect_build_error("type = leaf_spine\nleaves = 2\nhosts_per_leaf = 2\nspines = 65535",
				"[topology] leaves = 2, spines = 65535, hosts_per_leaf = 2: "
				"a switch would have more than 65535 ports");

	/* rail_optimized */
	topo_expect_load_error("type = rail_optimized\nspines = 2",
			       "topo.ini:1: [topology] missing required key 'hosts' for type rail_optimized");
	topo_expect_load_error("type = rail_optimized\nhosts = 0\nspines = 2",
			       "topo.ini:3: [topology] hosts = '0': expected an integer >= 1");
	topo_expect_load_error("type = rail_optimized\nhosts = 4\nspines = 0",
			       "topo.ini:4: [topology] spines = '0': expected an integer >= 1");
	topo_expect_build_error("type = rail_optimized\nhosts = 65000\nspines = 600",
				"a leaf would have 65600 ports");
	topo_expect_build_error("type = rail_optimized\nhosts = 4\nspines = 2\nnics_per_host = 70000",
				"a spine would have more than 65535 ports");

	/* Multi-homing counts every NIC against the switch's ports. */
	topo_expect_build_error("type = star\nhosts = 10000\nnics_per_host = 8",
				"[topology] sw0 would have 80000 ports; at most 65535 are supported "
				"(each host NIC takes a switch port)");
	/* hpcc reads its graph from a file (test_hpcc.c): without one, the
	 * loader says so. */
	topo_expect_load_error("type = hpcc", "topo.ini:1: [topology] missing required key 'file' for type hpcc");
}

/* hpcc takes every link's rate and delay from its file: link_rate and
 * link_delay are not required, and not used when given. */
static void test_hpcc_own_links(void)
{
	char text[512];
	struct config cfg;
	char *err = NULL;
	struct topo t;
	for (int given = 0; given < 2; given++) {
		snprintf(text, sizeof text, "[topology]\ntype = hpcc\nfile = %s\n%s", hpcc_file(),
			 given ? "link_rate = 100Gbps\nlink_delay = 1us\nhost_link_rate = 25Gbps\n" : "");
		CU_ASSERT_EQUAL_FATAL(scenario_load_text(&cfg, TOPO_INI, text, strlen(text), NULL, 0, &err), 0);
		CU_ASSERT_EQUAL_FATAL(topology_build(&cfg, &t, &err), 0);
		CU_ASSERT_EQUAL(t.n_hosts, 2);
		CU_ASSERT_EQUAL(t.n_links, 2);
		for (int i = 0; i < t.n_links; i++) {
			CU_ASSERT_EQUAL(t.links[i].rate_bps, 40ull * 1000 * 1000 * 1000);
			CU_ASSERT_EQUAL(t.links[i].delay_ps, 2 * SIMTIME_US);
		}
		topology_free(&t);
		config_free(&cfg);
	}
}

/* Every type the config accepts has a row: its kind, named alike, with a
 * builder. Each type's own keys are its to require: without them the
 * loader names the type; with them (hpcc: a one-switch topology.txt) the
 * builder makes hosts, and topology_type_name gives the type back. */
static const struct { const char *type, *keys; } samples[] = {
	{ "fat_tree", "k = 2" },
	{ "leaf_spine", "leaves = 1\nspines = 1\nhosts_per_leaf = 1" },
	{ "rail_optimized", "hosts = 1\nspines = 1" },
	{ "dumbbell", "hosts_left = 1\nhosts_right = 1" },
	{ "star", "hosts = 1" },
	{ "hpcc", "file = %s" },
	{ "ring", "switches = 3\nhosts_per_switch = 1" },
	{ "dragonfly", "routers_per_group = 1\nhosts_per_router = 1\nglobal_links = 1" },
};

static void test_registry(void)
{
	const char *path = hpcc_file();

	size_t n = 0;
	for (const struct cfg_type *ty; (ty = topo_section.type_at(n)); n++) {
		const struct topo_kind *kind = topology_kind(ty->name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(kind);
		CU_ASSERT_PTR_EQUAL(&kind->cfg, ty);
		CU_ASSERT_PTR_NOT_NULL(kind->build);

		char keys[400], want[160];
		snprintf(keys, sizeof keys, "type = %s", ty->name);
		snprintf(want, sizeof want, "for type %s", ty->name);
		topo_expect_load_error(keys, want);

		size_t s = 0;
		while (s < sizeof samples / sizeof samples[0] && strcmp(samples[s].type, ty->name) != 0)
			s++;
		if (s == sizeof samples / sizeof samples[0]) {
			fprintf(stderr, "\n  type %s has no sample here\n", ty->name);
			CU_FAIL("a type without a sample");
			continue;
		}
		int m = snprintf(keys, sizeof keys, "type = %s\n", ty->name);
		snprintf(keys + m, sizeof keys - (size_t)m, samples[s].keys, path);
		struct config cfg;
		char *err = NULL;
		CU_ASSERT_EQUAL_FATAL(topo_load(keys, &cfg, &err), 0);
		CU_ASSERT_STRING_EQUAL(topology_type_name(&cfg), ty->name);
		expect_roundtrip(ty->name, &cfg);
		struct topo t;
		CU_ASSERT_EQUAL(topology_build(&cfg, &t, &err), 0);
		if (err)
			fprintf(stderr, "\n  %s: %s\n", ty->name, err);
		CU_ASSERT(t.n_hosts > 0);
		topology_free(&t);
		free(err);
		config_free(&cfg);
	}
	CU_ASSERT_EQUAL(n, sizeof samples / sizeof samples[0]);
	CU_ASSERT_PTR_NULL(topology_kind("bogus"));
	/* An unknown type lists every registered one, the last after "or". */
	char want[400];
	int m = snprintf(want, sizeof want, "topo.ini:2: [topology] type = 'bogus': expected one of ");
	for (size_t i = 0; i < n; i++)
		m += snprintf(want + m, sizeof want - (size_t)m, "%s%s", topo_section.type_at(i)->name,
			      i + 2 < n ? ", " : i + 1 < n ? " or " : "");
	CU_ASSERT_FATAL((size_t)m < sizeof want);
	topo_expect_load_error("type = bogus", want);
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

TEST_MAIN("topology_kinds",
	  { "impossible shapes", test_errors },
	  { "hpcc: the file's rates and delays", test_hpcc_own_links },
	  { "registry: every type loads, round-trips and builds", test_registry },
	  { "builder helpers", test_helpers })
