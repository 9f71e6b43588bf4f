/*
 * test_cc_path.c — what the NIC and the fabric hand a congestion controller
 * that reads ACKs (cc.h on_ack), on small real fabrics: RTT samples,
 * in-band telemetry, the ECN echo, NAKs, coalesced ACKs, windows, the
 * class of ACKs ([nic] ack_priority) and T, the fabric's largest base RTT
 * (path.h fabric_base_rtt).
 *
 * The controller is a mock defined here and plugged into every NIC with
 * nic_set_cc (the registry is generated from models/cc/Makefile.inc): it
 * sends at a fixed rate, may keep a fixed window, asks for telemetry and
 * logs every ACK it sees. Worlds come from scenario text (host_fixture.h).
 *
 * Times are closed forms of store-and-forward on idle links: a frame of F
 * bytes takes (F + 20) x 8 / rate on each link it leaves by (preamble and
 * gap, packet.h), then the link's delay D, then the latency L of the switch
 * it reaches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "fabric.h"
#include "frame.h"
#include "host_fixture.h"
#include "nic.h"
#include "packet.h"
#include "path.h"
#include "qp.h"
#include "testutil.h"

#define PS_PER_B_100G 80           /* 8e12 / 100e9 */
#define D_PS 1000000               /* link_delay = 1us */
#define L_PS 300000                /* switch_latency = 300ns */

/* ---- The mock controller ---- */

struct mock_params { uint64_t rate_bps; uint64_t window_b; /* 0: line rate / no window */ };
struct mock_st { uint64_t rate_bps, window_b; };

struct ack_seen {
	struct cc_ack a;
	struct cc_int_hop hop[CC_INT_MAX_HOPS];
	simtime_t at;
};
#define MAX_ACKS 20000
static struct ack_seen acks[MAX_ACKS];
static int n_acks;
static struct cc_env env_seen;
static int n_inits;

static void mock_init(void *st, const void *params, const struct cc_env *env, simtime_t now)
{
	const struct mock_params *p = params;
	struct mock_st *s = st;
	(void)now;
	s->rate_bps = p->rate_bps ? p->rate_bps : env->line_bps;
	s->window_b = p->window_b;
	env_seen = *env;
	n_inits++;
}

static void mock_on_ack(void *st, const struct cc_ack *ack, simtime_t now)
{
	(void)st;
	CU_ASSERT_FATAL(n_acks < MAX_ACKS);
	struct ack_seen *r = &acks[n_acks++];
	r->a = *ack;
	CU_ASSERT_FATAL(ack->n_hops <= CC_INT_MAX_HOPS);
	if (ack->n_hops)
		memcpy(r->hop, ack->hop, ack->n_hops * sizeof *ack->hop);
	r->a.hop = NULL;
	r->at = now;
}

static void mock_on_sent(void *st, uint32_t wire_b, simtime_t now) { (void)st; (void)wire_b; (void)now; }
static void mock_on_timer(void *st, simtime_t now) { (void)st; (void)now; }
static simtime_t mock_next_timer(const void *st) { (void)st; return SIMTIME_NEVER; }
static uint64_t mock_rate(const void *st) { return ((const struct mock_st *)st)->rate_bps; }
static uint64_t mock_window(const void *st) { return ((const struct mock_st *)st)->window_b; }
static void mock_sample(const void *st, struct cc_sample *out)
{
	*out = (struct cc_sample){ .rate_bps = mock_rate(st) };
}

static const struct cc_ops mock_ops = {
	.name = "mock", .state_b = sizeof(struct mock_st), .needs = CC_NEEDS_INT,
	.init = mock_init, .on_ack = mock_on_ack, .on_sent = mock_on_sent, .on_timer = mock_on_timer,
	.next_timer = mock_next_timer, .rate_bps = mock_rate, .sample = mock_sample,
};
/* The same with a window of its own (as Swift has). */
static const struct cc_ops mock_win_ops = {
	.name = "mock_win", .state_b = sizeof(struct mock_st), .needs = CC_NEEDS_INT,
	.init = mock_init, .on_ack = mock_on_ack, .on_sent = mock_on_sent, .on_timer = mock_on_timer,
	.next_timer = mock_next_timer, .rate_bps = mock_rate, .window_b = mock_window, .sample = mock_sample,
};

