/*
 * test_partition.c — the partitioner (models/parallel/partition*.c,
 * parallel.h) against closed forms of the fabrics it splits.
 *
 *   fat tree by pod, n_parts dividing k: every pod (its hosts, ToRs and
 *     aggs, located from the builder's numbering, topo_fat_tree.c) on one
 *     rank, k / n_parts pods per rank, every core having one link to each
 *     pod: cut = (k^2/4) x k x (1 - 1/n_parts) agg-core links and nothing
 *     else, cores floor or ceil(k^2/4 / n_parts) per rank; n_parts not
 *     dividing k: pods per rank floor or ceil(k / n_parts), cores at most
 *     ceil(k^2/4 / n_parts);
 *   leaf-spine (L leaves, S spines), n_parts dividing both: hosts with
 *     their leaf, S / n_parts spines per rank, cut = L x S x (1 - 1/n_parts);
 *   rail-optimised (H hosts, N rails, S spines), n_parts dividing all
 *     three: H / n_parts hosts and N / n_parts rails per rank, cut = (H + S)
 *     x N x (1 - 1/n_parts) (a host keeps the links to its rank's rails; a
 *     spine to its rank's rails);
 *   metis on a ring of 8 switches, one host each, in 2: any split of a
 *     cycle into two non-empty arcs cuts exactly 2 ring links, and a
 *     balanced split must split the cycle, so the best cut is 2; on a
 *     dragonfly of 5 groups in 5: the groups' split cuts the 10 global
 *     links, a bound METIS must meet, and with global links of 5 us and
 *     local ones of 1 us (weighted 5 times) it cuts no local link;
 *   the lookahead is the least delay of a *cut* link (a hand-built tree
 *     whose faster links are all inside the pods);
 *   round robin: switch i on rank i mod n.
 * test_partition_rules.c has what holds for every method.
 */
#include "partition_fixture.h"

static void fat_tree_by_pod(int k, int n)
{
	char keys[96];
	snprintf(keys, sizeof keys, "type = fat_tree\nk = %d", k);
	struct topo t;
	struct partition p;
	part_of(keys, PART_POD, n, &t, &p);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.method, PART_POD);
	CU_ASSERT_EQUAL(p.n_groups, n > 1 ? k : 0);
	int half = k / 2, hosts = k * k * k / 4, hpp = half * half;
	int tor0 = hosts, agg0 = tor0 + k * half, core0 = agg0 + k * half, n_core = half * half;
	int *pods = calloc((size_t)n, sizeof *pods), *cores = calloc((size_t)n, sizeof *cores);
	for (int pod = 0; pod < k; pod++) {
		int r = p.part_of_node[pod * hpp];
		pods[r]++;
		for (int h = 0; h < hpp; h++)
			CU_ASSERT_EQUAL(p.part_of_node[pod * hpp + h], r);
		for (int j = 0; j < half; j++) {
			CU_ASSERT_EQUAL(p.part_of_node[tor0 + pod * half + j], r);
			CU_ASSERT_EQUAL(p.part_of_node[agg0 + pod * half + j], r);
		}
	}
	for (int c = 0; c < n_core; c++)
		cores[p.part_of_node[core0 + c]]++;
	for (int r = 0; r < n; r++) {
		CU_ASSERT(pods[r] == k / n || pods[r] == (k + n - 1) / n);
		/* At most an even share; a rank with fewer pods may get fewer
		 * cores, which go where more of their links are. */
		CU_ASSERT(cores[r] <= (n_core + n - 1) / n);
		if (k % n == 0)
			CU_ASSERT(cores[r] == n_core / n || cores[r] == (n_core + n - 1) / n);
	}
	/* Only agg-core links are cut. */
	for (int l = 0; l < t.n_links; l++)
		if (p.part_of_node[t.links[l].a] != p.part_of_node[t.links[l].b])
			CU_ASSERT(t.links[l].a >= agg0 && t.links[l].b >= core0);
	if (k % n == 0)
		CU_ASSERT_EQUAL(p.n_cut_links, n_core * k / n * (n - 1));
	CU_ASSERT_EQUAL(p.lookahead_ps, n > 1 ? DELAY : SIMTIME_NEVER);
	free(pods);
	free(cores);
	partition_free(&p);
	topology_free(&t);
}

