/*
 * test_frame.c — models/observe/frame.c and kernel/pcap.c: frames as the bytes
 * docs/protocol.md "Frames on the wire" and "PFC and the switch buffer" specify, checked field by
 * field; the IPv4 header checksum and the ICRC recomputed here
 * independently (a bitwise CRC-32, not zlib) on built frames and on frames
 * read back from a pcap file and on every frame a whole run captured;
 * sizes 1098/1082/62 B for WRITE first/middle and ACK with 1024 B of
 * payload.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "flow.h"
#include "frame.h"
#include "packet.h"
#include "pcap.h"
#include "run_fixture.h"
#include "testutil.h"

static uint8_t buf[FRAME_MAX_B];

static const struct frame_hop hop = {
	.src_mac = { 0x02, 0x00, 0x00, 0x05, 0x00, 0x00 },
	.dst_mac = { 0x02, 0x00, 0x00, 0x09, 0x00, 0x05 },
};

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | be16(p + 1); }
static uint32_t be32(const uint8_t *p) { return be16(p) << 16 | be16(p + 2); }

/* A data packet as qp.c builds it. */
static struct packet data_pkt(uint8_t opcode, uint32_t payload, uint32_t psn)
{
	bool first = opcode == OP_WRITE_FIRST || opcode == OP_WRITE_ONLY;
	bool last = opcode == OP_WRITE_LAST || opcode == OP_WRITE_ONLY;
	return (struct packet){ .psn = psn, .dqpn = 0x123, .src = 0, .dst = 1, .sport = 0xC00B,
				.payload_b = (uint16_t)payload, .type = PKT_DATA, .opcode = opcode,
				.prio = 3, .ttl = 64,
				.frame_b = (uint16_t)pkt_data_frame_b(payload, first),
				.flags = (uint8_t)(PKT_F_ECT | (last ? PKT_F_LAST | PKT_F_ACKREQ : 0)) };
}

/* An ACK, NAK or CNP as nic_send_ctrl builds it. */
static struct packet ctrl_pkt(int type, uint32_t psn)
{
	bool cnp = type == PKT_CNP;
	return (struct packet){ .psn = psn, .dqpn = 0x101, .src = 1, .dst = 0, .sport = 0xC00B,
				.frame_b = cnp ? PKT_CNP_FRAME_B : PKT_ACK_FRAME_B, .type = (uint8_t)type,
				.opcode = cnp ? OP_CNP : OP_ACK, .prio = 6, .ttl = 64 };
}

static struct packet pfc_pkt(unsigned classes, uint32_t quanta)
{
	return (struct packet){ .type = PKT_PFC, .opcode = OP_PFC, .frame_b = PKT_PFC_FRAME_B,
				.aux = classes << 16 | quanta, .prio = 7, .src = -1, .dst = -1 };
}

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320), bit by bit. */
static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
	}
	return ~crc;
}

/* The ICRC of a RoCEv2 frame as docs/protocol.md "Frames on the wire" describes it, computed from
 * scratch: 8 bytes of 0xFF for the LRH, the IP header with TOS, TTL and
 * checksum all ones, UDP with checksum 0xFFFF, BTH with byte 4 0xFF, the rest
 * up to the ICRC. */
static uint32_t icrc_reference(const uint8_t *f, size_t len)
{
	uint8_t *m = malloc(8 + len);
	memset(m, 0xFF, 8);
	size_t n = len - 14 - 4;
	memcpy(m + 8, f + 14, n);
	uint8_t *ip = m + 8, *udp = ip + 20, *bth = udp + 8;
	ip[1] = 0xFF;
	ip[8] = 0xFF;
	ip[10] = ip[11] = 0xFF;
	udp[6] = udp[7] = 0xFF;
	bth[4] = 0xFF;
	uint32_t c = crc32_bitwise(0, m, 8 + n);
	free(m);
	return c;
}

