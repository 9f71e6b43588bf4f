/*
 * packet.h — a frame in flight: header fields only, no payload bytes.
 *
 * A packet is owned by exactly one place at a time: a port queue, a link
 * (pending arrival event), or the pool (fabric.pkt_pool). Frame sizes follow
 * RoCEv2 on the wire (docs/protocol.md "Frames on the wire"): Ethernet 14 + IPv4 20 + UDP 8 + BTH 12
 * (+ RETH 16 on WRITE first/only, + AETH 4 on ACK/NAK) + payload + ICRC 4 +
 * FCS 4 = `frame_b`; preamble and inter-frame gap add PKT_WIRE_EXTRA_B on
 * the wire, so a 1000 B middle packet takes 1082 B of line time.
 */
#ifndef ROCESIM_PACKET_H
#define ROCESIM_PACKET_H

#include <stdint.h>

#define PKT_ETH_B 14
#define PKT_IPV4_B 20
#define PKT_UDP_B 8
#define PKT_BTH_B 12
#define PKT_RETH_B 16
#define PKT_AETH_B 4
#define PKT_ICRC_B 4
#define PKT_FCS_B 4
#define PKT_WIRE_EXTRA_B 20   /* preamble 8 + inter-frame gap 12 */
#define PKT_TTL0 64           /* IPv4 TTL of a frame a NIC sends */
#define PKT_ROCE_OVERHEAD_B (PKT_ETH_B + PKT_IPV4_B + PKT_UDP_B + PKT_BTH_B + PKT_ICRC_B + PKT_FCS_B)
#define PKT_ACK_FRAME_B (PKT_ROCE_OVERHEAD_B + PKT_AETH_B)
#define PKT_CNP_FRAME_B (PKT_ROCE_OVERHEAD_B + 16)   /* BTH + 16 reserved bytes (docs/protocol.md "Frames on the wire") */
#define PKT_PFC_FRAME_B 64    /* 802.1Qbb: 60 B padded MAC control frame + FCS */
#define PFC_QUANTUM_BITS 512  /* one pause quantum: 512 bit times at the link's rate */
#define PFC_MAX_QUANTA 0xFFFFu

/* Payload of data packet i of n of a message of size_b: MTU segments, the
 * last one shorter (a 0-byte message is one empty packet). */
static inline uint32_t pkt_payload_b(uint64_t size_b, int mtu, uint32_t i, uint32_t n)
{
	return (uint32_t)(i + 1 < n ? (uint64_t)mtu : size_b - (uint64_t)mtu * (n - 1));
}
/* Frame bytes of a data packet (RDMA WRITE; RETH on the first). */
static inline uint32_t pkt_data_frame_b(uint32_t payload_b, int first)
{
	return PKT_ROCE_OVERHEAD_B + payload_b + (first ? PKT_RETH_B : 0);
}

enum pkt_type { PKT_DATA, PKT_ACK, PKT_NAK, PKT_CNP, PKT_PFC };

/* BTH opcodes (RC RDMA WRITE, as NCCL uses; docs/protocol.md "Frames on the wire"). */
enum pkt_opcode {
	OP_WRITE_FIRST = 0x06, OP_WRITE_MIDDLE = 0x07, OP_WRITE_LAST = 0x08, OP_WRITE_ONLY = 0x0A,
	OP_ACK = 0x11, OP_CNP = 0x81, OP_PFC = 0x01,  /* PFC: MAC control opcode 0x0101 */
};

enum pkt_flags {
	PKT_F_FIRST = 1 << 0,   /* first packet of its message */
	PKT_F_LAST = 1 << 1,    /* last packet of its message */
	PKT_F_ACKREQ = 1 << 2,  /* BTH AckReq */
	PKT_F_ECT = 1 << 3,     /* ECN-capable transport */
	PKT_F_CE = 1 << 4,      /* congestion experienced (set by a switch) */
	PKT_F_MCAST = 1 << 5,   /* multicast: mgroup names the group's tree (mcast_tree.h); data
				 * on fabric links, and the members' feedback toward the source */
	PKT_F_TEL = 1 << 6,     /* aux is the index of a side record (pkt_tel.h): send time,
				 * telemetry; data and ACK/NAK of QPs whose controller reads ACKs */
	PKT_F_ECE = 1 << 7,     /* ACK/NAK: the data packet it answers arrived CE-marked (ECN
				 * echo; the BTH's BECN bit in captured frames) */
};

struct flow;

struct packet {
	struct packet *next;    /* queue link, then link-in-flight link */
	int64_t next_at;        /* in flight, not last on its link: when the frame after it
				 * lands (kept here, not in that frame, so a landing reads
				 * one frame: the link's FIFO, port.h) */
	struct flow *flow;      /* data: the message it belongs to (sender's record) */
	uint32_t psn;           /* data: its PSN; ACK/NAK: cumulative PSN acknowledged */
	uint32_t dqpn;          /* destination QP number */
	uint32_t aux;           /* PFC: class-enable vector << 16 | pause quanta;
				 * SR SACK (NAK with selective repeat): the PSN received out of order;
				 * PKT_F_TEL: the index of the frame's side record (pkt_tel.h) */
	int32_t src, dst;       /* host ids (node ids of hosts) */
	uint16_t sport;         /* UDP source port: ECMP entropy */
	uint16_t frame_b;       /* frame bytes incl. headers, ICRC, FCS */
	uint16_t payload_b;     /* data bytes carried */
	uint16_t in_port;       /* ingress port at the switch holding it */
	uint8_t type;           /* enum pkt_type */
	uint8_t opcode;         /* enum pkt_opcode */
	uint8_t prio;           /* priority class 0..7 */
	uint8_t flags;          /* enum pkt_flags */
	uint8_t ttl;            /* IPv4 TTL, decremented per switch */
	uint16_t mgroup;        /* PKT_F_MCAST: group id, its tree's in the fabric (mcast_tree.h;
				 * its IPv4 address is mcast_ip_of_id, path.h) */
	uint32_t route;         /* its QP's path (route_path.h), less the hops taken; 0:
				 * routed hop by hop, as PFC and multicast frames always are */
};

_Static_assert(sizeof(struct packet) == 64, "a packet record is one cache line");

#endif
