/*
 * test_nvlink.c — the NVLink fluid model (models/nic/nvlink.c): max-min fair
 * sharing of each GPU's egress and ingress, checked against hand-computed
 * finish times, against a plain floating-point fluid reference on random
 * messages, and for the flow rows it writes (finished and unfinished).
 *
 * Numbers: nvlink_rate 450 GB/s = 3.6e12 b/s, so S = 450 kB drains in
 * exactly 1 us alone; nvlink_delay 200 ns. Messages are posted from events
 * at their start times in a world built from scenario text (two hosts of
 * eight GPUs on a star), and the run ends when every flow is done.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "host_fixture.h"
#include "nvlink.h"
#include "port.h"
#include "results.h"
#include "sqlutil.h"
#include "run.h"
#include "observe.h"
#include "testutil.h"

#define US SIMTIME_US
#define S_B 450000ull                   /* 1 us at 450 GB/s */
#define D_PS (200 * SIMTIME_NS)
#define RATE_BPS 3600000000000ull
#define MAX_MSGS 128

static const char *const ini =
	"[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"gpus_per_host = 8\nnvlink_rate = 450GBps\nnvlink_delay = 200ns\n"
	"[switch]\npfc = off\necn = off\n";

/* A message to post: global GPU ids, bytes, start time. */
struct spec { int src, dst; uint64_t size_b; simtime_t start; };

/* What the callbacks saw of message i. */
struct seen {
	struct bed *b;
	const struct spec *sp;
	simtime_t arrive, done;    /* on_recv, on_done times (-1: never) */
	int recvs, dones;
};

static void on_recv(struct sim *sim, struct flow *f, void *ctx)
{
	struct seen *s = ctx;
	s->arrive = sim->now;
	s->recvs++;
	CU_ASSERT_EQUAL(f->recv_end, sim->now);
	CU_ASSERT_EQUAL(s->dones, 0);          /* on_recv first */
}

static void on_done(struct sim *sim, struct flow *f, void *ctx)
{
	struct seen *s = ctx;
	s->done = sim->now;
	s->dones++;
	CU_ASSERT_EQUAL(f->end, sim->now);
}

static void post_ev(struct sim *sim, void *obj, uintptr_t arg)
{
	struct seen *s = obj;
	(void)arg;
	uint64_t before = s->b->w.flows_posted;
	struct flow *f = nvlink_post(&s->b->w, s->sp->src, s->sp->dst, s->sp->size_b, "test", "tp");
	/* Returned before any event of it ran: decorate now. */
	CU_ASSERT_EQUAL(s->b->w.flows_posted, before + 1);
	CU_ASSERT_PTR_NULL(f->qp);
	CU_ASSERT_EQUAL(f->start, sim->now);
	CU_ASSERT_EQUAL(f->end, -1);
	CU_ASSERT_EQUAL(f->src_gpu, s->sp->src);
	CU_ASSERT_EQUAL(f->dst_gpu, s->sp->dst);
	CU_ASSERT_EQUAL(f->ideal, nvlink_ideal_ps(&s->b->w, s->sp->size_b));
	f->on_recv = on_recv;
	f->on_recv_ctx = s;
	f->on_done = on_done;
	f->on_done_ctx = s;
	world_source_end(&s->b->w); /* this message is posted */
}

/* Posts every message at its start, runs until all are done, fills
 * arrive[i] (last byte at the destination GPU). Checks the bookkeeping:
 * each message arrives once, no earlier than its ideal, with on_recv and
 * on_done at the same time, and nothing is left in any pool. */
static void run_specs(const struct spec *sp, int n, simtime_t *arrive)
{
	struct bed b;
	CU_ASSERT_FATAL(n <= MAX_MSGS);
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, ini), 0);
	static struct seen seen[MAX_MSGS];
	for (int i = 0; i < n; i++) {
		seen[i] = (struct seen){ .b = &b, .sp = &sp[i], .arrive = -1, .done = -1 };
		world_source_begin(&b.w); /* keeps the run going until it is posted */
		sched_at(&b.sim, sp[i].start, &b.sim.kernel, post_ev, &seen[i], 0);
	}
	sim_run(&b.sim);
	CU_ASSERT_EQUAL(b.w.flows_posted, (uint64_t)n);
	CU_ASSERT_EQUAL(b.w.flows_done, (uint64_t)n);
	CU_ASSERT_EQUAL(b.w.flow_pool.live, 0);
	world_check_drained(&b.w);
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(seen[i].recvs, 1);
		CU_ASSERT_EQUAL(seen[i].dones, 1);
		CU_ASSERT_EQUAL(seen[i].done, seen[i].arrive);
		CU_ASSERT(seen[i].arrive - sp[i].start >= nvlink_ideal_ps(&b.w, sp[i].size_b));
		arrive[i] = seen[i].arrive;
	}
	/* No port saw a frame: NVLink stays off the network. */
	for (int p = 0; p < b.w.fab.n_ports; p++)
		CU_ASSERT_EQUAL(b.w.fab.ports[p].tx_packets + port_rx_bytes(&b.w.fab.ports[p]), 0);
	bed_close(&b);
}

