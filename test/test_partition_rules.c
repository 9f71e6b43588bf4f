/*
 * test_partition_rules.c — what every partition method of the partitioner
 * (models/parallel/partition*.c) must respect, beside the closed forms of
 * test_partition.c: the same input gives the same partition, names play no
 * part, tiers come from hop distances where a graph has none, `auto` keeps
 * the best balanced partition, impossible partitions are refused with
 * their reason, the scenario's key locates its errors, and --check's
 * description says the figures (and the uniform-traffic share crossing
 * ranks, 1 - sum of h_r (h_r - 1) / (H (H - 1))).
 */
#include "partition_fixture.h"

/* Same input, same partition, for every method on every shape it takes;
 * and a partition computed after another is unchanged by it. */
static void test_deterministic(void)
{
	static const struct { const char *keys; int methods[6]; } cases[] = {
		{ "type = fat_tree\nk = 8", { PART_AUTO, PART_POD, PART_LEAF, PART_RAIL, PART_METIS, PART_ROUND_ROBIN } },
		{ "type = leaf_spine\nleaves = 8\nspines = 4\nhosts_per_leaf = 4",
		  { PART_AUTO, PART_POD, PART_LEAF, PART_RAIL, PART_METIS, PART_ROUND_ROBIN } },
		{ "type = rail_optimized\nhosts = 16\nnics_per_host = 4\nspines = 4",
		  { PART_AUTO, PART_RAIL, PART_METIS, PART_ROUND_ROBIN, -1 } },
		{ "type = dragonfly\ngroups = 5\nrouters_per_group = 2\nhosts_per_router = 2\nglobal_links = 2",
		  { PART_AUTO, PART_RAIL, PART_METIS, PART_ROUND_ROBIN, -1 } },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct topo t;
		CU_ASSERT_EQUAL_FATAL(topo_of(cases[c].keys, &t), 0);
		for (int m = 0; m < 6 && cases[c].methods[m] >= 0; m++) {
			int method = cases[c].methods[m];
			if (method == PART_METIS && !have_metis())
				continue;
			struct partition a, b;
			char *err = NULL;
			CU_ASSERT_EQUAL_FATAL(partition_compute(&t, method, 4, &a, &err), 0);
			CU_ASSERT_EQUAL_FATAL(partition_compute(&t, method, 4, &b, &err), 0);
			check_common(&t, &a);
			CU_ASSERT_EQUAL(a.method, b.method);
			CU_ASSERT_EQUAL(a.n_cut_links, b.n_cut_links);
			CU_ASSERT_EQUAL(memcmp(a.part_of_node, b.part_of_node, (size_t)t.n_nodes * sizeof(int)), 0);
			partition_free(&a);
			partition_free(&b);
		}
		topology_free(&t);
	}
}

/* A graph without tiers (every switch tier 1, as a file gives it): the
 * tiers come from hop distances, so a hand-built two-pod tree, pods of
 * 2 hosts, a ToR and an agg, one core, splits by pod at the core. */
static void test_tiers_from_distance(void)
{
	struct topo t = { 0 };
	CU_ASSERT_EQUAL_FATAL(topo_add_hosts(&t, 4), 0);
	int sw = topo_add_tier(&t, "sw", 5, NODE_SWITCH, 1);   /* tor, tor, agg, agg, core */
	CU_ASSERT_FATAL(sw >= 0);
	for (int h = 0; h < 4; h++)
		CU_ASSERT_FATAL(topo_add_link(&t, h, sw + h / 2, RATE, DELAY) >= 0);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(topo_add_link(&t, sw + i, sw + 2 + i, RATE, DELAY) >= 0);
		CU_ASSERT_FATAL(topo_add_link(&t, sw + 2 + i, sw + 4, RATE, DELAY) >= 0);
	}
	topo_finalize(&t);
	struct partition p;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_POD, 2, &p, &err), 0);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.n_groups, 2);
	CU_ASSERT_EQUAL(p.n_cut_links, 1);   /* one agg-core link */
	for (int u = 0; u < 2; u++) {
		CU_ASSERT_EQUAL(p.part_of_node[u], p.part_of_node[sw]);
		CU_ASSERT_EQUAL(p.part_of_node[2 + u], p.part_of_node[sw + 1]);
	}
	CU_ASSERT_EQUAL(p.part_of_node[sw], p.part_of_node[sw + 2]);
	CU_ASSERT_NOT_EQUAL(p.part_of_node[sw], p.part_of_node[sw + 1]);
	partition_free(&p);
	topology_free(&t);
}

/* Names play no part: the same graph with every node renamed (and the
 * switches' names shuffled against their ids) partitions alike. */
