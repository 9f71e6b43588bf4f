/*
 * test_coll_mcast.c — collectives by multicast (models/coll/coll_mcast.c):
 * broadcast, allgather, and allreduce = ring reduce-scatter + multicast
 * all-gather, checked against closed forms.
 *
 * Plans (coll_plan, no fabric) count what the flow table records: a
 * multicast to k >= 2 other hosts is 1 + k rows (the sender's and one per
 * member NIC), a copy to a single other host one RC row, NVLink copies one
 * each (coll_mcast.c). So with one GPU per host a multicast allgather of S
 * over n >= 3 ranks is n S bytes in n x channels x pieces x n rows (the
 * ring: (n-1) S), a broadcast n S, the allreduce (n-1) S + n S; with g GPUs
 * on each of H hosts every piece also makes g-1 NVLink copies at the
 * source and g-1 relays on each other host.
 * Whole runs (run_scenario into SQLite): each NIC injects its own shard
 * once and receives (n-1)/n S; broadcast and allgather take the closed
 * forms of the sender's and the receivers' links; a host with several
 * ranks takes each piece once from the network and relays it (2 hosts of
 * 4 GPUs: S/2 per NIC against the ring's 7/8 S, both on one fabric);
 * groups are reused, a [multicast] group of the same members too, in its
 * member order; rails keep trees on one leaf; allreduce multicasts a
 * segment once its reduce-scatter arrived; a job's --check plan equals its
 * flow table; same seed, same flow table; bad input is a located error
 * (exit 2).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "config.h"
#include "job_plan.h"
#include "packet.h"
#include "run_fixture.h"
#include "plan_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

/* The flow columns two runs of one input must share. */
#define FLOW_DUMP_SQL "SELECT flow_id, src, dst, ifnull(dst_gpu, '-'), size_bytes, start_ps, ifnull(end_ps, -1), ifnull(recv_end_ps, -1) FROM flow ORDER BY flow_id"

static const uint64_t K = 1024;

static struct coll_spec spec_of(enum coll_op op, const char *alg, int n, uint64_t size, uint64_t chunk, int ch,
				int gph)
{
	static int gpus[64];
	for (int i = 0; i < 64; i++)
		gpus[i] = i;
	return (struct coll_spec){ .op = op, .algorithm = alg, .gpus = gpus, .n = n, .size_b = size,
				   .chunk_b = chunk, .channels = ch, .gpus_per_host = gph, .source = "t",
				   .parallelism = "micro", .iteration = -1 };
}

static void check_plan(struct coll_spec s, uint64_t want_bytes, uint64_t want_msgs)
{
	uint64_t b = 0, m = 0;
	coll_plan(&s, &b, &m);
	CU_ASSERT_EQUAL(b, want_bytes);
	CU_ASSERT_EQUAL(m, want_msgs);
	if (b != want_bytes || m != want_msgs)
		printf("\n    %s/%s n=%d size=%llu gph=%d: bytes %llu (want %llu), messages %llu (want %llu)\n",
		       coll_op_name(s.op), s.algorithm, s.n, (unsigned long long)s.size_b, s.gpus_per_host,
		       (unsigned long long)b, (unsigned long long)want_bytes, (unsigned long long)m,
		       (unsigned long long)want_msgs);
}

