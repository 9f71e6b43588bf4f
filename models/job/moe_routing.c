/*
 * moe_routing.c — where a mixture-of-experts job's tokens go: expert
 * popularity, its persistence across iterations, capacity, and the token
 * counts each iteration's all-to-alls and experts see (see workload.h).
 *
 * Popularity. Every MoE layer keeps a latent score per expert. The first
 * iteration draws the scores from N(0, 1); each later iteration moves them
 * as a first-order autoregression,
 *     z' = ρ·z + sqrt(1 − ρ²)·ε,   ε ~ N(0, 1),  ρ = moe_skew_correlation,
 * so the scores of consecutive iterations have correlation ρ and stay
 * N(0, 1) (ρ = 1: the same popularity every iteration; ρ = 0: a new,
 * independent one each time). Experts ranked by score (highest first) get
 * Zipf weights p_r ∝ r^−moe_skew over their rank r = 1..E. Each layer has
 * its own scores, so layers differ.
 *
 * Tokens. Each EP rank (one expert-TP group, moe_layout.c) routes its
 * T·etp/tp tokens per micro-batch (T = b·s: a whole TP group's with
 * etp = tp), k copies of each, drawn multinomially over the experts
 * with the layer's weights (top_k distinct experts per token is not
 * enforced). Dropless (capacity_factor unset, Megatron-Core's default) keeps
 * every copy; with capacity_factor C each expert keeps at most
 * ⌈C·n/E⌉ copies from each source (Megatron-Core's get_capacity over the
 * source's n routed copies), the rest are dropped; with
 * moe_pad_expert_input_to_capacity every expert gets exactly its capacity
 * from every source (padding). Expert e lives on EP rank e / (E/ep).
 *
 * With moe_skew = 0 the expected counts are used (no random draw), so every
 * pair of ranks carries exactly the same bytes and every rank's experts the
 * same tokens.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include "config.h"
#include "workload.h"
#include "xalloc.h"

struct wl_ep_routing {
	int ep, edp, experts, moe_layers;
	int64_t m;
	double expected;      /* wl_ep_expected_tokens */
	bool drawn;           /* scores hold a previous iteration's */
	uint64_t *bytes;      /* [k][mb][edp][ep][ep] dispatch bytes, diagonal 0 */
	double *tokens;       /* [k][mb][edp][ep] token copies each EP rank's experts process */
	double *score;        /* [k][experts] latent popularity scores */
	double *p;            /* [experts] weights of the current layer */
	unsigned *count;      /* [experts] */
	size_t *order;        /* [experts] */
};

/* Token copies an EP rank routes per micro-batch: k × its T·etp/tp tokens
 * (T with etp = tp). */
static double source_copies(const struct job_spec *s)
{
	return (double)(s->tokens * s->model.top_k) * (double)s->etp / (double)s->tp;
}

double wl_ep_capacity(const struct job_spec *s)
{
	double c = s->cfg->capacity_factor;
	if (c <= 0)
		return INFINITY; /* dropless */
	return ceil(c * source_copies(s) / (double)s->model.experts);
}

double wl_ep_expected_tokens(const struct job_spec *s)
{
	const struct job_model *m = &s->model;
	double cap = wl_ep_capacity(s), copies = source_copies(s), total = 0;
	if (s->cfg->moe_pad)
		return (double)m->experts * cap;
	if (isinf(cap))
		return copies;
	if (s->cfg->moe_skew == 0)
		return (double)m->experts * fmin(copies / (double)m->experts, cap);
	double z = 0;
	for (int64_t r = 1; r <= m->experts; r++)
		z += pow((double)r, -s->cfg->moe_skew);
	for (int64_t r = 1; r <= m->experts; r++)
		total += fmin(copies * pow((double)r, -s->cfg->moe_skew) / z, cap);
	return total;
}

void wl_ep_expected(const struct job_spec *s, uint64_t *mat)
{
	/* Each source keeps `total` copies; each rank holds E/ep experts, so at
	 * the mean over the popularity order it gets 1/ep of them. */
	double total = wl_ep_expected_tokens(s);
	uint64_t pair = (uint64_t)llround(total / (double)s->ep * (double)s->model.hidden * 2.0);
	for (int i = 0; i < s->ep; i++)
		for (int j = 0; j < s->ep; j++)
			mat[i * s->ep + j] = i == j ? 0 : pair;
}

