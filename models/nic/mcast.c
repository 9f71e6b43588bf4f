/*
 * mcast.c — multicast groups: members, the source-rooted tree, the switch
 * entries, the group's queue pairs and its multicast_group row (see
 * mcast.h; messages are mcast_msg.c, switches mcast_switch.c).
 *
 * Tree. Members are added in the order given. For member m the walk starts
 * at the source's port and, at each switch, takes the equal-cost port
 * toward m that a unicast packet to the group's address would take: the
 * switch's ECMP hash (MurmurHash3 with its own seed) of (source IP, group
 * IP, group UDP source port | 4791 << 16) modulo the number of equal-cost
 * ports. Members of one group thus share their upward choices, groups with
 * other addresses and ports pick other links, and the tree can be
 * reproduced by hand from the routing tables. If the walk for m meets
 * switches already on the tree, it joins the tree at the last of them
 * (the existing path to it is kept), so every switch has one parent and
 * the union stays a tree whatever the topology.
 *
 * Cost: building is O(members × hops × ports); entries are kept per group
 * in an array indexed by node id, so a switch finds a group's entry in O(1).
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "hash.h"
#include "log.h"
#include "mcast_internal.h"
#include "nic.h"
#include "port.h"
#include "qp.h"
#include "results.h"
#include "routing.h"
#include "switch.h"
#include "world.h"
#include "xalloc.h"

uint32_t mcast_group_ip(const struct mcast_group *g) { return g->ip; }
int mcast_group_id(const struct mcast_group *g) { return g->id; }
const char *mcast_group_name(const struct mcast_group *g) { return g->name; }
int mcast_group_size(const struct mcast_group *g) { return g->n_dst; }

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

/* The equal-cost port toward member endpoint m a unicast packet to the
 * group's address would take at switch sw (see the file comment). */
static int tree_port(const struct node *sw, const struct mcast_group *g, int m)
{
	int n = route_n(sw->rt, m);
	const uint16_t *ports = route_ports(sw->rt, m);
	if (n <= 1)
		return n == 1 ? ports[0] : -1;
	uint32_t key[3] = { host_ip(g->src), g->ip, (uint32_t)g->sport | ((uint32_t)ROCE_UDP_PORT << 16) };
	return ports[murmur3_32(key, 3, sw->ecmp_seed) % (uint32_t)n];
}

/* A branch being built: a switch, the port it is entered by, the port it leaves by. */
struct hop { struct node *sw; int in, out; };

/* Growing entries while the tree is built. */
struct grow { int parent; int n, cap; struct mcast_out *out; };

static void grow_add(struct grow *e, int port, int member)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4;
		e->out = xrealloc(e->out, (size_t)e->cap * sizeof *e->out);
	}
	e->out[e->n++] = (struct mcast_out){ .port = (uint16_t)port, .member = member, .una = 0 };
}

/* The walk from the source to member m (index mi): hops, or -1 when the
 * routes do not reach it within IDEAL_MAX_HOPS links. */
static int walk(const struct world *w, const struct mcast_group *g, int m, struct hop *h)
{
	const struct port *p = w->eps[g->src].port;
	int n = 0;
	for (;;) {
		struct node *next = p->peer->node;
		if (next->kind != NODE_SWITCH)
			return p->peer == w->eps[m].port ? n : -1;
		if (n + 1 >= IDEAL_MAX_HOPS)
			return -1;
		int out = tree_port(next, g, m);
		if (out < 0)
			return -1;
		h[n++] = (struct hop){ next, p->peer->idx, out };
		p = &next->ports[out];
	}
}

/* The tree path to member mi, from its entries: forward hops (source to
 * member) and reverse hops (member to source), as ideal.h wants them. */