static void test_plans_one_gpu_per_host(void)
{
	uint64_t S = 64 * K * K;
	/* 8 ranks, 2 channels: Bc = 32 MiB, shard 4 MiB = 8 pieces of 512 KiB,
	 * each 1 + 7 rows. */
	check_plan(spec_of(COLL_ALLGATHER, "multicast", 8, S, 512 * K, 2, 1), 8 * S, 8 * 2 * 8 * 8);
	check_plan(spec_of(COLL_ALLGATHER, "ring", 8, S, 512 * K, 2, 1), 7 * S, 8 * 2 * 7 * 8);
	/* Broadcast: Bc = 32 MiB = 64 pieces per channel, 1 + 5 rows each. */
	check_plan(spec_of(COLL_BROADCAST, "multicast", 6, S, 512 * K, 2, 1), 6 * S, 2 * 64 * 6);
	/* Allreduce: the ring's reduce-scatter ((n-1) S in n x ch x (n-1) x m
	 * messages) plus the multicast all-gather (n S in n x ch x m x n). */
	check_plan(spec_of(COLL_ALLREDUCE, "multicast", 8, S, 512 * K, 2, 1), 7 * S + 8 * S,
		   8 * 2 * 7 * 8 + 8 * 2 * 8 * 8);
	/* An uneven split: 1,000,000 B over 3 ranks, 1 channel, 100 KB chunks:
	 * shards 333,334 / 333,333 / 333,333 in ceil(333,334 / 100,000) = 4 pieces. */
	check_plan(spec_of(COLL_ALLGATHER, "multicast", 3, 1000000, 100000, 1, 1), 3 * 1000000, 3 * 4 * 3);
	/* Two ranks: the other host by plain RC, one row: the ring's bytes. */
	check_plan(spec_of(COLL_ALLGATHER, "multicast", 2, S, 512 * K, 2, 1), S, 2 * 2 * 32);
	/* Zero-byte pieces are not messages: 5 B over 2 channels (3 + 2) and 8
	 * ranks: 5 one-byte shards. */
	check_plan(spec_of(COLL_ALLGATHER, "multicast", 8, 5, 512 * K, 2, 1), 5 * 8, 5 * 8);
	check_plan(spec_of(COLL_BROADCAST, "multicast", 8, 5, 512 * K, 2, 1), 5 * 8, 2 * 8);
}

/* g GPUs on each of H hosts: per piece (g-1) NVLink copies at the source,
 * the network copy (one RC row when H = 2, 1 + (H-1) rows when H > 2),
 * (H-1)(g-1) relays. */
static void test_plans_shared_hosts(void)
{
	uint64_t S = 24 * K * K; /* a multiple of 2n for every n below */
	for (int g = 1; g <= 8; g *= 2)
		for (int H = 1; H <= 4; H++) {
			int n = g * H;
			if (n < 2)
				continue;
			uint64_t net = H == 1 ? 0 : H == 2 ? 1 : (uint64_t)H;
			uint64_t per_piece = (uint64_t)(g - 1) + net + (uint64_t)(H - 1) * (uint64_t)(g - 1);
			/* 1 channel, shard S/n, chunk S/n/2 exactly: 2 pieces per rank. */
			uint64_t chunk = S / (uint64_t)n / 2;
			check_plan(spec_of(COLL_ALLGATHER, "multicast", n, S, chunk, 1, g), per_piece * S,
				   per_piece * (uint64_t)n * 2);
			/* Broadcast from rank 0: S / chunk pieces. */
			check_plan(spec_of(COLL_BROADCAST, "multicast", n, S, chunk, 1, g), per_piece * S,
				   per_piece * (uint64_t)(2 * n));
		}
	/* Two hosts of four: the remote host is reached by plain RC (one
	 * message per piece), then relayed: 3 + 1 + 3 = n-1 messages per piece,
	 * the ring's bytes; but only S/n x 1 per piece crossed the network. */
	check_plan(spec_of(COLL_ALLGATHER, "multicast", 8, S, 512 * K, 1, 4), 7 * S, 7 * 8 * 6);
}

static void test_rounds_and_checks(void)
{
	struct coll_spec s = spec_of(COLL_ALLGATHER, "multicast", 16, 1, K, 1, 1);
	CU_ASSERT_EQUAL(coll_rounds(&s), 1);
	s.op = COLL_BROADCAST;
	CU_ASSERT_EQUAL(coll_rounds(&s), 1);
	s.op = COLL_ALLREDUCE;
	CU_ASSERT_EQUAL(coll_rounds(&s), 16); /* n-1 reduce-scatter steps + the multicast */
	CU_ASSERT_PTR_NULL(coll_check(COLL_ALLGATHER, "multicast", 2));
	CU_ASSERT_PTR_NULL(coll_check(COLL_ALLREDUCE, "multicast", 3));
	CU_ASSERT_PTR_NOT_NULL(coll_check(COLL_ALLGATHER, "multicast", 1));
	CU_ASSERT_PTR_NOT_NULL(coll_check(COLL_REDUCE_SCATTER, "multicast", 4));
	CU_ASSERT_PTR_NOT_NULL(coll_check(COLL_ALLTOALL, "multicast", 4));
	const char *why = coll_check(COLL_ALLGATHER, "tree", 4);
	CU_ASSERT(why && strstr(why, "ring or multicast for allgather"));
}

