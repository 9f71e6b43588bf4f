/*
 * port.c — queues, scheduler and transmitter of a port (see port.h).
 *
 * Invariants: q[c].bytes and queued_bytes equal the frame bytes of the
 * frames held; bit c of nonempty is set iff q[c] is non-empty; tx_event is
 * true iff a port_tx_done event for this port is pending; a frame leaves the
 * queue when its first bit goes on the wire.
 */
#include <stdio.h>
#include "log.h"
#include "port.h"
#include "world.h"

static void port_tx_done(struct sim *sim, void *obj, uintptr_t arg);

void port_init(struct sim *sim, struct port *p, struct node *node, int idx,
	       uint64_t rate_bps, simtime_t delay_ps)
{
	*p = (struct port){ .node = node, .idx = idx, .rate_bps = rate_bps, .delay_ps = delay_ps };
	snprintf(p->name, sizeof p->name, "%s:p%d", node->name, idx);
	sim_elem_register(sim, &p->elem, p->name);
	/* 100 Gb/s = 80 ps per byte: exact whenever the rate divides 8e12. */
	if (8000000000000ull % rate_bps == 0)
		p->ps_per_byte = (uint32_t)(8000000000000ull / rate_bps);
}

static struct packet *queue_pop(struct port *p, int c)
{
	struct port_queue *q = &p->q[c];
	struct packet *pkt = q->head;
	q->head = pkt->next;
	if (!q->head) {
		q->tail = NULL;
		p->nonempty &= (uint8_t)~(1u << c);
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

static struct packet *port_pick(struct sim *sim, struct port *p)
{
	unsigned strict = p->nonempty & ~p->paused & ~((1u << PORT_DATA_CLASSES) - 1);
	if (strict)
		return queue_pop(p, 31 - __builtin_clz(strict));
	struct packet *pkt = dwrr_pick(p);
	if (!pkt && p->pull_more)
		pkt = p->pull(sim, p->pull_ctx);
	return pkt;
}

/* The head of the link's FIFO reaches the peer; the next one is scheduled
 * before the delivery, which may make the peer send. */
static void port_land(struct sim *sim, void *obj, uintptr_t arg)
{
	struct port *src = obj;
	struct packet *pkt = src->fly_head;
	src->fly_head = pkt->next;
	if (src->fly_head)
		sched_at(sim, src->fly_head->arrive_at, &src->elem, port_land, src, 0);
	else
		src->fly_tail = NULL;
	struct port *p = src->peer;
	p->rx_bytes += pkt->frame_b;
	p->node->receive(sim, p->node, p, pkt);
}

/* Start the next frame if the link is free; keep one tx-done event while more may follow. */
static void port_send(struct sim *sim, struct port *p)
{
	struct packet *pkt = port_pick(sim, p);
	if (!pkt)
		return;
	if (p->node->dequeued)
		p->node->dequeued(p->node, pkt);
	p->busy_until = sim->now + port_ser_ps(p, pkt->frame_b + PKT_WIRE_EXTRA_B);
	p->tx_bytes += pkt->frame_b;
	p->tx_packets++;
	sim->packet_hops++;
	pkt->arrive_at = p->busy_until + p->delay_ps + p->peer_latency_ps;
	pkt->next = NULL;
	if (p->fly_tail) {
		p->fly_tail->next = pkt;
	} else {
		p->fly_head = pkt;
		sched_at(sim, pkt->arrive_at, &p->elem, port_land, p, 0);
	}
	p->fly_tail = pkt;
	if (p->nonempty || p->pull_more) {
		p->tx_event = true;
		sched_at(sim, p->busy_until, &p->elem, port_tx_done, p, 0);
	}
}

static void port_tx_done(struct sim *sim, void *obj, uintptr_t arg)
{
	struct port *p = obj;
	p->tx_event = false;
	port_send(sim, p);
}

void port_enqueue(struct sim *sim, struct port *p, struct packet *pkt)
{
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

void port_kick(struct sim *sim, struct port *p)
{
	if (p->tx_event)
		return;
	if (sim->now >= p->busy_until) {
		port_send(sim, p);
	} else {
		p->tx_event = true;
		sched_at(sim, p->busy_until, &p->elem, port_tx_done, p, 0);
	}
}
