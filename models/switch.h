/*
 * switch.h — a switch: forwarding with ECMP and its shared packet buffer.
 *
 * Forwarding looks the destination host up in the switch's routing table
 * (routing.h) and, among equal-cost ports, picks one by hashing the 5-tuple
 * (source IP, destination IP, UDP source port, destination port 4791) with
 * MurmurHash3 and the switch's own seed (HPCC's ns-3 does the same with the
 * node id as seed); `ecmp = packet` adds the PSN so each packet may take
 * another path (spraying).
 *
 * Buffer (until the shared-buffer MMU with PFC lands): one buffer of
 * [switch] buffer bytes shared by all egress queues; a frame that does not
 * fit is tail-dropped and counted on its egress port and in the run's
 * packets_dropped.
 */
#ifndef ROCESIM_SWITCH_H
#define ROCESIM_SWITCH_H

#include <stdint.h>
#include "packet.h"
#include "sim.h"

struct node;
struct world;
struct port;

/* IPv4 address of a host, as HPCC's ns-3 numbers them (REFERENCE.md). */
static inline uint32_t host_ip(int id)
{
	return 0x0b000001u + ((uint32_t)(id / 256) << 16) + ((uint32_t)(id % 256) << 8);
}

#define ROCE_UDP_PORT 4791

/* The ECMP hash a switch computes for a packet's 5-tuple (psn < 0: flow mode). */
uint32_t switch_ecmp_hash(uint32_t seed, int src, int dst, uint16_t sport, int64_t psn);
/* The egress port index a switch chooses for a packet (routing + ECMP). */
int switch_route(const struct node *sw, int src, int dst, uint16_t sport, int64_t psn);

/* After the switch's ports are linked: buffer and MMU state. */
void switch_setup(struct world *w, struct node *sw);
void switch_receive(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt);
/* A frame left one of the switch's queues: release its buffer (struct
 * node's dequeued hook). */
void switch_dequeued(struct node *sw, const struct packet *pkt);

#endif
