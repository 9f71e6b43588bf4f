/*
 * nic.c — RoCE NIC: the QP scheduler with congestion control pacing, and
 * the packet I/O of its port (see nic.h; the QP table is nic_qps.c, ideal
 * times nic_ideal.c, the protocol of one QP qp.c).
 *
 * Scheduler: QPs that have a packet to send and whose pacing allows it now
 * form a round-robin ring; the port pulls one packet at a time when its
 * link is free and no PFC pause holds the data class. A QP whose
 * congestion control rate makes it wait past the port's next pull goes to a
 * min-heap on its next send time, with one pending event for the heap's
 * head. With cc = none every QP stays in the ring: the NIC sends at line
 * rate. Congestion-control timers and retransmission timeouts keep at most
 * one pending event per QP each (deadlines move without re-scheduling).
 */
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "config.h"
#include "log.h"
#include "nic.h"
#include "nic_internal.h"
#include "nic_rx.h"
#include "fabric.h"
#include "qp.h"
#include "world.h"
#include "xalloc.h"

struct world *nic_world(const struct nic *n) { return n->w; }
int nic_mtu(const struct nic *n) { return n->mtu; }

static void take_data(struct sim *sim, void *ctx, struct packet *p);

struct nic *nic_create(struct world *w, struct node *host, int port, int ep)
{
	struct nic *n = xcalloc(1, sizeof *n);
	n->w = w;
	n->host = host;
	n->ep = ep;
	n->port = &host->ports[port];
	n->line_bps = fabric_hop(&w->fab, host->id, port).rate_bps;
	n->mtu = w->nic_cfg->mtu;
	n->cc = cc_lookup(w->nic_cfg->cc);
	n->cc_params = cc_params(w->cfg, n->cc);
	if (fabric_ep_held(&w->fab, ep))
		n->port->pull_classes = (uint8_t)(1u << w->nic_cfg->priority);
	const struct nic_cfg *c = w->nic_cfg;
	n->ctrl_prio = (uint8_t)(c->ack_priority == ACKP_DATA ? c->priority : PORT_CTRL_PRIO);
	if (!c->rx_rate_off) {
		uint64_t need;
		uint32_t max_frame = pkt_data_frame_b((uint32_t)c->mtu, 1) +
				     (n->cc && (n->cc->needs & CC_NEEDS_INT) ? PKT_INT_B : 0);
		if (nic_rx_init(&n->rx, n->port, fabric_headroom(&w->fab, host->id, port, max_frame), c->rx_rate_bps,
				c->rx_buffer_b, w->fab.sw_cfg->pfc ? c->priority : -1, max_frame, &need) < 0 &&
		    !w->setup_err)
			w->setup_err = cfg_error_at(w->cfg, "nic", "rx_buffer", 0,
						    "too small for %s:p%d's link: with PFC the receive buffer "
						    "needs at least %llu B (headroom and three frames)",
						    host->name, port, (unsigned long long)need);
		n->rx.deliver = take_data;
		n->rx.ctx = n;
	}
	return n;
}

void nic_set_cc(struct nic *n, const struct cc_ops *ops, const void *params)
{
	n->cc = ops;
	n->cc_params = params;
	if (ops && (ops->needs & CC_NEEDS_INT))
		fabric_enable_int(&n->w->fab);
}

bool nic_quiet(const struct nic *n)
{
	return nic_rx_empty(&n->rx) && !n->rx.paused;
}

uint64_t nic_lossless_drops(const struct nic *n)
{
	return n->rx.lossless_drops;
}

void nic_destroy(struct nic *n)
{
	if (!n)
		return;
	/* Flows live in the world's pool and are released with it. */
	for (uint32_t i = 0; i < n->n_qps; i++)
		qp_free(n->qps[i]);
	free(n->qps);
	free(n->map);
	free(n->heap);
	free(n);
}

/* ---- Scheduler: ready ring and pacing heap ---- */

