/*
 * mcast_tree.c — the source-rooted tree of a multicast group through the
 * fabric and the entries its switches hold (mcast_tree.h).
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
#include "hash.h"
#include "log.h"
#include "mcast_tree.h"
#include "routing.h"
#include "xalloc.h"


/* The equal-cost port toward member endpoint m a unicast packet to the
 * group's address would take at switch sw (see the file comment). */
static int tree_port(const struct node *sw, const struct mcast_tree *g, int m)
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
static int walk(const struct fabric *f, const struct mcast_tree *g, int m, struct hop *h)
{
	int u = fabric_ep_host(f, g->src), i = fabric_ep_nic(f, g->src), n = 0;
	for (;;) {
		const struct topo_port *tp = fabric_tport(f, u, i);
		struct node *next = &f->nodes[tp->peer];
		if (next->kind != NODE_SWITCH)
			return fabric_tport_reaches_ep(f, tp, m) ? n : -1;
		if (n + 1 >= IDEAL_MAX_HOPS)
			return -1;
		int out = tree_port(next, g, m);
		if (out < 0)
			return -1;
		h[n++] = (struct hop){ next, tp->peer_port, out };
		u = tp->peer;
		i = out;
	}
}

/* Builds the entries of g. Returns 0, or -1 with *err. */
static int build_tree(struct fabric *f, struct mcast_tree *g, char **err)
{
	struct grow *gr = xcalloc((size_t)f->n_nodes, sizeof *gr);
	unsigned char *on = xcalloc((size_t)f->n_nodes, 1);
	struct hop h[IDEAL_MAX_HOPS];
	int rc = 0;
	g->tree_links = 1; /* the source's link to its switch */
	for (int mi = 0; mi < g->n_dst && rc == 0; mi++) {
		int m = g->dst[mi];
		int n = walk(f, g, m, h);
		if (n <= 0) {
			char a[64], b[64];
			*err = str_printf("no route of at most %d links from %s to member %s", IDEAL_MAX_HOPS,
					 fabric_ep_name(f, g->src, a, sizeof a), fabric_ep_name(f, m, b, sizeof b));
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
		g->ent = xcalloc((size_t)f->n_nodes, sizeof *g->ent);
		for (int u = 0; u < f->n_nodes; u++) {
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
	for (int u = 0; u < f->n_nodes; u++)
		free(gr[u].out);
	free(gr);
	free(on);
	return rc;
}

/* The tree path to member mi, from its entries: forward hops (source to
 * member) and reverse hops (member to source), as ideal.h wants them. */
static int tree_path(const struct fabric *f, struct mcast_tree *g, int mi)
{
	struct ideal_hop up[IDEAL_MAX_HOPS], down[IDEAL_MAX_HOPS];
	/* (u, i): the member's port, then each switch's parent port */
	int u = fabric_ep_host(f, g->dst[mi]), k = fabric_ep_nic(f, g->dst[mi]), n = 0;
	for (;;) {
		const struct topo_port *q = fabric_tport(f, u, k); /* toward the switch above */
		if (n == IDEAL_MAX_HOPS)
			return -1;
		down[n] = fabric_hop(f, q->peer, q->peer_port);
		up[n] = fabric_hop(f, u, k);
		n++;
		if (f->nodes[q->peer].kind != NODE_SWITCH)
			break;                             /* reached the source */
		u = q->peer;
		k = g->ent[u]->parent;
	}
	for (int i = 0; i < n; i++) {
		g->fwd[mi][i] = down[n - 1 - i];
		g->rev[mi][i] = up[i];
	}
	g->n_hops[mi] = n;
	return n;
}

static void tree_free(const struct fabric *f, struct mcast_tree *g)
{
	for (int u = 0; g->ent && u < f->n_nodes; u++)
		free(g->ent[u]);
	free(g->ent);
	free(g->dst);
	free(g->dqpn);
	free(g->fwd);
	free(g->rev);
	free(g->n_hops);
	free(g);
}

struct mcast_tree *mcast_tree_build(struct fabric *f, int src_ep, const int *dst_eps, int n_dst, char **err)
{
	if (!f->mcast)
		f->mcast = xcalloc(1, sizeof *f->mcast);
	struct mcast_fabric *mf = f->mcast;
	if (mf->n == MCAST_MAX_GROUPS) { /* ids must fit packet.mgroup */
		*err = str_printf("more than %d multicast groups", MCAST_MAX_GROUPS);
		return NULL;
	}
	struct mcast_tree *g = xcalloc(1, sizeof *g);
	g->id = mf->n;
	g->src = src_ep;
	g->n_dst = n_dst;
	g->dst = xmalloc((size_t)n_dst * sizeof *g->dst);
	memcpy(g->dst, dst_eps, (size_t)n_dst * sizeof *g->dst);
	g->dqpn = xcalloc((size_t)n_dst, sizeof *g->dqpn);
	/* 239.1.0.0/16, administratively scoped (RFC 2365); id + 1 so no group is .0.0 */
	g->ip = mcast_ip_of_id(g->id);
	/* A UDP source port per group in the RoCE range 0xC000-0xFFFF, as the
	 * QPN-derived ports of unicast are (docs/protocol.md "Frames on the
	 * wire"): the tree's entropy. */
	uint32_t k = (uint32_t)g->id;
	g->sport = (uint16_t)(0xC000u | (murmur3_32(&k, 1, 0x6d63u) & 0x3FFFu));
	g->fwd = xcalloc((size_t)n_dst, sizeof *g->fwd);
	g->rev = xcalloc((size_t)n_dst, sizeof *g->rev);
	g->n_hops = xcalloc((size_t)n_dst, sizeof *g->n_hops);
	if (build_tree(f, g, err) < 0) {
		tree_free(f, g);
		return NULL;
	}
	for (int i = 0; i < n_dst; i++)
		if (tree_path(f, g, i) < 0) {
			char a[64];
			*err = str_printf("the tree path to member %s is longer than %d links",
					 fabric_ep_name(f, g->dst[i], a, sizeof a), IDEAL_MAX_HOPS);
			tree_free(f, g);
			return NULL;
		}
	if (mf->n == mf->cap) {
		mf->cap = mf->cap ? 2 * mf->cap : 8;
		mf->t = xrealloc(mf->t, (size_t)mf->cap * sizeof *mf->t);
	}
	mf->t[mf->n++] = g;
	return g;
}

void mcast_tree_set_qpn(struct mcast_tree *t, int member, uint32_t qpn) { t->dqpn[member] = qpn; }
int mcast_tree_id(const struct mcast_tree *t) { return t->id; }
int mcast_tree_src(const struct mcast_tree *t) { return t->src; }
int mcast_tree_size(const struct mcast_tree *t) { return t->n_dst; }
int mcast_tree_member(const struct mcast_tree *t, int member) { return t->dst[member]; }
uint32_t mcast_tree_qpn(const struct mcast_tree *t, int member) { return t->dqpn[member]; }
uint32_t mcast_tree_ip(const struct mcast_tree *t) { return t->ip; }
uint16_t mcast_tree_sport(const struct mcast_tree *t) { return t->sport; }
int mcast_tree_links(const struct mcast_tree *t) { return t->tree_links; }

int mcast_tree_path(const struct mcast_tree *t, int member, const struct ideal_hop **fwd,
		    const struct ideal_hop **rev)
{
	*fwd = t->fwd[member];
	*rev = t->rev[member];
	return t->n_hops[member];
}

void mcast_fabric_free(struct fabric *f)
{
	struct mcast_fabric *mf = f->mcast;
	if (!mf)
		return;
	for (int i = 0; i < mf->n; i++)
		tree_free(f, mf->t[i]);
	free(mf->t);
	free(mf);
	f->mcast = NULL;
}