static int tree_path(const struct world *w, struct mcast_group *g, int mi)
{
	struct ideal_hop up[IDEAL_MAX_HOPS], down[IDEAL_MAX_HOPS];
	const struct port *p = w->eps[g->dst[mi]].port; /* the member's port; its peer a switch port */
	int n = 0;
	for (;;) {
		const struct port *q = p->peer;            /* downstream end of the link at the switch above */
		if (n == IDEAL_MAX_HOPS)
			return -1;
		down[n] = (struct ideal_hop){ q->rate_bps, q->delay_ps + q->peer_latency_ps };
		up[n] = (struct ideal_hop){ p->rate_bps, p->delay_ps + p->peer_latency_ps };
		n++;
		if (q->node->kind != NODE_SWITCH)
			break;                             /* reached the source */
		const struct mcast_entry *e = g->ent[q->node->id];
		p = &q->node->ports[e->parent];
	}
	for (int i = 0; i < n; i++) {
		g->fwd[mi][i] = down[n - 1 - i];
		g->rev[mi][i] = up[i];
	}
	g->n_hops[mi] = n;
	return n;
}

static void group_free(struct world *w, struct mcast_group *g)
{
	for (int u = 0; g->ent && u < w->n_nodes; u++)
		free(g->ent[u]);
	free(g->ent);
	free(g->name);
	free(g->dst);
	free(g->rq);
	free(g->fwd);
	free(g->rev);
	free(g->n_hops);
	free(g);
}

/* An endpoint as users name it: its host, or host:port with several NICs. */
static const char *ep_name(const struct world *w, int ep)
{
	return w->nics_per_host == 1 ? w->eps[ep].host->name : w->eps[ep].port->name;
}

static char *check_members(const struct world *w, int src, const int *dst, int n)
{
	if (src < 0 || src >= w->n_eps)
		return str_printf("source endpoint %d does not exist (0..%d)", src, w->n_eps - 1);
	if (n <= 0)
		return xstrdup("a multicast group needs at least one member");
	unsigned char *seen = xcalloc((size_t)w->n_eps, 1);
	char *err = NULL;
	for (int i = 0; i < n && !err; i++) {
		if (dst[i] < 0 || dst[i] >= w->n_eps)
			err = str_printf("member endpoint %d does not exist (0..%d)", dst[i], w->n_eps - 1);
		else if (dst[i] == src)
			err = str_printf("member %s is the group's source", ep_name(w, src));
		else if (seen[dst[i]]++)
			err = str_printf("member %s is listed twice", ep_name(w, dst[i]));
	}
	free(seen);
	return err;
}

/* Builds the entries of g. Returns 0, or -1 with *err. */
static int build_tree(struct world *w, struct mcast_group *g, char **err)
{
	struct grow *gr = xcalloc((size_t)w->n_nodes, sizeof *gr);
	unsigned char *on = xcalloc((size_t)w->n_nodes, 1);
	struct hop h[IDEAL_MAX_HOPS];
	int rc = 0;
	g->tree_links = 1; /* the source's link to its switch */
	for (int mi = 0; mi < g->n_dst && rc == 0; mi++) {
		int m = g->dst[mi];
		int n = walk(w, g, m, h);
		if (n <= 0) {
			*err = str_printf("no route of at most %d links from %s to member %s", IDEAL_MAX_HOPS,
					 ep_name(w, g->src), ep_name(w, m));
			rc = -1;
			break;
		}
		int join = -1; /* the last switch of the walk already on the tree */
		for (int i = 0; i < n; i++)
			if (on[h[i].sw->id])
				join = i;
		for (int i = join < 0 ? 0 : join; i < n; i++) {
			struct grow *e = &gr[h[i].sw->id];
			if (i > join) {
				on[h[i].sw->id] = 1;
				e->parent = h[i].in;
			}
			grow_add(e, h[i].out, i == n - 1 ? mi : -1);
			g->tree_links++;
		}
	}
	if (rc == 0) {
		g->ent = xcalloc((size_t)w->n_nodes, sizeof *g->ent);
		for (int u = 0; u < w->n_nodes; u++) {
			if (!on[u])
				continue;
			struct mcast_entry *e = xcalloc(1, sizeof *e + (size_t)gr[u].n * sizeof e->out[0]);
			e->parent = (uint16_t)gr[u].parent;
			e->n_out = (uint16_t)gr[u].n;
			e->last_cnp = -1;
			memcpy(e->out, gr[u].out, (size_t)gr[u].n * sizeof e->out[0]);
			g->ent[u] = e;
		}
	}
	for (int u = 0; u < w->n_nodes; u++)
		free(gr[u].out);
	free(gr);
	free(on);
	return rc;
}

