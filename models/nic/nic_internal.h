/*
 * nic_internal.h — the NIC's state, shared by the files of the NIC model
 * (nic.c: scheduler and packet I/O; nic_qps.c: the QP table; nic_ideal.c:
 * ideal times). Not a door: other parts use nic.h.
 */
#ifndef ROCESIM_NIC_INTERNAL_H
#define ROCESIM_NIC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "nic_rx.h"
#include "sim.h"

struct cc_ops;
struct flow;
struct node;
struct port;
struct qp;
struct world;

struct qp_slot { uint64_t key; struct qp *qp; };  /* key 0 = empty */

struct nic {
	struct world *w;
	struct node *host;
	struct port *port;         /* host port `index`; another rank's NIC never touches it
				    * (fabric.h): it is not built there */
	uint64_t line_bps;         /* its link's rate */
	int ep;                    /* endpoint id (world.h) */
	int mtu;
	const struct cc_ops *cc;   /* NULL: cc = none */
	struct qp **qps;           /* by qpn - QPN_BASE */
	uint32_t n_qps, cap_qps;
	struct qp_slot *map;       /* (peer, index) -> requester QP, open addressing */
	uint32_t map_cap, map_n;
	struct qp *rr_tail;        /* ring of ready QPs; rr_tail->rr_next sends next */
	struct qp **heap;          /* QPs waiting for their pacing time */
	uint32_t n_heap, cap_heap;
	simtime_t pace_at;         /* when the pending pacing event fires */
	bool pace_pending;
	struct nic_rx rx;          /* receive buffer toward a slower host ([nic] rx_rate) */
	const void *cc_params;     /* the controller's section (cc.h), for new QPs */
	uint8_t ctrl_prio;         /* class of its ACKs, NAKs and CNPs ([nic] ack_priority; each
				    * QP keeps a copy) */
};

/* The requester QP for the next message to `peer` (nic_qps.c). */
struct qp *nic_qp_for(struct world *w, struct nic *n, int peer, int prio);
/* Alone on the idle fabric: f's delivery over its path (source port sport)
 * and the last ACK's return (nic_ideal.c). */
simtime_t nic_flow_ideal(const struct world *w, const struct flow *f, uint16_t sport);

#endif
