/*
 * frame.c — struct packet to wire bytes (see frame.h).
 *
 * Byte layouts are those of docs/protocol.md "Frames on the wire" and "PFC and the switch buffer";
 * every multi-byte field is big-endian except the ICRC, which is stored
 * least significant byte first. Tuned for nothing: it runs only for frames
 * that cross a tapped port.
 */
#include <string.h>
#include <zlib.h>
#include "nic.h"
#include "frame.h"
#include "fabric.h"

static const uint8_t pfc_dst_mac[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 }; /* 802.1Qbb */

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 16); put16(p + 1, v); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v); }

void frame_port_mac(int node, int port, uint8_t mac[6])
{
	mac[0] = 0x02;             /* locally administered, unicast */
	put24(mac + 1, (uint32_t)node);
	put16(mac + 4, (uint32_t)port);
}

void frame_mcast_mac(uint32_t group_ip, uint8_t mac[6])
{
	mac[0] = 0x01;
	mac[1] = 0x00;
	mac[2] = 0x5E;
	put24(mac + 3, group_ip & 0x7FFFFF);
}

uint8_t frame_dscp(int prio)
{
	/* RoCE data on DSCP 26 / priority 3 (docs/protocol.md "Frames on the wire"); CNP and ACKs on
	 * priority 6 get CS6 = 48, the CNP marking of the same source. */
	return prio == 3 ? 26 : (uint8_t)(prio << 3);
}

