/*
 * nic_qps.c — a NIC's queue-pair table: QPs by number, and the requester
 * QPs of each peer (qps_per_pair of them, used in turn), created in pairs
 * with the peer's responder on first use; QPs outside the table
 * (multicast groups); walks over a NIC's QPs for the result rows.
 */
#include <stdlib.h>
#include "cc.h"
#include "fabric.h"
#include "path.h"
#include "nic.h"
#include "nic_internal.h"
#include "qp.h"
#include "world.h"
#include "xalloc.h"

/* Linux rdma_calc_flow_label + rdma_flow_label_to_udp_sport (docs/protocol.md "Frames on the wire"). */
static uint16_t roce_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	v ^= v >> 20;
	v ^= v >> 40;
	uint32_t fl = (uint32_t)(v & 0xFFFFF);
	uint32_t lo = (fl & 0x03FFF) ^ ((fl & 0xFC000) >> 14);
	return (uint16_t)(lo | 0xC000);
}


static struct qp *qp_new(struct nic *n, int peer, int prio)
{
	if (n->n_qps == n->cap_qps) {
		uint32_t cap = n->cap_qps ? 2 * n->cap_qps : 16;
		n->qps = xrealloc(n->qps, cap * sizeof *n->qps);
		n->cap_qps = cap;
	}
	const struct nic_cfg *cfg = n->w->nic_cfg;
	struct qp *q = xcalloc(1, sizeof *q);
	q->elem = &n->host->elem;
	q->nic = n;
	q->qpn = QPN_BASE + n->n_qps;
	q->peer = peer;
	q->prio = (uint8_t)prio;
	q->ctrl_prio = cfg->ack_priority == ACKP_DATA ? (uint8_t)prio : n->ctrl_prio;
	q->sr = cfg->loss_recovery == LR_SR;
	q->last_cnp = -1;
	q->mgroup = -1;
	n->qps[n->n_qps++] = q;
	return q;
}

/* T for this NIC's QPs (path.h fabric_base_rtt): a full middle data frame
 * and an ACK, both with the INT header when the controller needs telemetry;
 * computed once per world and frame size. */
static simtime_t nic_base_rtt(const struct nic *n)
{
	struct world *w = n->w;
	int intb = n->cc && (n->cc->needs & CC_NEEDS_INT);
	if (w->base_rtt[intb] < 0)
		w->base_rtt[intb] = fabric_base_rtt(&w->fab, pkt_data_frame_b((uint32_t)n->mtu, 0) + (intb ? PKT_INT_B : 0),
						    PKT_ACK_FRAME_B + (intb ? PKT_INT_B : 0));
	return w->base_rtt[intb];
}

/* A requester QP's congestion control and window: the controller's state,
 * started at the NIC's line rate with its path's environment (sport and
 * route set: its switches are counted), whether its frames carry side
 * records (the controller reads ACKs) and whether a window caps it.
 * peer < 0: a multicast group's QP, which keeps the controller's rate
 * only: no records (its copies would share one) and no window (a UD
 * group's completions do not pass through the NIC's ACK path). */
static void qp_cc_init(const struct nic *n, struct qp *q, int peer, simtime_t now)
{
	const struct nic_cfg *cfg = n->w->nic_cfg;
	q->windowed = peer >= 0 && (cfg->window || (n->cc && n->cc->window_b));
	q->track_b = q->windowed;
	if (q->windowed || n->cc)
		q->base_rtt = nic_base_rtt(n);
	if (!n->cc)
		return;
	q->tel = n->cc->on_ack && peer >= 0;
	q->int_on = q->tel && (n->cc->needs & CC_NEEDS_INT);
	q->track_b = q->windowed || q->tel;
	struct cc_env env = { .line_bps = n->line_bps, .base_rtt = q->base_rtt, .mtu_b = (uint32_t)n->mtu };
	if (peer >= 0) {
		struct ideal_hop h[IDEAL_MAX_HOPS];
		int nh = switch_path(&n->w->fab, n->ep, peer, q->sport, h);
		env.hops = nh > 0 ? (uint32_t)nh - 1 : 0;
	}
	q->cc = xcalloc(1, n->cc->state_b);
	n->cc->init(q->cc, n->cc_params, &env, now);
}

