/*
 * test_collective.c — collectives (models/coll/collective.c, coll_*.c) and
 * `[traffic.X] type = collective`, checked against physics and closed
 * forms, not against printed values.
 *
 * Plans (coll_plan, no fabric): message and byte counts from chunk and
 * channels for every algorithm, and the refusals of coll_check.
 * Whole runs (run_scenario into SQLite, as test_physics.c): on an idle
 * star (non-blocking; PFC and ECN off, cc none, one GPU per host) ring
 * allreduce moves 2(n-1)/n x S per rank and takes the bandwidth closed
 * form; halving-doubling shows 2 log2 n rounds; the double binary tree's
 * bytes per rank follow NCCL's trees; reduce_scatter / allgather move
 * (n-1)/n x S; broadcast and sendrecv take their closed forms; the
 * collective row follows nccl-tests' conventions and ideal_ps bounds the
 * run from below, closely; bad input is a located error (exit 2); a run is
 * a pure function of its seed. An uneven alltoall matrix goes through the
 * C API on a hand-run world.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collective.h"
#include "config.h"
#include "packet.h"
#include "results.h"
#include "run.h"
#include "run_fixture.h"
#include "sim.h"
#include "sqlutil.h"
#include "observe.h"
#include "testutil.h"
#include "world.h"

/* An idle star of n hosts, 100 Gb/s, 1 us links, one GPU per host. */
#define STAR(n) "[simulation]\nseed = 1\nprogress = off\n" \
	"[topology]\ntype = star\nhosts = " #n "\nlink_rate = 100Gbps\nlink_delay = 1us\n" \
	"[switch]\npfc = off\necn = off\n[nic]\ncc = none\n"

/* Writes a scenario for a test that builds the world itself. */
/* The flow columns two runs of one input must share. */
#define FLOW_DUMP_SQL "SELECT flow_id, src_gpu, dst_gpu, size_bytes, start_ps, end_ps, recv_end_ps, collective_id, sport FROM flow ORDER BY flow_id"

static void write_ini(const char *text, char *ini, size_t n_ini, char *db, size_t n_db)
{
	snprintf(ini, n_ini, "%s/c%d.ini", run_tmpdir, run_counter);
	snprintf(db, n_db, "%s/c%d.db", run_tmpdir, run_counter);
	run_counter++;
	FILE *f = fopen(ini, "w");
	fputs(text, f);
	fclose(f);
}

/* ---- plans ---- */

static struct coll_spec spec_of(enum coll_op op, const char *alg, int n, uint64_t size, uint64_t chunk, int ch)
{
	static int gpus[64];
	for (int i = 0; i < 64; i++)
		gpus[i] = i;
	return (struct coll_spec){ .op = op, .algorithm = alg, .gpus = gpus, .n = n, .size_b = size,
				   .chunk_b = chunk, .channels = ch, .source = "t", .parallelism = "micro",
				   .iteration = -1 };
}

static void check_plan(struct coll_spec s, uint64_t want_bytes, uint64_t want_msgs)
{
	uint64_t b = 0, m = 0;
	coll_plan(&s, &b, &m);
	CU_ASSERT_EQUAL(b, want_bytes);
	CU_ASSERT_EQUAL(m, want_msgs);
	if (b != want_bytes || m != want_msgs)
		printf("%s/%s n=%d size=%llu: bytes %llu (want %llu), messages %llu (want %llu)\n",
		       coll_op_name(s.op), s.algorithm, s.n, (unsigned long long)s.size_b,
		       (unsigned long long)b, (unsigned long long)want_bytes, (unsigned long long)m,
		       (unsigned long long)want_msgs);
}

static uint64_t cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* Messages = ranks x channels x steps x ceil(segment / chunk); bytes per
 * nccl-tests' bus factors times the ranks. */
