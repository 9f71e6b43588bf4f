/*
 * port.c — queues, scheduler and transmitter of a port (see port.h).
 *
 * Invariants: q[c].bytes and queued_bytes equal the frame bytes of the
 * frames held; bit c of nonempty is set iff q[c] is non-empty; tx_event is
 * true iff a port_tx_done event for this port is pending; a frame leaves the
 * queue when its first bit goes on the wire.
 */
#include <stddef.h>
#include <stdio.h>
#include "log.h"
#include "port.h"
#include "results.h"
#include "sim_loop.h"
#include "switch_fwd.h"
#include "fabric.h"
#include "failure.h"
#include "mmu.h"

static void port_tx_done(struct sim *sim, void *obj, uintptr_t arg);

_Static_assert(offsetof(struct port, node) == 64, "line 0 of a port holds all a landing reads of it");
_Static_assert(offsetof(struct port, queued_bytes) == 128, "line 1 of a port holds all a frame sent reads of it");

void port_init(struct sim *sim, struct port *p, struct node *node, int idx,
	       uint64_t rate_bps, simtime_t delay_ps)
{
	*p = (struct port){ .node = node, .idx = idx, .rate_bps = rate_bps, .delay_ps = delay_ps,
			    .fail_id = -1 };
	snprintf(p->name, sizeof p->name, "%s:p%d", node->name, idx);
	sim_elem_register(sim, &p->elem, p->name);
	sim_elem_register(sim, &p->land, p->name);
	/* 100 Gb/s = 80 ps per byte: exact whenever the rate divides 8e12. */
	if (8000000000000ull % rate_bps == 0)
		p->ps_per_byte = (uint32_t)(8000000000000ull / rate_bps);
	p->flight_ps = delay_ps;
}

void port_skip(struct sim *sim)
{
	struct sim_elem e;
	sim_elem_register(sim, &e, "(another rank's port)");
	sim_elem_register(sim, &e, "(another rank's port)");
}

void port_connect(struct port *p, struct port *peer, simtime_t peer_latency_ps)
{
	p->peer = peer;
	p->peer_node = peer->node;
	p->peer_idx = peer->idx;
	p->peer_tapped = peer->tap != NULL;
	p->peer_ctx = peer->pull_ctx;
	p->peer_latency_ps = peer_latency_ps;
	p->flight_ps = p->delay_ps + peer_latency_ps;
}

void port_set_pull(struct port *p, port_pull_fn fn, void *ctx)
{
	p->pull = fn;
	p->pull_ctx = ctx;
	if (p->peer)
		p->peer->peer_ctx = ctx;
}

uint64_t port_rx_bytes(const struct port *p)
{
	if (!p->peer)
		return 0;
	uint64_t b = p->peer->tx_bytes;
	for (const struct packet *k = p->peer->fly_head; k; k = k->next)
		b -= k->frame_b;
	return b;
}

uint64_t port_tx_packets_sum(const struct port *ports, int n, const uint8_t *held)
{
	uint64_t s = 0;
	for (int i = 0; i < n; i++)
		if (!held || held[i])
			s += ports[i].tx_packets;
	return s;
}

void port_set_tap(struct port *p, struct port_tap *tap)
{
	p->tap = tap;
	p->tx_hook = tap != NULL || p->int_stamp || p->remote;
	if (p->peer)
		p->peer->peer_tapped = tap != NULL;
}

void port_set_remote(struct port *p)
{
	p->remote = true;
	p->tx_hook = true;
}

void port_set_int(struct port *p, bool on)
{
	p->int_stamp = on;
	p->tx_hook = p->tap != NULL || on || p->remote;
}

static struct packet *queue_pop(struct port *p, int c)
{
	struct port_queue *q = &p->q[c];
	struct packet *pkt = q->head;
	q->head = pkt->next;
	if (!q->head) {
		q->tail = NULL;
		p->nonempty &= (uint8_t)~(1u << c);
	} else {
		__builtin_prefetch(q->head); /* the next frame out, a frame time from now */
	}
	q->bytes -= pkt->frame_b;
	q->n--;
	p->queued_bytes -= pkt->frame_b;
	return pkt;
}

