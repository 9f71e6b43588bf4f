/*
 * api_bench.c — make bench's figure of the library's call cost
 * (test/bench/run.sh, case api_latency): on the idle fabric of a scenario,
 * N times: post a message from GPU A to GPU B 10 us after now and run to
 * its completion (rocesim_post_msg + rocesim_next), timed with the
 * monotonic clock. Prints the median and 90th percentile wall time of one
 * such call pair in microseconds, the events each took and the message's
 * simulated time.
 *
 * Usage: api_bench SCENARIO N BYTES SRC DST
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "rocesim.h"

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: api_bench SCENARIO N BYTES SRC DST\n");
		return 2;
	}
	int n = atoi(argv[2]);
	uint64_t bytes = strtoull(argv[3], NULL, 10);
	rocesim *h = rocesim_open(argv[1], NULL, 0, NULL);
	if (!h || n < 1) {
		fprintf(stderr, "api_bench: %s\n", h ? "N must be at least 1" : rocesim_last_error(NULL));
		return 2;
	}
	int src = rocesim_endpoint(h, argv[4]), dst = rocesim_endpoint(h, argv[5]);
	double *us = malloc((size_t)n * sizeof *us);
	struct rocesim_completion c = { 0 };
	int64_t fct = 0;
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		int64_t at = rocesim_now(h) + 10000000;
		if (rocesim_post_msg(h, src, dst, bytes, at, (uint64_t)i) || rocesim_next(h, INT64_MAX, &c) != 1) {
			fprintf(stderr, "api_bench: %s\n", rocesim_last_error(h));
			return 1;
		}
		us[i] = now_us() - t0;
		if (i && c.time_ps - at != fct) { /* every message alone on the fabric: the same time */
			fprintf(stderr, "api_bench: message %d took %" PRId64 " ps, the first %" PRId64 " ps\n", i,
				c.time_ps - at, fct);
			return 1;
		}
		fct = c.time_ps - at;
	}
	qsort(us, (size_t)n, sizeof *us, cmp);
	printf("api_latency: %d calls (post %s -> %s %" PRIu64 " B, then next): median %.2f us, p90 %.2f us, "
	       "min %.2f us; simulated %.3f us each\n", n, argv[4], argv[5], bytes, us[n / 2], us[n * 9 / 10], us[0],
	       (double)fct / 1e6);
	free(us);
	return rocesim_close(h, NULL) ? 1 : 0;
}
