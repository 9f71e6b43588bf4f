/*
 * job_slow.c — stragglers: the `slow` and `slow_random` keys of
 * [job.NAME], their resolution onto the job's ranks and the factors of
 * each iteration (see job_slow.h).
 *
 * Random factors come from the job's own RNG_STRAGGLER stream, drawn at
 * each iteration's start for every rank in rank order, so a run is a pure
 * function of the scenario and the seed and turning stragglers on shifts
 * no other model's draws. Work is O(ranks) per iteration.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include "job.h"
#include "job_exec.h"
#include "job_slow.h"
#include "rng.h"
#include "nic.h"
#include "units.h"
#include "xalloc.h"

/* ---- Keys ---- */

static int slow_parse(const struct cfg_key *k, void *base, const char *value,
		      const struct cfg_store_ctx *ctx, char *expected)
{
	(void)k;
	static const char what[] = "GPU FACTOR (such as 'host3.gpu1 1.5': that GPU's compute takes 1.5 times as long)";
	struct job_cfg *c = base;
	char **tok;
	size_t n = units_list(value, &tok);
	char *end = NULL;
	double f = n == 2 ? strtod(tok[1], &end) : 0;
	int rc = -1;
	if (n != 2)
		snprintf(expected, CFG_EXPECTED_MAX, "%s", what);
	else if (end == tok[1] || *end || !isfinite(f))
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with FACTOR a number", what);
	else if (f < 1 || f > 1000)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with 1 <= FACTOR <= 1000 (a straggler is never faster)", what);
	else
		rc = 0;
	for (size_t i = 0; rc == 0 && i < c->n_slow; i++)
		if (strcmp(c->slow[i].gpu, tok[0]) == 0) {
			snprintf(expected, CFG_EXPECTED_MAX, "a GPU not slowed before ('%s' is also at line %d)",
				 tok[0], c->slow[i].line);
			rc = -1;
		}
	if (rc == 0) {
		c->slow = xrealloc(c->slow, (c->n_slow + 1) * sizeof *c->slow);
		c->slow[c->n_slow++] = (struct job_slow_cfg){ .gpu = tok[0], .factor = f, .line = ctx->line };
		tok[0] = NULL;
	}
	units_list_free(tok, n);
	return rc;
}

static void slow_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const struct job_cfg *c = base;
	if (c->n_slow == 0) {
		cfg_text_unset(t, k);
		return;
	}
	for (size_t i = 0; i < c->n_slow; i++) {
		char f[32];
		snprintf(f, sizeof f, "%.17g", c->slow[i].factor);
		cfg_text_begin(t, k->name);
		cfg_text_word(t, "", c->slow[i].gpu);
		cfg_text_word(t, "", f);
		cfg_text_end(t);
	}
}

static void slow_free(const struct cfg_key *k, void *base)
{
	(void)k;
	struct job_cfg *c = base;
	for (size_t i = 0; i < c->n_slow; i++)
		free(c->slow[i].gpu);
	free(c->slow);
	c->slow = NULL;
	c->n_slow = 0;
}

const struct cfg_custom job_slow_line = {
	.parse = slow_parse, .write = slow_write, .free = slow_free,
	.type_doc = "repeated line: GPU FACTOR", .repeated = true,
};

static int random_parse(const struct cfg_key *k, void *base, const char *value,
			const struct cfg_store_ctx *ctx, char *expected)
{
	(void)k; (void)ctx;
	struct job_cfg *c = base;
	char **tok;
	size_t n = units_list(value, &tok);
	char *end = NULL;
	int rc = -1;
	if (n == 1 && strcmp(tok[0], "off") == 0) {
		c->slow_sigma = 0;
		rc = 0;
	} else if (n == 2 && strcmp(tok[0], "lognormal") == 0) {
		double s = strtod(tok[1], &end);
		if (end != tok[1] && !*end && isfinite(s) && s > 0 && s <= 1) {
			c->slow_sigma = s;
			rc = 0;
		}
	}
	if (rc < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "off or 'lognormal SIGMA' with 0 < SIGMA <= 1 "
			 "(each GPU's factor exp(SIGMA |Z|) re-drawn every iteration)");
	units_list_free(tok, n);
	return rc;
}

static void random_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const struct job_cfg *c = base;
	cfg_text_begin(t, k->name);
	if (c->slow_sigma > 0) {
		char s[32];
		snprintf(s, sizeof s, "%.17g", c->slow_sigma);
		cfg_text_word(t, "", "lognormal");
		cfg_text_word(t, "", s);
	} else {
		cfg_text_word(t, "", "off");
	}
	cfg_text_end(t);
}

static void random_free(const struct cfg_key *k, void *base)
{
	(void)k; (void)base;
}

const struct cfg_custom job_slow_random = {
	.parse = random_parse, .write = random_write, .free = random_free,
	.type_doc = "off or lognormal SIGMA",
};

