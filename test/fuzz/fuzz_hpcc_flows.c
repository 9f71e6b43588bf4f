/*
 * fuzz_hpcc_flows.c — libFuzzer target: HPCC ns-3 flow.txt
 * (models/traffic/traffic_hpcc.c, hpcc_flows_parse from a memory buffer).
 *
 * Beyond "no crash, no leak": what traffic.h promises of hpcc_flows_parse. On failure, a
 * message "NAME:..." with no flows; on success, ids >= 0, src != dst,
 * size > 0, start >= 0 and non-decreasing, and HPCC's source port
 * 10000 + the number of earlier flows of the same (src, dst) (third.cc;
 * checked by counting when the file is small). A violation aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "traffic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_hpcc_flows: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpcc_flow *f = NULL;
	size_t n = 0;
	char *err = NULL;
	if (hpcc_flows_parse("fuzz.txt", (const char *)data, size, &f, &n, &err) < 0) {
		if (!err || strncmp(err, "fuzz.txt:", 9) != 0)
			fail("error not located at the file");
		if (f || n)
			fail("a failed parse left flows");
		free(err);
		return 0;
	}
	if (err)
		fail("success with a message");
	for (size_t i = 0; i < n; i++) {
		if (f[i].src < 0 || f[i].dst < 0 || f[i].src == f[i].dst || f[i].size_b == 0 || f[i].start_ps < 0)
			fail("bad flow");
		if (i && f[i].start_ps < f[i - 1].start_ps)
			fail("starts decrease");
		if (n <= 256) {
			uint32_t earlier = 0;
			for (size_t j = 0; j < i; j++)
				earlier += f[j].src == f[i].src && f[j].dst == f[i].dst;
			if (f[i].sport != 10000 + earlier)
				fail("source port is not 10000 + earlier flows of the pair");
		}
	}
	free(f);
	return 0;
}
