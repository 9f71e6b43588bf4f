/*
 * traffic_multicast.c — `[traffic.NAME] type = multicast` (one message of
 * `size` bytes to the members of [multicast] `group` at `start`) and the
 * groups listed in [multicast] (`group = NAME SRC DST DST...`, host names;
 * each host's NIC 0 is the endpoint).
 *
 * The listed groups are made together, in file order (so their ids follow
 * the file), when the first multicast source is created; a scenario with
 * no multicast traffic makes none. A source posts n + 1 flow rows (the
 * sender's and one per member, mcast_msg.c).
 */
#include "traffic.h"

#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "mcast_internal.h"
#include "world.h"
#include "xalloc.h"

int mcast_cfg_groups(struct world *w, char **err)
{
	if (w->mcast && w->mcast->cfg_done)
		return 0;
	const struct cfg_multicast *mc = &w->cfg->multicast;
	for (size_t i = 0; i < mc->n_groups; i++) {
		const struct cfg_mcast_group *cg = &mc->groups[i];
		int src = world_host_id(w, cg->src);
		if (src < 0) {
			*err = cfg_error_at(w->cfg, "multicast", "group", cg->line,
					    "group %s: unknown source host '%s'", cg->name, cg->src);
			return -1;
		}
		int *dst = xmalloc(cg->n_dst * sizeof *dst);
		for (size_t j = 0; j < cg->n_dst; j++) {
			int h = world_host_id(w, cg->dst[j]);
			if (h < 0) {
				*err = cfg_error_at(w->cfg, "multicast", "group", cg->line,
						    "group %s: unknown member host '%s'", cg->name, cg->dst[j]);
				free(dst);
				return -1;
			}
			dst[j] = world_ep(w, h, 0);
		}
		char *why = NULL;
		struct mcast_group *g = mcast_group_create(w, cg->name, world_ep(w, src, 0), dst,
							   (int)cg->n_dst, &why);
		free(dst);
		if (!g) {
			*err = cfg_error_at(w->cfg, "multicast", "group", cg->line, "group %s: %s", cg->name, why);
			free(why);
			return -1;
		}
	}
	if (!w->mcast)
		w->mcast = xcalloc(1, sizeof *w->mcast);
	w->mcast->cfg_done = true;
	return 0;
}

struct mc_src {
	struct traffic_src base;       /* first: the source is cast to it */
	struct mcast_group *g;
};

static void mc_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	struct mc_src *s = obj;
	(void)sim;
	(void)arg;
	struct mcast_msg m = { .size_b = s->base.ct->size_b, .source = s->base.source, .parallelism = "micro",
			       .iteration = -1, .collective_id = -1, .src_gpu = -1 };
	mcast_post(s->base.w, s->g, &m);
	world_source_end(s->base.w);
}

static void mc_start(struct traffic_src *base)
{
	sched_at(base->w->sim, base->ct->start, &base->elem, mc_fire, base, 0);
}

static void mc_destroy(struct traffic_src *base)
{
	free(base);
}

static const struct traffic_src_ops mc_ops = { .start = mc_start, .destroy = mc_destroy };

struct traffic_src *traffic_multicast_create(struct world *w, const struct cfg_traffic *ct,
					     size_t index, const char *section, char **err)
{
	(void)index;
	if (ct->size_b == 0) {
		*err = cfg_error_at(w->cfg, section, "size", 0, "size must be at least 1 byte");
		return NULL;
	}
	if (ct->start < 0) {
		*err = cfg_error_at(w->cfg, section, "start", 0, "start must not be negative");
		return NULL;
	}
	if (mcast_cfg_groups(w, err) < 0)
		return NULL;
	struct mcast_group *g = mcast_group_by_name(w, ct->group);
	if (!g) { /* config_rules checks the name; kept for scenarios built by hand */
		*err = cfg_error_at(w->cfg, section, "group", 0, "no [multicast] group named '%s'", ct->group);
		return NULL;
	}
	struct mc_src *s = xcalloc(1, sizeof *s);
	s->g = g;
	s->base.ops = &mc_ops;
	s->base.flows_expected = 1 + (uint64_t)mcast_group_size(g);
	return &s->base;
}