static struct qp **map_slot(struct nic *n, uint64_t key)
{
	if (2 * (n->map_n + 1) > n->map_cap) {
		uint32_t cap = n->map_cap ? 2 * n->map_cap : 64;
		struct qp_slot *m = xcalloc(cap, sizeof *m);
		for (uint32_t i = 0; i < n->map_cap; i++) {
			if (!n->map[i].key)
				continue;
			uint32_t j = (uint32_t)(n->map[i].key * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
			while (m[j].key)
				j = (j + 1) & (cap - 1);
			m[j] = n->map[i];
		}
		free(n->map);
		n->map = m;
		n->map_cap = cap;
	}
	uint32_t j = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (n->map_cap - 1);
	while (n->map[j].key && n->map[j].key != key)
		j = (j + 1) & (n->map_cap - 1);
	if (!n->map[j].key) {
		n->map[j].key = key;
		n->map_n++;
	}
	return &n->map[j].qp;
}

static struct qp *qp_slot_get(struct world *w, struct nic *n, int peer, int prio, uint32_t idx)
{
	struct qp **slot = map_slot(n, ((((uint64_t)(peer + 1) << 8) | idx) << 3) | (uint64_t)prio);
	if (!*slot) {
		struct nic *rn = w->eps[peer].nic;
		struct qp *req = qp_new(n, peer, prio), *rsp = qp_new(rn, n->ep, prio);
		if (fabric_ep_held(&w->fab, n->ep))
			n->port->pull_classes |= (uint8_t)(1u << prio);
		req->dqpn = rsp->qpn;
		rsp->dqpn = req->qpn;
		req->sport = rsp->sport = roce_sport(req->qpn, rsp->qpn);
		req->route = route_path_code(&w->fab, n->ep, peer, req->sport);
		rsp->route = route_path_code(&w->fab, peer, n->ep, rsp->sport);
		qp_cc_init(n, req, peer, w->sim->now);
		*slot = req;
	}
	return *slot;
}

/* The requester QP for the next message to `peer`: messages to one peer
 * take its qps_per_pair QPs in turn (distinct QPNs, so distinct UDP source
 * ports, so ECMP can spread them). The pair's message count lives in its
 * first QP. */
struct qp *nic_qp_for(struct world *w, struct nic *n, int peer, int prio)
{
	struct qp *first = qp_slot_get(w, n, peer, prio, 0);
	uint32_t idx = (uint32_t)(first->pair_posts++ % (uint64_t)w->nic_cfg->qps_per_pair);
	return idx ? qp_slot_get(w, n, peer, prio, idx) : first;
}

struct qp *nic_qp_add(struct world *w, int ep, int peer, bool requester)
{
	struct nic *n = w->eps[ep].nic;
	struct qp *q = qp_new(n, peer, n->w->nic_cfg->priority);
	if (requester && n->cc) /* a multicast group's: no side records (its copies would share one) */
		qp_cc_init(n, q, -1, w->sim->now);
	return q;
}

void nic_foreach_flow(struct nic *n, void (*fn)(const struct flow *f, void *ctx), void *ctx)
{
	/* A multicast group's QPs: mcast_write_unfinished. */
	for (uint32_t i = 0; i < n->n_qps; i++)
		for (struct flow *f = n->qps[i]->mgroup < 0 ? n->qps[i]->head : NULL; f; f = f->next)
			fn(f, ctx);
}

void nic_foreach_cc(struct world *w, void (*fn)(void *ctx, const struct flow *head, const void *cc),
		    void *ctx)
{
	for (int e = 0; e < w->n_eps; e++) {
		const struct nic *n = w->eps[e].nic;
		for (uint32_t i = 0; i < n->n_qps; i++) {
			const struct qp *q = n->qps[i];
			if (q->mgroup < 0 && q->head && q->cc)
				fn(ctx, q->head, q->cc);
		}
	}
}