/* The ICRC stored in the frame, least significant byte first. */
static uint32_t icrc_stored(const uint8_t *f, size_t len)
{
	const uint8_t *c = f + len - 4;
	return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

/* One's complement sum of the header's ten words: 0xFFFF iff the checksum is right. */
static uint32_t ip_sum(const uint8_t *ip)
{
	uint32_t s = 0;
	for (int i = 0; i < 20; i += 2)
		s += be16(ip + i);
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return s;
}

static void test_sizes(void)
{
	/* docs/protocol.md "Frames on the wire": WRITE first with 1024 B 1098 B, middle 1082 B, ACK 62 B. */
	struct packet p = data_pkt(OP_WRITE_FIRST, 1024, 0);
	CU_ASSERT_EQUAL(frame_build(&p, &hop, buf), 1098);
	p = data_pkt(OP_WRITE_MIDDLE, 1024, 1);
	CU_ASSERT_EQUAL(frame_build(&p, &hop, buf), 1082);
	p = ctrl_pkt(PKT_ACK, 1);
	CU_ASSERT_EQUAL(frame_build(&p, &hop, buf), 62);
	p = ctrl_pkt(PKT_NAK, 1);
	CU_ASSERT_EQUAL(frame_build(&p, &hop, buf), 62);
	/* CNP: headers + BTH + 16 reserved + ICRC = 14+20+8+12+16+4. */
	p = ctrl_pkt(PKT_CNP, 0);
	CU_ASSERT_EQUAL(frame_build(&p, &hop, buf), 74);
	/* PFC: 60 B, the Ethernet minimum without FCS. */
	p = pfc_pkt(1u << 3, 0xFFFF);
	CU_ASSERT_EQUAL(frame_build(&p, &hop, buf), 60);
	/* The model's frame_b is the same frame with its 4 B FCS. */
	struct packet all[] = { data_pkt(OP_WRITE_FIRST, 1024, 0), data_pkt(OP_WRITE_MIDDLE, 4096, 0),
				data_pkt(OP_WRITE_LAST, 512, 0), data_pkt(OP_WRITE_ONLY, 0, 0),
				ctrl_pkt(PKT_ACK, 0), ctrl_pkt(PKT_NAK, 0), ctrl_pkt(PKT_CNP, 0),
				pfc_pkt(1, 0) };
	for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
		CU_ASSERT_EQUAL(frame_build(&all[i], &hop, buf), all[i].frame_b - 4u);
		CU_ASSERT_EQUAL(frame_len(&all[i]), all[i].frame_b - 4u);
	}
}

static void test_pad(void)
{
	/* A 1001 B last packet is padded to 1004 B: PadCnt 3, lengths include it. */
	struct packet p = data_pkt(OP_WRITE_LAST, 1001, 7);
	size_t len = frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(len, p.frame_b - 4u + 3u);
	CU_ASSERT_EQUAL((buf[FRAME_BTH_OFF + 1] >> 4) & 3, 3);
	CU_ASSERT_EQUAL(be16(buf + 14 + 2), len - 14);       /* IPv4 total length */
	CU_ASSERT_EQUAL(be16(buf + 34 + 4), len - 34);       /* UDP length */
	for (size_t i = FRAME_BTH_OFF + 12; i < len - 4; i++)
		if (buf[i]) {
			CU_FAIL("payload or pad not zero");
			break;
		}
	p = data_pkt(OP_WRITE_LAST, 1000, 7);
	frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL((buf[FRAME_BTH_OFF + 1] >> 4) & 3, 0);
}

static void test_ethernet_ipv4_udp(void)
{
	struct packet p = data_pkt(OP_WRITE_MIDDLE, 1024, 5);
	p.src = 256;
	p.dst = 1;
	p.ttl = 62;
	size_t len = frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(memcmp(buf, hop.dst_mac, 6), 0);
	CU_ASSERT_EQUAL(memcmp(buf + 6, hop.src_mac, 6), 0);
	CU_ASSERT_EQUAL(be16(buf + 12), 0x0800);
	const uint8_t *ip = buf + 14, *udp = ip + 20;
	CU_ASSERT_EQUAL(ip[0], 0x45);
	CU_ASSERT_EQUAL(ip[1], 26 << 2 | 2);                 /* DSCP 26 (priority 3), ECT(0) */
	CU_ASSERT_EQUAL(ip[8], 62);
	CU_ASSERT_EQUAL(ip[9], 17);
	/* HPCC's host numbering: 0x0b000001 + (id/256 << 16) + (id%256 << 8). */
	CU_ASSERT_EQUAL(be32(ip + 12), 0x0b010001u);         /* 11.1.0.1 */
	CU_ASSERT_EQUAL(be32(ip + 16), 0x0b000101u);         /* 11.0.1.1 */
	CU_ASSERT_EQUAL(ip_sum(ip), 0xFFFF);
	CU_ASSERT_EQUAL(be16(udp), 0xC00B);
	CU_ASSERT_EQUAL(be16(udp + 2), 4791);
	CU_ASSERT_EQUAL(be16(udp + 4), len - 34);
	CU_ASSERT_EQUAL(be16(udp + 6), 0);
	/* CE set by a switch: ECN 11; the checksum follows every hop's TTL. */
	for (int ttl = 64; ttl > 55; ttl--) {
		p.ttl = (uint8_t)ttl;
		p.flags |= PKT_F_CE;
		frame_build(&p, &hop, buf);
		CU_ASSERT_EQUAL(ip[1] & 3, 3);
		CU_ASSERT_EQUAL(ip[8], ttl);
		CU_ASSERT_EQUAL(ip_sum(ip), 0xFFFF);
		CU_ASSERT_EQUAL(frame_ipv4_checksum(ip), be16(ip + 10));
	}
	/* Not ECN-capable, priority 6: DSCP 48, ECN 00. */
	p = ctrl_pkt(PKT_ACK, 3);
	frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(ip[1], 48 << 2);
	CU_ASSERT_EQUAL(ip_sum(ip), 0xFFFF);
	for (int c = 0; c < 8; c++)
		CU_ASSERT_EQUAL(frame_dscp(c) >> 3, c);          /* DSCP names the priority back */
}

