/*
 * test_multicast.c — multicast in the network (models/mcast*.c): trees,
 * switch replication, aggregated feedback, go-back-N recovery, UD.
 *
 * Numbers come from closed forms: frame bytes of a message (PKT_* sizes:
 * N packets × 62 B of headers + the payload + 16 B of RETH on the first),
 * ACK frames of 66 B, S × 8 / B for the time a link needs to carry S bytes
 * (B = the rate net of the 82 B of framing each packet pays on the wire),
 * and the tree of a leaf-spine (each member's host link, the source's, one
 * uplink and one downlink per other leaf).
 */
#include <math.h>
#include <stdarg.h>
#include "host_fixture.h"
#include "ideal.h"
#include "mcast.h"
#include "packet.h"
#include "port.h"
#include "run_fixture.h"
#include "sqlutil.h"

#define GBPS 1000000000.0

/* Frame bytes (no preamble/gap) of a message of s bytes with MTU mtu. */
static uint64_t msg_frame_b(uint64_t s, int mtu)
{
	uint64_t n = (s + (uint64_t)mtu - 1) / (uint64_t)mtu;
	return n * PKT_ROCE_OVERHEAD_B + s + PKT_RETH_B;
}

/* Seconds a link of rate_bps needs for a message of s bytes in MTU packets
 * (frames plus preamble and gap). */
static double msg_wire_s(uint64_t s, int mtu, double rate_bps)
{
	uint64_t n = (s + (uint64_t)mtu - 1) / (uint64_t)mtu;
	return (double)(msg_frame_b(s, mtu) + n * PKT_WIRE_EXTRA_B) * 8 / rate_bps;
}

