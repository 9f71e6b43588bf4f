/*
 * nic.c — RoCE NIC: RC queue pairs, segmentation, round-robin QP scheduling,
 * acknowledgement (see nic.h).
 *
 * Invariants: a flow is in exactly one list of its QP — the send queue
 * (sq_head.., the head being segmented) or the in-flight list (fully
 * segmented, waiting for its last ACK); a QP is in the NIC's round-robin
 * ring iff its send queue is non-empty. PSNs are kept as unwrapped 32-bit
 * counters here; the wire's 24-bit wrap matters only to the pcap writer.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "ideal.h"
#include "log.h"
#include "nic.h"
#include "port.h"
#include "results.h"
#include "switch.h"
#include "world.h"
#include "xalloc.h"

#define QPN_BASE 0x100u   /* first QPN a NIC hands out (low numbers are reserved in IB) */

struct qp {
	uint32_t qpn, dqpn;        /* local and remote QP numbers */
	int32_t peer;              /* remote host id */
	uint16_t sport;            /* UDP source port (ECMP entropy) */
	uint8_t prio;
	/* requester side */
	struct flow *sq_head, *sq_tail;   /* messages not fully segmented */
	struct flow *inf_head, *inf_tail; /* segmented, awaiting their last ACK */
	uint32_t snd_nxt;          /* next PSN to send */
	struct qp *rr_next;        /* round-robin ring link */
	/* responder side */
	uint32_t rcv_nxt;          /* next PSN expected */
	uint32_t rx_since_ack;     /* packets accepted since the last ACK */
	uint64_t pair_posts;       /* first QP of a pair: messages posted to the peer */
};

struct qp_slot { uint64_t key; struct qp *qp; };  /* key 0 = empty */

struct nic {
	struct world *w;
	struct node *host;
	struct port *port;         /* host port `index` */
	int ep;                    /* endpoint id (world.h) */
	int mtu;
	struct qp **qps;           /* by qpn - QPN_BASE */
	uint32_t n_qps, cap_qps;
	struct qp_slot *map;       /* (peer, index) -> requester QP, open addressing */
	uint32_t map_cap, map_n;
	struct qp *rr_tail;        /* ring of QPs with data; rr_tail->rr_next is next to send */
};

/* Linux rdma_calc_flow_label + rdma_flow_label_to_udp_sport (REFERENCE.md). */
static uint16_t roce_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	v ^= v >> 20;
	v ^= v >> 40;
	uint32_t fl = (uint32_t)(v & 0xFFFFF);
	uint32_t lo = (fl & 0x03FFF) ^ ((fl & 0xFC000) >> 14);
	return (uint16_t)(lo | 0xC000);
}

struct nic *nic_create(struct world *w, struct node *host, int port, int ep)
{
	struct nic *n = xcalloc(1, sizeof *n);
	n->w = w;
	n->host = host;
	n->ep = ep;
	n->port = &host->ports[port];
	n->mtu = w->cfg->nic.mtu;
	n->port->pull = nic_pull;
	n->port->pull_ctx = n;
	return n;
}

void nic_destroy(struct nic *n)
{
	if (!n)
		return;
	/* Flows live in the world's pool and are released with it. */
	for (uint32_t i = 0; i < n->n_qps; i++)
		free(n->qps[i]);
	free(n->qps);
	free(n->map);
	free(n);
}

