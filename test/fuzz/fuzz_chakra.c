/*
 * fuzz_chakra.c — libFuzzer target: one Chakra execution-trace file
 * (models/job/chakra_read.c, chakra_trace_parse from a memory buffer).
 *
 * Beyond "no crash, no leak": what chakra.h promises. On failure, a
 * message "fuzz.et: ..." and an empty trace; on success, node counts per
 * kind that add up, every dependency and reverse link an index of the
 * trace and each the mirror of the other, the graph acyclic (Kahn's
 * algorithm visits every node), send/recv peers set, collective ops known.
 * A violation aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chakra.h"
#include "collective.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_chakra: %s\n", what);
	abort();
}

static void check(const struct chakra_trace *t)
{
	size_t kinds = 0, deps = 0, kids = 0;
	for (int k = 0; k < CHAKRA_NKIND; k++)
		kinds += t->count[k];
	if (kinds != t->n)
		fail("node counts per kind do not add up");
	uint32_t *indeg = calloc(t->n + 1, sizeof *indeg), *queue = calloc(t->n + 1, sizeof *queue);
	if (!indeg || !queue)
		abort();
	for (size_t i = 0; i < t->n; i++) {
		const struct chakra_node *n = &t->node[i];
		if (n->kind >= CHAKRA_NKIND)
			fail("unknown kind");
		if ((n->kind == CHAKRA_SEND || n->kind == CHAKRA_RECV) && n->peer < 0)
			fail("send/recv without a peer");
		if (n->kind == CHAKRA_COLL && n->op != CHAKRA_OP_BARRIER && n->op > COLL_SENDRECV)
			fail("collective op unknown");
		if (n->kind == CHAKRA_COLL && n->pg >= (int32_t)t->n_pg)
			fail("pg index out of range");
		if ((size_t)n->dep0 + n->n_deps > t->n_dep || (size_t)n->kid0 + n->n_kids > t->n_kid)
			fail("dependency list out of range");
		deps += n->n_deps;
		kids += n->n_kids;
		for (uint32_t d = 0; d < n->n_deps; d++) {
			uint32_t p = t->dep[n->dep0 + d];
			if (p >= t->n)
				fail("dependency index out of range");
			/* i is among p's kids */
			const struct chakra_node *pn = &t->node[p];
			int found = 0;
			for (uint32_t c = 0; c < pn->n_kids && !found; c++)
				found = t->kid[pn->kid0 + c] == i;
			if (!found)
				fail("a dependency without its reverse link");
		}
		indeg[i] = n->n_deps;
	}
	if (deps != t->n_dep || kids != t->n_kid || deps != kids)
		fail("dependency and reverse lists differ in size");
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!indeg[i])
			queue[tail++] = (uint32_t)i;
	while (head < tail) {
		const struct chakra_node *n = &t->node[queue[head++]];
		for (uint32_t c = 0; c < n->n_kids; c++)
			if (--indeg[t->kid[n->kid0 + c]] == 0)
				queue[tail++] = t->kid[n->kid0 + c];
	}
	if (tail != t->n)
		fail("accepted a trace with a dependency cycle");
	free(indeg);
	free(queue);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct chakra_trace t;
	char *err = NULL;
	if (chakra_trace_parse("fuzz.et", data, size, &t, &err) < 0) {
		if (!err || strncmp(err, "fuzz.et: ", 9) != 0)
			fail("error not located at the file");
		if (t.n || t.node || t.dep || t.path)
			fail("a failed parse left a trace");
		free(err);
		return 0;
	}
	if (err)
		fail("success with a message");
	check(&t);
	chakra_trace_free(&t);
	return 0;
}