struct wl_ep_routing *wl_ep_routing_new(const struct job_spec *s)
{
	struct wl_ep_routing *r = xcalloc(1, sizeof *r);
	r->ep = s->ep;
	r->edp = s->edp;
	r->experts = (int)s->model.experts;
	r->moe_layers = (int)job_model_moe_layers(&s->model);
	r->m = s->m;
	r->expected = wl_ep_expected_tokens(s);
	size_t n = (size_t)r->moe_layers * (size_t)r->m * (size_t)r->edp * (size_t)r->ep;
	r->bytes = xcalloc(n ? n * (size_t)r->ep : 1, sizeof *r->bytes);
	r->tokens = xcalloc(n ? n : 1, sizeof *r->tokens);
	r->score = xcalloc((size_t)r->moe_layers * (size_t)r->experts + 1, sizeof *r->score);
	r->p = xcalloc((size_t)r->experts, sizeof *r->p);
	r->count = xcalloc((size_t)r->experts, sizeof *r->count);
	r->order = xcalloc((size_t)r->experts, sizeof *r->order);
	return r;
}

void wl_ep_routing_free(struct wl_ep_routing *r)
{
	if (!r)
		return;
	free(r->bytes);
	free(r->tokens);
	free(r->score);
	free(r->p);
	free(r->count);
	free(r->order);
	free(r);
}

static size_t slot(const struct wl_ep_routing *r, int k, int64_t mb, int g)
{
	return ((size_t)k * (size_t)r->m + (size_t)mb) * (size_t)r->edp + (size_t)g;
}

const uint64_t *wl_ep_matrix(const struct wl_ep_routing *r, int k, int64_t mb, int edp)
{
	return r->bytes + slot(r, k, mb, edp) * (size_t)r->ep * (size_t)r->ep;
}

double wl_ep_tokens(const struct wl_ep_routing *r, int k, int64_t mb, int edp, int rank)
{
	return r->tokens[slot(r, k, mb, edp) * (size_t)r->ep + (size_t)rank];
}

double wl_ep_routing_expected(const struct wl_ep_routing *r)
{
	return r->expected;
}

const double *wl_ep_scores(const struct wl_ep_routing *r, int k)
{
	return r->score + (size_t)k * (size_t)r->experts;
}

/* Moves layer k's scores one iteration on and sets r->p to its weights. */
static void popularity(struct wl_ep_routing *r, const struct job_spec *s, int k, gsl_rng *rng)
{
	int E = r->experts;
	double rho = s->cfg->moe_skew_correlation, *z = r->score + (size_t)k * (size_t)E;
	double keep = r->drawn ? rho : 0, fresh = sqrt(1 - keep * keep);
	for (int e = 0; e < E; e++)
		z[e] = keep * z[e] + fresh * gsl_ran_gaussian(rng, 1.0);
	/* Rank by score, highest first (insertion sort: E is small). */
	for (int e = 0; e < E; e++) {
		int i = e;
		for (; i > 0 && z[r->order[i - 1]] < z[e]; i--)
			r->order[i] = r->order[i - 1];
		r->order[i] = (size_t)e;
	}
	for (int rank = 0; rank < E; rank++)
		r->p[r->order[rank]] = pow((double)(rank + 1), -s->cfg->moe_skew);
}

void wl_ep_routing_draw(struct wl_ep_routing *r, const struct job_spec *s, gsl_rng *rng)
{
	int ep = r->ep, E = r->experts, per_rank = E / ep;
	if (s->cfg->moe_skew == 0) {
		double tok = wl_ep_expected_tokens(s);
		for (int k = 0; k < r->moe_layers; k++)
			for (int64_t mb = 0; mb < r->m; mb++)
				for (int g = 0; g < r->edp; g++) {
					size_t i = slot(r, k, mb, g);
					wl_ep_expected(s, r->bytes + i * (size_t)ep * (size_t)ep);
					for (int d = 0; d < ep; d++)
						r->tokens[i * (size_t)ep + (size_t)d] = tok;
				}
		return;
	}
	double cap = wl_ep_capacity(s);
	unsigned copies = (unsigned)llround(source_copies(s));
	uint64_t tok_b = (uint64_t)s->model.hidden * 2;
	for (int k = 0; k < r->moe_layers; k++) {
		popularity(r, s, k, rng);
		for (int64_t mb = 0; mb < r->m; mb++)
			for (int g = 0; g < r->edp; g++) {
				size_t i = slot(r, k, mb, g);
				uint64_t *mat = r->bytes + i * (size_t)ep * (size_t)ep;
				double *tok = r->tokens + i * (size_t)ep;
				memset(mat, 0, (size_t)ep * (size_t)ep * sizeof *mat);
				memset(tok, 0, (size_t)ep * sizeof *tok);
				for (int src = 0; src < ep; src++) {
					if (!s->cfg->moe_pad)
						gsl_ran_multinomial(rng, (size_t)E, copies, r->p, r->count);
					for (int e = 0; e < E; e++) {
						int dst = e / per_rank;
						double c = s->cfg->moe_pad ? cap : fmin((double)r->count[e], cap);
						tok[dst] += c;
						if (dst != src)
							mat[src * ep + dst] += (uint64_t)c * tok_b;
					}
				}
			}
	}
	r->drawn = true;
}