static struct mock_params params;

static void plug(struct bed *b, const struct cc_ops *ops)
{
	n_acks = 0;
	n_inits = 0;
	memset(&env_seen, 0, sizeof env_seen);
	for (int e = 0; e < b->w.n_eps; e++)
		nic_set_cc(b->w.eps[e].nic, ops, &params);
}

/* What a finished flow said. */
struct done { simtime_t start, end; uint64_t ecn_marked; int n; };
static void on_done(struct sim *sim, struct flow *f, void *ctx)
{
	struct done *d = ctx;
	(void)sim;
	d->start = f->start;
	d->end = f->end;
	d->ecn_marked += f->ecn_marked;
	d->n++;
}

static struct flow *post(struct bed *b, int src, int dst, uint64_t size, struct done *d)
{
	struct flow *f = nic_post(&b->w, src, dst, size, "test", "none");
	f->on_done = on_done;
	f->on_done_ctx = d;
	return f;
}

static void run(struct bed *b)
{
	sim_run(&b->sim);
	CU_ASSERT_EQUAL(b->w.flows_done, b->w.flows_posted);
	world_check_drained(&b->w); /* every frame and side record returned */
	CU_ASSERT_EQUAL(b->w.fab.tel.live, 0);
}

#define DUMBBELL(L, R) \
	"[simulation]\nseed = 1\n" \
	"[topology]\ntype = dumbbell\nhosts_left = " #L "\nhosts_right = " #R "\n" \
	"link_rate = 100Gbps\nlink_delay = 1us\nswitch_latency = 300ns\n" \
	"[nic]\nmtu = 1000\ncc = none\n"

/* Frame bytes with the INT header (the mock needs telemetry). */
#define F_FIRST (PKT_ROCE_OVERHEAD_B + PKT_RETH_B + 1000 + PKT_INT_B)  /* 1120 */
#define F_MID (PKT_ROCE_OVERHEAD_B + 1000 + PKT_INT_B)                 /* 1104 */
#define F_ACK (PKT_ACK_FRAME_B + PKT_INT_B)                            /* 108 */
#define SER(F) ((simtime_t)((F) + PKT_WIRE_EXTRA_B) * PS_PER_B_100G)

/* Idle dumbbell host0 -> sw0 -> sw1 -> host1 and back: three links each
 * way, two switches each way:
 *   RTT(F) = 3 ser(F) + 3 ser(ACK) + 6 D + 4 L. */
static simtime_t dumbbell_rtt(uint32_t frame_b)
{
	return 3 * SER(frame_b) + 3 * SER(F_ACK) + 6 * (simtime_t)D_PS + 4 * (simtime_t)L_PS;
}

/* A train of n packets (frame bytes fb[i]) leaving host0 back to back over
 * the idle dumbbell, store and forward (ideal.h's grid): packet i starts on
 * link j at
 *   start(i,0) = sum of ser(fb[k]) for k < i,
 *   start(i,j) = max(start(i,j-1) + ser(fb[i]) + D + L, start(i-1,j) + ser(fb[i-1])),
 * which is when switch j-1 stamps it (a smaller frame behind a larger one
 * waits for it); it lands at host1 at start(i,2) + ser + D, and its ACK
 * returns over idle links in 3 ser(ACK) + 3 D + 2 L. */
struct train { simtime_t sent, hop_ts[2], rtt; };
static void train(const uint32_t *fb, int n, struct train *out)
{
	simtime_t prev[3] = { 0 }, s = 0;
	for (int i = 0; i < n; i++) {
		simtime_t st[3];
		st[0] = s;
		for (int j = 1; j < 3; j++) {
			st[j] = st[j - 1] + SER(fb[i]) + D_PS + L_PS;
			if (i && prev[j] + SER(fb[i - 1]) > st[j])
				st[j] = prev[j] + SER(fb[i - 1]);
		}
		out[i].sent = s;
		out[i].hop_ts[0] = st[1];
		out[i].hop_ts[1] = st[2];
		out[i].rtt = st[2] + SER(fb[i]) + D_PS + 3 * SER(F_ACK) + 3 * (simtime_t)D_PS + 2 * (simtime_t)L_PS - s;
		memcpy(prev, st, sizeof st);
		s += SER(fb[i]);
	}
}

