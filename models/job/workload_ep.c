/*
 * workload_ep.c — mixture-of-experts layers: token routing and the
 * dispatch/combine all-to-alls (see workload.h).
 *
 * Per MoE layer and micro-batch, a dispatch and a combine all-to-all in
 * forward and the same two in backward, over the ep group (docs/protocol.md "Training jobs";
 * Megatron-Core's all-to-all token dispatcher). Experts are spread evenly:
 * expert e lives on ep rank e / (experts / ep). Each EP rank (one tensor-
 * parallel group) routes T = b·s tokens per micro-batch; a token goes to
 * top_k experts. Tokens are sequence-sharded over the group's tp ranks
 * (sequence parallelism), so tp rank t carries its share of every pair,
 * and tp all-to-alls of the ep group run side by side.
 *
 * Routing: each iteration and MoE layer draws a popularity order of the
 * experts (a random permutation from the job's RNG_WORKLOAD stream) with
 * Zipf(moe_skew) weights p_r ∝ r^−skew over popularity rank r; each source
 * rank's T·top_k token copies are then drawn multinomially over the
 * experts (top_k distinct experts per token is not enforced: at most
 * experts × top_k copies differ) and each expert keeps at most its
 * capacity C × T × top_k / experts of them (Megatron-Core's token drop).
 * With moe_skew = 0 the expected counts are used, so every pair carries
 * exactly the same bytes. Bytes per pair = tokens × h × 2 (bf16).
 * The backward pass mirrors forward: the combine's gradient flows along
 * the dispatch matrix, the dispatch's along its transpose.
 *
 * Expert compute is costed at the balanced load (skew shows in the
 * network only).
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
	uint64_t *bytes;      /* [k][mb][edp][ep][ep] */
	double *p;            /* [experts] popularity of this layer */
	unsigned *count;      /* [experts] */
	size_t *perm;         /* [experts] */
};

static void ep_op(struct job_prog *p, int dir, int64_t mb, int k, int transpose)
{
	struct job_op *op = job_prog_add(p, JOP_EP);
	op->dir = (uint8_t)dir;
	op->mb = (int32_t)mb;
	op->idx = k;
	op->transpose = (uint8_t)transpose;
}

void wl_ep_block(const struct job_spec *s, struct job_prog *p, int dir, int64_t mb, int k, simtime_t ps)
{
	if (s->ep > 1)
		ep_op(p, dir, mb, k, 0);
	wl_tp_block(s, p, ps);
	if (s->ep > 1)
		ep_op(p, dir, mb, k, 1);
}

static double capacity(const struct job_spec *s)
{
	return s->cfg->capacity_factor * (double)(s->tokens * s->model.top_k) / (double)s->model.experts;
}

void wl_ep_expected(const struct job_spec *s, uint64_t *mat)
{
	const struct job_model *m = &s->model;
	double cap = capacity(s), total = 0;
	if (s->cfg->moe_skew == 0) {
		double c = (double)(s->tokens * m->top_k) / (double)m->experts;
		total = (double)m->experts * (c < cap ? c : cap);
	} else {
		double z = 0;
		for (int64_t r = 1; r <= m->experts; r++)
			z += pow((double)r, -s->cfg->moe_skew);
		for (int64_t r = 1; r <= m->experts; r++) {
			double c = (double)(s->tokens * m->top_k) * pow((double)r, -s->cfg->moe_skew) / z;
			total += c < cap ? c : cap;
		}
	}
	/* Each rank holds experts/ep experts: 1/ep of the routed copies
	 * (at the mean over the popularity permutation). */
	uint64_t pair = (uint64_t)llround(total / (double)s->ep * (double)m->hidden * 2.0);
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
	size_t n = (size_t)r->moe_layers * (size_t)r->m * (size_t)r->edp * (size_t)r->ep * (size_t)r->ep;
	r->bytes = xcalloc(n ? n : 1, sizeof *r->bytes);
	r->p = xcalloc((size_t)r->experts, sizeof *r->p);
	r->count = xcalloc((size_t)r->experts, sizeof *r->count);
	r->perm = xcalloc((size_t)r->experts, sizeof *r->perm);
	return r;
}

void wl_ep_routing_free(struct wl_ep_routing *r)
{
	if (!r)
		return;
	free(r->bytes);
	free(r->p);
	free(r->count);
	free(r->perm);
	free(r);
}

static uint64_t *matrix_at(const struct wl_ep_routing *r, int k, int64_t mb, int g)
{
	size_t i = (((size_t)k * (size_t)r->m + (size_t)mb) * (size_t)r->edp + (size_t)g);
	return r->bytes + i * (size_t)r->ep * (size_t)r->ep;
}

const uint64_t *wl_ep_matrix(const struct wl_ep_routing *r, int k, int64_t mb, int edp)
{
	return matrix_at(r, k, mb, edp);
}

void wl_ep_routing_draw(struct wl_ep_routing *r, const struct job_spec *s, gsl_rng *rng)
{
	int ep = r->ep, E = r->experts, per_rank = E / ep;
	if (s->cfg->moe_skew == 0) {
		for (int k = 0; k < r->moe_layers; k++)
			for (int64_t mb = 0; mb < r->m; mb++)
				for (int g = 0; g < r->edp; g++)
					wl_ep_expected(s, matrix_at(r, k, mb, g));
		return;
	}
	unsigned cap = (unsigned)floor(capacity(s));
	unsigned copies = (unsigned)(s->tokens * s->model.top_k);
	uint64_t tok_b = (uint64_t)s->model.hidden * 2;
	for (int k = 0; k < r->moe_layers; k++) {
		for (int e = 0; e < E; e++)
			r->perm[e] = (size_t)e;
		gsl_ran_shuffle(rng, r->perm, (size_t)E, sizeof *r->perm);
		for (int rank = 0; rank < E; rank++)
			r->p[r->perm[rank]] = pow((double)(rank + 1), -s->cfg->moe_skew);
		for (int64_t mb = 0; mb < r->m; mb++)
			for (int g = 0; g < r->edp; g++) {
				uint64_t *mat = matrix_at(r, k, mb, g);
				memset(mat, 0, (size_t)ep * (size_t)ep * sizeof *mat);
				for (int src = 0; src < ep; src++) {
					gsl_ran_multinomial(rng, (size_t)E, copies, r->p, r->count);
					for (int e = 0; e < E; e++) {
						int dst = e / per_rank;
						unsigned c = r->count[e] < cap ? r->count[e] : cap;
						if (dst != src)
							mat[src * ep + dst] += c * tok_b;
					}
				}
			}
	}
}

void wl_ep_shard(const uint64_t *mat, int ep, bool transpose, int tp, int t, uint64_t *out)
{
	for (int i = 0; i < ep; i++)
		for (int j = 0; j < ep; j++)
			out[i * ep + j] = coll_split(transpose ? mat[j * ep + i] : mat[i * ep + j], (uint64_t)tp, (uint64_t)t);
}