static void test_bth_and_extensions(void)
{
	struct flow f = { .size_b = 1000000 };
	struct packet p = data_pkt(OP_WRITE_FIRST, 1024, 0x1000005); /* PSN wraps at 24 bits */
	p.flow = &f;
	size_t len = frame_build(&p, &hop, buf);
	const uint8_t *bth = buf + FRAME_BTH_OFF, *x = bth + 12;
	CU_ASSERT_EQUAL(bth[0], 0x06);
	CU_ASSERT_EQUAL(be16(bth + 2), 0xFFFF);
	CU_ASSERT_EQUAL(bth[4], 0);
	CU_ASSERT_EQUAL(be24(bth + 5), 0x123);
	CU_ASSERT_EQUAL(bth[8], 0);                          /* no AckReq before the last */
	CU_ASSERT_EQUAL(be24(bth + 9), 5);
	CU_ASSERT_EQUAL(be32(x + 12), 1000000);              /* RETH DMA length = message size */
	CU_ASSERT_EQUAL(len, 1098);

	p = data_pkt(OP_WRITE_LAST, 1024, 9);
	frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(bth[0], 0x08);
	CU_ASSERT_EQUAL(bth[8], 0x80);                       /* AckReq on the last */
	CU_ASSERT_EQUAL(be24(bth + 9), 9);

	p = ctrl_pkt(PKT_ACK, 41);
	frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(bth[0], 0x11);
	CU_ASSERT_EQUAL(be24(bth + 5), 0x101);
	CU_ASSERT_EQUAL(be24(bth + 9), 41);
	CU_ASSERT_EQUAL(x[0], 0x1F);                         /* AETH syndrome: ACK */
	p = ctrl_pkt(PKT_NAK, 42);
	frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(bth[0], 0x11);
	CU_ASSERT_EQUAL(be24(bth + 9), 42);                  /* the PSN expected */
	CU_ASSERT_EQUAL(x[0], 0x60);                         /* NAK: PSN sequence error */

	p = ctrl_pkt(PKT_CNP, 0);
	len = frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(bth[0], 0x81);
	CU_ASSERT_EQUAL(bth[4], 0x40);                       /* BECN */
	CU_ASSERT_EQUAL(be24(bth + 5), 0x101);
	CU_ASSERT_EQUAL(be24(bth + 9), 0);
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(x[i], 0);
	CU_ASSERT_EQUAL(len, (size_t)(x - buf) + 16 + 4);
}

static void check_icrc(const uint8_t *f, size_t len)
{
	CU_ASSERT_EQUAL(icrc_stored(f, len), icrc_reference(f, len));
	CU_ASSERT_EQUAL(frame_icrc(f, len), icrc_reference(f, len));
}