static void tap_rx(struct port_tap *t, simtime_t at, const struct packet *p) { (void)t; (void)at; (void)p; }

/* ---- Tests ---- */

static void test_rtt_and_telemetry_on_an_idle_path(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, DUMBBELL(1, 1)), 0);
	params = (struct mock_params){ 0 };
	plug(&b, &mock_ops);
	struct done d = { 0 };
	post(&b, 0, 1, 3000, &d); /* three packets: first (RETH), middle, last, 1000 B each */
	run(&b);
	/* The controller's environment: line rate, MTU, the two switches of
	 * the path, and T = the round trip of a full middle frame (one path). */
	CU_ASSERT_EQUAL(n_inits, 1);
	CU_ASSERT_EQUAL(env_seen.line_bps, 100000000000ull);
	CU_ASSERT_EQUAL(env_seen.mtu_b, 1000);
	CU_ASSERT_EQUAL(env_seen.hops, 2);
	CU_ASSERT_EQUAL(env_seen.base_rtt, dumbbell_rtt(F_MID));
	/* 3 (1124 + 128) x 80 + 6e6 + 4 x 3e5 = 300 480 + 7.2e6 */
	CU_ASSERT_EQUAL(dumbbell_rtt(F_MID), 7500480);
	CU_ASSERT_EQUAL_FATAL(n_acks, 3); /* ack_every = 1 */
	const uint32_t fb[3] = { F_FIRST, F_MID, F_MID };
	struct train tr[3];
	train(fb, 3, tr);
	/* The first packet meets no one: its RTT is the idle round trip. */
	CU_ASSERT_EQUAL(tr[0].rtt, dumbbell_rtt(F_FIRST));
	/* The others wait (1120 - 1104) x 80 ps behind it at each switch. */
	CU_ASSERT_EQUAL(tr[1].rtt, dumbbell_rtt(F_MID) + 2 * 16 * PS_PER_B_100G);
	uint64_t tx = 0;
	for (int i = 0; i < 3; i++) {
		const struct ack_seen *r = &acks[i];
		/* RTT = now - send time of the packet the ACK answers. */
		CU_ASSERT_EQUAL(r->a.rtt, tr[i].rtt);
		CU_ASSERT_EQUAL(r->at, tr[i].sent + tr[i].rtt);
		CU_ASSERT_EQUAL(r->a.acked_b, 1000);
		CU_ASSERT_EQUAL(r->a.snd_una_b, 1000u * (unsigned)(i + 1));
		CU_ASSERT_EQUAL(r->a.snd_nxt_b, 3000); /* all three went out back to back */
		CU_ASSERT(!r->a.ecn);
		CU_ASSERT(!r->a.nak);
		/* One hop per switch on the path, the first switch first. */
		CU_ASSERT_EQUAL_FATAL(r->a.n_hops, 2);
		tx += fb[i] + PKT_WIRE_EXTRA_B;
		/* Hop j stamps when the frame leaves switch j (start(i, j+1));
		 * tx_b: line bytes the egress sent, this frame's included (no other
		 * traffic uses those ports); nothing is queued behind a frame. */
		for (int j = 0; j < 2; j++) {
			CU_ASSERT_EQUAL(r->hop[j].ts, tr[i].hop_ts[j]);
			CU_ASSERT_EQUAL(r->hop[j].qlen_b, 0);
			CU_ASSERT_EQUAL(r->hop[j].tx_b, tx);
			CU_ASSERT_EQUAL(r->hop[j].rate_bps, 100000000000ull);
		}
		if (i) /* tx_b grows by the frame's line bytes between packets */
			CU_ASSERT_EQUAL(r->hop[0].tx_b - acks[i - 1].hop[0].tx_b, fb[i] + PKT_WIRE_EXTRA_B);
	}
	bed_close(&b);
}