/* Deficit round robin over the data classes that hold frames and are not paused. */
static struct packet *dwrr_pick(struct port *p)
{
	unsigned eligible = p->nonempty & ~p->paused & ((1u << PORT_DATA_CLASSES) - 1);
	if (!eligible)
		return NULL;
	if (!(eligible & (eligible - 1))) /* one class: no arbitration to do */
		return queue_pop(p, __builtin_ctz(eligible));
	for (int i = 0; i < 2 * PORT_DATA_CLASSES; i++) {
		int c = p->dwrr_cur;
		struct packet *head = p->q[c].head;
		if (head && !(p->paused & (1u << c))) {
			if (!p->dwrr_visited) {
				p->deficit[c] += PORT_DWRR_QUANTUM_B;
				p->dwrr_visited = true;
			}
			if (p->deficit[c] >= head->frame_b) {
				p->deficit[c] -= head->frame_b;
				struct packet *pkt = queue_pop(p, c);
				if (!p->q[c].head)
					p->deficit[c] = 0;
				return pkt;
			}
		} else if (!head) {
			p->deficit[c] = 0;
		}
		p->dwrr_cur = (uint8_t)((c + 1) % PORT_DATA_CLASSES);
		p->dwrr_visited = false;
	}
	return NULL;
}

/* A PFC frame for the classes pending: XOFF ones first (the peer must stop
 * before it learns of any resume). */
static __attribute__((noinline, cold)) struct packet *pfc_frame(struct port *p)
{
	struct packet *pkt = pool_get(&p->node->fab->pkt_pool);
	uint8_t classes;
	uint32_t quanta;
	if (p->pfc_pend_off) {
		classes = p->pfc_pend_off;
		quanta = PFC_MAX_QUANTA;
		p->pfc_pend_off = 0;
	} else {
		classes = p->pfc_pend_on;
		quanta = 0;
		p->pfc_pend_on = 0;
	}
	*pkt = (struct packet){ .type = PKT_PFC, .opcode = OP_PFC, .frame_b = PKT_PFC_FRAME_B,
				.aux = (uint32_t)classes << 16 | quanta, .prio = PORT_PRIOS - 1,
				.src = -1, .dst = -1 };
	p->pause_tx++;
	return pkt;
}

static struct packet *port_pick(struct sim *sim, struct port *p)
{
	if (__builtin_expect(p->pfc_pend_off | p->pfc_pend_on, 0))
		return pfc_frame(p);
	unsigned strict = p->nonempty & ~p->paused & ~((1u << PORT_DATA_CLASSES) - 1);
	if (strict)
		return queue_pop(p, 31 - __builtin_clz(strict));
	struct packet *pkt = dwrr_pick(p);
	if (!pkt && p->pull_more && (p->pull_classes & ~p->paused))
		pkt = p->pull(sim, p->pull_ctx);
	return pkt;
}

/* A frame landed corrupted (its link is lossy): the receiver's FCS check
 * drops it, whatever it is; a data frame counts as dropped in the
 * network. */
static __attribute__((noinline, cold)) void port_corrupt(struct sim *sim, struct port *src, struct packet *pkt)
{
	src->peer->rx_corrupt++;
	if (pkt->type == PKT_DATA)
		sim->packets_dropped++;
	fabric_pkt_put(src->peer_node->fab, pkt);
}

/* The head of the link's FIFO (arg) reaches the peer; the next one is
 * scheduled before the delivery, which may make the peer send. Reads line 0
 * of the sending port, not the peer's lines. */
static __attribute__((flatten)) void port_land(struct sim *sim, void *obj, uintptr_t arg)
{
	struct port *src = obj;
	struct packet *pkt = (struct packet *)arg; /* the head of its FIFO */
	SIM_DEBUG_ASSERT(sim, &src->land, pkt == src->fly_head, "landing frame is not the link's head");
	src->fly_head = pkt->next;
	if (src->fly_head)
		sched_at(sim, pkt->next_at, &src->land, port_land, src, (uintptr_t)src->fly_head);
	else
		src->fly_tail = NULL;
	if (__builtin_expect(src->fly_doomed, 0)) { /* on the wire when the link failed */
		src->fly_doomed--;
		failure_lose(sim, src, pkt);
		return;
	}
	if (__builtin_expect(src->lossy, 0) && link_loss_hit(src->loss)) {
		port_corrupt(sim, src, pkt); /* never reaches the peer's capture nor its pipeline */
		return;
	}
	if (__builtin_expect(src->peer_tapped, 0)) /* its last bit arrived; the switch latency is after */
		src->peer->tap->rx(src->peer->tap, sim->now - src->peer_latency_ps, pkt);
	struct node *nd = src->peer_node;
	if (nd->kind == NODE_SWITCH)
		switch_forward(sim, nd, src->peer_idx, src->peer_pass, pkt);
	else
		nd->receive(sim, src->peer_ctx, src->peer, pkt);
}