static void test_plan_counts(void)
{
	const uint64_t K = 1024;
	/* Ring allreduce, 8 ranks, 64 MiB, 512 KiB chunks, 2 channels: segment 4 MiB = 8 chunks. */
	uint64_t S = 64 * K * K;
	check_plan(spec_of(COLL_ALLREDUCE, "ring", 8, S, 512 * K, 2), 2 * 7 * S / 8 * 8, 8 * 2 * 14 * 8);
	/* Same with 4 channels and 1 MiB chunks: segment 2 MiB = 2 chunks. */
	check_plan(spec_of(COLL_ALLREDUCE, "ring", 8, S, 1024 * K, 4), 2 * 7 * S, 8 * 4 * 14 * 2);
	/* A segment not a multiple of the chunk: 1,000,000 B per segment, 300 KB chunks -> 4 pieces. */
	check_plan(spec_of(COLL_ALLREDUCE, "ring", 4, 8000000, 300000, 2), 2 * 3 * 8000000, 4 * 2 * 6 * 4);
	check_plan(spec_of(COLL_REDUCE_SCATTER, "ring", 8, S, 512 * K, 2), 7 * S, 8 * 2 * 7 * 8);
	check_plan(spec_of(COLL_ALLGATHER, "ring", 8, S, 512 * K, 2), 7 * S, 8 * 2 * 7 * 8);
	/* Halving-doubling, 8 ranks: steps of Bc/2, /4, /8 then /8, /4, /2 (Bc = 32 MiB per channel). */
	uint64_t hd_msgs = 0;
	for (int i = 1; i <= 3; i++)
		hd_msgs += 2 * cdiv(32 * K * K >> i, 512 * K);
	check_plan(spec_of(COLL_ALLREDUCE, "halving_doubling", 8, S, 512 * K, 2), 2 * 7 * S, 8 * 2 * hd_msgs);
	/* Tree: each of 2 channels x 2 trees carries S/4 in ceil(S/4 / chunk) pieces, over n-1 edges, up and down. */
	check_plan(spec_of(COLL_ALLREDUCE, "tree", 8, S, 512 * K, 2), 2 * 7 * S, 4 * 7 * 2 * cdiv(S / 4, 512 * K));
	check_plan(spec_of(COLL_ALLREDUCE, "tree", 5, 1000000, 100000, 1), 2 * 4 * 1000000, 2 * 4 * 2 * 5);
	/* Broadcast chain: n-1 hops of S. */
	check_plan(spec_of(COLL_BROADCAST, "ring", 6, S, 512 * K, 2), 5 * S, 5 * 2 * 64);
	/* Alltoall: S/n to every other rank, split over channels and chunks. */
	check_plan(spec_of(COLL_ALLTOALL, "direct", 4, 8 * K * K, 512 * K, 2), 4 * 3 * 2 * K * K, 4 * 3 * 2 * 2);
	/* Sendrecv: one transfer. */
	check_plan(spec_of(COLL_SENDRECV, "ring", 2, 3 * K * K, 512 * K, 2), 3 * K * K, 2 * 3);
	/* Tiny buffers leave empty pieces, which are not messages. */
	/* 5 B over 2 channels (3 + 2) and 8 ranks: segments of 1 or 0 B; each
	 * segment moves once per step, 2(n-1) steps: 70 one-byte messages. */
	check_plan(spec_of(COLL_ALLREDUCE, "ring", 8, 5, 512 * K, 2), 70, 70);
}

static void test_rounds_and_checks(void)
{
	const uint64_t K = 1024;
	CU_ASSERT_EQUAL(coll_rounds(&(struct coll_spec){ .op = COLL_ALLREDUCE, .algorithm = "ring", .n = 16, .size_b = 1, .chunk_b = K, .channels = 1 }), 30);
	CU_ASSERT_EQUAL(coll_rounds(&(struct coll_spec){ .op = COLL_ALLREDUCE, .algorithm = "halving_doubling", .n = 16, .size_b = 1, .chunk_b = K, .channels = 1 }), 8);
	CU_ASSERT_EQUAL(coll_rounds(&(struct coll_spec){ .op = COLL_ALLGATHER, .algorithm = "ring", .n = 16, .size_b = 1, .chunk_b = K, .channels = 1 }), 15);
	/* NCCL's tree of 8: 0-4-{2,6}-{1,3,5,7}: depth 3, up and down. */
	CU_ASSERT_EQUAL(coll_rounds(&(struct coll_spec){ .op = COLL_ALLREDUCE, .algorithm = "tree", .n = 8, .size_b = 1, .chunk_b = K, .channels = 1 }), 6);
	CU_ASSERT_PTR_NULL(coll_check(COLL_ALLREDUCE, "tree", 7));
	CU_ASSERT_PTR_NULL(coll_check(COLL_ALLREDUCE, NULL, 7));
	CU_ASSERT_PTR_NULL(coll_check(COLL_ALLTOALL, NULL, 3));
	CU_ASSERT_PTR_NOT_NULL(coll_check(COLL_ALLREDUCE, "halving_doubling", 12));
	CU_ASSERT_PTR_NULL(coll_check(COLL_ALLREDUCE, "halving_doubling", 16));
	CU_ASSERT_PTR_NOT_NULL(coll_check(COLL_ALLGATHER, "tree", 8));
	CU_ASSERT_PTR_NOT_NULL(coll_check(COLL_SENDRECV, "ring", 3));
	CU_ASSERT_PTR_NOT_NULL(coll_check(COLL_ALLREDUCE, "ring", 1));
	/* multicast: broadcast, allgather, allreduce (test_coll_mcast.c); not reduce_scatter. */
	CU_ASSERT_PTR_NULL(coll_check(COLL_BROADCAST, "multicast", 8));
	const char *mc = coll_check(COLL_REDUCE_SCATTER, "multicast", 8);
	CU_ASSERT(mc && strstr(mc, "ring for reduce_scatter"));
	CU_ASSERT_EQUAL(coll_op_by_name("reduce_scatter"), COLL_REDUCE_SCATTER);
	CU_ASSERT_EQUAL(coll_op_by_name("nope"), -1);
}

