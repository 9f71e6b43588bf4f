/*
 * test_hosts.c — hosts with several GPUs and NICs (models/nic/world.c, msg.c):
 * a GPU message between hosts leaves through NIC (gpu mod nics_per_host),
 * arrives on the destination GPU's NIC port, and takes its ideal time; a
 * message inside a host rides NVLink and touches no port; rail-optimised
 * fabrics keep same-rail traffic on the leaf and send cross-rail traffic
 * over a spine; and a whole run through run_scenario writes the GPU nodes,
 * every host port and the links of a rail fabric.
 *
 * Messages are sent with msg_send from events in a world built from
 * scenario text (host_fixture.h); port counters are read from the world.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "host_fixture.h"
#include "msg.h"
#include "nvlink.h"
#include "packet.h"
#include "port.h"
#include "run.h"
#include "sqlutil.h"
#include "testutil.h"

#define US SIMTIME_US

/* What one message saw. */
struct sent {
	struct bed *b;
	struct msg m;
	int64_t src_ep, dst_ep;     /* the flow's endpoints */
	simtime_t start, ideal, recv, end;
	bool on_nvlink;
};

static void on_recv(struct sim *sim, struct flow *f, void *ctx)
{
	struct sent *s = ctx;
	s->recv = sim->now;
	CU_ASSERT_EQUAL(f->src_gpu, s->m.src_gpu);
	CU_ASSERT_EQUAL(f->dst_gpu, s->m.dst_gpu);
}

static void on_done(struct sim *sim, struct flow *f, void *ctx)
{
	struct sent *s = ctx;
	(void)f;
	s->end = sim->now;
}

static void send_ev(struct sim *sim, void *obj, uintptr_t arg)
{
	struct sent *s = obj;
	(void)arg;
	struct flow *f = msg_send(&s->b->w, &s->m);
	s->src_ep = f->src;
	s->dst_ep = f->dst;
	s->start = f->start;
	s->ideal = f->ideal;
	s->on_nvlink = f->qp == NULL;
	CU_ASSERT_EQUAL(f->start, sim->now);
	CU_ASSERT_STRING_EQUAL(f->job, "job.t");
	CU_ASSERT_EQUAL(f->collective_id, 7);
	f->on_done = on_done;
	f->on_done_ctx = s;
}

/* Sends GPU src -> dst (size bytes) at time 0, runs until done. */
static void send_one(struct bed *b, struct sent *s, int src, int dst, uint64_t size)
{
	*s = (struct sent){ .b = b, .recv = -1, .end = -1,
			    .m = { .src_gpu = src, .dst_gpu = dst, .size_b = size, .source = "test",
				   .parallelism = "tp", .job = "job.t", .iteration = 0,
				   .collective_id = 7, .on_recv = on_recv } };
	s->m.ctx = s;
	sched_at(&b->sim, 0, &b->sim.kernel, send_ev, s, 0);
	sim_run(&b->sim);
	CU_ASSERT_EQUAL(b->w.flows_done, b->w.flows_posted);
	CU_ASSERT(s->recv >= 0 && s->end >= s->recv);
	world_check_drained(&b->w);
}

static const struct port *host_port(const struct bed *b, int host, int i)
{
	return &b->w.fab.nodes[host].ports[i];
}

/* Only port `only` of host carries frames in the direction asked. */
static void check_only_port(const struct bed *b, int host, int only, bool tx)
{
	for (int i = 0; i < b->w.fab.nodes[host].n_ports; i++) {
		const struct port *p = host_port(b, host, i);
		uint64_t v = tx ? p->tx_packets : port_rx_bytes(p);
		if (i == only) {
			CU_ASSERT(v > 0);
		} else {
			CU_ASSERT_EQUAL(v, 0);
		}
	}
}

#define STAR_8x8 \
	"[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n" \
	"gpus_per_host = 8\nnics_per_host = 8\n" \
	"[nic]\nmtu = 1000\ncc = none\n[switch]\npfc = off\necn = off\n"

/* host0.gpu3 -> host1.gpu5 on a star of 8-NIC hosts: NIC 3 of host0 (its
 * port 3) sends, NIC 5 of host1 (port 5) receives; 1 MB takes the closed
 * form of two 100 Gb/s hops (test_physics.c) and equals its ideal. */