static void test_coalesced_acks_answer_the_latest_packet(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, DUMBBELL(1, 1) "ack_every = 4\n"), 0);
	params = (struct mock_params){ 0 };
	plug(&b, &mock_ops);
	struct done d = { 0 };
	post(&b, 0, 1, 40000, &d); /* 40 packets: one ACK per 4 */
	run(&b);
	CU_ASSERT_EQUAL_FATAL(n_acks, 10);
	uint32_t fb[40];
	struct train tr[40];
	for (int i = 0; i < 40; i++)
		fb[i] = i ? F_MID : F_FIRST;
	train(fb, 40, tr);
	for (int k = 0; k < 10; k++) {
		/* ACK k answers packet 4k + 3 (the latest accepted), not 4k. */
		CU_ASSERT_EQUAL(acks[k].a.rtt, tr[4 * k + 3].rtt);
		CU_ASSERT_EQUAL(acks[k].at, tr[4 * k + 3].sent + tr[4 * k + 3].rtt);
		CU_ASSERT_EQUAL(acks[k].a.acked_b, 4000);
	}
	bed_close(&b);
}

/* Captured bytes: the receiver's ACKs (BECN bit of the BTH) and the
 * senders' data (length against the line frame). */
struct cap_tap { struct port_tap tap; int acks, becn, data, data_len_ok; };
static void cap_tx(struct port_tap *t, simtime_t at, const struct packet *p)
{
	struct cap_tap *c = (struct cap_tap *)t;
	static uint8_t buf[FRAME_MAX_B];
	static const struct frame_hop hop = { .to_host = false };
	(void)at;
	size_t len = frame_build(p, &hop, buf);
	CU_ASSERT_EQUAL(len, frame_len(p));
	if (p->type == PKT_ACK) {
		c->acks++;
		c->becn += buf[FRAME_BTH_OFF + 4] == 0x40; /* BTH byte 4: FECN 0x80, BECN 0x40 */
	} else if (p->type == PKT_DATA) {
		c->data++;
		/* The INT header counts on the line but is not captured:
		 *   captured = frame - FCS - INT (1000 B payloads need no pad). */
		c->data_len_ok += len == (size_t)p->frame_b - PKT_FCS_B - PKT_INT_B;
	}
}

static void test_ecn_echo_counts_the_marks(void)
{
	struct bed b;
	/* Two senders into one receiver: the bottleneck queue passes K = 5 KB
	 * (Kmin = Kmax, Pmax = 1: every frame leaving above K is marked). */
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, DUMBBELL(2, 1)
				       "[switch]\necn_kmin = 5KB\necn_kmax = 5KB\necn_pmax = 1\n"), 0);
	params = (struct mock_params){ 0 };
	plug(&b, &mock_ops);
	struct cap_tap rx = { .tap = { cap_tx, tap_rx } }, tx = { .tap = { cap_tx, tap_rx } };
	port_set_tap(b.w.eps[2].port, &rx.tap);
	port_set_tap(b.w.eps[0].port, &tx.tap);
	struct done d = { 0 };
	post(&b, 0, 2, 200000, &d);
	post(&b, 1, 2, 200000, &d);
	run(&b);
	port_set_tap(b.w.eps[2].port, NULL);
	port_set_tap(b.w.eps[0].port, NULL);
	CU_ASSERT_EQUAL(d.n, 2);
	/* Captured frames are well-formed RoCEv2: the echo is the ACK's BECN
	 * bit, as many as the marks; the data frames leave the INT bytes out. */
	CU_ASSERT_EQUAL(rx.acks, 400);
	CU_ASSERT_EQUAL((uint64_t)rx.becn, d.ecn_marked);
	CU_ASSERT_EQUAL(tx.data, 200);
	CU_ASSERT_EQUAL(tx.data_len_ok, 200);
	/* One ACK per packet, each echoing its packet's CE mark: the echoes
	 * equal the marks the responders counted. */
	int echoes = 0, queued = 0;
	for (int i = 0; i < n_acks; i++) {
		echoes += acks[i].a.ecn;
		queued += acks[i].hop[0].qlen_b > 0;
	}
	CU_ASSERT_EQUAL(n_acks, 400);
	CU_ASSERT(d.ecn_marked > 0);
	CU_ASSERT_EQUAL((uint64_t)echoes, d.ecn_marked);
	CU_ASSERT(queued > 0); /* the first switch's egress (the bottleneck) reported a queue */
	bed_close(&b);
}

