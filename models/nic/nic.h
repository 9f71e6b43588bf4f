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
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "flow.h"
#include "mcast.h"
#include "msg.h"
#include "nvlink.h"
#include "sim.h"
#include "world.h"

/* ---- [nic] and [multicast] (nic_keys.c) ---- */

enum { LR_GBN, LR_SR };
struct nic_cfg {
	int mtu;                       /* payload bytes per packet [1024] */
	int cc;                        /* index in the controllers' registry (cc.h) [dcqcn] */
	int ack_every;                 /* [1] */
	simtime_t rto;                 /* [1ms] */
	int priority;                  /* 0..7 [3] */
	int loss_recovery;             /* LR_* [gbn] */
	int qps_per_pair;              /* [1] */
	bool rx_rate_off;              /* [off]: the host takes data as it arrives */
	uint64_t rx_rate_bps;          /* otherwise: receive drain rate (PCIe, memory) */
	uint64_t rx_buffer_b;          /* [256KiB] receive buffer (PFC when rx_rate is set) */
	bool window;                   /* [off]: cap each QP's unacknowledged payload bytes */
	bool var_window;               /* [on]: that cap is rate x T / 8, else line x T / 8 */
	int ack_priority;              /* ACKP_* [high]: the class of ACK, NAK and CNP */
};
enum { ACKP_HIGH, ACKP_DATA };
extern const struct cfg_section nic_section;
const struct nic_cfg *nic_cfg_of(const struct config *cfg);

struct mcast_cfg_group { char *name; char *src; char **dst; size_t n_dst; int line; };
struct mcast_cfg {
	bool enabled;                  /* [on] */
	bool reliable;                 /* [on] */
	struct mcast_cfg_group *groups; size_t n_groups;
};
extern const struct cfg_section mcast_section;
const struct mcast_cfg *mcast_cfg_of(const struct config *cfg);

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
/* The same on traffic class prio (0..7; -1: [nic] priority): its own
 * queue pairs to dst, whose frames carry that class (a job's priority). */
struct flow *nic_post_class(struct world *w, int src, int dst, uint64_t size_b,
			    const char *source, const char *parallelism, int prio);
/* What nic_post_class does to the world but the message: its id counted
 * and its queue pair taken (made at both ends, numbered, their turn among
 * qps_per_pair kept). A partitioned run's ranks do this for the messages
 * another rank's host posts, so every queue pair is numbered as in the
 * sequential run and the receiver's half exists (parallel.h). */
void nic_post_elsewhere(struct world *w, int src, int dst, int prio);

/* The NIC behind port `port` of host, endpoint id ep (world.h). */
struct nic *nic_create(struct world *w, struct node *host, int port, int ep);
void nic_destroy(struct nic *n);
/* The host port asks for the next data packet; NULL when none is ready. */
struct packet *nic_pull(struct sim *sim, void *nic);
/* A frame for this host arrived on its port (struct node's receive hook). */
void nic_receive(struct sim *sim, void *ctx, struct port *in, struct packet *p);
/* Tests: the controller (and its section's struct) of the requester queue
 * pairs this NIC creates from now on, one outside the registry; NULL: none.
 * Frame-size limits set at build (receive buffer, switch headroom) stay
 * those of [nic] cc. */
struct cc_ops;
void nic_set_cc(struct nic *n, const struct cc_ops *ops, const void *params);
/* Nothing waits in the NIC's receive buffer and it holds no pause. */
bool nic_quiet(const struct nic *n);
/* Lossless frames its receive buffer had to drop. */
uint64_t nic_lossless_drops(const struct nic *n);
/* A queue pair on endpoint ep's NIC toward endpoint peer outside the pair
 * table (multicast groups, mcast.c); a requester gets congestion control. */
struct qp;
struct qp *nic_qp_add(struct world *w, int ep, int peer, bool requester);
/* A message between two NICs alone on the idle fabric, along the path
 * that UDP source port 0xC000 hashes to (on the built-in shapes every
 * equal-cost path crosses links of the same rates and delays; in an hpcc
 * file they may differ, and this is that one path's time): when its last byte reaches dst after posting (delivery_ps), how
 * long src's NIC is busy sending it (send_ps), and how long the ACKs it
 * draws keep dst's link busy (acks_ps). All 0 when dst cannot be reached. */
struct nic_ideal { simtime_t delivery_ps, send_ps, acks_ps; };
void nic_ideal_msg(const struct world *w, int src_ep, int dst_ep, uint64_t size_b, struct nic_ideal *out);
/* What one flow costs the NICs when many live at once (the memory
 * estimate): bytes of its records (the flow, a requester and a responder
 * queue pair, their congestion-control state, the selective-repeat ring)
 * and how many allocations hold them; and what each data frame in flight
 * carries beside its struct packet (the side record of a controller that
 * reads ACKs, pkt_tel.h; 0 otherwise). */
struct nic_flow_b { uint64_t records_b, allocs, frame_extra_b; };
void nic_flow_estimate(const struct config *cfg, struct nic_flow_b *out);
/* The queue pair that carries f (false for NVLink): its number, UDP
 * source port and priority. */
bool flow_qp_info(const struct flow *f, uint32_t *qpn, uint16_t *sport, uint8_t *prio);
/* Every requester queue pair with a controller's state and a message
 * outstanding: fn(ctx, its oldest message, its state) (the cc_sample
 * table). */
void nic_foreach_cc(struct world *w, void (*fn)(void *ctx, const struct flow *head, const void *cc),
		    void *ctx);
/* Visit every unfinished flow (for the final write). */
void nic_foreach_flow(struct nic *n, void (*fn)(const struct flow *f, void *ctx), void *ctx);

#endif