/* Runs sp and compares each arrival with want[i] (times after start 0). */
static void expect_arrivals(const struct spec *sp, int n, const simtime_t *want)
{
	simtime_t got[MAX_MSGS];
	run_specs(sp, n, got);
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(got[i], want[i]);
		if (got[i] != want[i])
			printf("\n  message %d (GPU %d -> %d): arrived at %lld ps, expected %lld ps",
			       i, sp[i].src, sp[i].dst, (long long)got[i], (long long)want[i]);
	}
}

/* Alone: S / rate + delay exactly, also for a size that does not divide. */
static void test_single(void)
{
	const struct spec sp[] = { { 0, 1, S_B, 0 }, { 9, 12, 12345, 5 * US } };
	/* 12345 B x 8 b / 3.6e12 b/s = 27433.3 ps, rounded up. */
	const simtime_t want[] = { 1 * US + D_PS, 5 * US + 27434 + D_PS };
	expect_arrivals(sp, 2, want);
}

/* Two messages from GPU 0 share its egress: each gets r/2. */
static void test_share_egress(void)
{
	const struct spec sp[] = { { 0, 1, S_B, 0 }, { 0, 2, S_B, 0 } };
	const simtime_t want[] = { 2 * US + D_PS, 2 * US + D_PS };
	expect_arrivals(sp, 2, want);
}

/* a->b and c->b share b's ingress. */
static void test_share_ingress(void)
{
	const struct spec sp[] = { { 0, 1, S_B, 0 }, { 2, 1, S_B, 0 } };
	const simtime_t want[] = { 2 * US + D_PS, 2 * US + D_PS };
	expect_arrivals(sp, 2, want);
}

/* a->b and c->d share nothing; nor do messages on different hosts. */
static void test_independent(void)
{
	const struct spec sp[] = { { 0, 1, S_B, 0 }, { 2, 3, S_B, 0 }, { 8, 9, S_B, 0 }, { 1, 0, S_B, 0 } };
	const simtime_t want[] = { 1 * US + D_PS, 1 * US + D_PS, 1 * US + D_PS, 1 * US + D_PS };
	expect_arrivals(sp, 4, want);
}

/* a->b, a->c, d->c: a's egress and c's ingress each hold two messages, so
 * every message gets r/2 (b's ingress and d's egress are not full). */
static void test_max_min_three(void)
{
	const struct spec sp[] = { { 0, 1, S_B, 0 }, { 0, 2, S_B, 0 }, { 3, 2, S_B, 0 } };
	const simtime_t want[] = { 2 * US + D_PS, 2 * US + D_PS, 2 * US + D_PS };
	expect_arrivals(sp, 3, want);
}

/* Water-filling with unequal shares: 0->1, 0->2, 0->3, 4->3, 4->5, 6->5.
 * Level 1: GPU 0's egress (3 messages) is the tightest, r/3 each. Then
 * 3's ingress has 2r/3 for 4->3, but 4's egress and 5's ingress offer r/2
 * (two messages each): level 2 fixes 4->3 and 4->5 at r/2, and 6->5 gets
 * the r/2 left on 5's ingress. At 2 us the three r/2 messages finish;
 * GPU 0's egress still binds its three at r/3, so they finish at 3 us. */
static void test_water_filling(void)
{
	const struct spec sp[] = { { 0, 1, S_B, 0 }, { 0, 2, S_B, 0 }, { 0, 3, S_B, 0 },
				   { 4, 3, S_B, 0 }, { 4, 5, S_B, 0 }, { 6, 5, S_B, 0 } };
	const simtime_t want[] = { 3 * US + D_PS, 3 * US + D_PS, 3 * US + D_PS,
				   2 * US + D_PS, 2 * US + D_PS, 2 * US + D_PS };
	expect_arrivals(sp, 6, want);
}

