/*
 * traffic_static.c — sources whose whole flow list is known at setup:
 * flows, incast, permutation and all_to_all, and (through
 * traffic_static_new) an HPCC flow.txt (traffic_hpcc.c).
 *
 * Each builds its list once, ordered by (start, order of generation), and
 * keeps one pending event: at the start time of the next flow it posts every
 * flow due at that time, then schedules the next distinct start time, and
 * ends itself (world_source_end) after the last. Generation order is
 * deterministic (the section's order for flows; incast senders in list
 * order; permutation and all_to_all by source then destination), so equal
 * start times post in a reproducible order.
 *
 * Only permutation draws randomness: one RNG_PERMUTATION stream per source
 * (traffic_stream_id(index, -1)), used once at setup.
 */
#include "traffic.h"

#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include "config.h"
#include "flow.h"
#include "rng.h"
#include "world.h"
#include "xalloc.h"

struct static_src {
	struct traffic_src base;       /* first: the source is cast to it */
	struct static_flow *v;         /* [n], ascending (start, generation order) */
	size_t n;
	size_t next;                   /* first flow not yet posted */
	void *keep;                    /* freed with the source (traffic_static_new) */
};

static void static_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	struct static_src *s = obj;
	struct world *w = s->base.w;
	while (s->next < s->n && s->v[s->next].start <= sim->now) {
		const struct static_flow *f = &s->v[s->next++];
		struct flow *posted = w->post(w, f->src, f->dst, f->size_b, s->base.source, "micro");
		if (posted)
			posted->hpcc = f->hpcc;
	}
	if (s->next < s->n)
		sched_at(sim, s->v[s->next].start, &s->base.elem, static_fire, s, 0);
	else
		world_source_end(w);
}

static void static_start(struct traffic_src *base)
{
	struct static_src *s = (struct static_src *)base;
	if (s->n == 0) {
		world_source_end(base->w);
		return;
	}
	sched_at(base->w->sim, s->v[0].start, &base->elem, static_fire, s, 0);
}

static void static_destroy(struct traffic_src *base)
{
	struct static_src *s = (struct static_src *)base;
	free(s->v);
	free(s->keep);
	free(s);
}

static const struct traffic_src_ops static_ops = {
	.start = static_start,
	.destroy = static_destroy,
};

static struct static_src *static_new(size_t n)
{
	struct static_src *s = xcalloc(1, sizeof *s);
	s->v = xcalloc(n ? n : 1, sizeof *s->v);
	s->n = n;
	s->base.ops = &static_ops;
	s->base.flows_expected = n;
	return s;
}

struct traffic_src *traffic_static_new(size_t n, struct static_flow **v, void *keep)
{
	struct static_src *s = static_new(n);
	s->keep = keep;
	*v = s->v;
	return &s->base;
}

/* ---- flows: `flow = SRC DST SIZE START` lines ---- */

/* Sort key of a `flow` line, with its resolved hosts (name lookups are
 * linear in the node count: do each once). */
struct flow_order { simtime_t start; size_t order; int32_t src, dst; };

