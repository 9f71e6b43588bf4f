/*
 * test_port.c — one link, two ports: exact serialisation and propagation,
 * back-to-back frames, strict priority of the control class, byte-fair DWRR
 * among data classes, paused classes held back, PFC frames pausing one class
 * for their quanta or until XON, and the port counters.
 */
#include <stdlib.h>
#include <string.h>
#include "fabric.h"
#include "pool.h"
#include "port.h"
#include "testutil.h"

#define DELAY_PS 1000000           /* 1 us */
#define RATE_BPS 100000000000ull   /* 100 Gb/s: 80 ps per byte */

struct arrival { simtime_t t; uint32_t psn; uint8_t prio; };
static struct arrival got[512];
static int n_got;
static struct pool pkts;

static void record(struct sim *sim, void *ctx, struct port *in, struct packet *pkt)
{
	(void)ctx;
	(void)in;
	if (n_got < 512)
		got[n_got++] = (struct arrival){ sim->now, pkt->psn, pkt->prio };
	pool_put(&pkts, pkt);
}

struct link_fixture {
	struct sim sim;
	struct node a, b;
	struct port pa, pb;
};

static void setup(struct link_fixture *f)
{
	memset(f, 0, sizeof *f);
	sim_init(&f->sim, 1);
	f->a = (struct node){ .name = "a", .kind = NODE_HOST, .receive = record, .ports = &f->pa, .n_ports = 1 };
	f->b = (struct node){ .name = "b", .kind = NODE_HOST, .receive = record, .ports = &f->pb, .n_ports = 1 };
	port_init(&f->sim, &f->pa, &f->a, 0, RATE_BPS, DELAY_PS);
	port_init(&f->sim, &f->pb, &f->b, 0, RATE_BPS, DELAY_PS);
	port_connect(&f->pa, &f->pb, 0);
	port_connect(&f->pb, &f->pa, 0);
	pool_init(&pkts, sizeof(struct packet), 64);
	n_got = 0;
}

static void teardown(struct link_fixture *f)
{
	CU_ASSERT_EQUAL(pkts.live, 0); /* every frame delivered, none lost */
	pool_destroy(&pkts);
	sim_free(&f->sim);
}

static void send(struct link_fixture *f, uint8_t prio, uint32_t psn, uint16_t frame_b)
{
	struct packet *p = pool_get(&pkts);
	*p = (struct packet){ .prio = prio, .psn = psn, .frame_b = frame_b, .type = PKT_DATA };
	port_enqueue(&f->sim, &f->pa, p);
}

static simtime_t wire_ps(int frame_b) { return (simtime_t)(frame_b + PKT_WIRE_EXTRA_B) * 80; }

/* One 1062-byte frame (1000 B payload): 1082 B of line time, then 1 us. */
static void test_serialisation_and_propagation(void)
{
	struct link_fixture f;
	setup(&f);
	send(&f, 3, 0, 1062);
	sim_run(&f.sim);
	CU_ASSERT_EQUAL_FATAL(n_got, 1);
	CU_ASSERT_EQUAL(got[0].t, 1082 * 80 + DELAY_PS);
	CU_ASSERT_EQUAL(f.pa.tx_bytes, 1062);
	CU_ASSERT_EQUAL(f.pa.tx_packets, 1);
	CU_ASSERT_EQUAL(port_rx_bytes(&f.pb), 1062);
	teardown(&f);
}

/* Four frames of class 3 queued together (PSNs 0..3). */
static const uint16_t sizes[] = { 1062, 66, 1078, 300 };

static void send_four(struct link_fixture *f)
{
	for (uint32_t i = 0; i < 4; i++)
		send(f, 3, i, sizes[i]);
}

/* Frames queued together leave back to back: arrivals spaced by exactly
 * their serialisation, the queue's high-water mark is what waited. */
static void test_back_to_back(void)
{
	struct link_fixture f;
	setup(&f);
	send_four(&f);
	sim_run(&f.sim);
	CU_ASSERT_EQUAL_FATAL(n_got, 4);
	simtime_t t = 0;
	for (int i = 0; i < 4; i++) {
		t += wire_ps(sizes[i]);
		CU_ASSERT_EQUAL(got[i].t, t + DELAY_PS);
		CU_ASSERT_EQUAL(got[i].psn, (uint32_t)i);
	}
	CU_ASSERT_EQUAL(f.pa.max_queue_bytes, 66 + 1078 + 300);
	CU_ASSERT_EQUAL(f.pa.queued_bytes, 0);
	teardown(&f);
}

/* An ACK queued behind data goes out as soon as the frame on the wire is
 * done: strict priority for the control class. */
