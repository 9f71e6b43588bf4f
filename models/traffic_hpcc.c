/*
 * traffic_hpcc.c — `[traffic.NAME] type = hpcc`: the flows of an HPCC ns-3
 * flow.txt (`file`), posted at their start times as written (HPCC's own
 * files start at 2 s; nothing happens before, and skipping idle time costs
 * no events).
 *
 * Ids in the file are HPCC node ids. With `[topology] type = hpcc` they map
 * through topo.hpcc_id to our hosts (hpcc_format.h); with any other
 * topology, HPCC id i is our host i (HPCC's own generator numbers hosts
 * 0..n-1 first, as we do). A flow naming a switch or an unknown node is a
 * located error. The file's priority is not used: every flow runs at
 * [nic] priority (HPCC's files always carry 3, our default).
 *
 * Like the static sources, one pending event: at a start time it posts
 * every flow due then, in file order (so equal starts post in file order),
 * and schedules the next start. Posted flows are tagged (hpcc_fct_tag) so
 * fct.txt can give them HPCC's ports.
 */
#include <stdlib.h>

#include "config.h"
#include "flow.h"
#include "hpcc_fct.h"
#include "hpcc_format.h"
#include "traffic.h"
#include "world.h"
#include "xalloc.h"

struct hpcc_src {
	struct traffic_src base;       /* first: the source is cast to it */
	struct hpcc_flow *v;           /* [n], file order = ascending start */
	int32_t *src, *dst;            /* [n] our host ids */
	size_t n, next;
};

static void hpcc_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)arg;
	struct hpcc_src *s = obj;
	struct world *w = s->base.w;
	while (s->next < s->n && s->v[s->next].start_ps <= sim->now) {
		size_t i = s->next++;
		struct flow *f = w->post(w, s->src[i], s->dst[i], s->v[i].size_b, s->base.source, "micro");
		if (f && !f->on_done)
			hpcc_fct_tag(f, &s->v[i]);
	}
	if (s->next < s->n)
		sched_at(sim, s->v[s->next].start_ps, &s->base.elem, hpcc_fire, s, 0);
	else
		world_source_end(w);
}

static void hpcc_start(struct traffic_src *base)
{
	struct hpcc_src *s = (struct hpcc_src *)base;
	if (s->n == 0) {
		world_source_end(base->w);
		return;
	}
	sched_at(base->w->sim, s->v[0].start_ps, &base->elem, hpcc_fire, s, 0);
}

static void hpcc_destroy(struct traffic_src *base)
{
	struct hpcc_src *s = (struct hpcc_src *)base;
	free(s->v);
	free(s->src);
	free(s->dst);
	free(s);
}

static const struct traffic_src_ops hpcc_ops = {
	.start = hpcc_start,
	.destroy = hpcc_destroy,
};

/* Our host id of HPCC node id `id`, or -1 (a switch, or no such node). */
static int hpcc_host(const struct world *w, const int *host_of, int id)
{
	if (!w->topo.hpcc_id)
		return id < w->topo.n_hosts ? id : -1;
	return id < w->topo.n_nodes ? host_of[id] : -1;
}

struct traffic_src *traffic_hpcc_create(struct world *w, const struct cfg_traffic *ct, size_t index,
					const char *section, char **err)
{
	(void)index;
	char *text = NULL, *msg = NULL;
	size_t len;
	int *host_of = NULL;
	struct hpcc_src *s = xcalloc(1, sizeof *s);
	s->base.ops = &hpcc_ops;
	if (!ct->file) {
		*err = cfg_error_at(w->cfg, section, "file", 0, "type hpcc needs the path of an HPCC flow.txt");
		goto fail;
	}
	if (hpcc_file_read(ct->file, &text, &len, &msg) < 0 ||
	    hpcc_flows_parse(ct->file, text, len, &s->v, &s->n, &msg) < 0) {
		*err = cfg_error_at(w->cfg, section, "file", 0, "%s", msg);
		goto fail;
	}
	const struct topo *t = &w->topo;
	if (t->hpcc_id) {
		/* Inverse of hpcc_id, for hosts only (switches stay -1). */
		host_of = xmalloc((size_t)t->n_nodes * sizeof *host_of);
		for (int u = 0; u < t->n_nodes; u++)
			host_of[u] = -1;
		for (int h = 0; h < t->n_hosts; h++)
			host_of[t->hpcc_id[h]] = h;
	}
	s->src = xmalloc((s->n ? s->n : 1) * sizeof *s->src);
	s->dst = xmalloc((s->n ? s->n : 1) * sizeof *s->dst);
	for (size_t i = 0; i < s->n; i++) {
		const struct hpcc_flow *f = &s->v[i];
		int a = hpcc_host(w, host_of, f->src), b = hpcc_host(w, host_of, f->dst);
		if (a < 0 || b < 0) {
			*err = cfg_error_at(w->cfg, section, "file", 0,
					    "%s:%d: node %d is not a host of the topology (%d hosts%s)",
					    ct->file, f->line, a < 0 ? f->src : f->dst, t->n_hosts,
					    t->hpcc_id ? ", HPCC ids of [topology] file"
						       : "; HPCC id i is host i");
			goto fail;
		}
		s->src[i] = a;
		s->dst[i] = b;
	}
	s->base.flows_expected = s->n;
	free(host_of);
	free(text);
	return &s->base;
fail:
	free(host_of);
	free(text);
	free(msg);
	hpcc_destroy(&s->base);
	return NULL;
}