/* ---- whole runs ---- */

/* An idle star, 100 Gb/s, 1 us links, PFC and ECN off, no congestion control. */
#define STAR(hosts, gph) "[simulation]\nseed = 1\nprogress = off\n" \
	"[topology]\ntype = star\nhosts = " #hosts "\nlink_rate = 100Gbps\nlink_delay = 1us\n" \
	"gpus_per_host = " #gph "\n[switch]\npfc = off\necn = off\n[nic]\ncc = none\n"

/* Goodput of a link carrying full data frames one way while the ACKs of an
 * equal stream coming in share it (every NIC sends and receives at once). */
static double duplex_goodput_bps(double rate_bps, int mtu)
{
	double data = mtu + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B;
	double ack = PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B;
	return rate_bps * mtu / (data + ack);
}

/* Two hosts of four GPUs: one remote host, so no group: each piece is one
 * RC message to the other host's first GPU, relayed over NVLink. Each NIC
 * carries its host's four shards (S/2) instead of the ring's (n-1)/n S, so
 * the multicast allgather takes S/2 at the goodput, the ring 7/8 S. */
static void test_two_hosts(void)
{
	sqlite3 *h = run_text(STAR(2, 4)
			      "[traffic.ring]\ntype = collective\nop = allgather\nsize = 16MB\n"
			      "[traffic.mc]\ntype = collective\nop = allgather\nalgorithm = multicast\nsize = 16MB\n"
			      "start = 10ms\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const double S = 16e6;
	/* Network bytes (rows between hosts): each shard once, S in all. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.mc' AND src <> dst"), (long long)S);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.mc' AND src = 'host0' AND dst = 'host1'"),
			(long long)(S / 2));
	/* ... landing on the first GPU of the other host only. */
	CHECK_TEXT(h, "SELECT group_concat(DISTINCT dst_gpu) FROM flow WHERE source = 'traffic.mc' AND src <> dst "
		      "AND src = 'host0'", "host1.gpu0");
	/* Every GPU receives (n-1)/n S: from the network or NVLink, exactly once per shard. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT r) FROM (SELECT sum(size_bytes) AS r FROM flow "
			      "WHERE source = 'traffic.mc' GROUP BY dst_gpu)"), 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.mc' AND dst_gpu = 'host1.gpu2'"),
			(long long)(7 * S / 8));
	/* The relays: host1.gpu0 forwards host0's four shards (S/2) to each of its three peers. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.mc' AND src_gpu = 'host1.gpu0' "
			      "AND dst_gpu = 'host1.gpu3'"), (long long)(S / 8 + S / 2));
	/* Times: the NICs' bytes at the duplex goodput, plus the path (2 us). */
	double g = duplex_goodput_bps(100e9, 1024);
	double t_mc = (double)q_int(h, "SELECT end_ps - start_ps FROM collective WHERE algorithm = 'multicast'");
	double t_ring = (double)q_int(h, "SELECT end_ps - start_ps FROM collective WHERE algorithm = 'ring'");
	double cf_mc = S / 2 * 8 / g * 1e12 + 2e6, cf_ring = 7 * S / 8 * 8 / g * 1e12 + 2e6;
	printf("\n    allgather 2 hosts x 4 GPUs, 16 MB: multicast %.1f us (closed form %.1f), ring %.1f us (%.1f)\n",
	       t_mc / 1e6, cf_mc / 1e6, t_ring / 1e6, cf_ring / 1e6);
	CU_ASSERT(t_mc < t_ring);
	CU_ASSERT(fabs(t_mc - cf_mc) / cf_mc < 0.03);
	CU_ASSERT(fabs(t_ring - cf_ring) / cf_ring < 0.03);
	long long ideal = q_int(h, "SELECT ideal_ps FROM collective WHERE algorithm = 'multicast'");
	CU_ASSERT(ideal > 0.9 * t_mc && ideal <= t_mc);
	CHECK_TEXT(h, "SELECT op || ' ' || group_size || ' ' || size_bytes FROM collective WHERE algorithm = 'multicast'",
		   "allgather 8 16000000");
	sqlite3_close(h);
}

/* Real groups on a star of 4 (one GPU each): a broadcast from host0
 * (one sender: S at the goodput of a link carrying data only), then an
 * allgather: every shard once from its source, 3/4 S into every NIC. */
static void test_groups_star(void)
{
	sqlite3 *h = run_text(STAR(4, 1)
			      "[traffic.b]\ntype = collective\nop = broadcast\nalgorithm = multicast\nsize = 8MB\n"
			      "[traffic.ag]\ntype = collective\nop = allgather\nalgorithm = multicast\nsize = 1MB\n"
			      "start = 10ms\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const double S = 8e6;
	/* One group per source NIC, reused: the broadcast made host0's, the
	 * allgather found it and made the other three. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM multicast_group"), 4);
	CHECK_TEXT(h, "SELECT name || ' ' || source || ' ' || members || ' ' || tree_links FROM multicast_group "
		      "WHERE group_id = 0", "traffic.b:broadcast:host0.gpu0 host0 3 4");
	/* Broadcast: 2 channels x 8 pieces of 500 KB, each a sender row (dst =
	 * the group) and 3 member rows. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.b'"), 16 * 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.b' AND dst_gpu IS NULL "
			      "AND dst = 'traffic.b:broadcast:host0.gpu0'"), (long long)S);
	for (int i = 1; i < 4; i++) {
		char q[200];
		snprintf(q, sizeof q, "SELECT sum(size_bytes) FROM flow WHERE source = 'traffic.b' AND dst_gpu = 'host%d.gpu0'", i);
		CU_ASSERT_EQUAL(q_int(h, q), (long long)S);
	}
	double t = (double)q_int(h, "SELECT end_ps - start_ps FROM collective WHERE op = 'broadcast'");
	double cf = S * 8 / (100e9 * 1024 / (1024 + 82.0)) * 1e12 + 2e6;
	printf("\n    multicast broadcast 4 x 8 MB: %.1f us, closed form %.1f us\n", t / 1e6, cf / 1e6);
	CU_ASSERT(fabs(t - cf) / cf < 0.01);
	long long ideal = q_int(h, "SELECT ideal_ps FROM collective WHERE op = 'broadcast'");
	CU_ASSERT(ideal <= (long long)t && ideal > 0.99 * t);
	/* Allgather: each source's sender rows carry its shard, S/4, once. */
	const double A = 1e6;
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT b) || max(b) FROM (SELECT sum(size_bytes) AS b FROM flow "
			      "WHERE source = 'traffic.ag' AND dst_gpu IS NULL GROUP BY src_gpu)"), 1 * 1000000 + 250000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT b) || max(b) FROM (SELECT sum(size_bytes) AS b FROM flow "
			      "WHERE source = 'traffic.ag' AND dst_gpu IS NOT NULL GROUP BY dst_gpu)"), 1 * 1000000 + 750000);
	/* Time: every NIC takes 3/4 A of data frames, and the ACK frames of
	 * its own A/4 (aggregated: one per packet) go up the same link... as
	 * do the member ACKs of what it receives, the other way: the
	 * receiving direction carries data + the ACKs for its own sends. */
	double data = 0.75 * A / 1024 * (1024 + PKT_ROCE_OVERHEAD_B + PKT_WIRE_EXTRA_B), acks = 0.25 * A / 1024 * (PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B);
	double ta = (double)q_int(h, "SELECT end_ps - start_ps FROM collective WHERE op = 'allgather'");
	double cfa = (data + acks) * 8 / 100e9 * 1e12 + 2e6;
	long long ideal_a = q_int(h, "SELECT ideal_ps FROM collective WHERE op = 'allgather'");
	printf("    multicast allgather 4 x 1 MB: %.1f us, closed form %.1f us, ideal %.1f us\n", ta / 1e6, cfa / 1e6,
	       ideal_a / 1e6);
	CU_ASSERT(fabs(ta - cfa) / cfa < 0.02);
	CU_ASSERT(ideal_a <= (long long)ta && ideal_a > 0.9 * ta);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(drops) FROM port_stats"), 0);
	sqlite3_close(h);
}

