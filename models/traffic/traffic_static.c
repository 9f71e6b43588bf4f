/*
 * traffic_static.c — the engine of sources whose whole flow list is known
 * at setup: flows, incast, permutation, all_to_all (traffic_flows.c, ...)
 * and an HPCC flow.txt (traffic_hpcc.c).
 *
 * Each builds its list once, ordered by (start, order of generation), and
 * keeps one pending event: at the start time of the next flow it posts every
 * flow due at that time, then schedules the next distinct start time, and
 * ends itself (world_source_end) after the last. Generation order is
 * deterministic (the section's order for flows; incast senders in list
 * order; permutation and all_to_all by source then destination), so equal
 * start times post in a reproducible order.
 *
 * Also what the kinds share: the keys of a burst (one size, one start)
 * and the participants of a source (traffic_internal.h).
 */
#include "traffic_internal.h"

#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "nic.h"
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

void traffic_static_truncate(struct traffic_src *base, size_t n)
{
	struct static_src *s = (struct static_src *)base;
	if (n < s->n) {
		s->n = n;
		base->flows_expected = n;
	}
}

const struct cfg_key traffic_burst_keys[2] = {
	{ "start", KT_TIME, "0s", .off = offsetof(struct traffic_burst_cfg, start), .help = "start time" },
	{ "size", KT_SIZE, .required = true, CFG_POS, .off = offsetof(struct traffic_burst_cfg, size_b),
	  .help = "bytes per flow" },
};

int traffic_participants(struct world *w, char *const *names, size_t n, const char *section,
			 const char *what, int **ids, char **err)
{
	int got = world_host_list(w, section, "hosts", names, n, ids, err);
	if (got < 0)
		return -1;
	if (got < 2) {
		*err = cfg_error_at(w->cfg, section, n ? "hosts" : "type", 0,
				    "%s needs at least 2 hosts, got %d", what, got);
		free(*ids);
		*ids = NULL;
		return -1;
	}
	return got;
}
