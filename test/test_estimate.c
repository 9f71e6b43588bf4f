/*
 * test_estimate.c — the memory estimate and the refusal of scenarios the
 * machine cannot hold (models/run/estimate.c, run.c's check before building),
 * and the progress line's fraction (kernel/progress.c). The run-time and
 * capture estimates are checked against runs in test/estimate.sh.
 */
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include "estimate.h"
#include "flow.h"
#include "progress.h"
#include "qp.h"
#include "run_fixture.h"
#include "testutil.h"
#include "topology.h"

static int load_text(const char *text, struct config *cfg)
{
	char ini[256];
	snprintf(ini, sizeof ini, "%s/e%d.ini", run_tmpdir, run_counter++);
	FILE *f = fopen(ini, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	char *err = NULL;
	int rc = scenario_load(cfg, ini, NULL, 0, &err);
	if (rc < 0)
		printf("config: %s\n", err);
	free(err);
	return rc;
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A k = 64 fat tree (65,536 hosts) with all-to-all traffic: 65,536 x 65,535
 * flows live at once, ~2 TB. Refused at --check, fast, without building the
 * world: the process grows by the topology description only. */
static void test_k64_refused(void)
{
	struct config cfg;
	CU_ASSERT_FATAL(load_text("[topology]\ntype = fat_tree\nk = 64\nlink_rate = 100Gbps\n"
				  "link_delay = 1us\n[traffic.all]\ntype = all_to_all\nsize = 1MB\n",
				  &cfg) == 0);
	long rss0 = peak_rss_kb();
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct run_opts o = { .scenario = cfg.path, .check = true };
	struct run_report rep;
	char *err = NULL;
	int rc = run_scenario(&cfg, &o, &rep, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CU_ASSERT_EQUAL(rc, EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "4294901760 flows known in advance"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs about"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "this machine has"));
	/* The flows alone: 65536 x 65535 x (flow + two queue pairs) bytes. */
	double need_gib = 4294901760.0 * (double)(sizeof(struct flow) + 2 * sizeof(struct qp)) / 1073741824.0;
	const char *p = strstr(err, "needs about ");
	CU_ASSERT(p && strtod(p + 12, NULL) >= need_gib);
	printf("\n  refused in %.2f s, peak RSS +%ld KB: %s\n", s, peak_rss_kb() - rss0, err);
	CU_ASSERT(s < 10.0);
	/* Routing alone would be 5120 switches x 65536 endpoints x 2 B = 640 MiB. */
	CU_ASSERT(peak_rss_kb() - rss0 < 200 * 1024);
	free(err);
	run_report_free(&rep);
	config_free(&cfg);
}

/* Flows known in advance, by traffic type, on a 16-host star. */
static void test_flows_counted(void)
{
	const char *top = "[topology]\ntype = star\nhosts = 16\nlink_rate = 100Gbps\nlink_delay = 1us\n";
	struct { const char *traffic; uint64_t flows; } cases[] = {
		{ "[traffic.t]\ntype = all_to_all\nsize = 1KB\n", 16 * 15 },
		{ "[traffic.t]\ntype = permutation\nsize = 1KB\n", 16 },
		{ "[traffic.t]\ntype = incast\nsenders = host1 host2 host3\nreceiver = host0\nsize = 1KB\n", 3 },
		{ "[traffic.t]\ntype = flows\nflow = host0 host1 1KB 0us\nflow = host1 host0 1KB 0us\n", 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s", top, cases[i].traffic);
		struct config cfg;
		CU_ASSERT_FATAL(load_text(text, &cfg) == 0);
		struct topo t;
		char *err = NULL;
		CU_ASSERT_FATAL(topology_build(&cfg, &t, &err) == 0);
		struct mem_estimate e;
		estimate_memory(&cfg, &t, &e);
		CU_ASSERT_EQUAL(e.flows, cases[i].flows);
		/* One switch, one group (its own 16 endpoints): 2 B plus its
		 * sets, and the 16 endpoints' shared 8-byte entries. */
		CU_ASSERT_EQUAL(e.routing_b, (1 + 64) * sizeof(uint16_t) + 16 * 8);
		CU_ASSERT_EQUAL(e.total_b, e.base_b + e.fabric_b + e.routing_b + e.flows_b + e.packets_b + e.sqlite_b);
		topology_free(&t);
		config_free(&cfg);
	}
}

/* The estimate of a small scenario against the peak RSS of a child process
 * running it: within a factor of 2. Sanitizers and valgrind inflate RSS by
 * design, so the comparison is skipped under them. */
static void test_estimate_vs_rss(void)
{
#if defined(__SANITIZE_ADDRESS__)
	printf("\n  skipped: AddressSanitizer build\n");
	return;
#endif
	const char *ld = getenv("LD_PRELOAD");
	if (ld && strstr(ld, "vgpreload")) {
		printf("\n  skipped: under valgrind\n");
		return;
	}
	/* permutation.ini's shape: k = 8 fat tree, every host sends 1 MB. */
	const char *text = "[topology]\ntype = fat_tree\nk = 8\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			   "[traffic.p]\ntype = permutation\nsize = 1MB\n";
	struct config cfg;
	CU_ASSERT_FATAL(load_text(text, &cfg) == 0);
	struct topo t;
	char *err = NULL;
	CU_ASSERT_FATAL(topology_build(&cfg, &t, &err) == 0);
	struct mem_estimate e;
	estimate_memory(&cfg, &t, &e);
	topology_free(&t);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char db[256];
		snprintf(db, sizeof db, "%s/rss.db", run_tmpdir);
		struct run_opts o = { .scenario = cfg.path, .output = db };
		struct run_report rep;
		_exit(run_scenario(&cfg, &o, &rep, &err));
	}
	int status;
	struct rusage ru;
	CU_ASSERT_FATAL(wait4(pid, &status, 0, &ru) == pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	double rss_b = (double)ru.ru_maxrss * 1024.0;
	double ratio = (double)e.total_b / rss_b;
	printf("\n  estimate %.1f MiB, child peak RSS %.1f MiB, ratio %.2f\n",
	       (double)e.total_b / 1048576.0, rss_b / 1048576.0, ratio);
	CU_ASSERT(ratio >= 0.5 && ratio <= 2.0);
	config_free(&cfg);
}

/* The progress line's fraction: now / stop when the run has a stop time,
 * else the least of flows done / flows known and the models' own
 * fraction (the jobs' iterations), -1 when none is known, at most 1. */
static void test_progress_fraction(void)
{
	struct progress p;
	progress_init(&p, false, 10 * SIMTIME_MS);
	CU_ASSERT_DOUBLE_EQUAL(progress_fraction(&p, 2500 * SIMTIME_US, 0, 0.9), 0.25, 1e-12); /* 2.5 / 10 */
	CU_ASSERT_DOUBLE_EQUAL(progress_fraction(&p, 12 * SIMTIME_MS, 0, -1), 1.0, 1e-12);     /* capped */
	progress_init(&p, false, SIMTIME_NEVER);
	CU_ASSERT_DOUBLE_EQUAL(progress_fraction(&p, SIMTIME_MS, 0, -1), -1.0, 1e-12);          /* nothing known */
	CU_ASSERT_DOUBLE_EQUAL(progress_fraction(&p, SIMTIME_MS, 0, 0.4), 0.4, 1e-12);          /* jobs only */
	p.flows_total = 200;
	CU_ASSERT_DOUBLE_EQUAL(progress_fraction(&p, SIMTIME_MS, 50, -1), 0.25, 1e-12);         /* 50 / 200 */
	CU_ASSERT_DOUBLE_EQUAL(progress_fraction(&p, SIMTIME_MS, 50, 0.1), 0.1, 1e-12);         /* the least */
	CU_ASSERT_DOUBLE_EQUAL(progress_fraction(&p, SIMTIME_MS, 150, 0.5), 0.5, 1e-12);
}

TEST_MAIN("estimate",
	  { "progress fraction", test_progress_fraction },
	  { "k=64 all-to-all refused", test_k64_refused },
	  { "flows counted", test_flows_counted },
	  { "estimate vs peak RSS", test_estimate_vs_rss })