/* A [multicast] group of the same source and members listed in another
 * order is found and used in its own member order: member rows name the
 * GPUs of their own hosts. */
static void test_config_group_reused(void)
{
	sqlite3 *h = run_text(STAR(4, 1)
			      "[multicast]\ngroup = g host0 host3 host1 host2\n"
			      "[traffic.m]\ntype = multicast\ngroup = g\nsize = 100KB\n"
			      "[traffic.ag]\ntype = collective\nop = allgather\nalgorithm = multicast\nsize = 1MB\n"
			      "start = 1ms\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM multicast_group"), 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.ag' AND dst = 'g'"), 2 * 1);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.ag' AND dst_gpu IS NOT NULL"), 4 * 2 * 3);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE source = 'traffic.ag' AND dst_gpu IS NOT NULL "
			      "AND dst_gpu <> dst || '.gpu0'"), 0);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM collective WHERE end_ps IS NOT NULL"), 1);
	sqlite3_close(h);
}

/* Three hosts of two GPUs: per piece one NVLink copy to the source's
 * neighbour, a group of the two other hosts' first GPUs (3 rows), and a
 * relay on each of those hosts. */
static void test_groups_shared_hosts(void)
{
	sqlite3 *h = run_text(STAR(3, 2)
			      "[traffic.ag]\ntype = collective\nop = allgather\nalgorithm = multicast\nsize = 6MB\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const long long S = 6000000;
	/* Network: each shard once at its source (sender rows), S in all;
	 * members are first GPUs only. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE dst_gpu IS NULL"), S);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE src <> dst AND dst_gpu IS NOT NULL "
			      "AND dst_gpu NOT LIKE '%.gpu0'"), 0);
	/* host1.gpu0 passes host1.gpu1 its own shard and relays the four of
	 * hosts 0 and 2: 5/6 S; every GPU receives 5/6 S. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host1.gpu0' AND dst_gpu = 'host1.gpu1'"),
			5 * S / 6);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT b) || max(b) FROM (SELECT sum(size_bytes) AS b FROM flow "
			      "WHERE dst_gpu IS NOT NULL GROUP BY dst_gpu)"), 1 * 10000000 + 5 * S / 6);
	/* 3 groups (one per host's source NIC; both GPUs of a host share it). */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM multicast_group WHERE members = 2"), 3);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM collective WHERE end_ps IS NOT NULL AND algorithm = 'multicast'"), 1);
	sqlite3_close(h);
}