static int flow_order_cmp(const void *a, const void *b)
{
	const struct flow_order *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct traffic_src *traffic_flows_create(struct world *w, const struct cfg_traffic *ct,
					 size_t index, const char *section, char **err)
{
	const struct config *cfg = w->cfg;
	struct static_src *s = static_new(ct->n_flows);
	struct flow_order *ord = xcalloc(ct->n_flows ? ct->n_flows : 1, sizeof *ord);
	for (size_t i = 0; i < ct->n_flows; i++) {
		const struct cfg_flow_spec *fs = &ct->flows[i];
		int src = world_host_id(w, fs->src), dst = world_host_id(w, fs->dst);
		if (src < 0 || dst < 0) {
			*err = cfg_error_at(cfg, section, "flow", fs->line, "unknown host '%s'",
					    src < 0 ? fs->src : fs->dst);
			goto fail;
		}
		if (src == dst) {
			*err = cfg_error_at(cfg, section, "flow", fs->line,
					    "source and destination are the same host '%s'", fs->src);
			goto fail;
		}
		if (fs->size_b == 0) {
			*err = cfg_error_at(cfg, section, "flow", fs->line, "size must be at least 1 byte");
			goto fail;
		}
		if (fs->start < 0) {
			*err = cfg_error_at(cfg, section, "flow", fs->line, "start must not be negative");
			goto fail;
		}
		ord[i] = (struct flow_order){ fs->start, i, src, dst };
	}
	/* qsort is not stable: the explicit order key keeps equal start times
	 * in section order. */
	qsort(ord, ct->n_flows, sizeof *ord, flow_order_cmp);
	for (size_t i = 0; i < ct->n_flows; i++) {
		const struct cfg_flow_spec *fs = &ct->flows[ord[i].order];
		s->v[i] = (struct static_flow){ fs->start, fs->size_b, ord[i].src, ord[i].dst, NULL };
	}
	free(ord);
	return &s->base;
fail:
	free(ord);
	static_destroy(&s->base);
	return NULL;
}

/* Checks shared by the sources with one `size` and one `start`. */
static int static_size_start(const struct world *w, const struct cfg_traffic *ct,
			     const char *section, char **err)
{
	if (ct->size_b == 0) {
		*err = cfg_error_at(w->cfg, section, "size", 0, "size must be at least 1 byte");
		return -1;
	}
	if (ct->start < 0) {
		*err = cfg_error_at(w->cfg, section, "start", 0, "start must not be negative");
		return -1;
	}
	return 0;
}

/* ---- incast: every sender to one receiver ---- */

struct traffic_src *traffic_incast_create(struct world *w, const struct cfg_traffic *ct,
					  size_t index, const char *section, char **err)
{
	if (static_size_start(w, ct, section, err) < 0)
		return NULL;
	if (!ct->receiver) {
		*err = cfg_error_at(w->cfg, section, "receiver", 0, "incast needs a receiver");
		return NULL;
	}
	int rcv = world_host_id(w, ct->receiver);
	if (rcv < 0) {
		*err = cfg_error_at(w->cfg, section, "receiver", 0, "unknown host '%s'", ct->receiver);
		return NULL;
	}
	bool all = ct->n_senders == 0 || (ct->n_senders == 1 && strcmp(ct->senders[0], "all") == 0);
	int *ids;
	int n = traffic_host_list(w, section, "senders", ct->senders, ct->n_senders, &ids, err);
	if (n < 0)
		return NULL;
	size_t k = 0;
	struct static_src *s = static_new((size_t)n);
	for (int i = 0; i < n; i++) {
		if (ids[i] == rcv) {
			if (all)
				continue; /* `all` means every host but the receiver */
			*err = cfg_error_at(w->cfg, section, "senders", 0,
					    "sender '%s' is the receiver", ct->receiver);
			free(ids);
			static_destroy(&s->base);
			return NULL;
		}
		s->v[k++] = (struct static_flow){ ct->start, ct->size_b, ids[i], rcv, NULL };
	}
	free(ids);
	if (k == 0) {
		*err = cfg_error_at(w->cfg, section, "senders", 0, "incast needs at least one sender");
		static_destroy(&s->base);
		return NULL;
	}
	s->n = k;
	s->base.flows_expected = k;
	return &s->base;
}

/* The participating hosts of a permutation or all_to_all source (its
 * `hosts`, or all), at least two; -1 with *err otherwise. */
static int static_participants(struct world *w, const struct cfg_traffic *ct, const char *section,
			       const char *what, int **ids, char **err)
{
	if (static_size_start(w, ct, section, err) < 0)
		return -1;
	int n = traffic_host_list(w, section, "hosts", ct->hosts, ct->n_hosts, ids, err);
	if (n < 0)
		return -1;
	if (n < 2) {
		*err = cfg_error_at(w->cfg, section, ct->n_hosts ? "hosts" : "type", 0,
				    "%s needs at least 2 hosts, got %d", what, n);
		free(*ids);
		return -1;
	}
	return n;
}

/* ---- permutation: a uniformly random derangement ---- */

/* Rejection sampling: shuffle until no element is fixed. Every permutation
 * is equally likely after a shuffle, so conditioning on "no fixed point"
 * gives exactly the uniform law over derangements (fix-up schemes that swap
 * fixed points away do not). The acceptance rate tends to 1/e, so about
 * 2.7 shuffles are expected whatever n. */
static void draw_derangement(gsl_rng *r, int *perm, int n)
{
	for (;;) {
		for (int i = 0; i < n; i++)
			perm[i] = i;
		gsl_ran_shuffle(r, perm, (size_t)n, sizeof *perm);
		int fixed = 0;
		for (int i = 0; i < n && !fixed; i++)
			fixed = perm[i] == i;
		if (!fixed)
			return;
	}
}

struct traffic_src *traffic_permutation_create(struct world *w, const struct cfg_traffic *ct,
					       size_t index, const char *section, char **err)
{
	int *ids;
	int n = static_participants(w, ct, section, "a permutation", &ids, err);
	if (n < 0)
		return NULL;
	int *perm = xmalloc((size_t)n * sizeof *perm);
	gsl_rng *r = rng_stream(w->sim->seed, RNG_PERMUTATION, traffic_stream_id(index, -1));
	draw_derangement(r, perm, n);
	gsl_rng_free(r);
	/* Participant i sends to participant perm[i]; flows post in participant
	 * order (ascending host id unless `hosts` lists them otherwise). */
	struct static_src *s = static_new((size_t)n);
	for (int i = 0; i < n; i++)
		s->v[i] = (struct static_flow){ ct->start, ct->size_b, ids[i], ids[perm[i]], NULL };
	free(perm);
	free(ids);
	return &s->base;
}

/* ---- all_to_all: every host to every other host ---- */

struct traffic_src *traffic_all_to_all_create(struct world *w, const struct cfg_traffic *ct,
					      size_t index, const char *section, char **err)
{
	int *ids;
	int n = static_participants(w, ct, section, "all_to_all", &ids, err);
	if (n < 0)
		return NULL;
	struct static_src *s = static_new((size_t)n * (size_t)(n - 1));
	size_t k = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (i != j)
				s->v[k++] = (struct static_flow){ ct->start, ct->size_b, ids[i], ids[j], NULL };
	free(ids);
	return &s->base;
}
