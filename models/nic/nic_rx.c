/*
 * nic_rx.c — a NIC's receive buffer drained at the host's rate (see nic_rx.h).
 *
 * Invariants: bytes = Σ frame_b of the frames held; busy iff head != NULL;
 * paused iff the last PFC request sent was XOFF.
 */
#include "fabric.h"
#include "nic_rx.h"
#include "world.h"

int nic_rx_init(struct nic_rx *rx, const struct port *port, uint64_t hdrm, uint64_t rate_bps, uint64_t cap_b,
		int lossless, uint32_t max_frame_b, uint64_t *need_b)
{
	uint64_t frame = max_frame_b + PKT_WIRE_EXTRA_B;
	*rx = (struct nic_rx){ .cap_b = cap_b, .rate_bps = rate_bps, .lossless = lossless,
			       .port = (struct port *)port, .elem = (struct sim_elem *)&port->elem };
	*need_b = hdrm + 3 * frame;
	if (lossless >= 0 && cap_b < *need_b)
		return -1;
	rx->xoff_b = cap_b - hdrm;
	rx->xon_b = rx->xoff_b - 2 * frame;
	return 0;
}

static void rx_done(struct sim *sim, void *obj, uintptr_t arg);

static void rx_start(struct sim *sim, struct nic_rx *rx)
{
	rx->busy = true;
	sched_at(sim, sim->now + simtime_serialize(rx->head->frame_b, rx->rate_bps), rx->elem, rx_done, rx, 0);
}

static void rx_done(struct sim *sim, void *obj, uintptr_t arg)
{
	struct nic_rx *rx = obj;
	(void)arg;
	struct packet *p = rx->head;
	rx->head = p->next;
	if (!rx->head)
		rx->tail = NULL;
	rx->bytes -= p->frame_b;
	rx->busy = false;
	if (rx->paused && rx->bytes <= rx->xon_b) {
		rx->paused = false;
		port_pfc_request(sim, rx->port, rx->lossless, false);
	}
	if (rx->head)
		rx_start(sim, rx);
	rx->deliver(sim, rx->ctx, p);
}

void nic_rx_push(struct sim *sim, struct nic_rx *rx, struct packet *p)
{
	bool lossless = p->prio == rx->lossless;
	if (rx->bytes + p->frame_b > rx->cap_b) {
		rx->port->drops++;
		sim->packets_dropped++;
		if (lossless)
			rx->lossless_drops++;
		fabric_pkt_put(rx->port->node->fab, p);
		return;
	}
	p->next = NULL;
	if (rx->tail)
		rx->tail->next = p;
	else
		rx->head = p;
	rx->tail = p;
	rx->bytes += p->frame_b;
	if (lossless && !rx->paused && rx->bytes > rx->xoff_b) {
		rx->paused = true;
		port_pfc_request(sim, rx->port, rx->lossless, true);
	}
	if (!rx->busy)
		rx_start(sim, rx);
}