static void test_control_class_first(void)
{
	struct link_fixture f;
	setup(&f);
	for (uint32_t i = 0; i < 4; i++)
		send(&f, 3, i, 1062);
	send(&f, PORT_CTRL_PRIO, 100, PKT_ACK_FRAME_B);
	sim_run(&f.sim);
	CU_ASSERT_EQUAL_FATAL(n_got, 5);
	CU_ASSERT_EQUAL(got[0].psn, 0);
	CU_ASSERT_EQUAL(got[1].psn, 100);
	CU_ASSERT_EQUAL(got[1].t, wire_ps(1062) + wire_ps(PKT_ACK_FRAME_B) + DELAY_PS);
	CU_ASSERT_EQUAL(got[4].t, 4 * wire_ps(1062) + wire_ps(PKT_ACK_FRAME_B) + DELAY_PS);
	teardown(&f);
}

/* Two data classes with 100 frames each share the link byte-fairly under
 * DWRR: at any point the bytes sent per class differ by at most a quantum
 * and two frames, where strict priority would starve one class. */
static void test_dwrr_shares_bytes(void)
{
	struct link_fixture f;
	setup(&f);
	for (uint32_t i = 0; i < 100; i++) {
		send(&f, 1, i, 1062);
		send(&f, 3, 1000 + i, 1062);
	}
	sim_run(&f.sim);
	CU_ASSERT_EQUAL_FATAL(n_got, 200);
	long bytes[8] = { 0 }, worst = 0;
	for (int i = 0; i < n_got; i++) {
		bytes[got[i].prio] += 1062;
		long d = labs(bytes[1] - bytes[3]);
		if (i < 180 && d > worst) /* until one class runs dry */
			worst = d;
	}
	/* Deficit round robin's lag bound (Shreedhar and Varghese, SIGCOMM'95):
	 * a class is never more than one quantum plus two maximum frames ahead. */
	CU_ASSERT(worst <= PORT_DWRR_QUANTUM_B + 2 * 1062);
	CU_ASSERT(worst >= 1062); /* it does alternate in rounds, not per frame */
	/* FIFO within a class. */
	uint32_t last1 = 0, last3 = 1000;
	int in_order = 1;
	for (int i = 0; i < n_got; i++) {
		uint32_t *last = got[i].prio == 1 ? &last1 : &last3;
		if (got[i].psn < *last)
			in_order = 0;
		*last = got[i].psn;
	}
	CU_ASSERT(in_order);
	teardown(&f);
}

/* A paused class waits; others go on; resuming (and kicking) releases it. */
static void test_paused_class_waits(void)
{
	struct link_fixture f;
	setup(&f);
	f.pa.paused = 1u << 3;
	f.pa.busy_until = 1; /* hold the first frame so that all queue */
	for (uint32_t i = 0; i < 3; i++)
		send(&f, 3, i, 1062);
	for (uint32_t i = 0; i < 3; i++)
		send(&f, 1, 10 + i, 1062);
	sim_run(&f.sim);
	CU_ASSERT_EQUAL_FATAL(n_got, 3);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(got[i].prio, 1);
	CU_ASSERT_EQUAL(f.pa.q[3].n, 3);
	f.pa.paused = 0;
	port_kick(&f.sim, &f.pa);
	sim_run(&f.sim);
	CU_ASSERT_EQUAL(n_got, 6);
	teardown(&f);
}

/* PFC between two ports of a fabric (PFC frames come from its packet pool). */
static struct fabric pw;

static void pfc_record(struct sim *sim, void *ctx, struct port *in, struct packet *pkt)
{
	(void)ctx;
	if (pkt->type == PKT_PFC)
		port_pfc_receive(sim, in, pkt);
	else if (n_got < 512)
		got[n_got++] = (struct arrival){ sim->now, pkt->psn, pkt->prio };
	pool_put(&pw.pkt_pool, pkt);
}

static void pfc_setup(struct link_fixture *f)
{
	setup(f);
	memset(&pw, 0, sizeof pw);
	pool_init(&pw.pkt_pool, sizeof(struct packet), 64);
	f->a.fab = f->b.fab = &pw;
	f->a.receive = f->b.receive = pfc_record;
}

static void pfc_send(struct link_fixture *f, uint8_t prio, uint32_t psn)
{
	struct packet *p = pool_get(&pw.pkt_pool);
	*p = (struct packet){ .prio = prio, .psn = psn, .frame_b = 1062, .type = PKT_DATA };
	port_enqueue(&f->sim, &f->pa, p);
}

static void ev_traffic(struct sim *sim, void *obj, uintptr_t arg)
{
	struct link_fixture *f = obj;
	(void)sim; (void)arg;
	pfc_send(f, 3, 1);
	pfc_send(f, 3, 2);
	pfc_send(f, 6, 3);
}

static void ev_xon(struct sim *sim, void *obj, uintptr_t arg)
{
	struct link_fixture *f = obj;
	(void)arg;
	port_pfc_request(sim, &f->pb, 3, false);
}

/* b pauses class 3 at a (XOFF at 0), a queues two class-3 frames and a
 * class-6 one at 2 us, b resumes at 10 us: the class-6 frame goes at once,
 * class 3 only when the XON lands; a was paused exactly 10 us. */