static void test_star_gpu_to_gpu(void)
{
	struct bed b;
	struct sent s;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, STAR_8x8), 0);
	CU_ASSERT_EQUAL(b.w.n_eps, 16);
	CU_ASSERT_EQUAL(b.w.n_gpus, 16);
	CU_ASSERT_EQUAL(b.w.fab.nodes[0].n_ports, 8);
	CU_ASSERT_PTR_NOT_NULL(b.w.nvlink);
	send_one(&b, &s, 3, 13, 1000000);
	CU_ASSERT_FALSE(s.on_nvlink);
	CU_ASSERT_EQUAL(s.src_ep, 3);
	CU_ASSERT_EQUAL(s.dst_ep, 13);
	check_only_port(&b, 0, 3, true);
	check_only_port(&b, 1, 5, false);
	CU_ASSERT_EQUAL(host_port(&b, 0, 3)->tx_packets, 1000);  /* every data frame */
	CU_ASSERT_EQUAL(host_port(&b, 1, 5)->tx_packets, 1000);  /* one ACK each */
	/* sw0 port e faces endpoint e. */
	const struct node *sw = &b.w.fab.nodes[2];
	CU_ASSERT_EQUAL(sw->ports[13].tx_packets, 1000);
	CU_ASSERT_EQUAL(port_rx_bytes(&sw->ports[3]), host_port(&b, 0, 3)->tx_bytes);
	const int64_t n = 1000, ps_per_b = 80, d = 1000000;
	int64_t wire_sum = n * (1000 + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B) + PKT_RETH_B;
	int64_t first = 1000 + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B + PKT_RETH_B;
	int64_t delivery = (wire_sum + first) * ps_per_b + 2 * d;
	int64_t ack = 2 * ((PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B) * ps_per_b + d);
	CU_ASSERT_EQUAL(s.recv - s.start, delivery);
	CU_ASSERT_EQUAL(s.end - s.start, delivery + ack);
	CU_ASSERT_EQUAL(s.ideal, delivery + ack);
	bed_close(&b);
}

/* host0.gpu1 -> host0.gpu6: NVLink (450 GB/s, 200 ns), no port touched. */
static void test_intra_host_nvlink(void)
{
	struct bed b;
	struct sent s;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, STAR_8x8), 0);
	send_one(&b, &s, 1, 6, 450000);
	CU_ASSERT_TRUE(s.on_nvlink);
	CU_ASSERT_EQUAL(s.recv - s.start, US + 200 * SIMTIME_NS);
	CU_ASSERT_EQUAL(s.end, s.recv);
	CU_ASSERT_EQUAL(s.ideal, US + 200 * SIMTIME_NS);
	for (int i = 0; i < b.w.fab.n_ports; i++) {
		CU_ASSERT_EQUAL(b.w.fab.ports[i].tx_packets, 0);
		CU_ASSERT_EQUAL(port_rx_bytes(&b.w.fab.ports[i]), 0);
	}
	CU_ASSERT_EQUAL(b.sim.packets_sent, 0);
	bed_close(&b);
}

/* More GPUs than NICs: GPU i uses NIC i mod nics. host0.gpu6 -> host1.gpu5
 * with 4 NICs: out of port 2, into port 1. */
static void test_gpu_nic_mapping(void)
{
	struct bed b;
	struct sent s;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\n"
				      "link_delay = 1us\ngpus_per_host = 8\nnics_per_host = 4\n"
				      "[nic]\ncc = none\n[switch]\npfc = off\necn = off\n"), 0);
	CU_ASSERT_EQUAL(b.w.n_eps, 8);
	send_one(&b, &s, 6, 13, 20000);
	CU_ASSERT_EQUAL(s.src_ep, 2);
	CU_ASSERT_EQUAL(s.dst_ep, 4 + 1);
	check_only_port(&b, 0, 2, true);
	check_only_port(&b, 1, 1, false);
	CU_ASSERT_EQUAL(s.end - s.start, s.ideal);
	bed_close(&b);
}

#define RAIL_2x4 \
	"[topology]\ntype = rail_optimized\nhosts = 2\nspines = 2\nlink_rate = 400Gbps\n" \
	"host_link_rate = 200Gbps\nlink_delay = 500ns\ngpus_per_host = 4\nnics_per_host = 4\n" \
	"[nic]\ncc = none\n[switch]\npfc = off\necn = off\n"

static uint64_t spine_tx(const struct bed *b)
{
	uint64_t tx = 0;
	for (int u = 0; u < b->w.fab.n_nodes; u++)
		if (b->w.fab.nodes[u].tier == 2)
			for (int i = 0; i < b->w.fab.nodes[u].n_ports; i++)
				tx += b->w.fab.nodes[u].ports[i].tx_packets;
	return tx;
}

/* Rails: host0.gpu1 -> host1.gpu1 stays on leaf1 (no spine frame);
 * host0.gpu0 -> host1.gpu2 climbs leaf0 -> spine -> leaf2 and arrives on
 * host1's port 2. Both alone take their ideal. */
