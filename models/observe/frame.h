/*
 * frame.h — a struct packet as the bytes on the wire (RoCEv2 and PFC), for
 * packet capture. A pure function of the packet and the hop's addresses:
 * no state, no allocation, so tests can check every byte.
 *
 * RoCEv2 frames (docs/protocol.md "Frames on the wire"): Ethernet II / IPv4 /
 * UDP to 4791 / BTH / RETH (WRITE first and only) or AETH (ACK, NAK) or
 * 16 reserved bytes (CNP) / zero payload padded to 4 B (BTH PadCnt) /
 * ICRC. No FCS, as in a capture: the length is the model's frame_b minus
 * the 4 B FCS plus the pad (so a capture may show up to 3 B more than
 * port_stats counts for a last packet whose payload is not a multiple of
 * 4; the simulator does not serialise the pad).
 * PFC frames (802.1Qbb): MAC control 0x8808, opcode 0x0101, class-enable
 * vector, eight pause times, padded to 60 B.
 *
 * Addresses (deterministic, documented in scenarios/README.md):
 *   - IPv4 of an endpoint: host_ip(ep) of path.h (HPCC's numbering,
 *     11.0.0.1 for endpoint 0), the address ECMP hashes;
 *   - MAC of port i of node n: 02:NN:NN:NN:PP:PP (locally administered,
 *     n in 24 bits, i in 16); a frame carries the transmitting port's MAC
 *     as source and the receiving port's as destination, as a routed hop
 *     does;
 *   - a multicast group: its IPv4 group address and 01:00:5e + the low
 *     23 bits of it (RFC 1112) on fabric links, the receiver's unicast
 *     addresses on the last hop (frame_dst below).
 * DSCP from the priority: class selector prio << 3, except priority 3 which
 * is AF31 = 26, the usual RoCE data marking (docs/protocol.md "Frames on the wire"); so DSCP >> 3 is
 * the priority. ECN: ECT(0) for ECN-capable data, CE once a switch marked it.
 * IPv4 ID 0 with DF set; UDP checksum 0 (RoCEv2 does not use it). Things the
 * model does not carry are written as constants: RETH VA 0 and R_Key 0
 * (DMA length = message size, saturated at 2^32 - 1), AETH MSN 0, P_Key
 * 0xFFFF. A selective-repeat SACK is written as the NAK it is in the model
 * (PSN = the PSN expected); the SACKed PSN has no standard field.
 */
#ifndef ROCESIM_FRAME_H
#define ROCESIM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fabric.h"

#define FRAME_MIN_B 60            /* Ethernet minimum without FCS */
#define FRAME_MAX_B (65535 + 4)   /* frame_b is 16 bits; the pad adds at most 3 */
#define FRAME_IP_OFF PKT_ETH_B    /* the IPv4 header starts here */
#define FRAME_BTH_OFF (PKT_ETH_B + PKT_IPV4_B + PKT_UDP_B)

#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_MAC_CONTROL 0x8808
#define PFC_OPCODE 0x0101
#define AETH_SYNDROME_ACK 0x1F    /* ACK, credit count 31 (unlimited) */
#define AETH_SYNDROME_NAK_PSN 0x60 /* NAK, PSN sequence error */
#define BTH_BECN 0x40             /* byte 4 */
#define BTH_ACKREQ 0x80           /* byte 8 */
#define BTH_PKEY_DEFAULT 0xFFFF

/* Where a frame is on its path: the two ends of the link it crosses. */
struct frame_hop {
	uint8_t src_mac[6];       /* the transmitting port */
	uint8_t dst_mac[6];       /* the receiving port */
	bool to_host;             /* the receiving port is a host's (the last hop) */
};

/* Writes the frame of pkt on hop into buf (at least FRAME_MAX_B bytes);
 * returns its length in bytes (no FCS). */
size_t frame_build(const struct packet *pkt, const struct frame_hop *hop, uint8_t *buf);
/* The length frame_build writes, without building it. */
size_t frame_len(const struct packet *pkt);

/* 02:NN:NN:NN:PP:PP of port `port` of node `node`. */
void frame_port_mac(int node, int port, uint8_t mac[6]);
/* 01:00:5e + the low 23 bits of an IPv4 multicast address (RFC 1112). */
void frame_mcast_mac(uint32_t group_ip, uint8_t mac[6]);
/* DSCP of a priority class (see above). */
uint8_t frame_dscp(int prio);
/* The IPv4 header checksum of the 20 bytes at hdr (its checksum field read as 0). */
uint16_t frame_ipv4_checksum(const uint8_t *hdr);
/* The RoCEv2 ICRC of a frame of len bytes from the Ethernet header on, the
 * last 4 of which are the ICRC itself (not covered). docs/protocol.md "Frames on the wire". */
uint32_t frame_icrc(const uint8_t *frame, size_t len);

#endif
