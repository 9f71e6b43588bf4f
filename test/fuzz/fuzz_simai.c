/*
 * fuzz_simai.c — libFuzzer target: SimAI/AICB workload files
 * (models/job/simai_parse.c, simai_parse from a memory buffer).
 *
 * Beyond "no crash, no leak": what job.h promises of simai_parse. On
 * failure, a message "fuzz.txt:LINE: ..." with LINE >= 1 and no lines
 * left; on success tp, ep, pp, vpp, ga >= 1, all_gpus a multiple of tp x pp
 * whose data-parallel size ep divides, n >= 1 lines with ascending file
 * lines >= 2 (a layer may share the count's line: after the header only
 * the order of tokens counts), every collective's op one of the four a
 * file can name and a group in range. A violation aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_simai: %s\n", what);
	abort();
}

static void check_comm(const struct simai_comm *c)
{
	if (c->group > SIMAI_DP_EP)
		fail("group out of range");
	if (c->group != SIMAI_NONE && c->op != COLL_ALLREDUCE && c->op != COLL_ALLGATHER &&
	    c->op != COLL_REDUCE_SCATTER && c->op != COLL_ALLTOALL)
		fail("op a file cannot name");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct simai_workload w;
	char *err = NULL;
	if (simai_parse("fuzz.txt", (const char *)data, size, &w, &err) < 0) {
		if (!err || strncmp(err, "fuzz.txt:", 9) != 0 || atoi(err + 9) < 1)
			fail("error not located at a line of the file");
		if (w.line || w.n)
			fail("a failed parse left lines");
		free(err);
		return 0;
	}
	if (err)
		fail("success with a message");
	if (w.tp < 1 || w.ep < 1 || w.pp < 1 || w.vpp < 1 || w.ga < 1 || w.all_gpus < 1)
		fail("a header value below 1");
	if (w.all_gpus % (w.tp * w.pp) != 0 || (w.all_gpus / (w.tp * w.pp)) % w.ep != 0)
		fail("a layout that does not divide");
	if (w.n < 1 || !w.line)
		fail("no lines");
	for (int i = 0; i < w.n; i++) {
		const struct simai_line *l = &w.line[i];
		if (l->line < 2 || (i && l->line < w.line[i - 1].line))
			fail("layer lines out of order");
		check_comm(&l->fwd);
		check_comm(&l->ig);
		check_comm(&l->wg);
	}
	simai_free(&w);
	return 0;
}