static void test_icrc(void)
{
	struct flow fl = { .size_b = 5000 };
	struct packet all[] = { data_pkt(OP_WRITE_FIRST, 1024, 0), data_pkt(OP_WRITE_MIDDLE, 1024, 1),
				data_pkt(OP_WRITE_LAST, 1001, 2), data_pkt(OP_WRITE_ONLY, 17, 3),
				ctrl_pkt(PKT_ACK, 2), ctrl_pkt(PKT_NAK, 1), ctrl_pkt(PKT_CNP, 0) };
	all[0].flow = all[3].flow = &fl;
	for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
		size_t len = frame_build(&all[i], &hop, buf);
		check_icrc(buf, len);
		uint32_t icrc = icrc_stored(buf, len);
		/* Variant fields (a switch's TTL, ECN and checksum) leave it unchanged... */
		all[i].ttl = 60;
		all[i].flags |= PKT_F_CE;
		len = frame_build(&all[i], &hop, buf);
		CU_ASSERT_EQUAL(icrc_stored(buf, len), icrc);
		check_icrc(buf, len);
		/* ...and the check fails when a covered byte changes. */
		buf[len - 5] ^= 1;
		CU_ASSERT_NOT_EQUAL(icrc_stored(buf, len), icrc_reference(buf, len));
	}
	/* The PSN is covered. */
	struct packet a = data_pkt(OP_WRITE_MIDDLE, 1024, 1), b = data_pkt(OP_WRITE_MIDDLE, 1024, 2);
	size_t la = frame_build(&a, &hop, buf);
	uint32_t ia = icrc_stored(buf, la);
	size_t lb = frame_build(&b, &hop, buf);
	CU_ASSERT_NOT_EQUAL(icrc_stored(buf, lb), ia);
}

static void test_pfc(void)
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 };
	struct packet p = pfc_pkt(1u << 3, 0xFFFF);
	size_t len = frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(len, 60);
	CU_ASSERT_EQUAL(memcmp(buf, dst, 6), 0);
	CU_ASSERT_EQUAL(memcmp(buf + 6, hop.src_mac, 6), 0);
	CU_ASSERT_EQUAL(be16(buf + 12), 0x8808);
	CU_ASSERT_EQUAL(be16(buf + 14), 0x0101);
	CU_ASSERT_EQUAL(be16(buf + 16), 0x0008);             /* class-enable vector: priority 3 */
	for (int c = 0; c < 8; c++)
		CU_ASSERT_EQUAL(be16(buf + 18 + 2 * c), c == 3 ? 0xFFFF : 0);
	for (size_t i = 34; i < len; i++)
		CU_ASSERT_EQUAL(buf[i], 0);
	p = pfc_pkt(1u << 3 | 1u << 5, 0);                   /* resume (XON) of two classes */
	frame_build(&p, &hop, buf);
	CU_ASSERT_EQUAL(be16(buf + 16), 0x0028);
	for (int c = 0; c < 8; c++)
		CU_ASSERT_EQUAL(be16(buf + 18 + 2 * c), 0);
}

static void test_addresses(void)
{
	uint8_t m[6];
	frame_port_mac(0x123456, 0x0102, m);
	static const uint8_t want[6] = { 0x02, 0x12, 0x34, 0x56, 0x01, 0x02 };
	CU_ASSERT_EQUAL(memcmp(m, want, 6), 0);
	/* RFC 1112: 01:00:5e + the low 23 bits of the group address. */
	static const uint8_t mc[6] = { 0x01, 0x00, 0x5E, 0x01, 0x02, 0x03 };
	frame_mcast_mac(0xEF010203u, m);                     /* 239.1.2.3 */
	CU_ASSERT_EQUAL(memcmp(m, mc, 6), 0);
	frame_mcast_mac(0xEF810203u, m);                     /* 239.129.2.3: bit 23 is not mapped */
	CU_ASSERT_EQUAL(memcmp(m, mc, 6), 0);

	/* Multicast data (group 4 = 239.1.0.5) carries the group's address and
	 * MAC on a fabric link; on the link to a host (after the last switch's
	 * rewrite) the receiver's; members' feedback is unicast to the source. */
	struct packet d = data_pkt(OP_WRITE_MIDDLE, 1024, 5);
	d.flags |= PKT_F_MCAST;
	d.mgroup = 4;
	d.dqpn = 0xFFFFFF;
	frame_build(&d, &hop, buf);
	static const uint8_t gmac[6] = { 0x01, 0x00, 0x5E, 0x01, 0x00, 0x05 };
	CU_ASSERT_EQUAL(memcmp(buf, gmac, 6), 0);
	CU_ASSERT_EQUAL(be32(buf + 14 + 16), 0xEF010005u);
	CU_ASSERT_EQUAL(be24(buf + 42 + 5), 0xFFFFFF);
	CU_ASSERT_EQUAL(ip_sum(buf + 14), 0xFFFF);
	struct frame_hop last = hop;
	last.to_host = true;
	d.flags &= (uint8_t)~PKT_F_MCAST;                    /* the rewrite clears it */
	d.dqpn = 0x123;
	frame_build(&d, &last, buf);
	CU_ASSERT_EQUAL(memcmp(buf, hop.dst_mac, 6), 0);
	CU_ASSERT_EQUAL(be32(buf + 14 + 16), 0x0b000101u);   /* host 1 */
	struct packet a = ctrl_pkt(PKT_ACK, 9);
	a.flags |= PKT_F_MCAST;
	a.mgroup = 4;
	frame_build(&a, &hop, buf);
	CU_ASSERT_EQUAL(be32(buf + 14 + 16), 0x0b000001u);   /* the source, host 0 */
}

