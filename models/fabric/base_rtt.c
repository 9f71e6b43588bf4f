/*
 * base_rtt.c — T, the fabric's largest base RTT (path.h): the longest
 * routed round trip, found per destination switch instead of per pair of
 * endpoints.
 *
 * A round trip over a path is a sum over its links: a link whose data
 * direction leaves port u toward port v costs
 *     c(u) = ser(data, u) + flight(u) + ser(ack, v) + flight(v)
 * (flight: propagation plus the switch latency of the node reached), so
 * every switch's latency counts once out and once back. Every switch
 * forwards toward all endpoints of one destination switch a through the
 * same equal-cost sets (routing.c), so one memoised walk over those sets
 * gives L(s), the longest routed cost from any switch s to a; T is the
 * largest up(e) + L(s(e)) + down(d) over endpoints e at s and d at a (two
 * distinct endpoints when s = a), with up/down the cost of an endpoint's
 * own link. Work: O(edge switches x (switches + equal-cost set entries)),
 * with c(u) and the peer switch of each port in flat arrays and only edge
 * switches as sources. Everything comes from the topology, none from the
 * ports, which a partitioned run builds only in part (fabric.h).
 */
#include <stdlib.h>
#include "fabric.h"
#include "routing.h"
#include "xalloc.h"

/* c(u) above for the data direction leaving node u's port i. */
static simtime_t link_cost(const struct fabric *f, int u, int i, uint32_t data_wire, uint32_t ack_wire)
{
	const struct topo_port *tp = fabric_tport(f, u, i);
	struct ideal_hop out = fabric_hop(f, u, i), back = fabric_hop(f, tp->peer, tp->peer_port);
	return simtime_serialize(data_wire, out.rate_bps) + out.delay_ps + simtime_serialize(ack_wire, back.rate_bps) +
	       back.delay_ps;
}

struct rtt_walk {
	const struct fabric *f;
	int dst_ep;               /* an endpoint behind the destination switch */
	int dst_sw;
	const simtime_t *cost;    /* [n_ports]: c(u) of each port (fabric.ports order) */
	const int *peer_sw;       /* [n_ports]: the switch at the other end, -1 none */
	simtime_t *L;             /* [n_nodes]: longest cost to dst_sw, -1 unknown */
	int *mark;                /* [n_nodes]: the destination switch L was computed for */
};

static simtime_t longest(struct rtt_walk *w, int u)
{
	if (u == w->dst_sw)
		return 0;
	if (w->mark[u] == w->dst_sw)
		return w->L[u];
	const struct node *sw = &w->f->nodes[u];
	const struct route_table *rt = sw->rt;
	simtime_t best = -1;
	int n = route_n(rt, w->dst_ep), base = (int)(sw->ports - w->f->ports);
	const uint16_t *ports = route_ports(rt, w->dst_ep);
	for (int k = 0; k < n; k++) {
		int i = base + ports[k], q = w->peer_sw[i];
		if (q < 0)
			continue;
		simtime_t rest = longest(w, q), c = w->cost[i];
		if (rest >= 0 && rest + c > best)
			best = rest + c;
	}
	w->mark[u] = w->dst_sw;
	w->L[u] = best;
	return best;
}

/* The two largest values of a switch's endpoints and whose they are. */
struct top2 { simtime_t v[2]; int ep[2]; };

static void top2_add(struct top2 *t, simtime_t v, int ep)
{
	if (v > t->v[0]) {
		t->v[1] = t->v[0];
		t->ep[1] = t->ep[0];
		t->v[0] = v;
		t->ep[0] = ep;
	} else if (v > t->v[1]) {
		t->v[1] = v;
		t->ep[1] = ep;
	}
}

simtime_t fabric_base_rtt(const struct fabric *f, uint32_t data_frame_b, uint32_t ack_frame_b)
{
	uint32_t dw = data_frame_b + PKT_WIRE_EXTRA_B, aw = ack_frame_b + PKT_WIRE_EXTRA_B;
	int n_eps = f->n_hosts * f->nics_per_host;
	struct top2 *up = xcalloc((size_t)f->n_nodes, sizeof *up), *down = xcalloc((size_t)f->n_nodes, sizeof *down);
	for (int u = 0; u < f->n_nodes; u++)
		up[u] = down[u] = (struct top2){ { -1, -1 }, { -1, -1 } };
	simtime_t T = 0;
	const struct topo *t = &f->topo;
	for (int e = 0; e < n_eps; e++) {
		int h = fabric_ep_host(f, e), i = fabric_ep_nic(f, e);
		if (i >= topo_n_ports(t, h))
			continue;
		const struct topo_port *tp = fabric_tport(f, h, i);
		simtime_t c = link_cost(f, h, i, dw, aw);
		if (f->nodes[tp->peer].kind != NODE_SWITCH) { /* two hosts wired together */
			if (c > T)
				T = c;
			continue;
		}
		top2_add(&up[tp->peer], c, e);
		top2_add(&down[tp->peer], link_cost(f, tp->peer, tp->peer_port, dw, aw), e);
	}
	simtime_t *cost = xcalloc((size_t)f->n_ports + 1, sizeof *cost);
	int *peer_sw = xcalloc((size_t)f->n_ports + 1, sizeof *peer_sw);
	for (int u = 0; u < f->n_nodes; u++)
		for (int i = 0; i < topo_n_ports(t, u); i++) {
			int v = t->ports[t->port_off[u] + i].peer;
			peer_sw[t->port_off[u] + i] = f->nodes[v].kind == NODE_SWITCH ? v : -1;
			cost[t->port_off[u] + i] = link_cost(f, u, i, dw, aw);
		}
	struct rtt_walk w = { .f = f, .cost = cost, .peer_sw = peer_sw,
			      .L = xcalloc((size_t)f->n_nodes, sizeof *w.L),
			      .mark = xcalloc((size_t)f->n_nodes, sizeof *w.mark) };
	/* The switches with endpoints, in node order (sources and destinations). */
	int *edge = xcalloc((size_t)f->n_nodes + 1, sizeof *edge), n_edge = 0;
	for (int u = 0; u < f->n_nodes; u++) {
		w.mark[u] = -1;
		if (up[u].ep[0] >= 0 || down[u].ep[0] >= 0)
			edge[n_edge++] = u;
	}
	for (int ai = 0; ai < n_edge; ai++) {
		int a = edge[ai];
		if (down[a].ep[0] < 0)
			continue;
		w.dst_sw = a;
		w.dst_ep = down[a].ep[0];
		for (int si = 0; si < n_edge; si++) {
			int s = edge[si];
			if (up[s].ep[0] < 0)
				continue;
			simtime_t c;
			if (s == a) { /* two distinct endpoints of one switch */
				c = -1;
				for (int i = 0; i < 2; i++)
					for (int j = 0; j < 2; j++)
						if (up[s].ep[i] >= 0 && down[a].ep[j] >= 0 && up[s].ep[i] != down[a].ep[j] &&
						    up[s].v[i] + down[a].v[j] > c)
							c = up[s].v[i] + down[a].v[j];
			} else {
				simtime_t l = longest(&w, s);
				c = l < 0 ? -1 : up[s].v[0] + l + down[a].v[0];
			}
			if (c > T)
				T = c;
		}
	}
	free(w.L);
	free(w.mark);
	free(cost);
	free(peer_sw);
	free(edge);
	free(up);
	free(down);
	return T;
}