/* Rail-optimised, two NICs per host: a piece lands on each other host's
 * GPU of the source's rail, so every tree stays under one rail leaf (its
 * source link, one leaf, 3 member links: 4) and both NICs of a host take
 * half of what the host receives. */
static void test_rails(void)
{
	sqlite3 *h = run_text("[simulation]\nseed = 1\nprogress = off\n"
			      "[topology]\ntype = rail_optimized\nhosts = 4\nspines = 2\ngpus_per_host = 2\n"
			      "nics_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			      "[traffic.ag]\ntype = collective\nop = allgather\nalgorithm = multicast\nsize = 8MB\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM multicast_group WHERE tree_links = 4 AND members = 3"), 8);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow WHERE src <> dst AND dst_gpu IS NOT NULL "
			      "AND substr(src_gpu, -4) <> substr(dst_gpu, -4)"), 0);
	/* Each GPU's shard (1 MB) reaches the 3 other hosts' GPUs of its rail. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(DISTINCT b) || max(b) FROM (SELECT sum(size_bytes) AS b FROM flow "
			      "WHERE src <> dst AND dst_gpu IS NOT NULL GROUP BY dst_gpu)"), 1 * 10000000 + 3000000);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM collective WHERE end_ps IS NOT NULL"), 1);
	sqlite3_close(h);
}

/* allreduce = multicast: the ring's reduce-scatter ((n-1)/n S to the
 * successor), then each rank's reduced segment multicast (S/n at its source). */