static void test_names_ignored(void)
{
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = fat_tree\nk = 8", &t), 0);
	for (int m = PART_AUTO; m < PART_N_METHODS; m++) {
		if (m == PART_METIS && !have_metis())
			continue;
		struct partition a, b;
		char *err = NULL;
		CU_ASSERT_EQUAL_FATAL(partition_compute(&t, m, 4, &a, &err), 0);
		struct topo_node *saved = malloc((size_t)t.n_nodes * sizeof *saved);
		memcpy(saved, t.nodes, (size_t)t.n_nodes * sizeof *saved);
		for (int u = 0; u < t.n_nodes; u++)
			snprintf(t.nodes[u].name, sizeof t.nodes[u].name, "n%d", t.n_nodes - u);
		CU_ASSERT_EQUAL_FATAL(partition_compute(&t, m, 4, &b, &err), 0);
		CU_ASSERT_EQUAL(memcmp(a.part_of_node, b.part_of_node, (size_t)t.n_nodes * sizeof(int)), 0);
		memcpy(t.nodes, saved, (size_t)t.n_nodes * sizeof *saved);
		free(saved);
		partition_free(&a);
		partition_free(&b);
	}
	topology_free(&t);
}

/* auto: the best balanced partition, ties to the shape's method. */
static void test_auto(void)
{
	/* method -1: any; -2: metis, or leaf without METIS. cut -1: any. */
	static const struct { const char *keys; int n, method, cut; } cases[] = {
		{ "type = fat_tree\nk = 4", 4, PART_POD, 12 },
		{ "type = fat_tree\nk = 4", 8, PART_LEAF, -1 },    /* more ranks than pods */
		{ "type = leaf_spine\nleaves = 4\nspines = 2\nhosts_per_leaf = 2", 2, PART_LEAF, 4 },
		{ "type = rail_optimized\nhosts = 8\nnics_per_host = 4\nspines = 2", 4, PART_RAIL, 30 },
		/* 6 switches in 3 arcs: 3 ring links, the least a split cuts. */
		{ "type = ring\nswitches = 6\nhosts_per_switch = 2", 3, -1, 3 },
		{ "type = star\nhosts = 8", 3, -1, -1 },
		/* 8 pods on 3 ranks, 3:2:3, is unbalanced (1.125 x the mean
		 * ports): METIS, balanced, or else the ToR groups. */
		{ "type = fat_tree\nk = 8", 3, -2, -1 },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct topo t;
		struct partition p;
		part_of(cases[c].keys, PART_AUTO, cases[c].n, &t, &p);
		check_common(&t, &p);
		int want = cases[c].method != -2 ? cases[c].method : have_metis() ? PART_METIS : PART_LEAF;
		if (want >= 0)
			CU_ASSERT_EQUAL(p.method, want);
		if (cases[c].cut >= 0)
			CU_ASSERT_EQUAL(p.n_cut_links, cases[c].cut);
		CU_ASSERT_EQUAL(p.requested, PART_AUTO);
		partition_free(&p);
		topology_free(&t);
	}
}

static void expect_error(const char *keys, int method, int n, const char *want)
{
	struct topo t;
	struct partition p;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topo_of(keys, &t), 0);
	CU_ASSERT_EQUAL(partition_compute(&t, method, n, &p, &err), -1);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ want, NULL }));
	CU_ASSERT_PTR_NULL(p.part_of_node);
	CU_ASSERT_PTR_NULL(p.nodes_of_part);
	free(err);
	topology_free(&t);
}

static void test_errors(void)
{
	expect_error("type = fat_tree\nk = 4", PART_POD, 5,
		     "5 ranks but the fabric has only 4 pods; use partition = leaf or metis, or fewer ranks");
	expect_error("type = fat_tree\nk = 4", PART_LEAF, 9,
		     "9 ranks but the fabric has only 8 leaf groups (an edge switch with its hosts); "
		     "use partition = metis or fewer ranks");
	expect_error("type = rail_optimized\nhosts = 4\nnics_per_host = 2\nspines = 2", PART_RAIL, 5,
		     "5 ranks but the fabric has only 4 hosts; use fewer ranks");
	expect_error("type = fat_tree\nk = 4", PART_AUTO, 37,
		     "37 ranks but the fabric has only 36 nodes (hosts and switches); use at most 36 ranks");
	expect_error("type = fat_tree\nk = 4", PART_METIS, 0, "0 ranks: at least 1 is needed");
	expect_error("type = ring\nswitches = 4\nhosts_per_switch = 1", PART_POD, 2,
		     "the fabric has no pods: without its top tier (tier 1, such as sw0) its hosts are left "
		     "without a switch; use partition = metis");
	expect_error("type = ring\nswitches = 4\nhosts_per_switch = 1", PART_LEAF, 2,
		     "the fabric has no leaf groups: sw0 and sw1 are joined without a switch above tier 1");
	expect_error("type = star\nhosts = 4", PART_ROUND_ROBIN, 2,
		     "2 ranks but round_robin has only 1 switch (with their hosts) to deal");
	expect_error("type = dumbbell\nhosts_left = 2\nhosts_right = 2", PART_LEAF, 2,
		     "sw0 and sw1 are joined");
}

