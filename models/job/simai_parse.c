/*
 * simai_parse.c — reads a SimAI/AICB workload file (the text format
 * SimAI's astra-sim reads in Workload::initialize_workload and AICB's
 * generator writes) into struct simai_workload (job.h).
 *
 * The format, as SimAI reads it (C++ `>>` after the first line, so only
 * the order of tokens counts there):
 *   line 1   HYBRID_TRANSFORMER_FWD_IN_BCKWD followed by `key: value`
 *            pairs: model_parallel_NPU_group (tp), ep, pp, vpp, ga,
 *            all_gpus, checkpoints, checkpoint_initiates, pp_comm (AICB
 *            writes it with or without the colon)
 *   line 2   the number of layer lines
 *   then     per layer line: name, a dependency (-1), and three phases,
 *            forward, input gradient and weight gradient, each
 *            `compute_ns COMM_TYPE size_b`, then the update time (ns)
 * COMM_TYPE is NONE or ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL with
 * an optional group suffix. Without a suffix a forward or input-gradient
 * collective runs over the TP group and a weight-gradient one over the DP
 * group; _EP names the expert-parallel group, _DP_EP the expert-data-
 * parallel group (SimAI's GroupType TP, DP, EP, DP_EP).
 *
 * Invariants of a successful parse: tp, ep, pp, vpp, ga >= 1; all_gpus is a
 * multiple of tp x pp and the data-parallel size all_gpus / (tp x pp) a
 * multiple of ep; times fit in picoseconds; every layer line is complete.
 * A failure is "NAME:LINE: what was found, what was expected" and leaves
 * nothing allocated.
 */
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "job.h"
#include "lex.h"
#include "xalloc.h"

/* Bounds that keep every later product in range: 10^12 ns is 10^15 ps per
 * step, and a million lines of them still fit int64 picoseconds. */
#define SIMAI_MAX_NS 1000000000000ULL     /* 1000 s per compute step */
#define SIMAI_MAX_SIZE_B (1ULL << 50)     /* 1 PiB per collective */
#define SIMAI_MAX_LINES 4000000ULL
#define SIMAI_MAX_DIM 1000000ULL

static const struct { const char *word; enum coll_op op; } simai_ops[] = {
	{ "ALLREDUCE", COLL_ALLREDUCE }, { "ALLGATHER", COLL_ALLGATHER },
	{ "REDUCESCATTER", COLL_REDUCE_SCATTER }, { "ALLTOALL", COLL_ALLTOALL },
};

/* One phase's collective type word: 0 with c set, -1 with a located error. */
static int parse_comm(struct lex *lx, int phase, struct simai_comm *c)
{
	static const char *const phase_name[] = { "forward", "input-gradient", "weight-gradient" };
	if (lex_need(lx, "a collective type") < 0)
		return -1;
	memset(c, 0, sizeof *c);
	if (strcmp(lx->tok, "NONE") == 0) {
		c->group = SIMAI_NONE;
		return 0;
	}
	for (size_t i = 0; i < sizeof simai_ops / sizeof *simai_ops; i++) {
		size_t n = strlen(simai_ops[i].word);
		if (strncmp(lx->tok, simai_ops[i].word, n) != 0)
			continue;
		const char *suffix = lx->tok + n;
		c->op = (uint8_t)simai_ops[i].op;
		if (!*suffix)
			c->group = phase == 2 ? SIMAI_DP : SIMAI_TP;
		else if (strcmp(suffix, "_EP") == 0)
			c->group = SIMAI_EP;
		else if (strcmp(suffix, "_DP_EP") == 0)
			c->group = SIMAI_DP_EP;
		else
			break;
		return 0;
	}
	return lex_err(lx, "'%s' is not a %s collective type: expected NONE, or ALLREDUCE, ALLGATHER, "
		       "REDUCESCATTER or ALLTOALL, optionally followed by _EP or _DP_EP", lx->tok, phase_name[phase]);
}

static int parse_time(struct lex *lx, const char *what, uint64_t *ns)
{
	return lex_uint(lx, what, SIMAI_MAX_NS, ns);
}