/* A 3-way fan from GPU 0 of S, 2S, 3S: r/3 each until the first finishes
 * at 3 us; then r/2 each: the 2S one has S left, done at 5 us; then the 3S
 * one has S left alone at r: 6 us. */
static void test_fan_speeds_up(void)
{
	const struct spec sp[] = { { 0, 1, S_B, 0 }, { 0, 2, 2 * S_B, 0 }, { 0, 3, 3 * S_B, 0 } };
	const simtime_t want[] = { 3 * US + D_PS, 5 * US + D_PS, 6 * US + D_PS };
	expect_arrivals(sp, 3, want);
}

/* Late joiner and two messages of one pair. 0->1 (2S) alone for 0.5 us
 * (0.5S done); 0->2 (S) joins: r/2 each, 0->2 done at 2.5 us, 0->1 then
 * has 0.5S left at r: 3 us. On the pair 3->4: S and 2S at r/2 each, the
 * short one done at 2 us, the long one then alone: 3 us. */
static void test_join_and_pair(void)
{
	const struct spec sp[] = { { 0, 1, 2 * S_B, 0 }, { 0, 2, S_B, US / 2 },
				   { 3, 4, 2 * S_B, 0 }, { 3, 4, S_B, 0 } };
	const simtime_t want[] = { 3 * US + D_PS, 5 * US / 2 + D_PS, 3 * US + D_PS, 2 * US + D_PS };
	expect_arrivals(sp, 4, want);
}

/* Reference: the same fluid model in doubles, one flow per message,
 * progressive filling by the book; returns drain times (before the delay). */
static void reference(const struct spec *sp, int n, int gpus, double *drain)
{
	double rem[MAX_MSGS], rate[MAX_MSGS], t = 0;
	int state[MAX_MSGS] = { 0 };       /* 0 not started, 1 draining, 2 drained */
	const double c = RATE_BPS * 1e-12; /* bits per ps */
	for (int i = 0; i < n; i++)
		rem[i] = (double)sp[i].size_b * 8;
	for (;;) {
		for (int i = 0; i < n; i++)
			if (state[i] == 0 && sp[i].start <= t)
				state[i] = 1;
		/* Resources: egress of GPU g = g, ingress = n_gpus + g (all hosts). */
		double cap[64];
		bool fixed[MAX_MSGS];
		for (int r = 0; r < 2 * gpus; r++)
			cap[r] = c;
		for (int i = 0; i < n; i++)
			fixed[i] = state[i] != 1;
		for (;;) {
			int cnt[64] = { 0 }, best = -1;
			for (int i = 0; i < n; i++)
				if (!fixed[i]) {
					cnt[sp[i].src]++;
					cnt[gpus + sp[i].dst]++;
				}
			for (int r = 0; r < 2 * gpus; r++)
				if (cnt[r] && (best < 0 || cap[r] / cnt[r] < cap[best] / cnt[best]))
					best = r;
			if (best < 0)
				break;
			double level = cap[best] / cnt[best];
			for (int i = 0; i < n; i++)
				if (!fixed[i] && (sp[i].src == best || gpus + sp[i].dst == best)) {
					rate[i] = level;
					fixed[i] = true;
					cap[sp[i].src] -= level;
					cap[gpus + sp[i].dst] -= level;
				}
		}
		double next = INFINITY;
		for (int i = 0; i < n; i++) {
			if (state[i] == 1 && t + rem[i] / rate[i] < next)
				next = t + rem[i] / rate[i];
			if (state[i] == 0 && (double)sp[i].start < next)
				next = (double)sp[i].start;
		}
		if (isinf(next))
			break;
		for (int i = 0; i < n; i++)
			if (state[i] == 1) {
				rem[i] -= rate[i] * (next - t);
				if (rem[i] <= 1e-6) {
					state[i] = 2;
					drain[i] = next;
				}
			}
		t = next;
	}
}

/* Random messages on both hosts against the reference: every drain within
 * a few ps (the model rounds each finish up to a whole ps and floors rates
 * to whole b/s), never before the message's ideal. */