static void test_fat_tree_pod(void)
{
	fat_tree_by_pod(4, 1);
	fat_tree_by_pod(4, 2);
	fat_tree_by_pod(4, 4);
	fat_tree_by_pod(8, 2);
	fat_tree_by_pod(8, 4);
	fat_tree_by_pod(8, 8);
	fat_tree_by_pod(8, 3);   /* 3, 2, 3 pods */
	fat_tree_by_pod(8, 5);
	/* k = 4 in 4: 4 cores x 4 links x 3/4 = 12 (also the value sim
	 * --check prints in test/partition.sh). */
	struct topo t;
	struct partition p;
	part_of("type = fat_tree\nk = 4", PART_POD, 4, &t, &p);
	CU_ASSERT_EQUAL(p.n_cut_links, 12);
	partition_free(&p);
	topology_free(&t);
	/* Two NICs per host on the ToR: the host links stay inside. */
	part_of("type = fat_tree\nk = 4\nnics_per_host = 2", PART_POD, 2, &t, &p);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.n_cut_links, 8);
	partition_free(&p);
	topology_free(&t);
}

/* A fat tree by leaf: ToR groups, aggs beside their ToRs. k = 4 in 8:
 * one ToR (2 hosts) per rank; each agg joins one of its 2 ToRs' ranks, so
 * of its 2 ToR links one is cut: 8 tor-agg links cut, plus every core's
 * 4 agg links but the one on its rank (at most): >= 4 x 3. */
static void test_fat_tree_leaf(void)
{
	struct topo t;
	struct partition p;
	part_of("type = fat_tree\nk = 4", PART_LEAF, 8, &t, &p);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.n_groups, 8);
	for (int r = 0; r < 8; r++)
		CU_ASSERT_EQUAL(p.hosts_of_part[r], 2);
	for (int h = 0; h < 16; h++)
		CU_ASSERT_EQUAL(p.part_of_node[h], p.part_of_node[16 + h / 2]);
	int tor_agg = 0;
	for (int l = 0; l < t.n_links; l++)
		if (p.part_of_node[t.links[l].a] != p.part_of_node[t.links[l].b]) {
			CU_ASSERT(t.links[l].a >= 16);   /* no host link */
			tor_agg += t.links[l].a < 24;
		}
	CU_ASSERT_EQUAL(tor_agg, 8);
	CU_ASSERT(p.n_cut_links >= 8 + 12);
	partition_free(&p);
	topology_free(&t);
}

static void leaf_spine(int leaves, int spines, int hpl, int n)
{
	char keys[128];
	snprintf(keys, sizeof keys, "type = leaf_spine\nleaves = %d\nspines = %d\nhosts_per_leaf = %d", leaves,
		 spines, hpl);
	struct topo t;
	struct partition p;
	part_of(keys, PART_LEAF, n, &t, &p);
	check_common(&t, &p);
	int hosts = leaves * hpl, spine0 = hosts + leaves;
	for (int h = 0; h < hosts; h++)
		CU_ASSERT_EQUAL(p.part_of_node[h], p.part_of_node[hosts + h / hpl]);
	int *sp = calloc((size_t)n, sizeof *sp);
	for (int s = 0; s < spines; s++)
		sp[p.part_of_node[spine0 + s]]++;
	for (int r = 0; r < n; r++)
		CU_ASSERT(sp[r] == spines / n || sp[r] == (spines + n - 1) / n);
	if (leaves % n == 0 && spines % n == 0)
		CU_ASSERT_EQUAL(p.n_cut_links, leaves * spines / n * (n - 1));
	free(sp);
	/* pod is the same split on two tiers. */
	struct partition q;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_POD, n, &q, &err), 0);
	CU_ASSERT_EQUAL(memcmp(p.part_of_node, q.part_of_node, (size_t)t.n_nodes * sizeof(int)), 0);
	partition_free(&q);
	partition_free(&p);
	topology_free(&t);
}

static void test_leaf_spine(void)
{
	leaf_spine(8, 4, 4, 2);    /* cut 16 */
	leaf_spine(8, 4, 4, 4);    /* cut 24 */
	leaf_spine(8, 8, 2, 8);    /* cut 56 */
	leaf_spine(6, 4, 3, 4);    /* uneven: leaves 2,1,2,1 */
}

