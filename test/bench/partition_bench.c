/*
 * partition_bench.c — how long the partitioner takes on a large fabric,
 * and what it cuts (docs/parallel.md "Partitioning"). Built for make
 * bench only; not a test.
 *
 * Builds the topology of a fat tree of arity K (100 Gb/s, 1 us links),
 * then partitions it into each rank count with each method, timing
 * partition_compute alone with the monotonic clock; prints one line per
 * (method, ranks): seconds, cut links, the busiest rank's ports over the
 * mean.
 *
 * Usage: partition_bench K RANKS...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "config.h"
#include "parallel.h"
#include "run.h"
#include "topology.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: partition_bench K RANKS...\n");
		return 2;
	}
	char text[256];
	snprintf(text, sizeof text, "[topology]\ntype = fat_tree\nk = %s\nlink_rate = 100Gbps\nlink_delay = 1us\n",
		 argv[1]);
	struct config cfg;
	char *err = NULL;
	if (scenario_load_text(&cfg, "bench.ini", text, strlen(text), NULL, 0, &err) < 0) {
		fprintf(stderr, "partition_bench: %s\n", err);
		return 2;
	}
	struct topo t;
	double t0 = now_s();
	if (topology_build(&cfg, &t, &err) < 0) {
		fprintf(stderr, "partition_bench: %s\n", err);
		return 2;
	}
	printf("fat_tree k=%s: %d hosts, %d nodes, %d links; topology built in %.3f s\n", argv[1], t.n_hosts,
	       t.n_nodes, t.n_links, now_s() - t0);
	static const int methods[] = { PART_POD, PART_LEAF, PART_RAIL, PART_METIS, PART_ROUND_ROBIN, PART_AUTO };
	for (int a = 2; a < argc; a++) {
		int n = atoi(argv[a]);
		for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
			struct partition p;
			t0 = now_s();
			int rc = partition_compute(&t, methods[m], n, &p, &err);
			double dt = now_s() - t0;
			if (rc < 0) {
				printf("%-12s ranks %4d: %s\n", partition_method_name(methods[m]), n, err);
				free(err);
				err = NULL;
				continue;
			}
			uint64_t most = 0, sum = 0;
			for (int r = 0; r < n; r++) {
				sum += p.ports_of_part[r];
				if (p.ports_of_part[r] > most)
					most = p.ports_of_part[r];
			}
			printf("%-12s ranks %4d: %8.3f s, cut %7d of %d links (%.2f%%), busiest rank %.3fx the mean ports%s%s\n",
			       partition_method_name(methods[m]), n, dt, p.n_cut_links, t.n_links,
			       100.0 * p.n_cut_links / t.n_links, (double)most * n / (double)sum,
			       methods[m] == PART_AUTO ? ": took " : "",
			       methods[m] == PART_AUTO ? partition_method_name(p.method) : "");
			partition_free(&p);
		}
	}
	topology_free(&t);
	config_free(&cfg);
	return 0;
}