static void ring_add(struct nic *n, struct qp *q)
{
	if (!n->rr_tail) {
		q->rr_next = q;
	} else {
		q->rr_next = n->rr_tail->rr_next;
		n->rr_tail->rr_next = q;
	}
	n->rr_tail = q;
	q->in_ring = true;
}

/* Removes the ring's head (rr_tail->rr_next). */
static void ring_pop(struct nic *n)
{
	struct qp *q = n->rr_tail->rr_next;
	if (q == n->rr_tail)
		n->rr_tail = NULL;
	else
		n->rr_tail->rr_next = q->rr_next;
	q->in_ring = false;
}

static bool heap_less(const struct qp *a, const struct qp *b)
{
	return a->next_send < b->next_send || (a->next_send == b->next_send && a->qpn < b->qpn);
}

static void heap_set(struct nic *n, uint32_t i, struct qp *q)
{
	n->heap[i] = q;
	q->heap_idx = i;
}

static void heap_sift_up(struct nic *n, uint32_t i, struct qp *q)
{
	while (i && heap_less(q, n->heap[(i - 1) / 2])) {
		heap_set(n, i, n->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(n, i, q);
}

static void heap_sift_down(struct nic *n, uint32_t i, struct qp *q)
{
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n->n_heap)
			break;
		if (c + 1 < n->n_heap && heap_less(n->heap[c + 1], n->heap[c]))
			c++;
		if (!heap_less(n->heap[c], q))
			break;
		heap_set(n, i, n->heap[c]);
		i = c;
	}
	heap_set(n, i, q);
}

static void heap_push(struct nic *n, struct qp *q)
{
	if (n->n_heap == n->cap_heap) {
		n->cap_heap = n->cap_heap ? 2 * n->cap_heap : 16;
		n->heap = xrealloc(n->heap, n->cap_heap * sizeof *n->heap);
	}
	heap_sift_up(n, n->n_heap++, q);
	q->in_heap = true;
}

static struct qp *heap_pop(struct nic *n)
{
	struct qp *top = n->heap[0], *last = n->heap[--n->n_heap];
	if (n->n_heap)
		heap_sift_down(n, 0, last);
	top->in_heap = false;
	return top;
}

/* q's next_send changed while it waits in the heap. */
static void heap_update(struct nic *n, struct qp *q)
{
	uint32_t i = q->heap_idx;
	heap_sift_up(n, i, q);
	if (q->heap_idx == i)
		heap_sift_down(n, i, q);
}

static void pace_fire(struct sim *sim, void *obj, uintptr_t arg);

static void pace_schedule(struct sim *sim, struct nic *n)
{
	if (!n->n_heap)
		return;
	simtime_t t = n->heap[0]->next_send;
	if (t < sim->now)
		t = sim->now;
	if (n->pace_pending && n->pace_at <= t)
		return;
	n->pace_pending = true;
	n->pace_at = t;
	sched_at(sim, t, &n->host->elem, pace_fire, n, 0);
}

static void make_ready(struct sim *sim, struct nic *n, struct qp *q)
{
	ring_add(n, q);
	n->port->pull_more = true;
	port_kick(sim, n->port);
}

static void pace_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	struct nic *n = obj;
	(void)arg;
	if (!n->pace_pending || sim->now != n->pace_at)
		return; /* superseded by an earlier one */
	n->pace_pending = false;
	while (n->n_heap && n->heap[0]->next_send <= sim->now) {
		struct qp *q = heap_pop(n);
		if (qp_has_data(q))
			make_ready(sim, n, q);
	}
	pace_schedule(sim, n);
}

void nic_qp_wake(struct sim *sim, struct nic *n, struct qp *q)
{
	if (q->in_ring || q->in_heap || !qp_has_data(q))
		return;
	if (q->next_send > sim->now) {
		heap_push(n, q);
		pace_schedule(sim, n);
	} else {
		make_ready(sim, n, q);
	}
}

/* ---- Congestion control and timeouts ---- */

/* The pacing gap of a packet of wire_b bytes at rate_bps. Packets of one
 * QP mostly share their size and rate, so the last gap is kept and the
 * 128-bit division runs only when one of them changes. */
