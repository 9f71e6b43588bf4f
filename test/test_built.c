/*
 * test_built.c — what a [topology] section built, said in words
 * (models/topo/topology_describe.c): the edge switches' host and switch
 * ports and their oversubscription against the closed forms of each shape,
 * the `fabric:` line, and the warning for several NICs per host on one
 * oversubscribed switch.
 */
#include "run_fixture.h"
#include "testutil.h"
#include "topology.h"

static int build_text(const char *text, struct config *cfg, struct topo *t)
{
	char *err = NULL;
	int rc = scenario_load_text(cfg, "built.ini", text, strlen(text), NULL, 0, &err);
	if (rc == 0) {
		rc = topology_build(cfg, t, &err);
		if (rc < 0)
			config_free(cfg);
	}
	if (rc < 0)
		printf("%s\n", err);
	free(err);
	return rc;
}

#define FT(k, extra) "[topology]\ntype = fat_tree\nk = " #k "\nlink_rate = 400Gbps\nlink_delay = 1us\n" extra

/* A k-ary fat tree: k^2/2 ToRs, each with (k/2) x oversubscription hosts
 * and k/2 uplinks; with N NICs per host on the same ToR, N x hosts down
 * ports, so down:up = N x oversubscription (equal link rates). */
static void test_fat_tree(void)
{
	static const struct { int k; const char *extra; int down, up; double ratio; int hosts; } c[] = {
		{ 4, "", 2, 2, 1.0, 16 },                                     /* k^3/4 hosts */
		{ 8, "", 4, 4, 1.0, 128 },
		{ 4, "oversubscription = 2\n", 4, 2, 2.0, 32 },              /* 2 x k^3/4 */
		{ 4, "gpus_per_host = 8\nnics_per_host = 8\n", 16, 2, 8.0, 16 }, /* 8 x (k/2) down */
		{ 16, "nics_per_host = 8\noversubscription = 0.125\n", 8, 8, 1.0, 128 }, /* k^2/2 ToRs x 1 host x 8 NICs */
	};
	char text[512], line[768];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct config cfg;
		struct topo t;
		switch (c[i].k) {
		case 4: snprintf(text, sizeof text, FT(4, "%s"), c[i].extra); break;
		case 8: snprintf(text, sizeof text, FT(8, "%s"), c[i].extra); break;
		default: snprintf(text, sizeof text, FT(16, "%s"), c[i].extra); break;
		}
		CU_ASSERT_FATAL(build_text(text, &cfg, &t) == 0);
		struct topo_edge e;
		topology_edge(&t, &e);
		CU_ASSERT_STRING_EQUAL(e.name, "tor");
		CU_ASSERT_EQUAL(e.switches, c[i].k * c[i].k / 2);
		CU_ASSERT_EQUAL(e.down_min, c[i].down);
		CU_ASSERT_EQUAL(e.down_max, c[i].down);
		CU_ASSERT_EQUAL(e.up_min, c[i].up);
		CU_ASSERT_DOUBLE_EQUAL(e.ratio_max, c[i].ratio, 1e-12);
		CU_ASSERT_EQUAL(t.n_hosts, c[i].hosts);
		int warned = topology_surprise(&cfg, &t, line, sizeof line);
		/* Only several NICs on an oversubscribed ToR is a surprise. */
		CU_ASSERT_EQUAL(warned, t.nics_per_host > 1 && c[i].ratio > 1);
		topology_describe(&cfg, &t, line, sizeof line);
		char want[128];
		snprintf(want, sizeof want, "%d tor switches with %d host and %d switch ports each",
			 c[i].k * c[i].k / 2, c[i].down, c[i].up);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, want));
		topology_free(&t);
		config_free(&cfg);
	}
}

/* The messages, as a user reads them. */
static void test_lines(void)
{
	struct config cfg;
	struct topo t;
	char line[768];
	CU_ASSERT_FATAL(build_text(FT(4, "gpus_per_host = 8\nnics_per_host = 8\n"), &cfg, &t) == 0);
	topology_describe(&cfg, &t, line, sizeof line);
	CU_ASSERT_STRING_EQUAL(line, "fabric: fat_tree, 16 hosts x 8 NICs (400Gbps); 8 tor switches with 16 host "
			       "and 2 switch ports each, oversubscription 8:1; k = 4: 4 pods, 4 cores");
	CU_ASSERT_EQUAL(topology_surprise(&cfg, &t, line, sizeof line), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "[topology] nics_per_host = 8 on fat_tree links every NIC of a host "
				      "to its tor: a tor has 16 host and 2 switch ports, oversubscription 8:1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "rail_optimized"));
	topology_free(&t);
	config_free(&cfg);

	/* oversubscription adds hosts: 2 x (k/2) = 4 per ToR, 32 in all. */
	CU_ASSERT_FATAL(build_text(FT(4, "oversubscription = 2\n"), &cfg, &t) == 0);
	topology_describe(&cfg, &t, line, sizeof line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "oversubscription 2:1; k = 4, oversubscription = 2: 4 hosts per tor "
				      "on its k/2 = 2 uplinks, 32 hosts in all instead of k^3/4 = 16"));
	topology_free(&t);
	config_free(&cfg);

	/* Rail-optimised: leaf i holds NIC i of each of H hosts and S spine
	 * links: down:up = H x host rate / (S x link rate) = 4 x 400 / (2 x 800) = 1. */
	CU_ASSERT_FATAL(build_text("[topology]\ntype = rail_optimized\nhosts = 4\nspines = 2\nnics_per_host = 8\n"
				   "gpus_per_host = 8\nhost_link_rate = 400Gbps\nlink_rate = 800Gbps\nlink_delay = 1us\n",
				   &cfg, &t) == 0);
	topology_describe(&cfg, &t, line, sizeof line);
	CU_ASSERT_STRING_EQUAL(line, "fabric: rail_optimized, 4 hosts x 8 NICs (400Gbps); 8 leaf switches with 4 host "
			       "and 2 switch ports each, oversubscription 1:1 (non-blocking)");
	CU_ASSERT_EQUAL(topology_surprise(&cfg, &t, line, sizeof line), 0);
	topology_free(&t);
	config_free(&cfg);

	/* A star has no uplinks, hence no ratio. */
	CU_ASSERT_FATAL(build_text("[topology]\ntype = star\nhosts = 3\nlink_rate = 100Gbps\nlink_delay = 1us\n",
				   &cfg, &t) == 0);
	topology_describe(&cfg, &t, line, sizeof line);
	CU_ASSERT_STRING_EQUAL(line, "fabric: star, 3 hosts x 1 NIC (100Gbps); 1 sw switch with 3 host ports");
	topology_free(&t);
	config_free(&cfg);
}

TEST_MAIN("built",
	  { "fat tree closed forms", test_fat_tree },
	  { "fabric line and warning", test_lines })