static sqlite3 *run_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static sqlite3 *run_fmt(const char *fmt, ...)
{
	static char text[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	sqlite3 *h = run_text(text);
	if (h) { /* every run: complete, and sent = delivered + dropped (copies included) */
		CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
		CU_ASSERT_EQUAL(q_int(h, "SELECT packets_sent - packets_delivered - packets_dropped FROM run"), 0);
	}
	return h;
}

static long long qf(sqlite3 *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static long long qf(sqlite3 *h, const char *fmt, ...)
{
	char sql[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sql, sizeof sql, fmt, ap);
	va_end(ap);
	return q_int(h, sql);
}

#define LEAF_SPINE "[simulation]\nprogress = off\n[topology]\ntype = leaf_spine\nleaves = 4\nspines = 2\n" \
		   "hosts_per_leaf = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
#define GROUP_ALL "[multicast]\ngroup = g host0 host1 host2 host3 host4 host5 host6 host7\n" \
		  "[traffic.b]\ntype = multicast\ngroup = g\n"

/* Broadcast of S to 7 receivers on an idle leaf-spine: the source's link
 * carries the message once, every receiver gets exactly its frames, and
 * every receiver completes within 10% of S/B. */
static void test_broadcast_idle(void)
{
	const uint64_t S = 4000000;
	const int mtu = 4096;
	sqlite3 *h = run_fmt(LEAF_SPINE "[nic]\nmtu = %d\n" GROUP_ALL "size = %lluB\n", mtu,
			     (unsigned long long)S);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	uint64_t frames = msg_frame_b(S, mtu);
	CU_ASSERT_EQUAL(qf(h, "SELECT tx_bytes FROM port_stats WHERE node = 'host0'"), (long long)frames);
	for (int m = 1; m < 8; m++)
		CU_ASSERT_EQUAL(qf(h, "SELECT rx_bytes FROM port_stats WHERE node = 'host%d'", m), (long long)frames);
	CU_ASSERT_EQUAL(qf(h, "SELECT sum(drops) FROM port_stats"), 0);
	CU_ASSERT_EQUAL(qf(h, "SELECT sum(retx_packets) FROM flow"), 0);
	/* S/B: the payload alone at the link rate; the bound leaves 10%. */
	double sb = (double)S * 8 / (100 * GBPS);
	CU_ASSERT_EQUAL(qf(h, "SELECT count(*) FROM flow WHERE dst LIKE 'host%%' AND recv_end_ps = end_ps"
			   " AND recv_end_ps >= %lld AND recv_end_ps <= %lld", (long long)(sb * 1e12),
			   (long long)(1.10 * sb * 1e12)), 7);
	/* One sender row (dst = the group) finishing after the last receiver. */
	CU_ASSERT_EQUAL(qf(h, "SELECT count(*) FROM flow WHERE dst = 'g' AND src = 'host0' AND end_ps >="
			   " (SELECT max(recv_end_ps) FROM flow WHERE dst LIKE 'host%%')"
			   " AND recv_end_ps = (SELECT max(recv_end_ps) FROM flow WHERE dst LIKE 'host%%')"), 1);
	/* Tree: 7 member links + the source's + 1 uplink + 3 downlinks of the spine. */
	CU_ASSERT_EQUAL(qf(h, "SELECT tree_links FROM multicast_group WHERE name = 'g' AND source = 'host0'"
			   " AND members = 7 AND group_id = 0"), 12);
	/* Replication happens at switches only: the spine sends 3 copies of each frame. */
	CU_ASSERT_EQUAL(qf(h, "SELECT sum(tx_bytes) FROM port_stats WHERE node LIKE 'spine%%'"
			   " AND tx_bytes > %lld", (long long)S), (long long)(3 * frames));
	sqlite3_close(h);
}

/* Aggregated ACKs: with every packet acknowledged by each of 7 members,
 * the sender still receives at most one ACK per packet. */
static void test_aggregated_acks(void)
{
	const uint64_t S = 1000000;
	const int mtu = 1000;
	sqlite3 *h = run_fmt(LEAF_SPINE "[switch]\necn = off\n[nic]\nmtu = %d\nack_every = 1\n" GROUP_ALL
			     "size = %lluB\n", mtu, (unsigned long long)S);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	long long n = (long long)(S / (uint64_t)mtu);
	long long sender_rx = qf(h, "SELECT rx_bytes FROM port_stats WHERE node = 'host0'");
	long long members_tx = qf(h, "SELECT sum(tx_bytes) FROM port_stats WHERE node LIKE 'host%%' AND node != 'host0'");
	CU_ASSERT_EQUAL(members_tx, 7 * n * PKT_ACK_FRAME_B);   /* each member ACKs every packet */
	CU_ASSERT_EQUAL(sender_rx % PKT_ACK_FRAME_B, 0);
	CU_ASSERT(sender_rx / PKT_ACK_FRAME_B >= 1);
	CU_ASSERT(sender_rx / PKT_ACK_FRAME_B <= n);            /* one stream, not 7 */
	printf("\n    ACKs: members sent %lld, the sender received %lld (%lld packets) ",
	       members_tx / PKT_ACK_FRAME_B, sender_rx / PKT_ACK_FRAME_B, n);
	sqlite3_close(h);
}

/* A lossy class and a small buffer: a unicast flow into member host3
 * makes its branch drop; go-back-N from the aggregated NAK recovers and
 * every member completes with every byte. */
static void test_lossy_branch_recovers(void)
{
	const uint64_t S = 2000000;
	sqlite3 *h = run_fmt("[simulation]\nprogress = off\n[topology]\ntype = star\nhosts = 5\n"
			     "link_rate = 100Gbps\nlink_delay = 1us\n[switch]\npfc = off\nbuffer = 200KB\necn = off\n"
			     "[nic]\nmtu = 1000\ncc = none\n[multicast]\ngroup = g host0 host1 host2 host3\n"
			     "[traffic.b]\ntype = multicast\ngroup = g\nsize = %lluB\n"
			     "[traffic.u]\ntype = flows\nflow = host4 host3 2MB 0us\n", (unsigned long long)S);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT(q_int(h, "SELECT drops FROM port_stats WHERE node = 'sw0' AND port = 3") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(drops) FROM port_stats WHERE NOT (node = 'sw0' AND port = 3)"), 0);
	CU_ASSERT(q_int(h, "SELECT retx_packets FROM flow WHERE dst = 'g'") > 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.b' AND end_ps IS NOT NULL"
			      " AND recv_end_ps IS NOT NULL"), 4);
	/* Every byte: each member's port received at least the message's frames. */
	for (int m = 1; m <= 2; m++)
		CU_ASSERT(qf(h, "SELECT rx_bytes FROM port_stats WHERE node = 'host%d'", m) >=
			  (long long)msg_frame_b(S, 1000));
	CU_ASSERT(q_int(h, "SELECT rx_bytes FROM port_stats WHERE node = 'host3'") >=
		  (long long)(msg_frame_b(S, 1000) + msg_frame_b(2000000, 1000)));
	sqlite3_close(h);
}

/* A congested branch (a unicast flow shares member host3's link) with
 * DCQCN and PFC: the members' CNPs reach the sender through the tree, so
 * the whole group slows to the congested branch (alone the other members
 * would finish in S/B, at about half of host3's time), and nothing drops. */
static void test_congested_branch_dcqcn(void)
{
	const uint64_t S = 4000000;
	sqlite3 *h = run_fmt("[simulation]\nprogress = off\n[topology]\ntype = star\nhosts = 5\n"
			     "link_rate = 100Gbps\nlink_delay = 1us\n[nic]\nmtu = 1000\n"
			     "[multicast]\ngroup = g host0 host1 host2 host3\n"
			     "[traffic.b]\ntype = multicast\ngroup = g\nsize = %lluB\n"
			     "[traffic.u]\ntype = flows\nflow = host4 host3 %lluB 0us\n",
			     (unsigned long long)S, (unsigned long long)S);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(drops) FROM port_stats"), 0);
	CU_ASSERT(q_int(h, "SELECT cnp_received FROM flow WHERE dst = 'g'") > 0);
	double slow = (double)q_int(h, "SELECT recv_end_ps FROM flow WHERE source = 'traffic.b' AND dst = 'host3'");
	/* host3's link carries 2 S: its last byte cannot come before 2 S/B. */
	CU_ASSERT(slow * 1e-12 >= 2 * msg_wire_s(S, 1000, 100 * GBPS));
	for (int m = 1; m <= 2; m++) {
		double t = (double)qf(h, "SELECT recv_end_ps FROM flow WHERE source = 'traffic.b' AND dst = 'host%d'", m);
		printf("\n    host%d %.1f us, host3 %.1f us", m, t * 1e-6, slow * 1e-6);
		CU_ASSERT(t >= 0.95 * slow);
	}
	sqlite3_close(h);
}

/* UD (reliable = off): no feedback at all, every member still gets every
 * frame on a lossless fabric. */
static void test_ud(void)
{
	const uint64_t S = 1000000;
	sqlite3 *h = run_fmt(LEAF_SPINE "[nic]\nmtu = 1000\n[multicast]\nreliable = off\n"
			     "group = g host0 host1 host2 host5\n[traffic.b]\ntype = multicast\ngroup = g\nsize = %lluB\n",
			     (unsigned long long)S);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT rx_bytes FROM port_stats WHERE node = 'host0'"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(tx_bytes) FROM port_stats WHERE node IN ('host1', 'host2', 'host5')"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM port_stats WHERE node IN ('host1', 'host2', 'host5')"
			      " AND rx_bytes = (SELECT tx_bytes FROM port_stats WHERE node = 'host0')"), 3);
	CU_ASSERT_EQUAL(qf(h, "SELECT tx_bytes FROM port_stats WHERE node = 'host0'"), (long long)msg_frame_b(S, 1000));
	/* The sender completes when its last frame left: S at line rate. */
	long long end = q_int(h, "SELECT end_ps FROM flow WHERE dst = 'g'");
	CU_ASSERT(llabs(end - (long long)(msg_wire_s(S, 1000, 100 * GBPS) * 1e12)) <= 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT fct_ps = ideal_fct_ps FROM flow WHERE dst = 'g'"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE recv_end_ps IS NOT NULL"), 4);
	sqlite3_close(h);
}

