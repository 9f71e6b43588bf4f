/*
 * chakra_keys.c — `[job.NAME] workload = chakra`: the type's keys (the
 * job section's type registry is in job_keys.c).
 *
 * trace: where the ranks' execution traces are, a pattern with one %d
 * (the rank), a folder of PREFIX.N.et files or a PREFIX (chakra_load.c).
 * Relative to the scenario's folder (to the current folder with --set),
 * stored absolute so the resolved text reads back from anywhere. Whether
 * the files exist is checked when the job is built, where each rank's
 * file is read.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "job.h"
#include "xalloc.h"

static int trace_parse(const struct cfg_key *k, void *base, const char *value, const struct cfg_store_ctx *ctx,
		       char *expected)
{
	(void)k;
	char **field = CFG_FIELD(base, offsetof(struct job_chakra_cfg, trace), char *);
	const char *pct = strchr(value, '%');
	if (!*value || (pct && (strncmp(pct, "%d", 2) != 0 || strchr(pct + 1, '%')))) {
		snprintf(expected, CFG_EXPECTED_MAX, "a trace path: a pattern with one %%d for the rank (and no other "
			 "%%), a folder of PREFIX.N.et files, or a PREFIX");
		return -1;
	}
	const char *dir = ctx->from_set || value[0] == '/' || !ctx->dir ? "" : ctx->dir;
	char *cwd = NULL;
	bool rel = value[0] != '/' && dir[0] != '/';
	if (rel && !(cwd = getcwd(NULL, 0))) {
		snprintf(expected, CFG_EXPECTED_MAX, "a trace path (the current folder cannot be read)");
		return -1;
	}
	size_t n = (cwd ? strlen(cwd) + 1 : 0) + strlen(dir) + 1 + strlen(value) + 1;
	char *p = xmalloc(n);
	snprintf(p, n, "%s%s%s%s%s", cwd ? cwd : "", cwd ? "/" : "", dir, *dir ? "/" : "", value);
	free(cwd);
	free(*field);
	*field = p;
	return 0;
}

static void trace_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const char *v = *CFG_FIELD(base, offsetof(struct job_chakra_cfg, trace), char *const);
	if (!v) {
		cfg_text_unset(t, k);
		return;
	}
	cfg_text_begin(t, k->name);
	cfg_text_word(t, "", v);
	cfg_text_end(t);
}

static void trace_free(const struct cfg_key *k, void *base)
{
	(void)k;
	char **field = CFG_FIELD(base, offsetof(struct job_chakra_cfg, trace), char *);
	free(*field);
	*field = NULL;
}

static const struct cfg_custom trace_type = {
	.parse = trace_parse, .write = trace_write, .free = trace_free,
	.type_doc = "path: DIR/rank.%d.et, a folder of PREFIX.N.et, or PREFIX",
};

static const struct cfg_key chakra_keys[] = {
	{ "trace", KT_CUSTOM, .required = true, .custom = &trace_type,
	  .off = offsetof(struct job_chakra_cfg, trace),
	  .help = "the ranks' Chakra execution traces (rank r: the %d pattern with r, or PREFIX.r.et)" },
};

static const char *const chakra_not_required[] = { "model", "global_batch", NULL };

const struct cfg_type job_type_chakra = {
	.name = "chakra", .help = "per-rank Chakra execution traces (ASTRA-sim 2.0, PyTorch profilers)",
	CFG_KEYS(chakra_keys), .size = sizeof(struct job_chakra_cfg), .not_required = chakra_not_required,
};