static struct qp *qp_new(struct nic *n, int peer)
{
	if (n->n_qps == n->cap_qps) {
		uint32_t cap = n->cap_qps ? 2 * n->cap_qps : 16;
		n->qps = xrealloc(n->qps, cap * sizeof *n->qps);
		n->cap_qps = cap;
	}
	struct qp *q = xcalloc(1, sizeof *q);
	q->qpn = QPN_BASE + n->n_qps;
	q->peer = peer;
	q->prio = (uint8_t)n->w->cfg->nic.priority;
	n->qps[n->n_qps++] = q;
	return q;
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

static struct qp *qp_slot_get(struct world *w, struct nic *n, int peer, uint32_t idx)
{
	struct qp **slot = map_slot(n, ((uint64_t)(peer + 1) << 8) | idx);
	if (!*slot) {
		struct nic *rn = w->eps[peer].nic;
		struct qp *req = qp_new(n, peer), *rsp = qp_new(rn, n->ep);
		req->dqpn = rsp->qpn;
		rsp->dqpn = req->qpn;
		req->sport = rsp->sport = roce_sport(req->qpn, rsp->qpn);
		*slot = req;
	}
	return *slot;
}

/* The requester QP for the next message to `peer`: messages to one peer
 * take its qps_per_pair QPs in turn (distinct QPNs, so distinct UDP source
 * ports, so ECMP can spread them). The pair's message count lives in its
 * first QP. */
static struct qp *qp_for(struct world *w, struct nic *n, int peer)
{
	struct qp *first = qp_slot_get(w, n, peer, 0);
	uint32_t idx = (uint32_t)(first->pair_posts++ % (uint64_t)w->cfg->nic.qps_per_pair);
	return idx ? qp_slot_get(w, n, peer, idx) : first;
}

static void rr_add(struct nic *n, struct qp *q)
{
	if (!n->rr_tail) {
		q->rr_next = q;
	} else {
		q->rr_next = n->rr_tail->rr_next;
		n->rr_tail->rr_next = q;
	}
	n->rr_tail = q;
}

/* Hops of the path a packet of this QP takes from src to dst (ECMP included). */
static int path_hops(struct world *w, int src, int dst, uint16_t sport, struct ideal_hop *h)
{
	const struct port *p = w->eps[src].port;
	int n = 0;
	for (;;) {
		if (n == IDEAL_MAX_HOPS)
			return -1;
		h[n].rate_bps = p->rate_bps;
		h[n].delay_ps = p->delay_ps + p->peer_latency_ps;
		n++;
		struct node *next = p->peer->node;
		if (next->kind != NODE_SWITCH)
			return next == w->eps[dst].host && p->peer == w->eps[dst].port ? n : -1;
		p = &next->ports[switch_route(next, src, dst, sport, -1)];
	}
}

static simtime_t flow_ideal(struct world *w, const struct flow *f, uint16_t sport)
{
	struct ideal_hop fwd[IDEAL_MAX_HOPS], rev[IDEAL_MAX_HOPS];
	int nf = path_hops(w, f->src, f->dst, sport, fwd);
	int nr = path_hops(w, f->dst, f->src, sport, rev);
	if (nf < 0 || nr < 0)
		return 0;
	return ideal_delivery_ps(fwd, nf, f->size_b, w->cfg->nic.mtu) + ideal_ack_ps(rev, nr);
}

struct flow *nic_post(struct world *w, int src, int dst, uint64_t size_b,
		      const char *source, const char *parallelism)
{
	struct sim *sim = w->sim;
	SIM_ASSERT(sim, &sim->kernel, src != dst && src >= 0 && dst >= 0 && src < w->n_eps && dst < w->n_eps,
		   "message from endpoint %d to endpoint %d", src, dst);
	struct nic *n = w->eps[src].nic;
	struct flow *f = pool_get(&w->flow_pool);
	*f = (struct flow){ .id = ++w->next_flow_id, .src = src, .dst = dst, .size_b = size_b,
			    .start = sim->now, .recv_end = -1, .end = -1, .source = source,
			    .parallelism = parallelism, .iteration = -1, .collective_id = -1,
			    .src_gpu = -1, .dst_gpu = -1 };
	struct qp *q = qp_for(w, n, dst);
	f->qp = q;
	f->n_pkts = ideal_packets(size_b, n->mtu);
	f->ideal = flow_ideal(w, f, q->sport);
	w->flows_posted++;
	bool was_idle = q->sq_head == NULL;
	if (q->sq_tail)
		q->sq_tail->next = f;
	else
		q->sq_head = f;
	q->sq_tail = f;
	if (was_idle) {
		rr_add(n, q);
		n->port->pull_more = true;
		port_kick(sim, n->port);
	}
	return f;
}

struct packet *nic_pull(struct sim *sim, void *ctx)
{
	struct nic *n = ctx;
	if (!n->rr_tail)
		return NULL;
	struct qp *q = n->rr_tail->rr_next;
	struct flow *f = q->sq_head;
	struct packet *p = pool_get(&n->w->pkt_pool);
	bool first = f->sent_b == 0;
	uint64_t left = f->size_b - f->sent_b;
	uint32_t payload = left < (uint64_t)n->mtu ? (uint32_t)left : (uint32_t)n->mtu;
	bool last = payload == left;
	if (first)
		f->first_psn = q->snd_nxt;
	*p = (struct packet){ .flow = f, .psn = q->snd_nxt++, .dqpn = q->dqpn, .src = f->src,
			      .dst = f->dst, .sport = q->sport, .payload_b = (uint16_t)payload,
			      .type = PKT_DATA, .prio = q->prio, .ttl = 64,
			      .flags = (uint8_t)(PKT_F_ECT | (first ? PKT_F_FIRST : 0) |
						 (last ? PKT_F_LAST | PKT_F_ACKREQ : 0)) };
	p->opcode = first ? (last ? OP_WRITE_ONLY : OP_WRITE_FIRST) : (last ? OP_WRITE_LAST : OP_WRITE_MIDDLE);
	p->frame_b = (uint16_t)(PKT_ROCE_OVERHEAD_B + payload + (first ? PKT_RETH_B : 0));
	f->sent_b += payload;
	sim->packets_sent++;
	if (last) {
		f->last_psn = p->psn;
		q->sq_head = f->next;
		if (!q->sq_head)
			q->sq_tail = NULL;
		f->next = NULL;
		if (q->inf_tail)
			q->inf_tail->next = f;
		else
			q->inf_head = f;
		q->inf_tail = f;
	}
	/* Round robin: this QP goes to the back of the ring, or leaves it when drained. */
	if (q->sq_head) {
		n->rr_tail = q;
	} else if (q->rr_next == q) {
		n->rr_tail = NULL;
		n->port->pull_more = false;
	} else {
		n->rr_tail->rr_next = q->rr_next;
	}
	return p;
}

static void nic_send_ack(struct sim *sim, struct nic *n, struct qp *q, uint32_t psn)
{
	struct packet *a = pool_get(&n->w->pkt_pool);
	*a = (struct packet){ .psn = psn, .dqpn = q->dqpn, .src = n->ep, .dst = q->peer,
			      .sport = q->sport, .frame_b = PKT_ACK_FRAME_B, .type = PKT_ACK,
			      .opcode = OP_ACK, .prio = PORT_CTRL_PRIO, .ttl = 64 };
	port_enqueue(sim, n->port, a);
}

static void nic_complete(struct sim *sim, struct nic *n, struct qp *q, uint32_t acked)
{
	struct world *w = n->w;
	while (q->inf_head && q->inf_head->last_psn <= acked) {
		struct flow *f = q->inf_head;
		q->inf_head = f->next;
		if (!q->inf_head)
			q->inf_tail = NULL;
		f->end = sim->now;
		w->flows_done++;
		if (f->on_done)
			f->on_done(sim, f, f->on_done_ctx);
		nic_write_flow(w, f);
		pool_put(&w->flow_pool, f);
	}
}

void nic_receive(struct sim *sim, struct node *host, struct port *in, struct packet *p)
{
	struct nic *n = in->pull_ctx;
	(void)host;
	struct world *w = n->w;
	SIM_DEBUG_ASSERT(sim, &n->host->elem, p->dst == n->ep, "frame for endpoint %d at endpoint %d",
			 p->dst, n->ep);
	SIM_ASSERT(sim, &n->host->elem, p->dqpn >= QPN_BASE && p->dqpn - QPN_BASE < n->n_qps,
		   "frame for unknown QP %u", p->dqpn);
	struct qp *q = n->qps[p->dqpn - QPN_BASE];
	switch (p->type) {
	case PKT_DATA:
		if (p->psn == q->rcv_nxt) {
			q->rcv_nxt++;
			sim->packets_delivered++;
			if (p->flags & PKT_F_LAST) {
				p->flow->recv_end = sim->now;
				if (p->flow->on_recv)
					p->flow->on_recv(sim, p->flow, p->flow->on_recv_ctx);
			}
			if (++q->rx_since_ack >= (uint32_t)w->cfg->nic.ack_every || (p->flags & PKT_F_LAST)) {
				q->rx_since_ack = 0;
				nic_send_ack(sim, n, q, p->psn);
			}
		} else if (p->psn < q->rcv_nxt) {
			nic_send_ack(sim, n, q, q->rcv_nxt - 1); /* duplicate: re-acknowledge */
		} else {
			sim->packets_dropped++; /* a gap: recovery comes with go-back-N (issue 3) */
		}
		break;
	case PKT_ACK:
		nic_complete(sim, n, q, p->psn);
		break;
	default:
		break;
	}
	pool_put(&w->pkt_pool, p);
}

void nic_write_flow(struct world *w, const struct flow *f)
{
	struct results *res = w->sim->res;
	if (!res)
		return;
	char sg[48], dg[48];
	struct flow_record r = {
		.flow_id = f->id, .src = w->eps[f->src].host->name, .dst = w->eps[f->dst].host->name,
		.qpn = f->qp->qpn, .sport = f->qp->sport, .priority = f->qp->prio,
		.size_bytes = f->size_b, .start_ps = f->start, .end_ps = f->end,
		.recv_end_ps = f->recv_end, .ideal_fct_ps = f->ideal, .packets = f->n_pkts,
		.retx_packets = f->retx_pkts, .ecn_marked = f->ecn_marked,
		.cnp_received = f->cnp_received, .source = f->source, .job = f->job,
		.iteration = f->iteration, .collective_id = f->collective_id,
		.parallelism = f->parallelism,
		.src_gpu = f->src_gpu >= 0 ? world_gpu_name(w, f->src_gpu, sg, sizeof sg) : NULL,
		.dst_gpu = f->dst_gpu >= 0 ? world_gpu_name(w, f->dst_gpu, dg, sizeof dg) : NULL,
	};
	results_flow(res, &r);
}

void nic_foreach_flow(struct nic *n, void (*fn)(const struct flow *f, void *ctx), void *ctx)
{
	for (uint32_t i = 0; i < n->n_qps; i++) {
		for (struct flow *f = n->qps[i]->inf_head; f; f = f->next)
			fn(f, ctx);
		for (struct flow *f = n->qps[i]->sq_head; f; f = f->next)
			fn(f, ctx);
	}
}