/* Loss on a lossy fabric: NAKs reach the controller with their records,
 * selective repeat keeps its SACKed PSN through the record, and every
 * record comes back (run checks the pool). */
static void nak_case(const char *lr)
{
	char text[1024];
	snprintf(text, sizeof text, DUMBBELL(3, 1) "loss_recovery = %s\nrto = 100us\n"
		 "[switch]\npfc = off\nbuffer = 200KB\necn = off\n", lr);
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, text), 0);
	params = (struct mock_params){ 0 };
	plug(&b, &mock_ops);
	struct done d = { 0 };
	for (int s = 0; s < 3; s++)
		post(&b, s, 3, 100000, &d);
	run(&b);
	CU_ASSERT_EQUAL(d.n, 3);
	CU_ASSERT(b.sim.packets_dropped > 0);
	int naks = 0;
	uint64_t acked = 0;
	for (int i = 0; i < n_acks; i++) {
		naks += acks[i].a.nak;
		acked += acks[i].a.acked_b;
		CU_ASSERT(acks[i].a.rtt >= dumbbell_rtt(F_MID) - SER(F_MID)); /* never less than the idle path's */
	}
	CU_ASSERT(naks > 0);
	CU_ASSERT_EQUAL(acked, 300000); /* each byte newly acknowledged once */
	bed_close(&b);
}
static void test_naks_gbn(void) { nak_case("gbn"); }
static void test_naks_sr(void) { nak_case("sr"); }

static void test_window_caps_throughput(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, DUMBBELL(1, 1)), 0);
	/* A controller's own window of 4 packets at line rate: packet k + 4
	 * leaves when the ACK of packet k arrives, one RTT R after it left, so
	 * N packets take about (N / 4) R: throughput = window / R. */
	params = (struct mock_params){ .window_b = 4000 };
	plug(&b, &mock_win_ops);
	struct done d = { 0 };
	post(&b, 0, 1, 400000, &d);
	run(&b);
	simtime_t R = dumbbell_rtt(F_MID);
	double fct = (double)(d.end - d.start), expect = 100.0 * (double)R; /* N / 4 = 100 round trips */
	CU_ASSERT(fabs(fct - expect) / expect < 0.005);
	/* throughput = 4000 B / R: 4.27 Gb/s, far below the line's 100 */
	double gbps = 400000.0 * 8 / fct * 1e12 / 1e9;
	CU_ASSERT(fabs(gbps - 4000.0 * 8 / (double)R * 1e3) < 0.05);
	/* In flight never above the window: snd_nxt - snd_una after each ACK
	 * is at most 4000 - (what the ACK freed) + what was sent since. */
	for (int i = 0; i < n_acks; i++)
		CU_ASSERT(acks[i].a.snd_nxt_b - acks[i].a.snd_una_b <= 4000);
	bed_close(&b);
}

static void test_nic_window_values(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, DUMBBELL(1, 1) "window = on\nvar_window = off\n"), 0);
	params = (struct mock_params){ .rate_bps = 25000000000ull };
	plug(&b, &mock_ops);
	struct done d = { 0 };
	struct flow *f = post(&b, 0, 1, 1000, &d);
	simtime_t T = dumbbell_rtt(F_MID);
	/* var_window off: one BDP at line rate, line x T / 8 = 100e9 x 7.50048e-6 / 8 */
	CU_ASSERT_EQUAL(qp_window_b(f->qp), 100000000000ull / 8 * (uint64_t)T / 1000000000000ull);
	CU_ASSERT_EQUAL(qp_window_b(f->qp), 93756);
	run(&b);
	bed_close(&b);

	CU_ASSERT_EQUAL_FATAL(bed_open(&b, DUMBBELL(1, 1) "window = on\n"), 0);
	plug(&b, &mock_ops);
	f = post(&b, 0, 1, 1000, &d);
	/* var_window on: the rate's, 25e9 x T / 8 */
	CU_ASSERT_EQUAL(qp_window_b(f->qp), 25000000000ull / 8 * (uint64_t)T / 1000000000000ull);
	run(&b);
	bed_close(&b);
}