/* ---- Resolution ---- */

/* The job's GPU names, "host0.gpu0, host0.gpu1, ...", for suggestions
 * (malloc'd). */
static char *job_gpu_names(const struct job *j)
{
	size_t cap = 64, len = 0;
	char *s = xmalloc(cap);
	s[0] = 0;
	for (int r = 0; r < j->spec.layout.n_ranks; r++) {
		char name[48];
		world_gpu_name(j->w, j->gpu[r], name, sizeof name);
		size_t k = strlen(name);
		while (len + k + 3 > cap)
			s = xrealloc(s, cap *= 2);
		len += (size_t)snprintf(s + len, cap - len, "%s%s", r ? ", " : "", name);
	}
	return s;
}

int job_slow_setup(struct job *j, char **err)
{
	const struct job_cfg *c = j->spec.cfg;
	int ranks = j->spec.layout.n_ranks;
	j->slow_fixed = xcalloc((size_t)ranks, sizeof *j->slow_fixed);
	j->slow_f = xcalloc((size_t)ranks, sizeof *j->slow_f);
	for (int r = 0; r < ranks; r++)
		j->slow_fixed[r] = j->slow_f[r] = 1;
	for (size_t i = 0; i < c->n_slow; i++) {
		const struct job_slow_cfg *sl = &c->slow[i];
		int g = world_gpu_id(j->w, sl->gpu), rank = -1;
		for (int r = 0; g >= 0 && r < ranks && rank < 0; r++)
			if (j->gpu[r] == g)
				rank = r;
		if (rank >= 0) {
			j->slow_fixed[rank] = sl->factor;
			continue;
		}
		char *names = job_gpu_names(j), mean[96];
		if (g < 0)
			*err = cfg_error_at(j->w->cfg, j->source, "slow", sl->line,
					    "unknown GPU '%s' (GPUs are named hostH.gpuI, I below gpus_per_host = %d)%s",
					    sl->gpu, j->w->gpus_per_host, cfg_did_you_mean(sl->gpu, names, mean, sizeof mean));
		else
			*err = cfg_error_at(j->w->cfg, j->source, "slow", sl->line,
					    "GPU '%s' is not one of the job's %d GPUs (set by hosts and tp x cp x pp x dp)%s",
					    sl->gpu, ranks, cfg_did_you_mean(sl->gpu, names, mean, sizeof mean));
		free(names);
		return -1;
	}
	if (c->slow_sigma > 0)
		j->slow_rng = rng_stream(j->w->sim->seed, RNG_STRAGGLER, (uint64_t)j->index);
	return 0;
}

void job_slow_free(struct job *j)
{
	free(j->slow_fixed);
	free(j->slow_f);
	if (j->slow_rng)
		gsl_rng_free(j->slow_rng);
	j->slow_fixed = j->slow_f = NULL;
	j->slow_rng = NULL;
}

double job_slow_draw(gsl_rng *r, double sigma)
{
	return exp(sigma * fabs(gsl_ran_ugaussian(r)));
}

simtime_t job_slow_time(simtime_t plan_ps, double f)
{
	if (f == 1)
		return plan_ps;
	/* A factor is at most 1000 x a draw that exceeds 1000 with
	 * probability ~1e-12; the cap keeps even that a valid time. */
	double t = (double)plan_ps * f;
	return t < 1e18 ? (simtime_t)llround(t) : (simtime_t)1000000000000000000LL;
}

void job_slow_iteration(struct job *j)
{
	const struct job_spec *s = &j->spec;
	int ranks = s->layout.n_ranks;
	bool any = false;
	for (int r = 0; r < ranks; r++) {
		j->slow_f[r] = j->slow_fixed[r];
		if (j->slow_rng)
			j->slow_f[r] *= job_slow_draw(j->slow_rng, s->cfg->slow_sigma);
		any |= j->slow_f[r] > 1;
	}
	j->opt_slow_f = 1;
	j->opt_slow_gpu = -1;
	for (int i = 0; i < j->n_workers; i++) {
		j->wk[i].slow_f = 1;
		j->wk[i].slow_gpu = -1;
	}
	if (!any)
		return;
	/* A worker's GPUs: its tp x cp ranks; the lowest wins a tie. */
	for (int i = 0; i < j->n_workers; i++) {
		struct job_worker *wk = &j->wk[i];
		for (int t = 0; t < job_width(s); t++) {
			int r = job_layout_rank_dp(&s->layout, t, wk->d, wk->stage);
			if (j->slow_f[r] > wk->slow_f) {
				wk->slow_f = j->slow_f[r];
				wk->slow_gpu = j->gpu[r];
			}
		}
	}
	for (int r = 0; r < ranks; r++)
		if (j->slow_f[r] > j->opt_slow_f) {
			j->opt_slow_f = j->slow_f[r];
			j->opt_slow_gpu = j->gpu[r];
		}
}