/* Schedules p's transmission-done event for the end of the frame being
 * sent. Its argument, unused by the handler, names a line the handler will
 * read: the event queue prefetches a pointer argument with the object when
 * the event's bucket comes up (evq.c advance), as it does a landing's
 * frame. */
static void tx_done_at_end(struct sim *sim, struct port *p, const void *hint)
{
	p->tx_event = true;
	sched_at(sim, p->busy_until, &p->elem, port_tx_done, p, (uintptr_t)hint);
}

/* What a frame's first bit going on the wire does besides (tx_hook):
 * in-band telemetry, then capture.
 * Telemetry: a switch egress stamps a data frame that carries a record
 * asking for it (pkt_tel.h): the bytes still queued behind it, the line
 * bytes sent with it, the time and the rate. Past PKT_INT_MAX_HOPS
 * switches the frame carries no more hops.
 * Capture: the tap sees the frame as it goes (ECN marked by now). */
static __attribute__((noinline, cold)) bool port_tx_hook(struct sim *sim, struct port *p, struct packet *pkt)
{
	if (p->int_stamp && (pkt->flags & PKT_F_TEL) && pkt->type == PKT_DATA) {
		struct pkt_tel *r = pkt_tel_at(&p->node->fab->tel, pkt->aux);
		if (r->stamp && r->n_hops < PKT_INT_MAX_HOPS)
			r->hop[r->n_hops++] = (struct pkt_int_hop){
				.qlen_b = p->queued_bytes,
				.tx_b = p->tx_bytes + (uint64_t)PKT_WIRE_EXTRA_B * p->tx_packets,
				.ts = sim->now, .rate_bps = p->rate_bps };
	}
	if (p->tap)
		p->tap->tx(p->tap, sim->now, pkt);
	if (p->remote) { /* the peer is another rank's: the frame goes as a message */
		struct fabric *f = p->node->fab;
		f->ship(f->ship_ctx, p, pkt, p->busy_until + p->flight_ps);
		return true;
	}
	return false;
}

/* pkt goes on p's link to land at arrive_at: after the frames on it, the
 * first one's landing scheduled (port_land schedules the next ones). */
static inline void port_fly(struct sim *sim, struct port *p, struct packet *pkt, simtime_t arrive_at)
{
	pkt->next = NULL;
	if (p->fly_tail) {
		p->fly_tail->next = pkt;
		p->fly_tail->next_at = arrive_at;
	} else {
		p->fly_head = pkt;
		sched_at(sim, arrive_at, &p->land, port_land, p, (uintptr_t)pkt);
	}
	p->fly_tail = pkt;
}

/* The frames on p's link now. */
static uint32_t port_flying(const struct port *p)
{
	uint32_t n = 0;
	for (const struct packet *k = p->fly_head; k; k = k->next)
		n++;
	return n;
}

void port_inject(struct sim *sim, struct port *src, struct packet *pkt, simtime_t arrive_at, bool doomed)
{
	SIM_DEBUG_ASSERT(sim, &src->land, !doomed || src->fly_doomed == port_flying(src),
			 "a doomed frame behind frames that are not");
	src->fly_doomed += doomed;
	port_fly(sim, src, pkt, arrive_at);
}

/* Puts pkt on the wire now (its buffer, at a switch, already released);
 * keeps one tx-done event while more may follow. */
static void port_start(struct sim *sim, struct port *p, struct packet *pkt)
{
	SIM_DEBUG_ASSERT(sim, &p->elem, sim->now >= p->busy_until, "frame started while the link is busy (until %lld)",
			 (long long)p->busy_until);
	p->busy_until = sim->now + port_ser_ps(p, pkt->frame_b + PKT_WIRE_EXTRA_B);
	if (__builtin_expect(p->down, 0)) { /* the link is down: the frame is lost */
		failure_lose(sim, p, pkt);
		if (p->busy | p->pull_more)
			tx_done_at_end(sim, p, &p->node);
		return;
	}
	p->tx_bytes += pkt->frame_b;
	p->tx_packets++;
	if (__builtin_expect(p->tx_hook, 0) && port_tx_hook(sim, p, pkt)) /* telemetry, capture, */
		goto shipped;                                                /* a cut link */
	port_fly(sim, p, pkt, p->busy_until + p->flight_ps);
shipped:
	/* More may follow: frames queued, PFC frames owed (busy, tx_event
	 * being clear here) or the pull source's. The hint: the pull source's
	 * line (a host port's NIC) or the queue the next frame likely leaves. */
	SIM_DEBUG_ASSERT(sim, &p->elem, !p->tx_event, "frame started with a transmission-done event pending");
	if (p->busy | p->pull_more)
		tx_done_at_end(sim, p, p->pull_more ? (const void *)&p->pull : (const void *)&p->q[pkt->prio]);
}