static void test_pfc_pause_resume(void)
{
	struct link_fixture f;
	pfc_setup(&f);
	const simtime_t pfc_wire = (PKT_PFC_FRAME_B + PKT_WIRE_EXTRA_B) * 80;
	port_pfc_request(&f.sim, &f.pb, 3, true);
	sched_at(&f.sim, 2000000, &f.sim.kernel, ev_traffic, &f, 0);
	sched_at(&f.sim, 10000000, &f.sim.kernel, ev_xon, &f, 0);
	sim_run(&f.sim);
	CU_ASSERT_EQUAL_FATAL(n_got, 3);
	CU_ASSERT_EQUAL(got[0].prio, 6);
	CU_ASSERT_EQUAL(got[0].t, 2000000 + wire_ps(1062) + DELAY_PS);
	simtime_t xon_lands = 10000000 + pfc_wire + DELAY_PS;
	CU_ASSERT_EQUAL(got[1].psn, 1);
	CU_ASSERT_EQUAL(got[1].t, xon_lands + wire_ps(1062) + DELAY_PS);
	CU_ASSERT_EQUAL(got[2].t, xon_lands + 2 * wire_ps(1062) + DELAY_PS);
	CU_ASSERT_EQUAL(f.pa.paused_ps, xon_lands - (pfc_wire + DELAY_PS));
	CU_ASSERT_EQUAL(f.pb.pause_tx, 2);
	CU_ASSERT_EQUAL(f.pa.pause_rx, 2);
	CU_ASSERT_EQUAL(f.pa.paused, 0);
	CU_ASSERT_EQUAL(pw.pkt_pool.live, 0);
	pool_destroy(&pw.pkt_pool);
	teardown(&f);
}

/* A pause of 100 quanta at 100 Gb/s lasts 100 x 512 bit times = 512 ns. */
static void test_pfc_quanta_expire(void)
{
	struct link_fixture f;
	pfc_setup(&f);
	struct packet x = { .type = PKT_PFC, .aux = (1u << 3) << 16 | 100 };
	port_pfc_receive(&f.sim, &f.pa, &x);
	CU_ASSERT_EQUAL(port_quanta_ps(&f.pa, 100), 512000);
	pfc_send(&f, 3, 7);
	sim_run(&f.sim);
	CU_ASSERT_EQUAL_FATAL(n_got, 1);
	CU_ASSERT_EQUAL(got[0].t, 512000 + wire_ps(1062) + DELAY_PS);
	CU_ASSERT_EQUAL(f.pa.paused_ps, 512000);
	/* the maximum pause: 65535 quanta = 335.5392 us at 100 Gb/s (docs/protocol.md "PFC and the switch buffer") */
	CU_ASSERT_EQUAL(port_quanta_ps(&f.pa, PFC_MAX_QUANTA), 335539200);
	pool_destroy(&pw.pkt_pool);
	teardown(&f);
}

/* Received bytes count the frames landed, not those still on the wire;
 * the packet-hops are the frames put on links. Four frames leave back to
 * back; the run stops 1 ps after the second lands, then finishes. */
static void test_rx_bytes_landed_only(void)
{
	struct link_fixture f;
	setup(&f);
	send_four(&f);
	f.sim.stop_at = wire_ps(sizes[0]) + wire_ps(sizes[1]) + DELAY_PS + 1;
	CU_ASSERT_EQUAL(sim_run(&f.sim), SIM_STOP_TIME);
	CU_ASSERT_EQUAL_FATAL(n_got, 2);
	CU_ASSERT_EQUAL(f.pa.tx_bytes, 1062 + 66 + 1078 + 300);
	CU_ASSERT_EQUAL(port_rx_bytes(&f.pb), 1062 + 66);
	CU_ASSERT_EQUAL(port_rx_bytes(&f.pa), 0);
	struct port both[2] = { f.pa, f.pb };
	CU_ASSERT_EQUAL(port_tx_packets_sum(both, 2, NULL), 4);
	f.sim.stop_at = SIMTIME_NEVER;
	sim_run(&f.sim);
	CU_ASSERT_EQUAL(n_got, 4);
	CU_ASSERT_EQUAL(port_rx_bytes(&f.pb), 1062 + 66 + 1078 + 300);
	teardown(&f);
}

TEST_MAIN("port",
	  { "serialisation and propagation are exact", test_serialisation_and_propagation },
	  { "queued frames leave back to back", test_back_to_back },
	  { "received bytes count only frames landed", test_rx_bytes_landed_only },
	  { "control class is served first", test_control_class_first },
	  { "DWRR shares bytes between data classes", test_dwrr_shares_bytes },
	  { "a paused class waits", test_paused_class_waits },
	  { "PFC pauses one class until XON", test_pfc_pause_resume },
	  { "PFC pause quanta expire", test_pfc_quanta_expire })
