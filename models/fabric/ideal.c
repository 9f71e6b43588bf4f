/*
 * ideal.c — closed-form store-and-forward pipeline (see ideal.h).
 */
#include <stddef.h>
#include "ideal.h"
#include "packet.h"

uint32_t ideal_packets(uint64_t size_b, int mtu)
{
	return size_b == 0 ? 1 : (uint32_t)((size_b + (uint64_t)mtu - 1) / (uint64_t)mtu);
}

uint32_t ideal_packet_wire_b(uint64_t size_b, int mtu, uint32_t i, uint32_t n)
{
	return pkt_data_frame_b(pkt_payload_b(size_b, mtu, i, n), i == 0) + PKT_WIRE_EXTRA_B;
}

static simtime_t ser(const struct ideal_hop *h, uint32_t wire_b)
{
	return simtime_serialize(wire_b, h->rate_bps);
}

/* Next row of the grid for one packet of wire size b after row `prev`. */
static void next_row(const struct ideal_hop *h, int n, const simtime_t *prev, uint32_t b, simtime_t *row)
{
	for (int j = 0; j < n; j++) {
		simtime_t from_left = j ? row[j - 1] + h[j - 1].delay_ps : 0;
		simtime_t from_above = prev ? prev[j] : 0;
		row[j] = (from_left > from_above ? from_left : from_above) + ser(&h[j], b);
	}
}

/* Row of the last of m identical packets of wire size b after row `prev`:
 * the longest path enters the block at link k from above, crosses links
 * k..j once and spends its m-1 downward steps on the slowest of them. */
static void block_row(const struct ideal_hop *h, int n, const simtime_t *prev, uint32_t b,
		      uint64_t m, simtime_t *row)
{
	for (int j = 0; j < n; j++) {
		simtime_t best = 0, cross = 0, slowest = 0;
		for (int k = j; k >= 0; k--) {
			simtime_t s = ser(&h[k], b);
			cross += s + (k < j ? h[k].delay_ps : 0);
			if (s > slowest)
				slowest = s;
			simtime_t v = prev[k] + cross + (simtime_t)(m - 1) * slowest;
			if (v > best)
				best = v;
		}
		row[j] = best;
	}
}

simtime_t ideal_delivery_ps(const struct ideal_hop *fwd, int n, uint64_t size_b, int mtu)
{
	simtime_t a[IDEAL_MAX_HOPS], b[IDEAL_MAX_HOPS];
	uint32_t np = ideal_packets(size_b, mtu);
	if (n <= 0 || n > IDEAL_MAX_HOPS)
		return 0;
	next_row(fwd, n, NULL, ideal_packet_wire_b(size_b, mtu, 0, np), a);
	simtime_t *cur = a, *other = b;
	if (np >= 3) {
		block_row(fwd, n, cur, ideal_packet_wire_b(size_b, mtu, 1, np), np - 2, other);
		simtime_t *t = cur; cur = other; other = t;
	}
	if (np >= 2) {
		next_row(fwd, n, cur, ideal_packet_wire_b(size_b, mtu, np - 1, np), other);
		cur = other;
	}
	return cur[n - 1] + fwd[n - 1].delay_ps;
}

simtime_t ideal_ack_ps(const struct ideal_hop *rev, int n)
{
	simtime_t t = 0;
	for (int j = 0; j < n; j++)
		t += ser(&rev[j], PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B) + rev[j].delay_ps;
	return t;
}