/* Frames through kernel/pcap.c and back through libpcap: nanosecond
 * timestamps, the snap length, and the ICRC of what was written. */
static void test_pcap_file(void)
{
	char path[] = "/tmp/test_frame_XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	struct packet p[3] = { data_pkt(OP_WRITE_MIDDLE, 1024, 1), ctrl_pkt(PKT_ACK, 1),
			       data_pkt(OP_WRITE_LAST, 1001, 2) };
	simtime_t t[3] = { 0, 1234567891999, 2000000000000 + 1 }; /* ps */
	size_t len[3];
	uint8_t frames[3][1200];
	for (int snap = 0; snap < 2; snap++) {
		char *err = NULL;
		struct pcapw *w = pcapw_open(path, snap ? 100 : 0, &err);
		CU_ASSERT_FATAL(w != NULL);
		for (int i = 0; i < 3; i++) {
			len[i] = frame_build(&p[i], &hop, frames[i]);
			pcapw_write(w, t[i], frames[i], (uint32_t)len[i]);
		}
		CU_ASSERT_EQUAL(pcapw_frames(w), 3);
		CU_ASSERT_EQUAL(pcapw_close(w, &err), 0);

		FILE *f = fopen(path, "rb");
		uint32_t magic = 0;
		CU_ASSERT_EQUAL(fread(&magic, 4, 1, f), 1);
		fclose(f);
		CU_ASSERT_EQUAL(magic, 0xa1b23c4du);         /* nanosecond pcap */
		char eb[PCAP_ERRBUF_SIZE];
		pcap_t *r = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
		CU_ASSERT_FATAL(r != NULL);
		CU_ASSERT_EQUAL(pcap_datalink(r), DLT_EN10MB);
		struct pcap_pkthdr *h;
		const u_char *d;
		for (int i = 0; i < 3; i++) {
			CU_ASSERT_EQUAL_FATAL(pcap_next_ex(r, &h, &d), 1);
			int64_t ns = t[i] / 1000;
			CU_ASSERT_EQUAL(h->ts.tv_sec, ns / 1000000000);
			CU_ASSERT_EQUAL(h->ts.tv_usec, ns % 1000000000);
			CU_ASSERT_EQUAL(h->len, len[i]);
			CU_ASSERT_EQUAL(h->caplen, snap ? (len[i] < 100 ? len[i] : 100) : len[i]);
			CU_ASSERT_EQUAL(memcmp(d, frames[i], h->caplen), 0);
			if (!snap)
				check_icrc(d, h->caplen);
		}
		CU_ASSERT_EQUAL(pcap_next_ex(r, &h, &d), PCAP_ERROR_BREAK);
		pcap_close(r);
	}
	unlink(path);
	/* An unwritable path is refused with the path and the reason. */
	char *err = NULL;
	CU_ASSERT_PTR_NULL(pcapw_open("/nonexistent-dir/x.pcap", 0, &err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent-dir/x.pcap"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file"));
	free(err);
}

static int64_t q1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* What one direction of a capture holds. */
struct dir_sum { int64_t frames, bytes, pfc, ce; simtime_t last_ns; bool ordered; };

/* A whole run (incast into host4 of a star, PFC, ECN at low thresholds,
 * DCQCN, a message size that leaves a padded last packet) tapped on every
 * port of the switch: every frame written has a good IPv4 checksum and ICRC;
 * what each file shows leaving the switch port is exactly what port_stats
 * counts as sent by it (frames, frame bytes = captured + FCS - pad, PFC
 * frames, CE marks), and what it shows arriving is what the host's port
 * sent; each direction is in time order. */