/* Loads text as scenario `name` and builds its topology. */
static void load_topo(struct config *cfg, struct topo *t, const char *name, const char *text)
{
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(scenario_load_text(cfg, name, text, strlen(text), NULL, 0, &err), 0);
	CU_ASSERT_EQUAL_FATAL(topology_build(cfg, t, &err), 0);
}

/* The scenario's key, and errors located at it. */
static void test_scenario(void)
{
	const char *text = "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			   "[parallel]\npartition = pod\n";
	struct config cfg;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(scenario_load_text(&cfg, "p.ini", text, strlen(text), NULL, 0, &err), 0);
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topology_build(&cfg, &t, &err), 0);
	struct partition p;
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 2, NULL, 0, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_POD);
	CU_ASSERT_EQUAL(p.requested, PART_POD);
	partition_free(&p);
	CU_ASSERT_EQUAL(partition_scenario(&cfg, &t, 6, NULL, 0, &p, &err), -1);
	CU_ASSERT(msg_has_all(err, (const char *const[]){
		"p.ini:7: [parallel] partition = 'pod': 6 ranks but the fabric has only 4 pods", NULL }));
	free(err);
	err = NULL;
	/* Resolved text: the section and its default. */
	CU_ASSERT_PTR_NOT_NULL(strstr(cfg.resolved, "[parallel]\npartition = pod\n"));
	topology_free(&t);
	config_free(&cfg);
	/* Unset: auto, located as the default. */
	const char *plain = "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n";
	load_topo(&cfg, &t, "q.ini", plain);
	CU_ASSERT_EQUAL(partition_scenario(&cfg, &t, 40, NULL, 0, &p, &err), -1);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ "q.ini: [parallel] partition (default): 40 ranks", NULL }));
	free(err);
	err = NULL;
	topology_free(&t);
	config_free(&cfg);
	/* A model that needs every host on one rank: auto means hosts, which
	 * may also be named; another method is refused, located. */
	load_topo(&cfg, &t, "q.ini", plain);
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 3, "a training job ([job])", 0, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_HOSTS);
	CU_ASSERT_EQUAL(p.requested, PART_AUTO);
	CU_ASSERT_EQUAL(p.hosts_of_part[0], 16);
	partition_free(&p);
	CU_ASSERT_EQUAL(partition_scenario(&cfg, &t, 22, "a training job ([job])", 0, &p, &err), -1);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ "22 ranks but partition = hosts has one rank for the "
			      "hosts and 20 switches to deal; use at most 21 ranks", NULL }));
	free(err);
	err = NULL;
	topology_free(&t);
	config_free(&cfg);
	const char *pod = "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			  "[parallel]\npartition = pod\n";
	load_topo(&cfg, &t, "j.ini", pod);
	CU_ASSERT_EQUAL(partition_scenario(&cfg, &t, 2, "a training job ([job])", 0, &p, &err), -1);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ "j.ini:7: [parallel] partition = 'pod': a training job "
			      "([job]) needs every host on one rank", "use hosts", "endpoint_delay", NULL }));
	free(err);
	err = NULL;
	/* A job reacting 1 us late (endpoint_delay) may be mirrored by pod,
	 * whose lookahead (the agg-core links) is 1 us; with 999 ns too, the
	 * ranks then synchronising every 999 ns. */
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 2, "a training job ([job])", SIMTIME_US, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_POD);
	CU_ASSERT(p.mirrored);
	CU_ASSERT_EQUAL(p.mirror_ps, SIMTIME_US);
	CU_ASSERT_EQUAL(p.lookahead_ps, SIMTIME_US);
	CU_ASSERT_EQUAL(p.hosts_of_part[0], 8);
	partition_free(&p);
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 2, "a training job ([job])", 999 * SIMTIME_NS, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_POD);
	CU_ASSERT(p.mirrored);
	CU_ASSERT_EQUAL(p.lookahead_ps, 999 * SIMTIME_NS);
	CU_ASSERT_EQUAL(p.cut_delay_ps, SIMTIME_US);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	partition_describe(&p, &t, f);
	fclose(f);
	CU_ASSERT(msg_has_all(buf, (const char *const[]){ "8 of 48 links cut (800Gbps, 16.7% of the link capacity); "
			      "lookahead 999ns\n", "they see a piece 999ns after it arrived (endpoint_delay), sooner than "
			      "the shortest cut link's 1us, so the ranks synchronise every 999ns\n", NULL }));
	free(buf);
	partition_free(&p);
	topology_free(&t);
	config_free(&cfg);
	/* auto with such a job: round_robin when the delay is at least half
	 * its cut links' delay (windows that short at most), else hosts. */
	load_topo(&cfg, &t, "q.ini", plain);
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 2, "a training job ([job])", 2 * SIMTIME_US, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_ROUND_ROBIN);
	CU_ASSERT_EQUAL(p.requested, PART_AUTO);
	CU_ASSERT(p.mirrored);
	CU_ASSERT_EQUAL(p.lookahead_ps, SIMTIME_US);
	CU_ASSERT_EQUAL(p.hosts_of_part[0] + p.hosts_of_part[1], 16);
	CU_ASSERT(p.hosts_of_part[0] > 0 && p.hosts_of_part[1] > 0);
	partition_free(&p);
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 2, "a training job ([job])", 500 * SIMTIME_NS, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_ROUND_ROBIN);
	CU_ASSERT(p.mirrored);
	CU_ASSERT_EQUAL(p.lookahead_ps, 500 * SIMTIME_NS);
	partition_free(&p);
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 2, "a training job ([job])", 499 * SIMTIME_NS, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_HOSTS);
	CU_ASSERT(!p.mirrored);
	CU_ASSERT_EQUAL(p.lookahead_ps, SIMTIME_US);
	partition_free(&p);
	topology_free(&t);
	config_free(&cfg);
	/* One switch, nothing to deal in turn: hosts, as without the delay. */
	load_topo(&cfg, &t, "s.ini", "[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n");
	CU_ASSERT_EQUAL_FATAL(partition_scenario(&cfg, &t, 2, "a training job ([job])", SIMTIME_US, &p, &err), 0);
	CU_ASSERT_EQUAL(p.method, PART_HOSTS);
	CU_ASSERT(!p.mirrored);
	partition_free(&p);
	topology_free(&t);
	config_free(&cfg);
	/* A misspelt method: the loader's message with a suggestion. */
	expect_load_error_text("r.ini", "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\n"
			       "link_delay = 1us\n[parallel]\npartition = metsi\n",
			       "r.ini:7: [parallel] partition = 'metsi': expected one of auto, pod, leaf, rail, "
			       "metis, round_robin or hosts (did you mean 'metis'?)");
}