/* At a switch, the frame leaving releases its buffer (switch_fwd.h); q_b:
 * the bytes its class queue holds after it. */
static inline void port_release(struct port *p, struct packet *pkt, uint64_t q_b)
{
	if (p->node->kind == NODE_SWITCH && pkt->type != PKT_PFC)
		switch_release(p->node, p, pkt, q_b);
}

/* Start the next frame if the link is free. */
static void port_transmit(struct sim *sim, struct port *p, struct packet *pkt, uint64_t q_b)
{
	port_release(p, pkt, q_b);
	port_start(sim, p, pkt);
}

static void port_send(struct sim *sim, struct port *p)
{
	struct packet *pkt = port_pick(sim, p);
	if (pkt)
		port_transmit(sim, p, pkt, p->q[pkt->prio].bytes);
}

static __attribute__((flatten)) void port_tx_done(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)arg; /* a prefetch hint (tx_done_at_end) */
	struct port *p = obj;
	p->tx_event = false;
	port_send(sim, p);
}

void port_enqueue(struct sim *sim, struct port *p, struct packet *pkt)
{
	if (port_idle_for(sim, p, pkt->prio)) {
		port_release(p, pkt, 0); /* its queue is empty */
		port_pass(sim, p, pkt);
		return;
	}
	struct port_queue *q = &p->q[pkt->prio];
	pkt->next = NULL;
	if (q->tail)
		q->tail->next = pkt;
	else
		q->head = pkt;
	q->tail = pkt;
	q->bytes += pkt->frame_b;
	q->n++;
	p->nonempty |= (uint8_t)(1u << pkt->prio);
	p->queued_bytes += pkt->frame_b;
	if (p->queued_bytes > p->max_queue_bytes)
		p->max_queue_bytes = p->queued_bytes;
	port_kick(sim, p);
}

void port_pass(struct sim *sim, struct port *p, struct packet *pkt)
{
	if (pkt->frame_b > p->max_queue_bytes)
		p->max_queue_bytes = pkt->frame_b;
	port_start(sim, p, pkt);
}

void port_kick(struct sim *sim, struct port *p)
{
	if (p->tx_event)
		return;
	if (sim->now >= p->busy_until) {
		port_send(sim, p);
	} else {
		tx_done_at_end(sim, p, &p->node); /* hint: the sending line */
	}
}

/* Flattened: the two handlers and what they call are inlined into the
 * loop, so the frames' events pay no call, and no saving and restoring of
 * registers, per event. */
__attribute__((flatten)) int port_run(struct sim *sim)
{
	return sim_run_with(sim, port_land, port_tx_done);
}

__attribute__((flatten)) bool port_run_bounded(struct sim *sim, simtime_t bound_t, uint64_t bound_key,
					       bool check_done, const int16_t *owner, int me, uint64_t *foreign)
{
	return sim_run_bounded(sim, bound_t, bound_key, check_done, owner, me, foreign, port_land, port_tx_done);
}

static void pfc_refresh(struct sim *sim, void *obj, uintptr_t arg)
{
	struct port *p = obj;
	(void)arg;
	if (!p->xoff) {
		p->pfc_refresh = false;
		return;
	}
	p->pfc_pend_off |= p->xoff;
	port_kick(sim, p);
	sched_at(sim, sim->now + port_quanta_ps(p, PFC_MAX_QUANTA) / 2, &p->elem, pfc_refresh, p, 0);
}

void port_pfc_owe(struct sim *sim, struct port *p, int c, bool off)
{
	uint8_t bit = (uint8_t)(1u << c);
	if (off) {
		p->xoff |= bit;
		p->pfc_pend_off |= bit;
		p->pfc_pend_on &= (uint8_t)~bit;
		if (!p->pfc_refresh) {
			/* Real switches refresh XOFF before the pause time runs out. */
			p->pfc_refresh = true;
			sched_at(sim, sim->now + port_quanta_ps(p, PFC_MAX_QUANTA) / 2, &p->elem, pfc_refresh, p, 0);
		}
	} else {
		p->xoff &= (uint8_t)~bit;
		if (p->pfc_pend_off & bit)
			p->pfc_pend_off &= (uint8_t)~bit; /* never sent: nothing to undo */
		else
			p->pfc_pend_on |= bit;
	}
}

