/*
 * nic.h — a host's RoCE NIC: the queue pairs of one host port, the QP
 * scheduler and the packet I/O of that port.
 *
 * A message (struct flow) posted to a QP is segmented into MTU packets
 * (RDMA WRITE first/middle/last/only) when the host port is ready to send:
 * the port pulls packets from the NIC, which round-robins over QPs that have
 * a packet and whose congestion control lets them send now, so no data
 * waits in a port queue. The protocol of one QP (PSNs, ACK/NAK, go-back-N
 * or selective repeat, timeouts, CNPs) is qp.h; congestion control is cc.h.
 */
#ifndef ROCESIM_NIC_H
#define ROCESIM_NIC_H

#include <stdbool.h>
#include <stdint.h>
#include "flow.h"
#include "sim.h"

struct world;
struct node;
struct port;
struct packet;
struct nic;

/* Posts a message of size_b bytes from host src to host dst now (sim->now).
 * source and parallelism are static strings kept by reference. The flow
 * returned may be decorated (on_done, job, ...) before the caller's event
 * ends; it is freed after on_done returns. */
struct flow *nic_post(struct world *w, int src, int dst, uint64_t size_b,
		      const char *source, const char *parallelism);

/* The NIC behind port `port` of host, endpoint id ep (world.h). */
struct nic *nic_create(struct world *w, struct node *host, int port, int ep);
void nic_destroy(struct nic *n);
/* The host port asks for the next data packet; NULL when none is ready. */
struct packet *nic_pull(struct sim *sim, void *nic);
/* A frame for this host arrived on its port (struct node's receive hook). */
void nic_receive(struct sim *sim, void *ctx, struct port *in, struct packet *p);
/* Nothing waits in the NIC's receive buffer and it holds no pause. */
bool nic_quiet(const struct nic *n);
/* Lossless frames its receive buffer had to drop. */
uint64_t nic_lossless_drops(const struct nic *n);
/* A queue pair on endpoint ep's NIC toward endpoint peer outside the pair
 * table (multicast groups, mcast.c); a requester gets congestion control. */
struct qp;
struct qp *nic_qp_add(struct world *w, int ep, int peer, bool requester);
/* Visit every unfinished flow (for the final write). */
void nic_foreach_flow(struct nic *n, void (*fn)(const struct flow *f, void *ctx), void *ctx);

#endif