static void test_rail_paths(void)
{
	struct bed b;
	struct sent s;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, RAIL_2x4), 0);
	send_one(&b, &s, 1, 5, 100000);
	CU_ASSERT_EQUAL(spine_tx(&b), 0);
	check_only_port(&b, 0, 1, true);
	check_only_port(&b, 1, 1, false);
	CU_ASSERT_EQUAL(s.end - s.start, s.ideal);
	bed_close(&b);

	CU_ASSERT_EQUAL_FATAL(bed_open(&b, RAIL_2x4), 0);
	send_one(&b, &s, 0, 6, 100000);
	CU_ASSERT(spine_tx(&b) > 0);
	check_only_port(&b, 0, 0, true);
	check_only_port(&b, 1, 2, false);
	CU_ASSERT_EQUAL(s.end - s.start, s.ideal);
	/* The same size crosses 4 links instead of 2: later, by more than 2
	 * propagation delays. */
	struct sent same;
	bed_close(&b);
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, RAIL_2x4), 0);
	send_one(&b, &same, 2, 6, 100000);
	CU_ASSERT(s.recv - s.start > same.recv - same.start + 2 * 500 * SIMTIME_NS);
	bed_close(&b);
}

/* The whole path `sim` takes: a rail fabric with 8 GPUs and 4 NICs per
 * host, one host-to-host flow (traffic sources use NIC 0): the database
 * has the network nodes, then the GPUs; a link per NIC and per leaf-spine
 * pair; port_stats for every host port; the flow stays on leaf0. */
static void test_rail_run(void)
{
	char dir[] = "/tmp/rocesim-hosts-run-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char ini[96], db[96];
	snprintf(ini, sizeof ini, "%s/rail.ini", dir);
	snprintf(db, sizeof db, "%s/rail.db", dir);
	FILE *f = fopen(ini, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("[simulation]\nprogress = off\n"
	      "[topology]\ntype = rail_optimized\nhosts = 3\nspines = 2\nlink_rate = 400Gbps\n"
	      "link_delay = 1us\ngpus_per_host = 8\nnics_per_host = 4\n"
	      "[nic]\ncc = none\n[switch]\npfc = off\necn = off\n"
	      "[traffic.one]\ntype = flows\nflow = host0 host2 100KB 1us\n", f);
	fclose(f);
	struct config cfg;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(scenario_load(&cfg, ini, NULL, 0, &err), 0);
	struct run_opts o = { .scenario = ini, .output = db };
	struct run_report rep;
	int rc = run_scenario(&cfg, &o, &rep, &err);
	if (rc)
		printf("\n  run: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	run_report_free(&rep);
	config_free(&cfg);
	sqlite3 *h = db_open(db);
	/* 3 hosts, 4 leaves, 2 spines = 9 network nodes, then 24 GPUs. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM node"), 9 + 24);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM node WHERE kind = 'switch' AND name LIKE 'leaf%' "
			    "AND tier = 1"), 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM node WHERE kind = 'switch' AND name LIKE 'spine%' "
			    "AND tier = 2"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT min(node_id) FROM node WHERE kind = 'gpu'"), 9);
	CU_ASSERT_EQUAL(q_int(h, "SELECT node_id FROM node WHERE name = 'host2.gpu7'"), 9 + 23);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM node WHERE kind = 'gpu' AND tier <> 0"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM link"), 3 * 4 + 4 * 2);
	/* host2's port 3 is its NIC 3, on leaf3 (node 3 + 3). */
	CU_ASSERT_EQUAL(q_int(h, "SELECT node_b FROM link WHERE node_a = 2 AND port_a = 3"), 6);
	CU_ASSERT_EQUAL(q_int(h, "SELECT port_b FROM link WHERE node_a = 2 AND port_a = 3"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM port_stats WHERE node LIKE 'host%'"), 3 * 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(tx_packets) FROM port_stats WHERE node LIKE 'spine%'"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(tx_packets) FROM port_stats WHERE node = 'host0' AND port > 0"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE src = 'host0' AND dst = 'host2' "
			    "AND end_ps IS NOT NULL AND fct_ps = ideal_fct_ps"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
	sqlite3_close(h);
	unlink(db);
	unlink(ini);
	rmdir(dir);
}

TEST_MAIN("hosts",
	  { "star 8 GPUs x 8 NICs: GPU message via its NIC, ideal time", test_star_gpu_to_gpu },
	  { "message inside a host rides NVLink, no port", test_intra_host_nvlink },
	  { "GPU i uses NIC i mod nics_per_host", test_gpu_nic_mapping },
	  { "rail_optimized: same rail on the leaf, cross rail via a spine", test_rail_paths },
	  { "rail_optimized run: GPU nodes, links, port_stats", test_rail_run })