static void test_run_capture(void)
{
	char text[1024], sql[256], path[300];
	snprintf(text, sizeof text,
		 "[topology]\ntype = star\nhosts = 5\nlink_rate = 100Gbps\nlink_delay = 1us\n"
		 "[switch]\nbuffer = 1MB\necn_kmin = 10KB\necn_kmax = 50KB\n"
		 "[nic]\nmtu = 1000\n"
		 "[traffic.in]\ntype = incast\nsenders = host0 host1 host2 host3\nreceiver = host4\n"
		 "size = 300001B\n"
		 "[pcap]\ntaps = sw0\ndir = %s/cap\n", run_tmpdir);
	int rc;
	sqlite3 *db = run_text_rc(text, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	int sw = (int)q1(db, "SELECT node_id FROM node WHERE name = 'sw0'");
	int64_t pfc_all = 0, ce_all = 0;
	for (int port = 0; port < 5; port++) {
		uint8_t mac[6];
		frame_port_mac(sw, port, mac);
		snprintf(path, sizeof path, "%s/cap/sw0-p%d.pcap", run_tmpdir, port);
		char eb[PCAP_ERRBUF_SIZE];
		pcap_t *r = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		struct dir_sum d[2] = { { .ordered = true }, { .ordered = true } }; /* [0] sent, [1] received */
		struct pcap_pkthdr *h;
		const u_char *f;
		int bad = 0;
		while (pcap_next_ex(r, &h, &f) == 1) {
			struct dir_sum *s = &d[memcmp(f + 6, mac, 6) != 0];
			simtime_t ns = (simtime_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;
			s->ordered &= ns >= s->last_ns;
			s->last_ns = ns;
			s->frames++;
			if (be16(f + 12) == 0x8808) {
				s->pfc++;
				s->bytes += h->len + 4;
				bad += be16(f + 14) != 0x0101;
				continue;
			}
			const uint8_t *ip = f + 14;
			bad += be16(f + 12) != 0x0800 || ip_sum(ip) != 0xFFFF || be16(ip + 22) != 4791 ||
			       be16(ip + 2) != h->len - 14 || icrc_stored(f, h->len) != icrc_reference(f, h->len);
			s->ce += (ip[1] & 3) == 3;
			s->bytes += h->len + 4 - ((f[FRAME_BTH_OFF + 1] >> 4) & 3);
		}
		pcap_close(r);
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT(d[0].ordered && d[1].ordered);
		snprintf(sql, sizeof sql, "SELECT tx_packets FROM port_stats WHERE node = 'sw0' AND port = %d", port);
		CU_ASSERT_EQUAL(d[0].frames, q1(db, sql));
		snprintf(sql, sizeof sql, "SELECT tx_bytes FROM port_stats WHERE node = 'sw0' AND port = %d", port);
		CU_ASSERT_EQUAL(d[0].bytes, q1(db, sql));
		snprintf(sql, sizeof sql, "SELECT pause_frames_tx FROM port_stats WHERE node = 'sw0' AND port = %d", port);
		CU_ASSERT_EQUAL(d[0].pfc, q1(db, sql));
		snprintf(sql, sizeof sql, "SELECT ecn_marked FROM port_stats WHERE node = 'sw0' AND port = %d", port);
		CU_ASSERT_EQUAL(d[0].ce, q1(db, sql));
		snprintf(sql, sizeof sql, "SELECT tx_packets FROM port_stats WHERE node = 'host%d'", port);
		CU_ASSERT_EQUAL(d[1].frames, q1(db, sql));
		snprintf(sql, sizeof sql, "SELECT tx_bytes FROM port_stats WHERE node = 'host%d'", port);
		CU_ASSERT_EQUAL(d[1].bytes, q1(db, sql));
		CU_ASSERT_EQUAL(d[1].ce, 0);                 /* hosts never mark */
		pfc_all += d[0].pfc;
		ce_all += d[0].ce;
	}
	CU_ASSERT(pfc_all > 0);                              /* the run exercised PFC and ECN */
	CU_ASSERT(ce_all > 0);
	sqlite3_close(db);
}

TEST_MAIN("frame",
	  { "sizes", test_sizes },
	  { "pad", test_pad },
	  { "ethernet_ipv4_udp", test_ethernet_ipv4_udp },
	  { "bth_and_extensions", test_bth_and_extensions },
	  { "icrc", test_icrc },
	  { "pfc", test_pfc },
	  { "addresses", test_addresses },
	  { "pcap_file", test_pcap_file },
	  { "run_capture", test_run_capture })