/* --check's description: the figures, and the uniform-traffic share
 * 1 - sum h_r (h_r - 1) / (H (H - 1)): 16 hosts in 2 ranks of 8 give
 * 1 - 2 x 56 / 240 = 53.3%. */
static void test_describe(void)
{
	struct topo t;
	struct partition p;
	part_of("type = fat_tree\nk = 4", PART_AUTO, 2, &t, &p);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	partition_describe(&p, &t, f);
	fclose(f);
	CU_ASSERT(msg_has_all(buf, (const char *const[]){
		"partition: 2 ranks by pod (auto), 4 pods dealt in blocks; 8 of 48 links cut (800Gbps, 16.7% of "
		"the link capacity); lookahead 1us\n",
		"partition: rank 0: 18 nodes (8 hosts, 10 switches), 48 ports, 8 cut links; builds 56 ports\n",
		"partition: rank 1: 18 nodes (8 hosts, 10 switches), 48 ports, 8 cut links; builds 56 ports\n",
		"the busiest rank has 1.00x the mean",
		"at least 53.3% of the flows cross ranks", NULL }));
	free(buf);
	partition_free(&p);
	topology_free(&t);
	/* Links without delay: no lookahead, said. */
	part_of("type = fat_tree\nk = 4\nlink_delay = 0us", PART_POD, 2, &t, &p);
	CU_ASSERT_EQUAL(p.lookahead_ps, 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	partition_describe(&p, &t, f);
	fclose(f);
	CU_ASSERT(msg_has_all(buf, (const char *const[]){ "lookahead 0",
		"partition: a cut link has no propagation delay, so the ranks cannot run ahead of one another", NULL }));
	free(buf);
	partition_free(&p);
	topology_free(&t);
}

TEST_MAIN("partition rules",
	  { "deterministic", test_deterministic },
	  { "names play no part", test_names_ignored },
	  { "tiers from hop distances in a graph without them", test_tiers_from_distance },
	  { "auto: balanced, then least cut", test_auto },
	  { "errors", test_errors },
	  { "[parallel] partition, located errors", test_scenario },
	  { "describe", test_describe })