static void write_row(const struct world *w, struct results *res, struct mcast_group *g)
{
	struct results_table *t = results_table(res, "multicast_group",
						"group_id, name, source, members, tree_links");
	SIM_ASSERT(w->sim, &w->sim->kernel, t, "multicast_group table missing from the schema");
	results_row(res, t, "issii", g->id, g->name, w->eps[g->src].host->name, g->n_dst, g->tree_links);
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
	if (mc->n == MCAST_MAX_GROUPS) {
		*err = str_printf("more than %d multicast groups", MCAST_MAX_GROUPS);
		return NULL;
	}
	struct mcast_group *g = xcalloc(1, sizeof *g);
	g->id = mc->n;
	g->name = xstrdup(name);
	g->src = src_ep;
	g->n_dst = n_dst;
	g->dst = xmalloc((size_t)n_dst * sizeof *g->dst);
	memcpy(g->dst, dst_eps, (size_t)n_dst * sizeof *g->dst);
	/* 239.1.0.0/16, administratively scoped (RFC 2365); id + 1 so no group is .0.0 */
	g->ip = mcast_ip_of_id(g->id);
	/* A UDP source port per group in the RoCE range 0xC000-0xFFFF, as the
	 * QPN-derived ports of unicast are (REFERENCE.md): the tree's entropy. */
	uint32_t k = (uint32_t)g->id;
	g->sport = (uint16_t)(0xC000u | (murmur3_32(&k, 1, 0x6d63u) & 0x3FFFu));
	g->reliable = mcast_cfg_of(w->cfg)->reliable;
	g->fwd = xcalloc((size_t)n_dst, sizeof *g->fwd);
	g->rev = xcalloc((size_t)n_dst, sizeof *g->rev);
	g->n_hops = xcalloc((size_t)n_dst, sizeof *g->n_hops);
	if (build_tree(w, g, err) < 0) {
		group_free(w, g);
		return NULL;
	}
	for (int i = 0; i < n_dst; i++)
		if (tree_path(w, g, i) < 0) {
			*err = str_printf("the tree path to member %s is longer than %d links",
					 ep_name(w, g->dst[i]), IDEAL_MAX_HOPS);
			group_free(w, g);
			return NULL;
		}
	/* The sender's RC QP (go-back-N: selective repeat has no aggregated form
	 * here) and one ordinary RC responder per member. */
	g->sq = nic_qp_add(w, src_ep, src_ep, true);
	g->sq->dqpn = MCAST_UD_QPN;
	g->sq->sport = g->sport;
	g->sq->sr = false;
	g->sq->mgroup = g->id;
	g->rq = xmalloc((size_t)n_dst * sizeof *g->rq);
	for (int i = 0; i < n_dst; i++) {
		struct qp *r = nic_qp_add(w, g->dst[i], src_ep, false);
		r->dqpn = g->sq->qpn;
		r->sport = g->sport;
		r->sr = false;
		r->mgroup = g->id;
		r->mmember = i;
		g->rq[i] = r;
	}
	if (mc->n == mc->cap) {
		mc->cap = mc->cap ? 2 * mc->cap : 8;
		mc->g = xrealloc(mc->g, (size_t)mc->cap * sizeof *mc->g);
	}
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
		group_free(w, mc->g[i]);
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