/* Bad members are located input errors: exit 2, file:line, section, key. */
static void test_errors(void)
{
	static const char *bad[] = { "group = g host0 host1 host9", "group = g host0 host0 host1",
				     "group = g host0 host1 host1" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[1024];
		snprintf(text, sizeof text, "[simulation]\nprogress = off\n[topology]\ntype = star\nhosts = 4\n"
			 "link_rate = 100Gbps\nlink_delay = 1us\n[multicast]\n%s\n"
			 "[traffic.b]\ntype = multicast\ngroup = g\nsize = 1MB\n", bad[i]);
		int rc;
		sqlite3 *h = run_text_rc(text, &rc);
		CU_ASSERT_PTR_NULL(h);
		CU_ASSERT_EQUAL(rc, EXIT_INPUT);
		CU_ASSERT_PTR_NOT_NULL(strstr(run_err, ":9"));        /* the group line */
		CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "[multicast]"));
		CU_ASSERT_PTR_NOT_NULL(strstr(run_err, "group"));
		printf("\n    %s", run_err);
		if (h)
			sqlite3_close(h);
	}
}

/* Same scenario and seed: byte-identical flow and group tables. */
static void test_determinism(void)
{
	char *t[2];
	for (int i = 0; i < 2; i++) {
		sqlite3 *h = run_fmt(LEAF_SPINE "[nic]\nmtu = 1000\n[multicast]\n"
				     "group = g host0 host1 host2 host3 host4 host5 host6 host7\n"
				     "group = k host3 host0 host6\n"
				     "[traffic.b]\ntype = multicast\ngroup = g\nsize = 300KB\n"
				     "[traffic.c]\ntype = multicast\ngroup = k\nsize = 500KB\nstart = 3us\n"
				     "[traffic.u]\ntype = flows\nflow = host1 host6 400KB 1us\n");
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		t[i] = q_text(h, "SELECT group_concat(x, ';') FROM (SELECT flow_id || ',' || src || ',' || dst || ','"
			      " || end_ps || ',' || recv_end_ps || ',' || ecn_marked AS x FROM flow ORDER BY flow_id)");
		sqlite3_close(h);
	}
	CU_ASSERT(strlen(t[0]) > 100);
	CU_ASSERT_STRING_EQUAL(t[0], t[1]);
	free(t[0]);
	free(t[1]);
}