static simtime_t pace_gap(struct qp *q, uint32_t wire_b, uint64_t rate_bps)
{
	if (wire_b != q->last_wire || rate_bps != q->gap_rate_bps) {
		q->last_wire = wire_b;
		q->gap_rate_bps = rate_bps;
		q->gap_ps = simtime_serialize(wire_b, rate_bps);
	}
	return q->gap_ps;
}

static void cc_fire(struct sim *sim, void *obj, uintptr_t arg);

/* HPCC's ns-3 RdmaHw::ChangeRate: when the rate changes, a QP's next send
 * moves by the difference between its last packet's time at the new rate
 * and at the old one. */
static void cc_rate_changed(struct sim *sim, struct qp *q, uint64_t old_bps)
{
	struct nic *n = q->nic;
	uint64_t new_bps = n->cc->rate_bps(q->cc);
	if (new_bps == old_bps || !q->last_wire)
		return;
	q->next_send += simtime_serialize(q->last_wire, new_bps) - simtime_serialize(q->last_wire, old_bps);
	if (q->in_heap) {
		heap_update(n, q);
		pace_schedule(sim, n);
	}
}

static void cc_rearm(struct sim *sim, struct qp *q)
{
	simtime_t t = q->nic->cc->next_timer(q->cc);
	if (t == SIMTIME_NEVER || (q->cc_pending && q->cc_at <= t))
		return;
	if (t < sim->now)
		t = sim->now;
	q->cc_pending = true;
	q->cc_at = t;
	sched_at(sim, t, q->elem, cc_fire, q, 0);
}

static void cc_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	struct qp *q = obj;
	(void)arg;
	if (!q->cc_pending || sim->now != q->cc_at)
		return;
	q->cc_pending = false;
	uint64_t old = q->nic->cc->rate_bps(q->cc);
	q->nic->cc->on_timer(q->cc, sim->now);
	cc_rate_changed(sim, q, old);
	cc_rearm(sim, q);
	if (q->windowed) /* a window that follows the rate may have opened */
		nic_qp_wake(sim, q->nic, q);
}

static void rto_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	struct qp *q = obj;
	(void)arg;
	q->rto_pending = false;
	if (q->snd_una == q->snd_max)
		return; /* nothing outstanding */
	if (sim->now < q->rto_at) { /* progress moved the deadline */
		q->rto_pending = true;
		sched_at(sim, q->rto_at, q->elem, rto_fire, q, 0);
		return;
	}
	qp_timeout(sim, q);
	nic_rto_arm(sim, q);
}

void nic_rto_arm(struct sim *sim, struct qp *q)
{
	if (q->rto_pending)
		return;
	q->rto_at = sim->now + q->nic->w->nic_cfg->rto;
	q->rto_pending = true;
	sched_at(sim, q->rto_at, q->elem, rto_fire, q, 0);
}

/* ---- Posting, sending, receiving ---- */

struct flow *nic_post(struct world *w, int src, int dst, uint64_t size_b,
		      const char *source, const char *parallelism)
{
	return nic_post_class(w, src, dst, size_b, source, parallelism, -1);
}

struct flow *nic_post_class(struct world *w, int src, int dst, uint64_t size_b,
			    const char *source, const char *parallelism, int prio)
{
	struct sim *sim = w->sim;
	SIM_ASSERT(sim, &sim->kernel, src != dst && src >= 0 && dst >= 0 && src < w->n_eps && dst < w->n_eps,
		   "message from endpoint %d to endpoint %d", src, dst);
	struct nic *n = w->eps[src].nic;
	struct flow *f = flow_new(w, src, dst, size_b, source, parallelism);
	struct qp *q = nic_qp_for(w, n, dst, prio < 0 ? w->nic_cfg->priority : prio);
	f->qp = q;
	f->n_pkts = ideal_packets(size_b, n->mtu);
	f->ideal = nic_flow_ideal(w, f, q->sport);
	qp_post(q, f);
	nic_qp_wake(sim, n, q);
	return f;
}

