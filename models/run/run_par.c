/*
 * run_par.c — what a run under mpirun adds to run.c (run_internal.h):
 * which models tie hosts together (they decide the partition), the
 * watchdog's and the sampler's views summed over the ranks, and the
 * ranks' parts of fct.txt merged into one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "config.h"
#include "job.h"
#include "observe.h"
#include "parallel.h"
#include "run_internal.h"
#include "traffic.h"
#include "watchdog.h"
#include "xalloc.h"

/* The model a partitioned run cannot split across ranks, NULL when there
 * is none (parallel.h): a driver, whose program is one process. */
const char *run_unpartitionable(const struct run_opts *o)
{
	if (o->attach)
		return "a driver (librocesim)";
	return NULL;
}

/* A model whose state spans hosts at zero delay: a job starts a
 * collective when its last member arrives, a closed-loop source posts
 * when a message ends anywhere (a multicast group's sender hears from its
 * members through the tree). It runs on the rank that has every host
 * (partition = hosts). From the configuration: a partitioned run places
 * its nodes before it builds them. buf[n] holds a source's wording. */
const char *run_host_coupled(const struct config *cfg, char *buf, size_t n)
{
	const char *closed = traffic_closed_loop(cfg);
	if (jobs_classes(cfg))
		return "a training job ([job])";
	if (!closed)
		return NULL;
	snprintf(buf, n, "a closed-loop source ([%s])", closed);
	return buf;
}

/* The delay after which run_host_coupled's model reacts to what reaches
 * a host, when it can be mirrored on every rank (a job's endpoint_delay,
 * jobs.h); 0 when it cannot (a closed-loop source reacts at once). */
simtime_t run_mirror_ps(const struct config *cfg)
{
	return traffic_closed_loop(cfg) ? 0 : jobs_mirror_ps(cfg);
}

/* The watchdog of a partitioned run: what it reads, summed over the
 * ranks, and the wait-for graph from every rank's switches. */
void run_wd_sums(void *ctx, struct wd_view *v)
{
	uint64_t a[4] = { v->progress, !v->idle, !v->empty, v->nic_flows };
	par_sum_all(ctx, a, 4);
	*v = (struct wd_view){ .progress = a[0], .idle = a[1] == 0, .empty = a[2] == 0, .nic_flows = a[3] };
}

void run_wd_graph(void *ctx, const int *part, int n, int **all, int *n_all)
{
	par_gather_ints(ctx, part, n, all, n_all);
}

/* The sampler of a partitioned run: whether anything is left anywhere. */
bool run_all_empty(void *ctx, bool empty)
{
	return par_all(ctx, empty);
}

/* A partitioned run's fct.txt: the ranks' parts (every one closed: the
 * ranks published theirs before par_merge_parts), merged when the
 * database is kept, else removed. */
int run_fct_merge(const char *path, const char *who, const struct par *par, bool keep, char **err)
{
	if (!path || !par_partitioned(par))
		return 0;
	int n = par_size(), rc = 0;
	char **parts = xcalloc((size_t)n, sizeof *parts);
	for (int k = 0; k < n; k++)
		parts[k] = par_part_path(path, k);
	if (keep)
		rc = hpcc_fct_merge(path, who, parts, n, err);
	for (int k = 0; k < n; k++) {
		unlink(parts[k]);
		free(parts[k]);
	}
	free(parts);
	return rc;
}
