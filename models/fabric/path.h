/*
 * path.h — the fabric's read-only answers about paths, the door for the
 * parts that reason about where frames go without moving any: the ports
 * a flow's frames leave by (the switches' own routing and ECMP choices),
 * the code a queue pair's frames carry for them (route_path.h), ideal
 * times over a path (ideal.h), and the addressing every part shares.
 *
 * Nothing here changes the fabric or schedules an event.
 */
#ifndef ROCESIM_PATH_H
#define ROCESIM_PATH_H

#include <stdint.h>
#include "ideal.h"
#include "simtime.h"
#include "route_path.h"

struct fabric;
struct port;

/* IPv4 address of a host, as HPCC's ns-3 numbers them (docs/protocol.md
 * "Addresses and names"). */
static inline uint32_t host_ip(int id)
{
	return 0x0b000001u + (((uint32_t)id >> 8) << 16) + (((uint32_t)id & 255) << 8);
}

#define ROCE_UDP_PORT 4791

/* The IPv4 address of multicast group id gid: 239.1.0.0 + gid + 1
 * (administratively scoped, RFC 2365); what its frames carry on fabric
 * links; the MAC is 01:00:5e + its low 23 bits. */
static inline uint32_t mcast_ip_of_id(int gid) { return 0xEF010000u | (uint32_t)(gid + 1); }

/* A port a frame leaves by: its node's id and its index there. */
struct path_hop {
	int node, port;
};
/* The ports a packet from endpoint src to endpoint dst with UDP source port
 * sport leaves by (psn < 0: flow ECMP; else spraying, with that PSN): the
 * source's port, then each switch's egress port. Their count, or -1 when
 * there are more than max or the walk does not reach dst. The one walk of
 * the switches' choices: ideal times, flow_path rows and route codes. It
 * reads the topology and the switches' tables, not the ports, so it walks
 * other ranks' switches too (fabric.h). */
int switch_path_ports(const struct fabric *f, int src, int dst, uint16_t sport, int64_t psn,
		      struct path_hop *hop, int max);
/* The hops a flow-ECMP packet takes from endpoint src to endpoint dst with
 * UDP source port sport (rate and delay of each link, for ideal times);
 * the hop count, or -1 when the path is longer than IDEAL_MAX_HOPS or does
 * not reach dst. */
int switch_path(const struct fabric *f, int src, int dst, uint16_t sport, struct ideal_hop *h);

/* T, the fabric's largest base RTT: the longest, over every pair of
 * distinct endpoints and every path the switches route between them, of a
 * data frame of data_frame_b bytes going out and an ACK of ack_frame_b
 * bytes coming back over the same links: each frame serialised (with
 * preamble and gap, PKT_WIRE_EXTRA_B) on every link it leaves by, every
 * link's propagation both ways, every switch's latency once out and once
 * back, no queueing (docs/protocol.md "ACKs, telemetry and windows"). What
 * HPCC's ns-3 uses as its base RTT with GLOBAL_T 1. Linear in the routes'
 * size per edge switch (base_rtt.c), not quadratic in hosts. */
simtime_t fabric_base_rtt(const struct fabric *f, uint32_t data_frame_b, uint32_t ack_frame_b);

#endif