/* ---- The API on a built world (host_fixture.h) ---- */

struct seen {
	simtime_t recv[8];
	simtime_t done;
};

static void on_recv(struct sim *sim, void *ctx, int member)
{
	struct seen *s = ctx;
	CU_ASSERT_EQUAL(s->recv[member], -1);
	s->recv[member] = sim->now;
}

static void on_done(struct sim *sim, void *ctx)
{
	struct seen *s = ctx;
	s->done = sim->now;
}

struct post_ev { struct world *w; struct mcast_group *g; struct mcast_msg m; };

static void post_ev(struct sim *sim, void *obj, uintptr_t arg)
{
	struct post_ev *p = obj;
	(void)sim;
	(void)arg;
	mcast_post(p->w, p->g, &p->m);
}

/* Finding groups, rejecting bad members, distinct addresses, and trees
 * that spread over the spines. */
static void test_api_groups(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, LEAF_SPINE), 0);
	struct world *w = &b.w;
	char *err = NULL;
	int d[] = { 2, 4, 6 }, d2[] = { 6, 2, 4 }, d3[] = { 2, 4 }, dup[] = { 2, 2 }, self[] = { 0, 3 };
	struct mcast_group *g = mcast_group_create(w, "a", 0, d, 3, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_PTR_EQUAL(mcast_group_find(w, 0, d2, 3), g);
	CU_ASSERT_PTR_NULL(mcast_group_find(w, 0, d3, 2));
	CU_ASSERT_PTR_NULL(mcast_group_find(w, 1, d, 3));
	CU_ASSERT_PTR_NULL(mcast_group_create(w, "x", 0, dup, 2, &err));
	CU_ASSERT(err && strstr(err, "twice"));
	free(err);
	err = NULL;
	CU_ASSERT_PTR_NULL(mcast_group_create(w, "x", 0, self, 2, &err));
	CU_ASSERT(err && strstr(err, "source"));
	free(err);
	err = NULL;
	CU_ASSERT_EQUAL(mcast_group_ip(g) >> 28, 0xE);                  /* 224.0.0.0/4 */
	CU_ASSERT_STRING_EQUAL(mcast_group_name(g), "a");
	CU_ASSERT_PTR_EQUAL(mcast_group_by_id(w, mcast_group_id(g)), g);
	/* 16 groups host0 -> {host2, host4}: each leaves leaf0 by one uplink
	 * (a tree), and not all by the same one (groups spread). */
	int used[2] = { 0, 0 };
	const struct node *leaf0 = &w->fab.nodes[w->fab.n_hosts];
	for (int i = 0; i < 16; i++) {
		char name[16];
		snprintf(name, sizeof name, "s%d", i);
		struct mcast_group *s = mcast_group_create(w, name, 0, d3, 2, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_NOT_EQUAL(mcast_group_ip(s), mcast_group_ip(g));
	}
	/* Send one packet on each and count which uplink carried it. */
	struct seen seen[16];
	struct post_ev ev[16];
	for (int i = 0; i < 16; i++) {
		for (int k = 0; k < 8; k++)
			seen[i].recv[k] = -1;
		seen[i].done = -1;
		ev[i] = (struct post_ev){ w, mcast_group_by_id(w, i + 1),
					  { .size_b = 100, .source = "test", .parallelism = "micro",
					    .iteration = -1, .collective_id = -1, .src_gpu = -1,
					    .on_recv = on_recv, .on_done = on_done, .ctx = &seen[i] } };
		sched_at(&b.sim, (simtime_t)i * 10000000, &b.sim.kernel, post_ev, &ev[i], 0);
	}
	int up0 = -1; /* leaf0's uplinks are two consecutive ports */
	for (int p = leaf0->n_ports - 1; p >= 0; p--)
		if (leaf0->ports[p].peer->node->kind == NODE_SWITCH)
			up0 = p;
	CU_ASSERT_STRING_EQUAL_FATAL(leaf0->name, "leaf0");
	CU_ASSERT_FATAL(up0 >= 0 && up0 + 1 < leaf0->n_ports &&
			leaf0->ports[up0 + 1].peer->node->kind == NODE_SWITCH);
	for (int i = 0; i < 16; i++) {
		uint64_t t0 = leaf0->ports[up0].tx_packets, t1 = leaf0->ports[up0 + 1].tx_packets;
		b.sim.stop_at = (simtime_t)(i + 1) * 10000000 - 1;
		sim_run(&b.sim);
		uint64_t d0 = leaf0->ports[up0].tx_packets - t0, d1 = leaf0->ports[up0 + 1].tx_packets - t1;
		CU_ASSERT_EQUAL(d0 + d1, 1);                  /* one copy up: a tree */
		used[d1 ? 1 : 0]++;
		CU_ASSERT(seen[i].recv[0] > 0 && seen[i].recv[1] > 0 && seen[i].done >= seen[i].recv[0]);
	}
	CU_ASSERT(used[0] > 0 && used[1] > 0);
	printf("\n    16 groups: %d via the first spine, %d via the second ", used[0], used[1]);
	b.sim.stop_at = SIMTIME_NEVER;
	sim_run(&b.sim);
	CU_ASSERT_EQUAL(w->flows_done, w->flows_posted);
	world_check_drained(w);
	bed_close(&b);
}

/* One slow member (its link at a quarter of the rate) with PFC and no
 * congestion control: the group's rate follows it (the fast members finish
 * near the slow one's S/B), nothing is dropped, and the source is paused. */
static void test_slow_member(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, "[simulation]\nprogress = off\n[topology]\ntype = star\nhosts = 4\n"
				       "link_rate = 100Gbps\nlink_delay = 1us\n[switch]\nbuffer = 1MB\necn = off\n"
				       "[nic]\nmtu = 1000\ncc = none\n"), 0);
	struct world *w = &b.w;
	/* host3's link, both directions, at 25 Gb/s. */
	struct port *hp = w->eps[3].port, *sp = hp->peer;
	hp->rate_bps = sp->rate_bps = 25000000000ull;
	hp->ps_per_byte = sp->ps_per_byte = (uint32_t)(8000000000000ull / hp->rate_bps);
	char *err = NULL;
	int d[] = { 1, 2, 3 };
	struct mcast_group *g = mcast_group_create(w, "slow", 0, d, 3, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	const uint64_t S = 4000000;
	struct seen s = { { -1, -1, -1 }, -1 };
	struct post_ev ev = { w, g, { .size_b = S, .source = "test", .parallelism = "micro", .iteration = -1,
				      .collective_id = -1, .src_gpu = -1, .on_recv = on_recv,
				      .on_done = on_done, .ctx = &s } };
	sched_at(&b.sim, 0, &b.sim.kernel, post_ev, &ev, 0);
	sim_run(&b.sim);
	CU_ASSERT_EQUAL(w->flows_done, w->flows_posted);
	world_check_drained(w);
	double slow = msg_wire_s(S, 1000, 25 * GBPS);
	for (int m = 0; m < 3; m++) {
		double t = (double)s.recv[m] * 1e-12;
		printf("\n    member %d: %.1f us (S/B at 25 Gb/s %.1f us)", m, t * 1e6, slow * 1e6);
		CU_ASSERT(t >= 0.9 * slow);   /* follows the slow member */
		CU_ASSERT(t <= 1.1 * slow);
	}
	uint64_t drops = 0;
	for (int i = 0; i < w->fab.n_ports; i++)
		drops += w->fab.ports[i].drops;
	CU_ASSERT_EQUAL(drops, 0);
	CU_ASSERT_EQUAL(b.sim.packets_dropped, 0);
	CU_ASSERT(w->eps[0].port->pause_rx > 0);       /* the source was paused */
	bed_close(&b);
}

TEST_MAIN("multicast",
	  { "broadcast on an idle fabric: S once, every byte, S/B", test_broadcast_idle },
	  { "aggregated ACKs: one stream to the sender", test_aggregated_acks },
	  { "lossy branch recovered by go-back-N", test_lossy_branch_recovers },
	  { "congested branch: CNPs through the tree slow the group", test_congested_branch_dcqcn },
	  { "UD multicast: no feedback", test_ud },
	  { "bad members: located errors", test_errors },
	  { "same seed, same tables", test_determinism },
	  { "API: find, errors, addresses, trees spread", test_api_groups },
	  { "slow member: rate follows it, no drops under PFC", test_slow_member })