uint16_t frame_ipv4_checksum(const uint8_t *hdr)
{
	uint32_t sum = 0;
	for (int i = 0; i < PKT_IPV4_B; i += 2)
		if (i != 10)
			sum += (uint32_t)hdr[i] << 8 | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

uint32_t frame_icrc(const uint8_t *frame, size_t len)
{
	static const uint8_t masked_lrh[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	enum { HDR = PKT_IPV4_B + PKT_UDP_B + PKT_BTH_B, UDP = PKT_IPV4_B, BTH = UDP + PKT_UDP_B };
	uint8_t h[HDR];
	memcpy(h, frame + FRAME_IP_OFF, HDR);
	h[1] = 0xFF;                   /* TOS (DSCP, ECN) */
	h[8] = 0xFF;                   /* TTL */
	h[10] = h[11] = 0xFF;          /* header checksum */
	h[UDP + 6] = h[UDP + 7] = 0xFF; /* UDP checksum */
	h[BTH + 4] = 0xFF;             /* FECN, BECN, reserved */
	uLong crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, masked_lrh, sizeof masked_lrh);
	crc = crc32(crc, h, HDR);
	size_t rest = FRAME_IP_OFF + HDR;
	crc = crc32(crc, frame + rest, (uInt)(len - PKT_ICRC_B - rest));
	return (uint32_t)crc;
}

static bool has_reth(const struct packet *pkt)
{
	return pkt->type == PKT_DATA && (pkt->opcode == OP_WRITE_FIRST || pkt->opcode == OP_WRITE_ONLY);
}

static uint32_t pad_b(const struct packet *pkt)
{
	return pkt->type == PKT_DATA ? (4 - pkt->payload_b % 4) % 4 : 0;
}

/* Bytes between the BTH and the payload. */
static uint32_t ext_b(const struct packet *pkt)
{
	switch (pkt->type) {
	case PKT_DATA: return has_reth(pkt) ? PKT_RETH_B : 0;
	case PKT_ACK:
	case PKT_NAK: return PKT_AETH_B;
	case PKT_CNP: return 16;     /* reserved (docs/protocol.md "Frames on the wire") */
	default: return 0;
	}
}

size_t frame_len(const struct packet *pkt)
{
	if (pkt->type == PKT_PFC)
		return FRAME_MIN_B;
	uint32_t payload = pkt->type == PKT_DATA ? pkt->payload_b : 0;
	return FRAME_BTH_OFF + PKT_BTH_B + ext_b(pkt) + payload + pad_b(pkt) + PKT_ICRC_B;
}

/* The destination IPv4 address and MAC of pkt on hop: the one place where
 * a multicast frame differs from a unicast one. Data to a group carries the
 * group's address and MAC on fabric links; the last switch rewrites it to
 * the receiver's (and clears PKT_F_MCAST), so a host's link shows unicast
 * RC traffic (docs/protocol.md "Multicast"). Members' feedback toward the
 * source is unicast to the source. */
static uint32_t frame_dst(const struct packet *pkt, const struct frame_hop *hop, uint8_t mac[6])
{
	if ((pkt->flags & PKT_F_MCAST) && pkt->type == PKT_DATA && !hop->to_host) {
		uint32_t ip = mcast_ip_of_id(pkt->mgroup);
		frame_mcast_mac(ip, mac);
		return ip;
	}
	memcpy(mac, hop->dst_mac, 6);
	return host_ip(pkt->dst);
}

static size_t build_pfc(const struct packet *pkt, const struct frame_hop *hop, uint8_t *b)
{
	unsigned classes = (pkt->aux >> 16) & 0xFF;
	uint32_t quanta = pkt->aux & 0xFFFF;
	memset(b, 0, FRAME_MIN_B);
	memcpy(b, pfc_dst_mac, 6);
	memcpy(b + 6, hop->src_mac, 6);
	put16(b + 12, ETH_TYPE_MAC_CONTROL);
	put16(b + 14, PFC_OPCODE);
	put16(b + 16, classes);        /* class-enable vector: bit i = priority i */
	for (int c = 0; c < 8; c++)
		if (classes & (1u << c))
			put16(b + 18 + 2 * c, quanta);
	return FRAME_MIN_B;
}

size_t frame_build(const struct packet *pkt, const struct frame_hop *hop, uint8_t *b)
{
	if (pkt->type == PKT_PFC)
		return build_pfc(pkt, hop, b);
	size_t len = frame_len(pkt);
	uint8_t *ip = b + FRAME_IP_OFF, *udp = ip + PKT_IPV4_B, *bth = udp + PKT_UDP_B;

	/* Ethernet II */
	uint32_t dst_ip = frame_dst(pkt, hop, b);
	memcpy(b + 6, hop->src_mac, 6);
	put16(b + 12, ETH_TYPE_IPV4);

	/* IPv4 */
	uint8_t ecn = pkt->flags & PKT_F_CE ? 3 : pkt->flags & PKT_F_ECT ? 2 : 0;
	ip[0] = 0x45;                  /* version 4, 5 words */
	ip[1] = (uint8_t)(frame_dscp(pkt->prio) << 2 | ecn);
	put16(ip + 2, (uint32_t)(len - PKT_ETH_B));
	put16(ip + 4, 0);              /* identification */
	put16(ip + 6, 0x4000);         /* don't fragment */
	ip[8] = pkt->ttl;
	ip[9] = 17;                    /* UDP */
	put32(ip + 12, host_ip(pkt->src));
	put32(ip + 16, dst_ip);
	put16(ip + 10, frame_ipv4_checksum(ip));

	/* UDP */
	put16(udp, pkt->sport);
	put16(udp + 2, ROCE_UDP_PORT);
	put16(udp + 4, (uint32_t)(len - PKT_ETH_B - PKT_IPV4_B));
	put16(udp + 6, 0);

	/* BTH */
	uint32_t pad = pad_b(pkt);
	bth[0] = pkt->opcode;
	bth[1] = (uint8_t)(pad << 4);  /* SE 0, MigReq 0, PadCnt, TVer 0 */
	put16(bth + 2, BTH_PKEY_DEFAULT);
	/* BECN: a CNP, or an ACK/NAK echoing a CE mark to a controller that reads ACKs */
	bth[4] = pkt->type == PKT_CNP || (pkt->flags & PKT_F_ECE) ? BTH_BECN : 0;
	put24(bth + 5, pkt->dqpn);
	bth[8] = pkt->flags & PKT_F_ACKREQ ? BTH_ACKREQ : 0;
	put24(bth + 9, pkt->type == PKT_CNP ? 0 : pkt->psn & 0xFFFFFF);

	/* Extension header, then the zero payload and its pad */
	uint8_t *x = bth + PKT_BTH_B;
	memset(x, 0, len - PKT_ICRC_B - (size_t)(x - b));
	if (has_reth(pkt)) {
		uint64_t size = pkt->flow ? pkt->flow->size_b : pkt->payload_b;
		put32(x + 12, size > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)size); /* VA 0, R_Key 0 */
	} else if (pkt->type == PKT_ACK || pkt->type == PKT_NAK) {
		x[0] = pkt->type == PKT_ACK ? AETH_SYNDROME_ACK : AETH_SYNDROME_NAK_PSN; /* MSN 0 */
	}

	/* ICRC, least significant byte first */
	uint32_t icrc = frame_icrc(b, len);
	uint8_t *c = b + len - PKT_ICRC_B;
	c[0] = (uint8_t)icrc;
	c[1] = (uint8_t)(icrc >> 8);
	c[2] = (uint8_t)(icrc >> 16);
	c[3] = (uint8_t)(icrc >> 24);
	return len;
}