/* The header's `key: value` pairs up to the end of line 1. */
static int parse_header(struct lex *lx, struct simai_workload *w, bool *have_count)
{
	uint64_t tp = 0, gpus = 0, ep = 1, pp = 1, vpp = 1, ga = 1, pp_comm = 0, v;
	bool got_tp = false, got_gpus = false;
	*have_count = false;
	if (lex_need(lx, "the workload type HYBRID_TRANSFORMER_FWD_IN_BCKWD") < 0)
		return -1;
	if (strcmp(lx->tok, "HYBRID_TRANSFORMER_FWD_IN_BCKWD") != 0)
		return lex_err(lx, "workload type '%s': expected HYBRID_TRANSFORMER_FWD_IN_BCKWD (the type AICB "
			       "writes for Megatron-style jobs)", lx->tok);
	int header = lx->tok_line;
	for (;;) {
		int r = lex_next(lx, "a header key or the number of layer lines");
		if (r < 0)
			return -1;
		if (r == 0)
			return lex_err(lx, "the file ends after its header: expected the number of layer lines");
		if (lx->tok_line != header) {
			*have_count = true; /* the token is the count (line 2) */
			break;
		}
		char key[LEX_TOK_MAX];
		memcpy(key, lx->tok, sizeof key);
		uint64_t *dst = NULL, max = SIMAI_MAX_DIM, min = 1;
		if (strcmp(key, "model_parallel_NPU_group:") == 0)
			dst = &tp, got_tp = true;
		else if (strcmp(key, "ep:") == 0)
			dst = &ep;
		else if (strcmp(key, "pp:") == 0)
			dst = &pp;
		else if (strcmp(key, "vpp:") == 0)
			dst = &vpp;
		else if (strcmp(key, "ga:") == 0)
			dst = &ga;
		else if (strcmp(key, "all_gpus:") == 0)
			dst = &gpus, got_gpus = true;
		else if (strcmp(key, "pp_comm") == 0 || strcmp(key, "pp_comm:") == 0)
			dst = &pp_comm, max = SIMAI_MAX_SIZE_B, min = 0;
		else if (strcmp(key, "checkpoints:") == 0 || strcmp(key, "checkpoint_initiates:") == 0)
			dst = &v, max = 0, min = 0; /* only "0": recomputation in backward is not modelled */
		else
			return lex_err(lx, "unknown header key '%s': expected model_parallel_NPU_group:, ep:, pp:, "
				       "vpp:, ga:, all_gpus:, checkpoints:, checkpoint_initiates: or pp_comm", key);
		if (lex_uint(lx, key, max, dst) < 0)
			return -1;
		if (lx->tok_line != header)
			return lex_err(lx, "the value of %s must be on the header line", key);
		if (*dst < min)
			return lex_err(lx, "%s %llu: expected at least %llu", key, (unsigned long long)*dst,
				       (unsigned long long)min);
	}
	if (!got_tp || !got_gpus) {
		lx->tok_line = header;
		return lex_err(lx, "the header lacks %s", got_tp ? "all_gpus:" : "model_parallel_NPU_group:");
	}
	if (gpus % (tp * pp) != 0) {
		lx->tok_line = header;
		return lex_err(lx, "all_gpus: %llu is not a multiple of model_parallel_NPU_group x pp (%llu x %llu)",
			       (unsigned long long)gpus, (unsigned long long)tp, (unsigned long long)pp);
	}
	uint64_t dp = gpus / (tp * pp);
	if (dp % ep != 0) {
		lx->tok_line = header;
		return lex_err(lx, "ep: %llu does not divide the data-parallel size all_gpus / (tp x pp) = %llu",
			       (unsigned long long)ep, (unsigned long long)dp);
	}
	w->tp = (int)tp, w->ep = (int)ep, w->pp = (int)pp, w->vpp = (int)vpp, w->ga = (int)ga;
	w->all_gpus = (int)gpus;
	w->pp_comm_b = pp_comm;
	return 0;
}

int simai_parse(const char *name, const char *text, size_t len, struct simai_workload *w, char **err)
{
	struct lex lx;
	bool have_count;
	memset(w, 0, sizeof *w);
	*err = NULL;
	lex_init(&lx, name, text, len, err);
	if (parse_header(&lx, w, &have_count) < 0)
		return -1;
	/* The count is the token parse_header stopped at. */
	uint64_t n = 0;
	for (const char *s = lx.tok; *s; s++) {
		if (*s < '0' || *s > '9' || n > SIMAI_MAX_LINES)
			return lex_err(&lx, "'%s': expected the number of layer lines (at most %llu)", lx.tok,
				       SIMAI_MAX_LINES);
		n = n * 10 + (uint64_t)(*s - '0');
	}
	if (n == 0 || n > SIMAI_MAX_LINES)
		return lex_err(&lx, "%llu layer lines: expected 1 to %llu", (unsigned long long)n, SIMAI_MAX_LINES);
	struct simai_line *line = xcalloc((size_t)n, sizeof *line);
	for (uint64_t i = 0; i < n; i++) {
		struct simai_line *l = &line[i];
		if (lex_need(&lx, "a layer name") < 0)
			goto fail;
		memcpy(l->name, lx.tok, sizeof l->name);
		l->line = lx.tok_line;
		/* The dependency field: -1 in every file AICB writes. */
		if (lex_need(&lx, "the dependency field (-1)") < 0)
			goto fail;
		if (strcmp(lx.tok, "-1") != 0) {
			lex_err(&lx, "dependency '%s' of layer %s: expected -1 (layers run in file order)", lx.tok,
				l->name);
			goto fail;
		}
		struct simai_comm *comm[3] = { &l->fwd, &l->ig, &l->wg };
		uint64_t *ns[3] = { &l->fwd_ns, &l->ig_ns, &l->wg_ns };
		static const char *const what[3][2] = {
			{ "the forward compute time (ns)", "the forward collective size (bytes)" },
			{ "the input-gradient compute time (ns)", "the input-gradient collective size (bytes)" },
			{ "the weight-gradient compute time (ns)", "the weight-gradient collective size (bytes)" },
		};
		for (int ph = 0; ph < 3; ph++)
			if (parse_time(&lx, what[ph][0], ns[ph]) < 0 || parse_comm(&lx, ph, comm[ph]) < 0 ||
			    lex_uint(&lx, what[ph][1], SIMAI_MAX_SIZE_B, &comm[ph]->size_b) < 0)
				goto fail;
		if (parse_time(&lx, "the update time (ns)", &l->upd_ns) < 0)
			goto fail;
	}
	if (lex_end(&lx, "the last layer line") < 0)
		goto fail;
	w->n = (int)n;
	w->line = line;
	return 0;
fail:
	free(line);
	memset(w, 0, sizeof *w);
	return -1;
}

void simai_free(struct simai_workload *w)
{
	free(w->line);
	w->line = NULL;
	w->n = 0;
}
