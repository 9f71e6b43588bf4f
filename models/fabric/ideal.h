/*
 * ideal.h — the ideal completion time of a message: the same message alone
 * on the idle fabric (analysis/schema.sql, flow.ideal_fct_ps).
 *
 * A message of N packets leaves the NIC back to back and crosses H links
 * store-and-forward; link j serialises at rate r_j and its frame reaches
 * the next element delay_j later (propagation plus that element's switch
 * latency). The finish time of packet i on link j obeys
 *     f(i,j) = max(f(i,j-1) + delay_{j-1}, f(i-1,j)) + ser_j(i)
 * and the last packet's arrival is the longest path through that grid.
 * Packets come in three kinds (first with RETH, N-2 identical middles,
 * a shorter last), so the grid collapses to three rows and the middle
 * block has a closed form: O(H^2) per message, exact to the picosecond.
 * The acknowledgement of the last packet then returns over the reverse
 * path: serialisation of the ACK frame and delay per link.
 */
#ifndef ROCESIM_IDEAL_H
#define ROCESIM_IDEAL_H

#include <stdint.h>
#include "simtime.h"

#define IDEAL_MAX_HOPS 16

struct ideal_hop {
	uint64_t rate_bps;
	simtime_t delay_ps;  /* propagation + latency of the element it reaches */
};

/* Wire bytes (frame + preamble/IFG) of packet i of n for a message of size_b. */
uint32_t ideal_packet_wire_b(uint64_t size_b, int mtu, uint32_t i, uint32_t n);
uint32_t ideal_packets(uint64_t size_b, int mtu);

/* Time from posting until the last byte reaches the receiver. */
simtime_t ideal_delivery_ps(const struct ideal_hop *fwd, int n_fwd, uint64_t size_b, int mtu);
/* Time for one ACK to return over the reverse path. */
simtime_t ideal_ack_ps(const struct ideal_hop *rev, int n_rev);

#endif