void nic_post_elsewhere(struct world *w, int src, int dst, int prio)
{
	w->next_flow_id++;
	nic_qp_for(w, w->eps[src].nic, dst, prio < 0 ? w->nic_cfg->priority : prio);
}

struct packet *nic_pull(struct sim *sim, void *ctx)
{
	struct nic *n = ctx;
	struct qp *skipped = NULL;
	while (n->rr_tail) {
		struct qp *q = n->rr_tail->rr_next;
		if (__builtin_expect(n->port->paused & (1u << q->prio), 0)) {
			/* Its class is paused (a job of another class has data): the
			 * next one; all paused, nothing now (a resume kicks the port). */
			if (q == skipped)
				return NULL;
			if (!skipped)
				skipped = q;
			n->rr_tail = q;
			continue;
		}
		struct packet *p = qp_next_packet(sim, q);
		if (!p) {
			ring_pop(n);
			continue;
		}
		uint32_t wire = p->frame_b + PKT_WIRE_EXTRA_B;
		bool wait = false;
		if (n->cc) {
			n->cc->on_sent(q->cc, wire, sim->now);
			cc_rearm(sim, q);
			q->next_send = sim->now + pace_gap(q, wire, n->cc->rate_bps(q->cc));
			wait = q->next_send > sim->now + port_ser_ps(n->port, wire);
		}
		if (!qp_has_data(q)) {
			ring_pop(n);
		} else if (wait) {
			ring_pop(n);
			heap_push(n, q);
			pace_schedule(sim, n);
		} else {
			n->rr_tail = q; /* round robin: to the back of the ring */
		}
		n->port->pull_more = n->rr_tail != NULL;
		return p;
	}
	n->port->pull_more = false;
	return NULL;
}

/* The ACK or NAK a takes over the side record of the data packet d it
 * answers (its aux moves into the record), with d's CE mark as its ECN echo
 * and the INT header's bytes when the record carries telemetry. */
static __attribute__((noinline)) void ctrl_take_record(struct fabric *fab, struct packet *a, struct packet *d)
{
	struct pkt_tel *r = pkt_tel_at(&fab->tel, d->aux);
	r->aux = a->aux;
	a->aux = d->aux;
	a->flags |= (uint8_t)(PKT_F_TEL | (d->flags & PKT_F_CE ? PKT_F_ECE : 0));
	if (r->stamp)
		a->frame_b += PKT_INT_B;
	d->flags &= (uint8_t)~PKT_F_TEL;
}

void nic_send_ctrl(struct sim *sim, struct qp *q, int type, uint32_t psn, uint32_t aux, struct packet *answers)
{
	struct nic *n = q->nic;
	struct packet *a = pool_get(&n->w->fab.pkt_pool);
	bool cnp = type == PKT_CNP;
	*a = (struct packet){ .psn = psn, .aux = aux, .dqpn = q->dqpn, .src = n->ep, .dst = q->peer,
			      .sport = q->sport, .frame_b = cnp ? PKT_CNP_FRAME_B : PKT_ACK_FRAME_B,
			      .type = (uint8_t)type, .opcode = cnp ? OP_CNP : OP_ACK,
			      .prio = q->ctrl_prio, .ttl = PKT_TTL0, .route = q->route };
	if (answers && (answers->flags & PKT_F_TEL))
		ctrl_take_record(&n->w->fab, a, answers);
	if (q->ops && !q->ops->feedback(q, a)) {
		fabric_pkt_put(&n->w->fab, a);
		return;
	}
	port_enqueue(sim, n->port, a);
}

/* An ACK or NAK with a side record (pkt_tel.h) for a requester whose
 * controller reads ACKs: the QP's protocol first (it may finish messages),
 * then the controller sees what it newly acknowledged, the RTT of the data
 * packet it answers, that packet's ECN mark and its telemetry; the rate and
 * the window may change, so the QP's pacing is redone and it is woken. The
 * record is released here. */
