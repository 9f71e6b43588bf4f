/*
 * test_coll_mcast.c — collectives by multicast (models/coll_mcast.c):
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
 * once and receives (n-1)/n S; the time is the receiving links' closed
 * form; a host with several ranks takes each piece once from the network;
 * ring and multicast on one fabric, and the multicast finishes first;
 * same seed, same flow table; bad input is a located error (exit 2).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "packet.h"
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

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
	CU_ASSERT(fabs(t_mc - cf_mc) / cf_mc < 0.03);
	CU_ASSERT(fabs(t_ring - cf_ring) / cf_ring < 0.03);
	long long ideal = q_int(h, "SELECT ideal_ps FROM collective WHERE algorithm = 'multicast'");
	CU_ASSERT(ideal > 0.9 * t_mc && ideal <= t_mc);
	CHECK_TEXT(h, "SELECT op || ' ' || group_size || ' ' || size_bytes FROM collective WHERE algorithm = 'multicast'",
		   "allgather 8 16000000");
	sqlite3_close(h);
}

int main(void)
{
	static const struct test_case t[] = {
		{ "plans, one GPU per host: S once at each source against the ring's (n-1) S", test_plans_one_gpu_per_host },
		{ "plans, hosts shared: NVLink copies and relays, one network copy per piece", test_plans_shared_hosts },
		{ "rounds; coll_check", test_rounds_and_checks },
		{ "two hosts of four GPUs: each piece once over the network, relayed; S/2 against 7/8 S", test_two_hosts },
		{ 0, 0 },
	};
	return test_run("coll_mcast", t);
}