static void rail(int hosts, int rails, int spines, int n)
{
	char keys[160];
	snprintf(keys, sizeof keys, "type = rail_optimized\nhosts = %d\nnics_per_host = %d\nspines = %d", hosts,
		 rails, spines);
	struct topo t;
	struct partition p;
	part_of(keys, PART_RAIL, n, &t, &p);
	check_common(&t, &p);
	int *leaves = calloc((size_t)n, sizeof *leaves);
	for (int i = 0; i < rails; i++)
		leaves[p.part_of_node[hosts + i]]++;
	for (int r = 0; r < n; r++) {
		CU_ASSERT(p.hosts_of_part[r] == (uint64_t)(hosts / n) ||
			  p.hosts_of_part[r] == (uint64_t)((hosts + n - 1) / n));
		CU_ASSERT(leaves[r] == rails / n || leaves[r] == (rails + n - 1) / n);
	}
	/* Hosts in contiguous blocks. */
	for (int h = 1; h < hosts; h++)
		CU_ASSERT(p.part_of_node[h] >= p.part_of_node[h - 1]);
	if (hosts % n == 0 && rails % n == 0 && spines % n == 0)
		CU_ASSERT_EQUAL(p.n_cut_links, (hosts + spines) * rails / n * (n - 1));
	free(leaves);
	partition_free(&p);
	topology_free(&t);
}

static void test_rail(void)
{
	rail(8, 4, 4, 2);     /* 24 */
	rail(8, 4, 4, 4);     /* 36 */
	rail(16, 8, 8, 8);    /* 168 */
	rail(10, 4, 2, 3);
	/* leaf refuses it: every host is on every leaf. */
	struct topo t;
	struct partition p;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = rail_optimized\nhosts = 8\nnics_per_host = 4\nspines = 2", &t), 0);
	CU_ASSERT_EQUAL(partition_compute(&t, PART_LEAF, 2, &p, &err), -1);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ "no leaf groups", "leaf0 and leaf1",
							  "use partition = rail or metis", NULL }));
	CU_ASSERT_PTR_NULL(p.part_of_node);
	free(err);
	topology_free(&t);
}

static void test_metis(void)
{
	struct topo t;
	struct partition p;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topo_of("type = ring\nswitches = 8\nhosts_per_switch = 1", &t), 0);
#ifdef HAVE_METIS
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_METIS, 2, &p, &err), 0);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.n_cut_links, 2);
	CU_ASSERT_EQUAL(p.nodes_of_part[0], 8);
	/* Each host with its switch. */
	for (int h = 0; h < 8; h++)
		CU_ASSERT_EQUAL(p.part_of_node[h], p.part_of_node[8 + h]);
	partition_free(&p);
	/* 4 parts of a cycle of 8 with pendant hosts: 4 ring links at best. */
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_METIS, 4, &p, &err), 0);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.n_cut_links, 4);
	partition_free(&p);
	/* As many ranks as nodes: one node each (METIS may leave parts empty
	 * on so small a graph; they are filled). */
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_METIS, 16, &p, &err), 0);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.n_cut_links, t.n_links);
	partition_free(&p);
	topology_free(&t);
	/* Dragonfly: 5 groups of 2 routers x 2 hosts, global links of 5 us. */
	CU_ASSERT_EQUAL_FATAL(topo_of("type = dragonfly\ngroups = 5\nrouters_per_group = 2\nhosts_per_router = 2\n"
				      "global_links = 2\nglobal_link_delay = 5us", &t), 0);
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_METIS, 5, &p, &err), 0);
	check_common(&t, &p);
	CU_ASSERT(p.n_cut_links <= 10);
	/* Local links (1 us) weigh 5 times the global ones (5 us): none is
	 * cut, so the lookahead is the global links' delay. */
	CU_ASSERT_EQUAL(p.lookahead_ps, 5 * SIMTIME_US);
	for (int r = 0; r < 5; r++)
		CU_ASSERT(p.nodes_of_part[r] >= 5);
	partition_free(&p);
#else
	CU_ASSERT_EQUAL(partition_compute(&t, PART_METIS, 2, &p, &err), -1);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ "libmetis-dev", NULL }));
	free(err);
#endif
	topology_free(&t);
}

/* The lookahead is the least delay among the cut links, not among all
 * links: a two-pod tree built by hand, host links 100 ns, ToR-agg 200 ns,
 * agg-core 700 ns; by pod only agg-core links are cut. */
