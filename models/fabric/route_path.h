/*
 * route_path.h — the path of a queue pair's frames, worked out once and
 * carried in every frame.
 *
 * Routing is static and, in flow mode, ECMP hashes only the 5-tuple, so
 * every frame a QP sends (data, ACK, NAK, CNP: same source, destination and
 * UDP source port) leaves each switch on its path by the same port. The QP
 * packs those port numbers into a code when it is created and its frames
 * carry it (packet.route): a switch takes its egress port from the code's
 * low bits and shifts them out (route_path_take), instead of looking the
 * destination's equal-cost set up and hashing, which costs dependent loads
 * per frame.
 * The port is the one route_port chooses (debug builds check it at every
 * hop). Frames without a code (0: multicast, PFC, `ecmp = packet`, a path
 * of more than ROUTE_PATH_HOPS switches or through a port numbered
 * ROUTE_PATH_PORTS or above) are routed by route_port.
 *
 * Code: bit 31 set; bits 6h .. 6h+5 hold the egress port at the h-th switch.
 * A frame's code, taken hop by hop, stays non-zero: bit 31 is shifted down
 * at most ROUTE_PATH_HOPS times.
 */
#ifndef ROCESIM_ROUTE_PATH_H
#define ROCESIM_ROUTE_PATH_H

#include <stdint.h>

#define ROUTE_PATH_HOPS 5         /* a three-tier fat-tree's longest path */
#define ROUTE_PATH_BITS 6
#define ROUTE_PATH_PORTS (1 << ROUTE_PATH_BITS)

struct fabric;

/* The code of the path from endpoint src to endpoint dst with UDP source
 * port sport, or 0 when its frames must be routed hop by hop. */
uint32_t route_path_code(const struct fabric *f, int src, int dst, uint16_t sport);

/* The egress port at the next switch of a frame whose code is *code (what
 * it has not yet taken), taken out of it: the n-th call on a code returns
 * the port at the n-th switch (bits 6(n-1) .. 6(n-1)+5). */
static inline int route_path_take(uint32_t *code)
{
	int i = (int)(*code & (ROUTE_PATH_PORTS - 1));
	*code >>= ROUTE_PATH_BITS;
	return i;
}

#endif