static void test_random_against_reference(void)
{
	srand(4242);
	double worst = 0;
	for (int iter = 0; iter < 20; iter++) {
		struct spec sp[MAX_MSGS];
		int n = 5 + rand() % 60;
		for (int i = 0; i < n; i++) {
			int host = rand() % 2, a = rand() % 8, b = (a + 1 + rand() % 7) % 8;
			sp[i] = (struct spec){ host * 8 + a, host * 8 + b, 1 + (uint64_t)(rand() % 2000000),
					       (simtime_t)(rand() % 3) * (rand() % (4 * US)) };
		}
		simtime_t got[MAX_MSGS];
		double want[MAX_MSGS];
		run_specs(sp, n, got);
		reference(sp, n, 16, want);
		for (int i = 0; i < n; i++) {
			double diff = (double)(got[i] - D_PS) - want[i];
			if (fabs(diff) > worst)
				worst = fabs(diff);
			/* never more than a picosecond before the exact fluid time
			 * (drain times round up; a rate rounded down to whole b/s
			 * can leave a sub-ps gain to the others), at most a ps of
			 * rounding per message later */
			if (diff < -1.0 || diff > 2.0 * n) {
				CU_FAIL("drain time differs from the reference");
				printf("\n  iter %d message %d: %lld ps, reference %.1f ps", iter, i,
				       (long long)(got[i] - D_PS), want[i]);
			}
		}
	}
	printf("\n    worst difference from the reference: %.2f ps ", worst);
}

/* Rows: a finished message has end = recv_end = arrival, fct = ideal when
 * alone, no QP; one still draining at the stop time is written by
 * world_write_final with NULL ends. */
static void test_rows(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, ini), 0);
	char db[128];
	snprintf(db, sizeof db, "%s/out.db", b.dir);
	struct results_run_info info = { .scenario = b.ini, .config = b.cfg.resolved, .seed = 1,
					 .version = "test", .schema_sql = rocesim_schema_sql };
	char *err = NULL;
	struct results *res = results_open(db, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	CU_ASSERT_EQUAL_FATAL(flow_rows_attach(&b.w, res), 0);
	b.sim.res = res;
	world_write_topology(&b.w, res);
	struct flow *f = nvlink_post(&b.w, 10, 13, S_B, "traffic.x", "tp");
	f->job = "job.a";
	f->iteration = 3;
	nvlink_post(&b.w, 2, 5, 10 * S_B, "traffic.x", "micro");
	b.sim.stop_at = 5 * US;
	CU_ASSERT_EQUAL(sim_run(&b.sim), SIM_STOP_TIME);
	world_write_final(&b.w, res);
	struct run_summary sum = { .sim_end_ps = b.sim.now };
	CU_ASSERT_EQUAL(results_finish(res, "interrupted", &sum), 0);
	sqlite3 *h = db_open(db);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT end_ps FROM flow WHERE flow_id = 1"), US + D_PS);
	CU_ASSERT_EQUAL(q_int(h, "SELECT recv_end_ps FROM flow WHERE flow_id = 1"), US + D_PS);
	CU_ASSERT_EQUAL(q_int(h, "SELECT fct_ps FROM flow WHERE flow_id = 1"), US + D_PS);
	CU_ASSERT_EQUAL(q_int(h, "SELECT ideal_fct_ps FROM flow WHERE flow_id = 1"), US + D_PS);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE flow_id = 1 AND src = 'host1' AND "
			    "dst = 'host1' AND src_gpu = 'host1.gpu2' AND dst_gpu = 'host1.gpu5' AND "
			    "job = 'job.a' AND iteration = 3 AND parallelism = 'tp' AND packets IS NULL AND qpn IS NULL"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE flow_id = 2 AND end_ps IS NULL AND "
			    "recv_end_ps IS NULL AND src_gpu = 'host0.gpu2' AND size_bytes = 4500000"), 1);
	/* GPU nodes follow the network nodes (2 hosts + sw0). */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM node WHERE kind = 'gpu' AND tier = 0"), 16);
	CU_ASSERT_EQUAL(q_int(h, "SELECT min(node_id) FROM node WHERE kind = 'gpu'"), 3);
	CU_ASSERT_EQUAL(q_int(h, "SELECT node_id FROM node WHERE name = 'host1.gpu7'"), 3 + 15);
	sqlite3_close(h);
	unlink(db);
	b.sim.res = NULL;
	bed_close(&b);
}

TEST_MAIN("nvlink",
	  { "one message: size/rate + delay", test_single },
	  { "two messages share the sender's egress", test_share_egress },
	  { "two messages share the receiver's ingress", test_share_ingress },
	  { "disjoint GPUs and hosts do not interact", test_independent },
	  { "max-min: a->b, a->c, d->c all r/2", test_max_min_three },
	  { "water-filling with unequal shares", test_water_filling },
	  { "3-way fan: one finishes, the others speed up", test_fan_speeds_up },
	  { "late joiner; messages of one pair", test_join_and_pair },
	  { "random messages against a fluid reference", test_random_against_reference },
	  { "flow rows, finished and unfinished", test_rows })