static void test_lookahead(void)
{
	struct topo t = { 0 };
	CU_ASSERT_EQUAL_FATAL(topo_add_hosts(&t, 4), 0);
	int tor = topo_add_tier(&t, "tor", 2, NODE_SWITCH, 1);
	int agg = topo_add_tier(&t, "agg", 2, NODE_SWITCH, 2);
	int core = topo_add_tier(&t, "core", 1, NODE_SWITCH, 3);
	CU_ASSERT_FATAL(tor >= 0 && agg >= 0 && core >= 0);
	for (int h = 0; h < 4; h++)
		CU_ASSERT_FATAL(topo_add_link(&t, h, tor + h / 2, RATE, 100 * SIMTIME_NS) >= 0);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(topo_add_link(&t, tor + i, agg + i, RATE, 200 * SIMTIME_NS) >= 0);
		CU_ASSERT_FATAL(topo_add_link(&t, agg + i, core, RATE, 700 * SIMTIME_NS) >= 0);
	}
	topo_finalize(&t);
	struct partition p;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_POD, 2, &p, &err), 0);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(p.n_cut_links, 1);
	CU_ASSERT_EQUAL(p.lookahead_ps, 700 * SIMTIME_NS);
	partition_free(&p);
	CU_ASSERT_EQUAL_FATAL(partition_compute(&t, PART_POD, 1, &p, &err), 0);
	CU_ASSERT_EQUAL(p.n_cut_links, 0);
	CU_ASSERT_EQUAL(p.lookahead_ps, SIMTIME_NEVER);
	partition_free(&p);
	topology_free(&t);
}

/* Round robin: switch i on rank i mod n, each host with its ToR; the
 * hosts of a rail-optimised fabric (a NIC on each rail's leaf) dealt in
 * turn before the switches, so every node u is on rank u mod n. */
static void test_round_robin(void)
{
	struct topo t;
	struct partition p;
	part_of("type = fat_tree\nk = 4", PART_ROUND_ROBIN, 3, &t, &p);
	check_common(&t, &p);
	for (int s = 16; s < t.n_nodes; s++)
		CU_ASSERT_EQUAL(p.part_of_node[s], (s - 16) % 3);
	for (int h = 0; h < 16; h++)
		CU_ASSERT_EQUAL(p.part_of_node[h], p.part_of_node[16 + h / 2]);
	partition_free(&p);
	topology_free(&t);
	part_of("type = rail_optimized\nhosts = 8\nspines = 2\nnics_per_host = 4", PART_ROUND_ROBIN, 3, &t, &p);
	check_common(&t, &p);
	CU_ASSERT_EQUAL(t.n_hosts, 8);
	for (int u = 0; u < t.n_nodes; u++)
		CU_ASSERT_EQUAL(p.part_of_node[u], u % 3);
	CU_ASSERT_EQUAL(p.hosts_of_part[0], 3);
	CU_ASSERT_EQUAL(p.hosts_of_part[2], 2);
	partition_free(&p);
	topology_free(&t);
}

/* hosts: every host alone on rank 0, every switch elsewhere; the cut is
 * every host link plus what the switches' split cuts (none on 2 ranks). */
static void test_hosts(void)
{
	const char *shapes[] = { "type = fat_tree\nk = 4",
				 "type = rail_optimized\nhosts = 4\nspines = 2\nnics_per_host = 4" };
	for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
		for (int n = 2; n <= 4; n++) {
			struct topo t;
			struct partition p;
			part_of(shapes[k], PART_HOSTS, n, &t, &p);
			check_common(&t, &p);
			int host_links = 0;
			for (int l = 0; l < t.n_links; l++)
				host_links += t.links[l].a < t.n_hosts || t.links[l].b < t.n_hosts;
			for (int u = 0; u < t.n_nodes; u++)
				CU_ASSERT_EQUAL(p.part_of_node[u] == 0, u < t.n_hosts);
			CU_ASSERT_EQUAL(p.hosts_of_part[0], (uint64_t)t.n_hosts);
			CU_ASSERT_EQUAL(p.switches_of_part[0], 0);
			CU_ASSERT_EQUAL(p.cut_of_part[0], (uint64_t)host_links);
			if (n == 2)
				CU_ASSERT_EQUAL(p.n_cut_links, host_links);
			CU_ASSERT(p.n_cut_links >= host_links);
			partition_free(&p);
			topology_free(&t);
		}
	/* auto never picks it by itself */
	struct topo t;
	struct partition p;
	part_of("type = fat_tree\nk = 4", PART_AUTO, 2, &t, &p);
	CU_ASSERT_NOT_EQUAL(p.method, PART_HOSTS);
	partition_free(&p);
	topology_free(&t);
}

TEST_MAIN("partition",
	  { "fat tree by pod: pods whole, agg-core cut k^3/4 (1 - 1/n)", test_fat_tree_pod },
	  { "fat tree by leaf: ToR groups", test_fat_tree_leaf },
	  { "leaf-spine: cut L S (1 - 1/n)", test_leaf_spine },
	  { "rail-optimised: cut (H + S) N (1 - 1/n)", test_rail },
	  { "metis: ring cut 2, dragonfly within its global links", test_metis },
	  { "lookahead: least delay of a cut link", test_lookahead },
	  { "round robin", test_round_robin },
	  { "hosts: every host on rank 0 alone, the host links cut", test_hosts })