/* ---- whole runs ---- */

/* Goodput of a link that carries a stream of full MTU packets and, in the
 * other direction's stead, the ACKs of an equal stream coming in (every
 * rank of a ring sends and receives at line rate): payload per
 * (data frame + ACK frame) on the wire. */
static double ring_goodput_bps(double rate_bps, int mtu)
{
	double data = mtu + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B;
	double ack = PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B;
	return rate_bps * mtu / (data + ack);
}

static void test_ring_allreduce(void)
{
	sqlite3 *h = run_text(STAR(16) "[traffic.ar]\ntype = collective\nop = allreduce\nsize = 16MB\nstart = 10us\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const double S = 16e6;
	const int n = 16;
	/* Every rank sends exactly 2(n-1)/n x S, and only to its successor. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT s) FROM (SELECT src_gpu, sum(size_bytes) AS s FROM flow GROUP BY src_gpu)"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host3.gpu0'"), (long long)(2 * (n - 1) * S / n));
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT dst_gpu) FROM flow WHERE src_gpu = 'host3.gpu0'"), 1);
	CHECK_TEXT(h, "SELECT DISTINCT dst_gpu FROM flow WHERE src_gpu = 'host15.gpu0'", "host0.gpu0");
	/* 500,000 B per channel segment < 512 KiB: one message per step, channel and rank. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow"), 16 * 2 * 30);
	/* Flow rows carry the collective. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE collective_id = 1 AND parallelism = 'micro' "
			      "AND source = 'traffic.ar' AND job IS NULL AND iteration = 0"), 16 * 2 * 30);
	/* The row, by nccl-tests' conventions. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM collective"), 1);
	CHECK_TEXT(h, "SELECT op || ' ' || algorithm || ' ' || group_size || ' ' || size_bytes || ' ' || "
		      "parallelism || ' ' || ifnull(job, 'NULL') || ' ' || iteration FROM collective",
		   "allreduce ring 16 16000000 micro NULL 0");
	CU_ASSERT_EQUAL(q_int(h, "SELECT start_ps FROM collective"), 10000000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT end_ps FROM collective"), q_int(h, "SELECT max(recv_end_ps) FROM flow"));
	CU_ASSERT_EQUAL(q_int(h, "SELECT start_ps FROM collective"), q_int(h, "SELECT min(start_ps) FROM flow"));
	/* Time: the per-rank bytes at the goodput (headers and the ACKs each
	 * link also carries), plus the last piece's latency: its path (2 x 1 us)
	 * and one frame at the switch. */
	double t = (double)q_int(h, "SELECT end_ps - start_ps FROM collective");
	double cf = 2.0 * (n - 1) / n * S * 8 / ring_goodput_bps(100e9, 1024) * 1e12 + 2e6 + 1106 * 80;
	double cf_headers_only = 2.0 * (n - 1) / n * S * 8 / (100e9 * 1024 / (1024 + 82)) * 1e12 + 2e6;
	printf("\n    ring allreduce 16 x 16 MB: measured %.3f us, closed form %.3f us (%.2f%%), "
	       "headers only %.3f us, ideal %.3f us\n", t / 1e6, cf / 1e6, 100 * (t - cf) / cf,
	       cf_headers_only / 1e6, q_int(h, "SELECT ideal_ps FROM collective") / 1e6);
	CU_ASSERT(fabs(t - cf) / cf < 0.02);
	CU_ASSERT(fabs(t - cf_headers_only) / cf_headers_only < 0.10);
	/* busbw in nccl-tests' sense is close to the goodput. */
	double busbw = S / (t / 1e12) * 2.0 * (n - 1) / n * 8;
	CU_ASSERT(busbw > 0.97 * ring_goodput_bps(100e9, 1024) && busbw <= ring_goodput_bps(100e9, 1024));
	/* ideal: a lower bound, within a few percent on the idle fabric. */
	long long ideal = q_int(h, "SELECT ideal_ps FROM collective");
	CU_ASSERT(ideal > 0 && ideal <= (long long)t);
	CU_ASSERT((double)ideal > 0.97 * t);
	sqlite3_close(h);
}

static void test_halving_doubling(void)
{
	sqlite3 *h = run_text(STAR(8) "[traffic.hd]\ntype = collective\nop = allreduce\n"
			     "algorithm = halving_doubling\nsize = 8MB\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const long long S = 8000000;
	/* Same bytes as the ring. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT s) FROM (SELECT sum(size_bytes) AS s FROM flow GROUP BY src_gpu)"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host5.gpu0'"), 2 * 7 * S / 8);
	/* Rounds: 2 log2 8 = 6 per channel. On the symmetric star every rank
	 * opens a round at the same instant; both channels open round 0 at the
	 * start and each later round at its own time (the channels share a
	 * QP per partner, so channel 0's pieces of a round arrive first):
	 * 1 + 5 x 2 distinct posting times, at each of which all 8 ranks post. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT start_ps) FROM flow"), 1 + 5 * 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM (SELECT start_ps FROM flow GROUP BY start_ps "
			      "HAVING count(DISTINCT src_gpu) = 8)"), 1 + 5 * 2);
	/* Per partner: distance 4 in rounds 0 and 5 (2 MB per channel each,
	 * 4 pieces), distance 2 in rounds 1 and 4, distance 1 in rounds 2 and 3. */
	CHECK_TEXT(h, "SELECT group_concat(d || ':' || c || ':' || b) FROM (SELECT dst_gpu AS d, count(*) AS c, "
		      "sum(size_bytes) AS b FROM flow WHERE src_gpu = 'host0.gpu0' GROUP BY dst_gpu ORDER BY dst_gpu)",
		   "host1.gpu0:4:2000000,host2.gpu0:8:4000000,host4.gpu0:16:8000000");
	/* Partners: 3 distinct per rank (distance 4, 2, 1), each used twice. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT dst_gpu) FROM flow WHERE src_gpu = 'host0.gpu0'"), 3);
	CHECK_TEXT(h, "SELECT group_concat(d) FROM (SELECT DISTINCT dst_gpu AS d FROM flow WHERE src_gpu = 'host0.gpu0' ORDER BY d)",
		   "host1.gpu0,host2.gpu0,host4.gpu0");
	/* Messages: per channel (4 MB) steps of 2 MB, 1 MB, 500 KB twice -> 4 + 2 + 1 pieces each way. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow"), 8 * 2 * 2 * 7);
	long long t = q_int(h, "SELECT end_ps - start_ps FROM collective"), ideal = q_int(h, "SELECT ideal_ps FROM collective");
	CU_ASSERT(ideal <= t && ideal > 0.95 * t);
	CHECK_TEXT(h, "SELECT algorithm FROM collective", "halving_doubling");
	sqlite3_close(h);
}

static void test_tree(void)
{
	sqlite3 *h = run_text(STAR(8) "[traffic.t]\ntype = collective\nop = allreduce\nalgorithm = tree\nsize = 8MB\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const long long S = 8000000;
	/* NCCL's double binary tree of 8: tree 0 = 0-4, 4-{2,6}, 2-{1,3}, 6-{5,7};
	 * tree 1 its mirror (r -> 7-r). Each tree carries S/2 up and down an edge:
	 * ranks 0 and 7 (root + one child in one tree, leaf in the other) send S,
	 * every other rank (interior: up + two children; leaf: up) sends 2S. */
	for (int r = 0; r < 8; r++) {
		char q[160];
		snprintf(q, sizeof q, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host%d.gpu0'", r);
		CU_ASSERT_EQUAL(q_int(h, q), r == 0 || r == 7 ? S : 2 * S);
	}
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host4.gpu0' AND dst_gpu = 'host0.gpu0'"), S / 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host0.gpu0' AND dst_gpu = 'host4.gpu0'"), S / 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host3.gpu0' AND dst_gpu = 'host7.gpu0'"), S / 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM collective WHERE end_ps IS NOT NULL AND algorithm = 'tree'"), 1);
	long long t = q_int(h, "SELECT end_ps - start_ps FROM collective"), ideal = q_int(h, "SELECT ideal_ps FROM collective");
	CU_ASSERT(ideal > 0 && ideal <= t);
	sqlite3_close(h);
}

static void test_reduce_scatter_allgather(void)
{
	sqlite3 *h = run_text(STAR(8) "[traffic.rs]\ntype = collective\nop = reduce_scatter\nsize = 16MB\n"
			     "[traffic.ag]\ntype = collective\nop = allgather\nsize = 16MB\nstart = 1s\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const long long S = 16000000;
	const char *ops[] = { "traffic.rs", "traffic.ag" };
	for (int i = 0; i < 2; i++) {
		char q[256];
		snprintf(q, sizeof q, "SELECT count(DISTINCT s) || ' ' || max(s) FROM (SELECT sum(size_bytes) AS s "
			 "FROM flow WHERE source = '%s' GROUP BY src_gpu)", ops[i]);
		char want[64];
		snprintf(want, sizeof want, "1 %lld", 7 * S / 8);
		CHECK_TEXT(h, q, want);
		/* n-1 steps x 2 channels, 1 MB segments in 2 pieces of 512 KiB or less. */
		snprintf(q, sizeof q, "SELECT count(*) FROM flow WHERE source = '%s'", ops[i]);
		CU_ASSERT_EQUAL(q_int(h, q), 8 * 2 * 7 * 2);
	}
	CHECK_TEXT(h, "SELECT group_concat(op || ':' || size_bytes) FROM (SELECT * FROM collective ORDER BY collective_id)",
		   "reduce_scatter:16000000,allgather:16000000");
	/* Half the ring allreduce: (n-1)/n x S at the goodput. */
	double t = (double)q_int(h, "SELECT end_ps - start_ps FROM collective WHERE op = 'allgather'");
	double cf = 7.0 / 8 * S * 8 / ring_goodput_bps(100e9, 1024) * 1e12 + 2e6;
	CU_ASSERT(fabs(t - cf) / cf < 0.03);
	sqlite3_close(h);
}

/* Broadcast: a chain of 4 with 2 channels: S/2 per channel in pieces of
 * 500 KB; the root's link carries S, the last piece then crosses n-1 hops. */
static void test_broadcast_sendrecv(void)
{
	sqlite3 *h = run_text(STAR(4) "[traffic.b]\ntype = collective\nop = broadcast\nsize = 8MB\n"
			     "[traffic.p]\ntype = collective\nop = sendrecv\ngpus = host2.gpu0 host1.gpu0\n"
			     "size = 4MB\nstart = 1s\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const long long S = 8000000;
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.b' AND src_gpu = 'host0.gpu0' AND dst_gpu = 'host1.gpu0'"), S);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.b' AND src_gpu = 'host2.gpu0' AND dst_gpu = 'host3.gpu0'"), S);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.b' AND src_gpu = 'host3.gpu0'"), 0);
	/* 4 MB per channel in 8 pieces of 500,000 B (<= 512 KiB). */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.b'"), 3 * 2 * 8);
	/* Time: S at the root's goodput (it receives nothing, so no ACKs share
	 * its link... but its successors both receive and send: the chain runs
	 * at the goodput of a ring link), plus the last piece forwarded twice
	 * more: 2 x (one piece at line rate + 2 x 1 us). */
	double piece = 500000.0 * 8 / ring_goodput_bps(100e9, 1024) * 1e12;
	double t = (double)q_int(h, "SELECT end_ps - start_ps FROM collective WHERE op = 'broadcast'");
	double cf = S * 8 / ring_goodput_bps(100e9, 1024) * 1e12 + 2 * piece + 3 * 2e6;
	printf("\n    broadcast 4 x 8 MB: measured %.3f us, closed form %.3f us\n", t / 1e6, cf / 1e6);
	CU_ASSERT(fabs(t - cf) / cf < 0.03);
	/* Sendrecv: rank 0 (host2) to rank 1 (host1), 4 MB in 2 channels x 4 pieces. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.p' AND src_gpu = 'host2.gpu0' AND dst_gpu = 'host1.gpu0'"), 4000000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.p'"), 8);
	/* One stream at full rate: the sender's link carries the data only, the receiver's the ACKs only. */
	double tp = (double)q_int(h, "SELECT end_ps - start_ps FROM collective WHERE op = 'sendrecv'");
	double cfp = 4e6 * 8 / (100e9 * 1024 / (1024 + 82.0)) * 1e12 + 2e6;
	CU_ASSERT(fabs(tp - cfp) / cfp < 0.01);
	CU_ASSERT(q_int(h, "SELECT ideal_ps FROM collective WHERE op = 'sendrecv'") <= (long long)tp);
	CU_ASSERT(q_int(h, "SELECT ideal_ps FROM collective WHERE op = 'sendrecv'") > 0.99 * tp);
	sqlite3_close(h);
}

/* repeat: back to back, one row per instance, iterations 0.. */
static void test_repeat(void)
{
	sqlite3 *h = run_text(STAR(4) "[traffic.r]\ntype = collective\nop = allreduce\nsize = 1MB\nrepeat = 3\n"
			     "hosts = host0 host1 host3\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM collective"), 3);
	CHECK_TEXT(h, "SELECT group_concat(iteration) FROM (SELECT iteration FROM collective ORDER BY collective_id)", "0,1,2");
	/* Each starts when the previous ended. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM collective a JOIN collective b ON b.collective_id = a.collective_id + 1 "
			      "WHERE b.start_ps = a.end_ps"), 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE src_gpu = 'host2.gpu0' OR dst_gpu = 'host2.gpu0'"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT collective_id) FROM flow"), 3);
	CU_ASSERT_EQUAL(q_int(h, "SELECT group_size FROM collective LIMIT 1"), 3);
	sqlite3_close(h);
}

/* ---- alltoall with a matrix, through the C API ---- */

static int a2a_done;
static void on_a2a_done(struct sim *sim, struct coll *c, void *ctx)
{
	(void)sim; (void)ctx;
	CU_ASSERT(coll_id(c) >= 1);
	a2a_done++;
}

static void test_alltoall_matrix(void)
{
	char ini[256], db[256];
	write_ini(STAR(4), ini, sizeof ini, db, sizeof db);
	struct config cfg;
	char *err = NULL;
	CU_ASSERT_FATAL(scenario_load(&cfg, ini, NULL, 0, &err) == 0);
	struct sim sim;
	struct world w;
	sim_init(&sim, 1);
	sim.cfg = &cfg;
	sim.stop_at = scenario_sim(&cfg)->stop;
	CU_ASSERT_FATAL(world_build(&w, &sim, &cfg, &err) == 0);
	struct results_run_info info = { .scenario = ini, .config = cfg.resolved, .seed = 1, .version = "test", .schema_sql = rocesim_schema_sql };
	struct results *res = results_open(db, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	CU_ASSERT_EQUAL_FATAL(flow_rows_attach(&w, res), 0);
	sim.res = res;
	world_write_topology(&w, res);
	/* An MoE-like uneven matrix: rank 2 is the hot expert; one pair empty;
	 * sizes not multiples of anything. */
	const uint64_t m[16] = {
		0, 100001, 3000000, 7,
		250000, 0, 2999999, 0,
		123456, 654321, 0, 1,
		1048577, 2, 4000000, 0,
	};
	int gpus[4] = { 0, 1, 2, 3 };
	struct coll_spec s = { .op = COLL_ALLTOALL, .algorithm = "direct", .gpus = gpus, .n = 4,
			       .a2a_b = m, .chunk_b = 512 * 1024, .channels = 2, .source = "test.a2a",
			       .parallelism = "ep", .job = "moe", .iteration = 7,
			       .on_done = on_a2a_done };
	struct colls *cs = colls_new(&w);
	struct coll *c = coll_start(cs, &s);
	CU_ASSERT_EQUAL(coll_id(c), 1);
	sim.done = world_done;
	sim.done_ctx = &w;
	sim_run(&sim);
	CU_ASSERT_EQUAL(a2a_done, 1);
	world_write_final(&w, res);
	struct run_summary sum = { .sim_end_ps = sim.now };
	CU_ASSERT(results_finish(res, "complete", &sum) == 0);
	colls_free(cs);
	world_free(&w);
	sim_free(&sim);
	config_free(&cfg);
	sqlite3 *h = db_open(db);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			char q[200];
			snprintf(q, sizeof q, "SELECT ifnull(sum(size_bytes), 0) FROM flow WHERE src_gpu = 'host%d.gpu0' AND dst_gpu = 'host%d.gpu0'", i, j);
			CU_ASSERT_EQUAL(q_int(h, q), (long long)m[i * 4 + j]);
		}
	/* Pieces: per pair, 2 channels (when the pair has 2 bytes or more) x ceil(half / 512 KiB). */
	long long want = 0;
	for (int i = 0; i < 16; i++)
		for (uint64_t ch = 0; ch < 2; ch++) {
			uint64_t share = m[i] / 2 + (ch < m[i] % 2);
			want += (long long)((share + 524287) / 524288);
		}
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow"), want);
	CHECK_TEXT(h, "SELECT op || ' ' || algorithm || ' ' || job || ' ' || iteration || ' ' || parallelism || ' ' || size_bytes FROM collective",
		   "alltoall direct moe 7 ep 5048579");
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE job = 'moe' AND iteration = 7 AND parallelism = 'ep' AND collective_id = 1"), want);
	long long t = q_int(h, "SELECT end_ps - start_ps FROM collective"), ideal = q_int(h, "SELECT ideal_ps FROM collective");
	CU_ASSERT(ideal > 0 && ideal <= t);
	sqlite3_close(h);
}

/* A run stopped halfway: the row is written with end_ps NULL, the
 * collective freed without on_done (what run.c does at the end). */
static void test_unfinished(void)
{
	char ini[256], db[256];
	write_ini(STAR(4), ini, sizeof ini, db, sizeof db);
	struct config cfg;
	char *err = NULL;
	/* STAR already has [simulation]: set stop through an override. */
	struct cfg_override ov = { "simulation", "stop", "100us" };
	CU_ASSERT_FATAL(scenario_load(&cfg, ini, &ov, 1, &err) == 0 || (printf("%s\n", err), 0));
	struct sim sim;
	struct world w;
	sim_init(&sim, 1);
	sim.cfg = &cfg;
	sim.stop_at = scenario_sim(&cfg)->stop;
	CU_ASSERT_FATAL(world_build(&w, &sim, &cfg, &err) == 0);
	struct results_run_info info = { .scenario = ini, .config = cfg.resolved, .seed = 1, .version = "test", .schema_sql = rocesim_schema_sql };
	struct results *res = results_open(db, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	CU_ASSERT_EQUAL_FATAL(flow_rows_attach(&w, res), 0);
	sim.res = res;
	int gpus[4] = { 3, 2, 1, 0 };
	a2a_done = 0;
	struct coll_spec s = { .op = COLL_ALLREDUCE, .algorithm = "ring", .gpus = gpus, .n = 4,
			       .size_b = 64000000, .chunk_b = 512 * 1024, .channels = 2, .source = "test.ar",
			       .parallelism = "dp", .job = "j", .iteration = 0, .on_done = on_a2a_done };
	struct colls *cs = colls_new(&w);
	coll_start(cs, &s);
	sim.done = world_done;
	sim.done_ctx = &w;
	sim_run(&sim);
	CU_ASSERT_EQUAL(a2a_done, 0);
	colls_write_unfinished(cs);
	world_write_final(&w, res);
	struct run_summary sum = { .sim_end_ps = sim.now };
	CU_ASSERT(results_finish(res, "interrupted", &sum) == 0);
	colls_free(cs);
	world_free(&w);
	sim_free(&sim);
	config_free(&cfg);
	sqlite3 *h = db_open(db);
	CHECK_TEXT(h, "SELECT ifnull(end_ps, 'NULL') || ' ' || start_ps || ' ' || group_size || ' ' || (ideal_ps > 100000000) FROM collective",
		   "NULL 0 4 1");
	sqlite3_close(h);
}

/* ---- errors ---- */

static void test_errors(void)
{
	/* STAR is 13 lines: [traffic.x] is line 14, type 15, then op 16, ... */
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = allsum\nsize = 1MB\n",
		     ".ini:16: [traffic.x] op = 'allsum'", "allreduce");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = allgather\nalgorithm = tree\nsize = 1MB\n",
		     ".ini:17: [traffic.x] algorithm = 'tree'", "ring");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = alltoall\nalgorithm = multicast\nsize = 1MB\n",
		     ".ini:17: [traffic.x] algorithm = 'multicast'", "direct");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = allreduce\nsize = 1MB\ngpus = host0.gpu0 host9.gpu0\n",
		     ".ini:18: [traffic.x] gpus = ", "unknown GPU 'host9.gpu0'");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = allreduce\nsize = 1MB\ngpus = host0.gpu0 host1.gpu1\n",
		     "[traffic.x] gpus", "unknown GPU 'host1.gpu1'");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = allreduce\nsize = 1MB\ngpus = host0.gpu0 host0.gpu0\n",
		     "[traffic.x] gpus", "listed twice");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = allreduce\nsize = 1MB\ngpus = host2.gpu0\n",
		     ".ini:18: [traffic.x] gpus = 'host2.gpu0'", "at least 2 GPUs");
	run_expect_error(STAR(6) "[traffic.x]\ntype = collective\nop = allreduce\nalgorithm = halving_doubling\nsize = 1MB\n",
		     "[traffic.x] gpus (default)", "power of two");
	run_expect_error(STAR(6) "[traffic.x]\ntype = collective\nop = allreduce\nalgorithm = halving_doubling\nsize = 1MB\nhosts = host0 host1 host2\n",
		     ".ini:19: [traffic.x] hosts = ", "power of two");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = sendrecv\nsize = 1MB\n",
		     "[traffic.x] gpus", "exactly 2 ranks");
	run_expect_error(STAR(4) "[traffic.x]\ntype = collective\nop = allreduce\nsize = 1MB\nhosts = host0 hostX\n",
		     "[traffic.x] hosts", "unknown host 'hostX'");
}

