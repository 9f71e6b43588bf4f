/*
 * pkt_tel.h — side records of the frames of queue pairs whose congestion
 * controller reads ACKs (cc.h on_ack): the send time of a data packet and
 * the in-band telemetry (INT) the switches stamp on it, which its ACK or
 * NAK then carries back to the sender (docs/protocol.md "ACKs, telemetry
 * and windows").
 *
 * A struct packet is one cache line and has no room for them, so they live
 * in one growing array per fabric, addressed by index: a frame with
 * PKT_F_TEL set holds the index of its record in `aux` (free on data and
 * ACK frames; an SR NAK's SACKed PSN then moves into the record's aux).
 * Records are taken only for such queue pairs, so a fabric whose
 * controllers ignore ACKs (DCQCN) never allocates one and its frames never
 * carry the flag. A record is released with its frame (fabric_pkt_put) or
 * when the NIC consumes the ACK that carries it.
 */
#ifndef ROCESIM_PKT_TEL_H
#define ROCESIM_PKT_TEL_H

#include <stdbool.h>
#include <stdint.h>
#include "simtime.h"

/* One switch egress as it stamped the frame (cc.h struct cc_int_hop has
 * the same fields; the fabric does not include the controllers' header). */
struct pkt_int_hop {
	uint64_t qlen_b;        /* bytes queued at the port (all classes) as the frame left */
	uint64_t tx_b;          /* line bytes (frame + preamble + gap) the port sent, this frame included */
	simtime_t ts;           /* when its first bit left */
	uint64_t rate_bps;      /* the port's rate */
};
#define PKT_INT_MAX_HOPS 8

/* Bytes the INT header adds to a data frame of a queue pair whose
 * controller needs telemetry, and to its ACKs and NAKs, which echo it: HPCC's
 * ns-3 IntHeader, five hops of 8 bytes and a 2-byte hop count, counted on
 * the wire (serialisation, buffers) but not written in captured frames. */
#define PKT_INT_B 42

struct pkt_tel {
	simtime_t sent_at;      /* data: when the NIC put its first bit on the wire */
	uint32_t aux;           /* an SR NAK's SACKed PSN; free records: the next free index */
	uint8_t n_hops;         /* hops stamped so far */
	bool stamp;             /* switches stamp hops (the controller needs INT) */
	bool ce;                /* ACK/NAK: the data packet it answers arrived CE-marked */
	struct pkt_int_hop hop[PKT_INT_MAX_HOPS];
};

struct pkt_tel_pool {
	struct pkt_tel *rec;    /* [cap]; moves when it grows, so frames keep indices */
	uint32_t cap;
	uint32_t live;          /* records in use (0 after a drained run) */
	uint32_t free_head;     /* first free index + 1 (0: none free) */
};

/* A zeroed record's index (the array grows as needed). */
uint32_t pkt_tel_new(struct pkt_tel_pool *tp);
static inline struct pkt_tel *pkt_tel_at(const struct pkt_tel_pool *tp, uint32_t idx)
{
	return &tp->rec[idx];
}
void pkt_tel_put(struct pkt_tel_pool *tp, uint32_t idx);
void pkt_tel_pool_free(struct pkt_tel_pool *tp);

#endif
