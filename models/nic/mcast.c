/*
 * mcast.c — multicast groups on the NICs' side: members, the group's queue
 * pairs, its multicast_group row and the groups of [multicast] (see
 * mcast.h). The group's tree and the switches' entries are the fabric's
 * (mcast_tree_build, fabric.h), with the same id; messages are
 * mcast_msg.c.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "fabric.h"
#include "log.h"
#include "mcast_internal.h"
#include "nic.h"
#include "qp.h"
#include "results.h"
#include "world.h"
#include "xalloc.h"

uint32_t mcast_group_ip(const struct mcast_group *g) { return mcast_tree_ip(g->tree); }
int mcast_group_id(const struct mcast_group *g) { return g->id; }
const char *mcast_group_name(const struct mcast_group *g) { return g->name; }
int mcast_group_size(const struct mcast_group *g) { return g->n_dst; }
int mcast_group_member(const struct mcast_group *g, int i) { return g->dst[i]; }

struct mcast_group *mcast_group_by_id(const struct world *w, int gid)
{
	return w->mcast && gid >= 0 && gid < w->mcast->n ? w->mcast->g[gid] : NULL;
}

struct mcast_group *mcast_group_by_name(const struct world *w, const char *name)
{
	for (int i = 0; w->mcast && i < w->mcast->n; i++)
		if (strcmp(w->mcast->g[i]->name, name) == 0)
			return w->mcast->g[i];
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

struct mcast_group *mcast_group_find(struct world *w, int src_ep, const int *dst_eps, int n_dst)
{
	if (!w->mcast || n_dst <= 0)
		return NULL;
	int *want = xmalloc((size_t)n_dst * sizeof *want), *have = xmalloc((size_t)n_dst * sizeof *have);
	memcpy(want, dst_eps, (size_t)n_dst * sizeof *want);
	qsort(want, (size_t)n_dst, sizeof *want, cmp_int);
	struct mcast_group *found = NULL;
	for (int i = 0; i < w->mcast->n && !found; i++) {
		struct mcast_group *g = w->mcast->g[i];
		if (g->src != src_ep || g->n_dst != n_dst)
			continue;
		memcpy(have, g->dst, (size_t)n_dst * sizeof *have);
		qsort(have, (size_t)n_dst, sizeof *have, cmp_int);
		if (memcmp(have, want, (size_t)n_dst * sizeof *have) == 0)
			found = g;
	}
	free(want);
	free(have);
	return found;
}

static void group_free(struct mcast_group *g)
{
	free(g->name);
	free(g->dst);
	free(g->rq);
	free(g);
}

static char *check_members(const struct world *w, int src, const int *dst, int n)
{
	if (src < 0 || src >= w->n_eps)
		return str_printf("source endpoint %d does not exist (0..%d)", src, w->n_eps - 1);
	if (n <= 0)
		return xstrdup("a multicast group needs at least one member");
	unsigned char *seen = xcalloc((size_t)w->n_eps, 1);
	char *err = NULL, name[64];
	for (int i = 0; i < n && !err; i++) {
		if (dst[i] < 0 || dst[i] >= w->n_eps)
			err = str_printf("member endpoint %d does not exist (0..%d)", dst[i], w->n_eps - 1);
		else if (dst[i] == src)
			err = str_printf("member %s is the group's source", fabric_ep_name(&w->fab, src, name, sizeof name));
		else if (seen[dst[i]]++)
			err = str_printf("member %s is listed twice", fabric_ep_name(&w->fab, dst[i], name, sizeof name));
	}
	free(seen);
	return err;
}

static void write_row(const struct world *w, struct results *res, struct mcast_group *g)
{
	struct results_table *t = results_table(res, "multicast_group",
						"group_id, name, source, members, tree_links");
	SIM_ASSERT(w->sim, &w->sim->kernel, t, "multicast_group table missing from the schema");
	results_row(res, t, "issii", g->id, g->name, w->eps[g->src].host->name, g->n_dst,
		    mcast_tree_links(g->tree));
	g->row_written = true;
}

void mcast_write_rows(const struct world *w, struct results *res)
{
	for (int i = 0; w->mcast && i < w->mcast->n; i++)
		if (!w->mcast->g[i]->row_written)
			write_row(w, res, w->mcast->g[i]);
}

struct mcast_group *mcast_group_create(struct world *w, const char *name, int src_ep,
				       const int *dst_eps, int n_dst, char **err)
{
	*err = check_members(w, src_ep, dst_eps, n_dst);
	if (*err)
		return NULL;
	if (!w->mcast)
		w->mcast = xcalloc(1, sizeof *w->mcast);
	struct mcast *mc = w->mcast;
	struct mcast_tree *tree = mcast_tree_build(&w->fab, src_ep, dst_eps, n_dst, err);
	if (!tree)
		return NULL;
	struct mcast_group *g = xcalloc(1, sizeof *g);
	g->tree = tree;
	g->id = mcast_tree_id(tree);
	g->name = xstrdup(name);
	g->src = src_ep;
	g->n_dst = n_dst;
	g->dst = xmalloc((size_t)n_dst * sizeof *g->dst);
	memcpy(g->dst, dst_eps, (size_t)n_dst * sizeof *g->dst);
	g->reliable = mcast_cfg_of(w->cfg)->reliable;
	uint16_t sport = mcast_tree_sport(tree);
	/* The sender's RC QP (go-back-N: selective repeat has no aggregated form
	 * here) and one ordinary RC responder per member. */
	g->sq = nic_qp_add(w, src_ep, src_ep, true);
	g->sq->dqpn = MCAST_UD_QPN;
	g->sq->sport = sport;
	g->sq->sr = false;
	g->sq->mgroup = g->id;
	g->sq->ops = &mcast_qp_ops;
	g->rq = xmalloc((size_t)n_dst * sizeof *g->rq);
	for (int i = 0; i < n_dst; i++) {
		struct qp *r = nic_qp_add(w, g->dst[i], src_ep, false);
		r->dqpn = g->sq->qpn;
		r->sport = sport;
		r->sr = false;
		r->mgroup = g->id;
		r->ops = &mcast_qp_ops;
		r->mmember = i;
		g->rq[i] = r;
		mcast_tree_set_qpn(tree, i, r->qpn);
	}
	if (w->fab.tree_made) /* the other ranks' switches need the tree too */
		w->fab.tree_made(w->fab.ship_ctx, tree);
	if (mc->n == mc->cap) {
		mc->cap = mc->cap ? 2 * mc->cap : 8;
		mc->g = xrealloc(mc->g, (size_t)mc->cap * sizeof *mc->g);
	}
	/* Frames and QPs carry the tree's id; mcast_of finds the group by it. */
	SIM_ASSERT(w->sim, &w->sim->kernel, g->id == mc->n, "group %s: tree id %d at index %d", g->name,
		   g->id, mc->n);
	mc->g[mc->n++] = g;
	if (w->sim->res)
		write_row(w, w->sim->res, g);
	return g;
}

void mcast_free(struct world *w)
{
	struct mcast *mc = w->mcast;
	if (!mc)
		return;
	mcast_msgs_free(w);
	for (int i = 0; i < mc->n; i++)
		group_free(mc->g[i]);
	free(mc->g);
	free(mc);
	w->mcast = NULL;
}

/* The groups of [multicast] (made once, when a source first needs them). */
int mcast_cfg_groups(struct world *w, char **err)
{
	if (w->mcast && w->mcast->cfg_done)
		return 0;
	const struct mcast_cfg *mc = mcast_cfg_of(w->cfg);
	for (size_t i = 0; i < mc->n_groups; i++) {
		const struct mcast_cfg_group *cg = &mc->groups[i];
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