/* The class of the ACKs the receiver sends, seen by a tap on its port. */
struct ack_tap { struct port_tap tap; int n, prio; };
static void tap_tx(struct port_tap *t, simtime_t at, const struct packet *p)
{
	struct ack_tap *a = (struct ack_tap *)t;
	(void)at;
	if (p->type == PKT_ACK) {
		a->n++;
		a->prio = p->prio;
	}
}
static void ack_class(const char *extra, const struct cc_ops *ops, int want)
{
	char text[1024];
	snprintf(text, sizeof text, DUMBBELL(1, 1) "%s", extra);
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, text), 0);
	params = (struct mock_params){ 0 };
	plug(&b, ops);
	struct ack_tap t = { .tap = { tap_tx, tap_rx }, .prio = -1 };
	port_set_tap(b.w.eps[1].port, &t.tap);
	struct done d = { 0 };
	post(&b, 0, 1, 5000, &d);
	run(&b);
	port_set_tap(b.w.eps[1].port, NULL);
	CU_ASSERT_EQUAL(t.n, 5);
	CU_ASSERT_EQUAL(t.prio, want);
	bed_close(&b);
}

static void test_ack_priority(void)
{
	ack_class("", &mock_ops, PORT_CTRL_PRIO);                 /* high: the strict class 6 */
	ack_class("ack_priority = data\n", &mock_ops, 3);         /* data: [nic] priority 3 */
	ack_class("ack_priority = data\npriority = 1\n", NULL, 1); /* also without a controller */
}

/* T for a path: data frame dw and ACK aw (frame bytes) over hops of the
 * idle fabric, forward and reverse, as switch_path gives them. */
static simtime_t path_rtt(const struct fabric *f, int s, int d, uint32_t dw, uint32_t aw)
{
	struct ideal_hop fw[IDEAL_MAX_HOPS], rv[IDEAL_MAX_HOPS];
	int nf = switch_path(f, s, d, 0xC000, fw), nr = switch_path(f, d, s, 0xC000, rv);
	simtime_t t = 0;
	for (int i = 0; i < nf; i++)
		t += simtime_serialize(dw + PKT_WIRE_EXTRA_B, fw[i].rate_bps) + fw[i].delay_ps;
	for (int i = 0; i < nr; i++)
		t += simtime_serialize(aw + PKT_WIRE_EXTRA_B, rv[i].rate_bps) + rv[i].delay_ps;
	return t;
}

