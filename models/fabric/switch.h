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
 * Buffer: the shared-buffer MMU of mmu.h admits each frame on arrival
 * (per ingress port and class), asks the upstream to pause a lossless class
 * through the ingress port (PFC XOFF/XON) and marks ECN when a frame leaves.
 * A frame refused is dropped, counted on its egress port and, for data, in
 * the run's packets_dropped. PFC frames are consumed by the port they reach.
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
	return 0x0b000001u + (((uint32_t)id >> 8) << 16) + (((uint32_t)id & 255) << 8);
}

#define ROCE_UDP_PORT 4791

/* The ECMP hash (ecmp_hash) and a switch's choice of egress port
 * (route_port) are in switch_fwd.h. */

/* After the switch's ports are linked: buffer and MMU state. */
void switch_setup(struct world *w, struct node *sw);
void switch_free(struct node *sw);   /* no-op for other nodes */
/* Buffer counters all zero (after the fabric drained); aborts naming the switch otherwise. */
void switch_check_drained(struct node *sw);
/* The ports a packet from endpoint src to endpoint dst with UDP source port
 * sport leaves by (psn < 0: flow ECMP; else spraying, with that PSN): the
 * source's port, then each switch's egress port. Their count, or -1 when
 * there are more than max or the walk does not reach dst. The one walk of
 * the switches' choices: ideal times, flow_path rows and route codes. */
int switch_path_ports(const struct world *w, int src, int dst, uint16_t sport, int64_t psn,
		      const struct port **hop, int max);
/* The hops a flow-ECMP packet takes from endpoint src to endpoint dst with
 * UDP source port sport (rate and delay of each link, for ideal times);
 * the hop count, or -1 when the path is longer than IDEAL_MAX_HOPS or does
 * not reach dst. */
struct ideal_hop;
int switch_path(const struct world *w, int src, int dst, uint16_t sport, struct ideal_hop *h);

#endif
