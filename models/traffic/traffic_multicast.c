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
#include "traffic_internal.h"

#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "config.h"
#include "log.h"
#include "nic.h"
#include "xalloc.h"

struct multicast_cfg {
	simtime_t start;               /* [0] */
	uint64_t size_b;               /* required */
	char *group;                   /* required */
};

#define MU(f) offsetof(struct multicast_cfg, f)

static const struct cfg_key keys[] = {
	{ "start", KT_TIME, "0s", .off = MU(start), .help = "start time" },
	{ "size", KT_SIZE, .required = true, CFG_POS, .off = MU(size_b), .help = "bytes of the message" },
	{ "group", KT_NAME, .required = true, .off = MU(group), .help = "a group of [multicast]" },
};

static int rules(struct cfg_check *c)
{
	const struct multicast_cfg *t = c->type_data;
	const struct mcast_cfg *mc = mcast_cfg_of(c->cfg);
	bool found = false;
	for (size_t g = 0; g < mc->n_groups; g++)
		found |= strcmp(mc->groups[g].name, t->group) == 0;
	if (!mc->enabled)
		return cfg_fail(c, "type", "a type other than multicast while [multicast] enabled = off");
	if (!found)
		return cfg_fail(c, "group", "the NAME of a `group = NAME SRC DST...` line of [multicast]");
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
	struct mcast_msg m = { .size_b = ((const struct multicast_cfg *)s->base.own)->size_b, .source = s->base.source, .parallelism = "micro",
			       .iteration = -1, .collective_id = -1, .src_gpu = -1 };
	mcast_post(s->base.w, s->g, &m);
	world_source_end(s->base.w);
}

static void mc_start(struct traffic_src *base)
{
	sched_at(base->w->sim, ((const struct multicast_cfg *)base->own)->start, &base->elem, mc_fire, base, 0);
}

static void mc_destroy(struct traffic_src *base)
{
	free(base);
}

static const struct traffic_src_ops mc_ops = { .start = mc_start, .destroy = mc_destroy };

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	const struct multicast_cfg *ct = own;
	(void)index;
	if (mcast_cfg_groups(w, err) < 0)
		return NULL;
	struct mcast_group *g = mcast_group_by_name(w, ct->group);
	if (!g) /* the rules found the name among [multicast]'s groups */
		die_internal("[%s] group '%s' was not made", section, ct->group);
	struct mc_src *s = xcalloc(1, sizeof *s);
	s->g = g;
	s->base.ops = &mc_ops;
	s->base.flows_expected = 1 + (uint64_t)mcast_group_size(g);
	return &s->base;
}

const struct traffic_kind traffic_multicast = {
	.cfg = { .name = "multicast", .help = "one message to the members of a [multicast] group",
		 CFG_KEYS(keys), .size = sizeof(struct multicast_cfg), .rules = rules },
	.create = create,
	.closed_loop = true,
};