__attribute__((noinline)) void port_pfc_request(struct sim *sim, struct port *p, int c, bool off)
{
	port_pfc_owe(sim, p, c, off);
	port_kick(sim, p);
}

/* Class c is no longer paused (end_ps < 0: still paused when the run ended). */
static void pause_end(struct sim *sim, struct port *p, int c, simtime_t end_ps)
{
	p->paused &= (uint8_t)~(1u << c);
	p->paused_ps += sim->now - p->paused_since[c];
	if (sim->res) {
		struct results_table *t = p->node->fab->pfc_pause;
		SIM_ASSERT(sim, &p->elem, t, "pfc_pause rows to write, their insert not prepared "
			   "(fabric_results_prepare)");
		results_row(sim->res, t, "siitt", p->node->name, (int)p->idx, c, p->paused_since[c], end_ps);
	}
}

/* A pause ran out (arg: class); stale when it was extended or lifted since. */
static void pause_expire(struct sim *sim, void *obj, uintptr_t c)
{
	struct port *p = obj;
	if (!(p->paused & (1u << c)) || sim->now < p->paused_until[c])
		return;
	pause_end(sim, p, (int)c, sim->now);
	port_kick(sim, p);
}

void port_pfc_receive(struct sim *sim, struct port *p, const struct packet *pkt)
{
	unsigned classes = pkt->aux >> 16;
	uint32_t quanta = pkt->aux & 0xFFFF;
	p->pause_rx++;
	for (int c = 0; c < PORT_PRIOS; c++) {
		if (!(classes & (1u << c)))
			continue;
		if (quanta == 0) {
			if (p->paused & (1u << c))
				pause_end(sim, p, c, sim->now);
			continue;
		}
		if (!(p->paused & (1u << c))) {
			p->paused |= (uint8_t)(1u << c);
			p->paused_since[c] = sim->now;
		}
		p->paused_until[c] = sim->now + port_quanta_ps(p, quanta);
		sched_at(sim, p->paused_until[c], &p->elem, pause_expire, p, (uintptr_t)c);
	}
	if (quanta == 0)
		port_kick(sim, p);
}

void port_pfc_close(struct sim *sim, struct port *p)
{
	for (int c = 0; c < PORT_PRIOS; c++)
		if (p->paused & (1u << c))
			pause_end(sim, p, c, -1);
}

/* ---- Link failures (failure.h) ---- */

void port_link_down(struct sim *sim, struct port *p, int fail_id)
{
	p->down = true;
	p->fail_id = fail_id;
	p->fly_doomed = port_flying(p);
	/* Its queues empty at once; at a switch each frame's buffer is
	 * released as if it had left, which may resume its ingress. */
	struct node *nd = p->node;
	for (int c = 0; c < PORT_PRIOS; c++)
		while (p->q[c].head) {
			struct packet *pkt = queue_pop(p, c);
			if (nd->kind == NODE_SWITCH && pkt->type != PKT_PFC) {
				struct mmu *m = nd->mmu;
				mmu_release(m, pkt->in_port, c, pkt->frame_b);
				if (m->port[pkt->in_port].xoff && mmu_resume_check(m, pkt->in_port, c))
					port_pfc_request(sim, &nd->ports[pkt->in_port], c, false);
			}
			failure_lose(sim, p, pkt);
		}
	for (int c = 0; c < PORT_DATA_CLASSES; c++)
		p->deficit[c] = 0;
	/* Pauses received over the dead link are void; so are PFC frames owed. */
	p->pfc_pend_off = p->pfc_pend_on = 0;
	for (int c = 0; c < PORT_PRIOS; c++)
		if (p->paused & (1u << c))
			pause_end(sim, p, c, sim->now);
}

void port_link_up(struct sim *sim, struct port *p)
{
	p->down = false;
	if (p->node->fab->mine && !p->node->fab->mine[p->node->id])
		return; /* another rank's port: that rank sends on it */
	/* The classes this end still holds paused (its buffer is still full)
	 * are paused again at the peer by the next refresh. */
	p->pfc_pend_off |= p->xoff;
	port_kick(sim, p);
}