static __attribute__((noinline)) void ack_to_cc(struct sim *sim, struct nic *n, struct qp *q, struct packet *p)
{
	struct fabric *fab = &n->w->fab;
	uint32_t idx = p->aux;
	const struct pkt_tel *r = pkt_tel_at(&fab->tel, idx);
	p->aux = r->aux; /* an SR NAK's SACKed PSN */
	uint64_t una0 = q->una_b;
	qp_on_ack(sim, q, p);
	/* Messages it finished may have posted others and sent packets, which
	 * may have grown (moved) the records: look it up again. */
	r = pkt_tel_at(&fab->tel, idx);
	struct cc_int_hop hop[CC_INT_MAX_HOPS];
	uint8_t nh = r->n_hops < CC_INT_MAX_HOPS ? r->n_hops : CC_INT_MAX_HOPS;
	for (uint8_t i = 0; i < nh; i++)
		hop[i] = (struct cc_int_hop){ .qlen_b = r->hop[i].qlen_b, .tx_b = r->hop[i].tx_b,
					      .ts = r->hop[i].ts, .rate_bps = r->hop[i].rate_bps };
	struct cc_ack ack = { .acked_b = q->una_b - una0, .snd_una_b = q->una_b, .snd_nxt_b = q->max_b,
			      .rtt = sim->now - r->sent_at, .ecn = (p->flags & PKT_F_ECE) != 0,
			      .nak = p->type == PKT_NAK, .n_hops = nh, .hop = nh ? hop : NULL };
	pkt_tel_put(&fab->tel, idx);
	p->flags &= (uint8_t)~PKT_F_TEL;
	uint64_t old = n->cc->rate_bps(q->cc);
	n->cc->on_ack(q->cc, &ack, sim->now);
	cc_rate_changed(sim, q, old);
	cc_rearm(sim, q);
	nic_qp_wake(sim, n, q);
}

/* The QP a frame for this NIC is addressed to. */
static inline struct qp *frame_qp(struct sim *sim, const struct nic *n, const struct packet *p)
{
	SIM_ASSERT(sim, &n->host->elem, p->dqpn >= QPN_BASE && p->dqpn - QPN_BASE < n->n_qps,
		   "frame for unknown QP %u", p->dqpn);
	return n->qps[p->dqpn - QPN_BASE];
}

/* A data frame reaches its queue pair (from the link, or from the receive buffer). */
static void take_data(struct sim *sim, void *ctx, struct packet *p)
{
	struct nic *n = ctx;
	qp_on_data(sim, frame_qp(sim, n, p), p);
	fabric_pkt_put(&n->w->fab, p); /* with its record, when no ACK took it */
}

void nic_receive(struct sim *sim, void *ctx, struct port *in, struct packet *p)
{
	struct nic *n = ctx;
	struct world *w = n->w;
	if (p->type == PKT_PFC) {
		port_pfc_receive(sim, in, p);
		pool_put(&w->fab.pkt_pool, p);
		return;
	}
	SIM_DEBUG_ASSERT(sim, &n->host->elem, p->dst == n->ep, "frame for endpoint %d at endpoint %d",
			 p->dst, n->ep);
	if (p->type == PKT_DATA) {
		if (n->rx.rate_bps)
			nic_rx_push(sim, &n->rx, p);
		else
			take_data(sim, n, p);
		return;
	}
	struct qp *q = frame_qp(sim, n, p);
	switch (p->type) {
	case PKT_ACK:
	case PKT_NAK:
		if (__builtin_expect(p->flags & PKT_F_TEL, 0)) {
			ack_to_cc(sim, n, q, p);
			break;
		}
		qp_on_ack(sim, q, p);
		if (q->windowed) /* the window may have opened */
			nic_qp_wake(sim, n, q);
		break;
	case PKT_CNP:
		if (q->head)
			q->head->cnp_received++;
		if (n->cc && n->cc->on_cnp) {
			uint64_t old = n->cc->rate_bps(q->cc);
			n->cc->on_cnp(q->cc, sim->now);
			cc_rate_changed(sim, q, old);
			cc_rearm(sim, q);
		}
		break;
	default:
		break;
	}
	pool_put(&w->fab.pkt_pool, p);
}