/* ---- determinism ---- */

static void test_determinism(void)
{
	const char *text = "[simulation]\nseed = 7\nprogress = off\n"
			   "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			   "[switch]\npfc = off\necn = off\n[nic]\ncc = none\n"
			   "[traffic.t]\ntype = collective\nop = allreduce\nalgorithm = tree\nsize = 3MB\n"
			   "[traffic.a]\ntype = collective\nop = alltoall\nsize = 4MB\nhosts = host0 host5 host9 host14\n";
	sqlite3 *a = run_twice_same(text, FLOW_DUMP_SQL, 1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(q_int(a, "SELECT count(*) FROM collective WHERE end_ps IS NOT NULL"), 2);
	/* The fat tree is non-blocking: each completes; ideal never above the run. */
	CU_ASSERT_EQUAL(q_int(a, "SELECT count(*) FROM collective WHERE ideal_ps > end_ps - start_ps"), 0);
	sqlite3_close(a);
}

int main(void)
{
	static const struct test_case t[] = {
		{ "plans: messages and bytes from chunk and channels", test_plan_counts },
		{ "rounds per algorithm; coll_check refusals", test_rounds_and_checks },
		{ "ring allreduce: 2(n-1)/n S per rank, bandwidth closed form, row, ideal", test_ring_allreduce },
		{ "halving-doubling: 2 log2 n rounds, ring's bytes", test_halving_doubling },
		{ "double binary tree: bytes per rank as NCCL's trees", test_tree },
		{ "reduce_scatter and allgather: (n-1)/n S, n-1 steps", test_reduce_scatter_allgather },
		{ "broadcast chain and sendrecv: closed forms", test_broadcast_sendrecv },
		{ "repeat: back to back, one row each", test_repeat },
		{ "alltoall: per-pair bytes equal the matrix (C API)", test_alltoall_matrix },
		{ "a run stopped halfway: row with end NULL, freed", test_unfinished },
		{ "errors: located, exit 2", test_errors },
		{ "determinism: same seed, same flow table", test_determinism },
		{ 0, 0 },
	};
	return test_run("collective", t);
}