static void test_allreduce(void)
{
	sqlite3 *h = run_text(STAR(4, 1)
			      "[traffic.ar]\ntype = collective\nop = allreduce\nalgorithm = multicast\nsize = 4MB\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const long long S = 4000000;
	/* Unicast rows from host2.gpu0 (the reduce-scatter) go to its successor only. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host2.gpu0' AND dst = 'host3' "),
			3 * S / 4 + S / 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE src_gpu = 'host2.gpu0' AND dst_gpu IS NULL"), S / 4);
	CU_ASSERT_EQUAL(q_int(h, "SELECT sum(size_bytes) FROM flow WHERE dst_gpu IS NULL"), S);
	/* A rank multicasts a channel's segment (500 KB: one piece) when the
	 * third reduce-scatter piece of that channel reached it: every sender
	 * row starts at an arrival at its source, after at least 3 of them. */
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow s WHERE s.dst_gpu IS NULL"), 4 * 2);
	CU_ASSERT_EQUAL(q_int(h, "SELECT count(*) FROM flow s WHERE s.dst_gpu IS NULL AND (s.start_ps NOT IN "
			      "(SELECT recv_end_ps FROM flow u WHERE u.dst_gpu = s.src_gpu) OR (SELECT count(*) FROM flow u "
			      "WHERE u.dst_gpu = s.src_gpu AND u.recv_end_ps <= s.start_ps) < 3)"), 0);
	CHECK_TEXT(h, "SELECT op || ' ' || algorithm || ' ' || group_size FROM collective", "allreduce multicast 4");
	sqlite3_close(h);
}

/* ---- jobs: --check's plan equals the flow table ---- */

/* 4 hosts of 4 GPUs; TP 2 with sequence parallelism (all-gathers inside a
 * host: NVLink only), DP 8 with ZeRO-1 (parameter all-gathers over two
 * GPUs on each of four hosts: groups, landing GPUs, relays). */
static const char zero_job[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.z]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
	"global_batch = 16\ntp = 2\ndp = 8\nzero = 1\nsequence_parallel = on\niterations = 2\n"
	"allgather = multicast\nallreduce = multicast\n";

/* Plan bytes and messages per parallelism equal the flow table's, per iteration. */
static sqlite3 *plan_equals_run(const char *text, struct job_plan_totals *t)
{
	plan_of(text, t, NULL);
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	char q[300];
	for (int it = 0; it < 2; it++)
		for (int p = 0; p < JOB_NPAR; p++) {
			snprintf(q, sizeof q, "SELECT COALESCE(SUM(size_bytes), 0) || ' ' || count(*) FROM flow "
				 "WHERE job = 'z' AND iteration = %d AND parallelism = '%s'", it, job_par_name[p]);
			char want[64];
			snprintf(want, sizeof want, "%llu %llu", (unsigned long long)t->bytes[p],
				 (unsigned long long)t->messages[p]);
			CHECK_TEXT(db, q, want);
		}
	return db;
}

/* 8 hosts of 2 GPUs, PP 2 x DP 8, allreduce = multicast: each stage's DP
 * group spans 4 hosts (groups of 3 members, relays), the tied-embedding
 * pairs two hosts (reduce-scatter step, then one RC copy). */
static const char dp_job[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 8\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
	"[job.z]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n"
	"global_batch = 16\npp = 2\ndp = 8\niterations = 2\nallreduce = multicast\n";

static void test_job_allreduce_plan(void)
{
	struct job_plan_totals t;
	sqlite3 *db = plan_equals_run(dp_job, &t);
	CU_ASSERT(t.bytes[JOB_PAR_DP] > 0 && t.bytes[JOB_PAR_PP] > 0);
	CU_ASSERT(q_int(db, "SELECT count(*) FROM collective WHERE op = 'allreduce' AND algorithm = 'multicast' "
			    "AND group_size = 8 AND end_ps IS NOT NULL") >= 4);
	CU_ASSERT(q_int(db, "SELECT count(*) FROM flow WHERE parallelism = 'dp' AND dst_gpu IS NULL") > 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
	sqlite3_close(db);
}

static void test_job_plan_equals_run(void)
{
	struct job_plan_totals t;
	sqlite3 *db = plan_equals_run(zero_job, &t);
	CU_ASSERT(t.bytes[JOB_PAR_TP] > 0 && t.bytes[JOB_PAR_DP] > 0);
	/* The DP gathers used groups (sender rows); the TP ones, inside a host, none. */
	CU_ASSERT(q_int(db, "SELECT count(*) FROM flow WHERE parallelism = 'dp' AND dst_gpu IS NULL") > 0);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM flow WHERE parallelism = 'tp' AND src <> dst"), 0);
	/* ZeRO-1: each gradient reduce-scatter has its parameter all-gather, by multicast. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM collective WHERE op = 'allgather' AND parallelism = 'dp' "
			      "AND algorithm = 'multicast' AND end_ps IS NOT NULL"),
			q_int(db, "SELECT count(*) FROM collective WHERE op = 'reduce_scatter' AND parallelism = 'dp'"));
	CU_ASSERT(q_int(db, "SELECT count(*) FROM collective WHERE op = 'reduce_scatter' AND parallelism = 'dp'") >= 4);
	/* Groups made in the first iteration serve the second: one per source NIC. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM multicast_group"), 4);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
	sqlite3_close(db);
}

/* Same seed, same flow table, on a fat tree with DCQCN and PFC (the defaults). */
static void test_determinism(void)
{
	const char *text = "[simulation]\nseed = 3\nprogress = off\n"
			   "[topology]\ntype = fat_tree\nk = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			   "[traffic.ag]\ntype = collective\nop = allgather\nalgorithm = multicast\nsize = 2MB\n"
			   "hosts = host0 host5 host6 host11 host15\n";
	sqlite3 *a = run_twice_same(text, FLOW_DUMP_SQL, 1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(q_int(a, "SELECT count(*) FROM collective WHERE end_ps IS NOT NULL"), 1);
	sqlite3_close(a);
}

static void test_errors(void)
{
	/* STAR is 14 lines: [traffic.x] is line 15, type 16, op 17, algorithm 18. */
	run_expect_error(STAR(4, 1) "[multicast]\nreliable = off\n[traffic.x]\ntype = collective\nop = allgather\n"
		     "algorithm = multicast\nsize = 1MB\n",
		     ".ini:20: [traffic.x] algorithm = 'multicast'", "reliable = off");
	run_expect_error(STAR(4, 1) "[multicast]\nenabled = off\n[traffic.x]\ntype = collective\nop = broadcast\n"
		     "algorithm = multicast\nsize = 1MB\n",
		     ".ini:20: [traffic.x] algorithm = 'multicast'", "enabled = off");
	run_expect_error(STAR(4, 1) "[traffic.x]\ntype = collective\nop = reduce_scatter\nalgorithm = multicast\nsize = 1MB\n",
		     ".ini:18: [traffic.x] algorithm = 'multicast'", "ring for op reduce_scatter");
	/* A job's reduce_scatter takes the registry's reduce-scatter algorithms only. */
	run_expect_error(STAR(4, 1) "[job.j]\nmodel = bert-large\nglobal_batch = 8\ndp = 4\nzero = 1\n"
		     "reduce_scatter = multicast\n",
		     ".ini:20: [job.j] reduce_scatter = 'multicast'", "expected ring");
	run_expect_error(STAR(4, 1) "[multicast]\nreliable = off\n[job.j]\nmodel = bert-large\nglobal_batch = 8\n"
		     "dp = 4\nzero = 1\nallgather = multicast\n",
		     ".ini:22: [job.j] allgather = 'multicast'", "reliable = off");
}

int main(void)
{
	static const struct test_case t[] = {
		{ "plans, one GPU per host: S once at each source against the ring's (n-1) S", test_plans_one_gpu_per_host },
		{ "plans, hosts shared: NVLink copies and relays, one network copy per piece", test_plans_shared_hosts },
		{ "rounds; coll_check", test_rounds_and_checks },
		{ "two hosts of four GPUs: each piece once over the network, relayed; S/2 against 7/8 S", test_two_hosts },
		{ "groups on a star: broadcast and allgather closed forms, groups reused", test_groups_star },
		{ "groups with hosts of two GPUs: landing GPU, relays", test_groups_shared_hosts },
		{ "a [multicast] group of the same members is found and used in its order", test_config_group_reused },
		{ "rail-optimised, 2 NICs per host: pieces land on the source's rail", test_rails },
		{ "allreduce: ring reduce-scatter, then the multicast of each reduced segment", test_allreduce },
		{ "job (ZeRO-1, TP with sequence parallelism): plan equals the flow table", test_job_plan_equals_run },
		{ "job (PP 2 x DP 8, allreduce = multicast): plan equals the flow table", test_job_allreduce_plan },
		{ "determinism: same seed, same flow table", test_determinism },
		{ "errors: located, exit 2", test_errors },
		{ 0, 0 },
	};
	return test_run("coll_mcast", t);
}