static void test_base_rtt_hand_computed(void)
{
	const uint32_t dw = PKT_ROCE_OVERHEAD_B + 1000, aw = PKT_ACK_FRAME_B; /* 1062, 66: no INT */
	struct bed b;
	/* Dumbbell: every pair crosses at most host-sw0-sw1-host:
	 *   T = 3 (ser(1062) + ser(66)) + 6 D + 4 L
	 *     = 3 (86560 + 6880) + 6e6 + 1.2e6 = 7 480 320 ps. */
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, DUMBBELL(2, 3)), 0);
	CU_ASSERT_EQUAL(fabric_base_rtt(&b.w.fab, dw, aw),
			3 * (SER(dw) + SER(aw)) + 6 * (simtime_t)D_PS + 4 * (simtime_t)L_PS);
	CU_ASSERT_EQUAL(fabric_base_rtt(&b.w.fab, dw, aw), 7480320);
	bed_close(&b);

	/* k = 4 fat-tree, hosts on 25 Gb/s (320 ps/B), fabric 100 Gb/s: the
	 * longest route is host-edge-agg-core-agg-edge-host, two host links
	 * and four fabric links each way, five switches each way:
	 *   T = 2 (ser25(1062) + ser25(66)) + 4 (ser100(1062) + ser100(66)) + 12 D + 10 L
	 *     = 2 (346240 + 27520) + 4 (86560 + 6880) + 12e6 + 3e6 = 16 121 280 ps. */
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, "[simulation]\nseed = 1\n[topology]\ntype = fat_tree\nk = 4\n"
				       "link_rate = 100Gbps\nhost_link_rate = 25Gbps\nlink_delay = 1us\n"
				       "switch_latency = 300ns\n"), 0);
	simtime_t T = fabric_base_rtt(&b.w.fab, dw, aw);
	CU_ASSERT_EQUAL(T, 2 * (simtime_t)(dw + aw + 2 * PKT_WIRE_EXTRA_B) * 320 +
			   4 * (SER(dw) + SER(aw)) + 12 * (simtime_t)D_PS + 10 * (simtime_t)L_PS);
	CU_ASSERT_EQUAL(T, 16121280);
	/* ... and the largest over every pair's own path (the quadratic way). */
	simtime_t brute = 0;
	for (int s = 0; s < b.w.n_eps; s++)
		for (int d = 0; d < b.w.n_eps; d++)
			if (s != d && path_rtt(&b.w.fab, s, d, dw, aw) > brute)
				brute = path_rtt(&b.w.fab, s, d, dw, aw);
	CU_ASSERT_EQUAL(T, brute);
	bed_close(&b);

	/* A star (one switch): every pair crosses two links each way,
	 *   T = 2 (ser(1062) + ser(66)) + 4 D + 2 L = 2 786 880 + 2e6 = 4 786 880 ps. */
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, "[simulation]\nseed = 1\n[topology]\ntype = star\nhosts = 5\n"
				       "link_rate = 100Gbps\nlink_delay = 1us\nswitch_latency = 300ns\n"), 0);
	CU_ASSERT_EQUAL(fabric_base_rtt(&b.w.fab, dw, aw),
			2 * (SER(dw) + SER(aw)) + 4 * (simtime_t)D_PS + 2 * (simtime_t)L_PS);
	CU_ASSERT_EQUAL(fabric_base_rtt(&b.w.fab, dw, aw), 4786880);
	bed_close(&b);
}

static void test_dcqcn_takes_no_records(void)
{
	struct bed b;
	/* DCQCN reads CNPs, not ACKs: its frames carry no side record and the
	 * pool never allocates one, so its path is what it was. */
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, "[simulation]\nseed = 1\n[topology]\ntype = dumbbell\n"
				       "hosts_left = 2\nhosts_right = 1\nlink_rate = 100Gbps\nlink_delay = 1us\n"
				       "[nic]\ncc = dcqcn\n"), 0);
	struct done d = { 0 };
	post(&b, 0, 2, 200000, &d);
	post(&b, 1, 2, 200000, &d);
	run(&b);
	CU_ASSERT_EQUAL(d.n, 2);
	CU_ASSERT_EQUAL(b.w.fab.tel.cap, 0);
	CU_ASSERT_PTR_NULL(b.w.fab.tel.rec);
	bed_close(&b);
}

TEST_MAIN("cc_path",
	  { "RTT samples and telemetry on an idle path equal the closed forms", test_rtt_and_telemetry_on_an_idle_path },
	  { "coalesced ACKs answer the latest accepted packet", test_coalesced_acks_answer_the_latest_packet },
	  { "ECN echoes equal the responders' CE marks", test_ecn_echo_counts_the_marks },
	  { "NAKs with go-back-N reach the controller", test_naks_gbn },
	  { "SACKs with selective repeat reach the controller", test_naks_sr },
	  { "a window caps throughput at window / RTT", test_window_caps_throughput },
	  { "[nic] window: line x T or rate x T", test_nic_window_values },
	  { "[nic] ack_priority: high or the data's class", test_ack_priority },
	  { "T equals hand computations (dumbbell, fat-tree, star)", test_base_rtt_hand_computed },
	  { "DCQCN takes no side records", test_dcqcn_takes_no_records })
