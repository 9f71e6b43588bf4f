/*
 * test_chakra.c — the Chakra trace executor (models/job/chakra_exec.c)
 * against closed forms, with free communication (fake_coll.h: every
 * collective and message completes at once) unless said otherwise:
 *   - a forward pipeline of P stages and M micro-batches of compute C:
 *     (M + P - 1) C, all of it compute on the critical path;
 *   - a rank's COMP nodes share one compute stream (two independent ones
 *     take 2C) while a MEM node runs beside it;
 *   - a barrier waits for the slowest member: C and 3C before it, C after:
 *     4C, with or without the fabric;
 *   - iterations run back to back, one row each;
 *   - parallelism tags: a pg_name that is a tag wins over the layout, an
 *     all-to-all is ep (on the fabric, from the collective rows).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include "chakra_build.h"
#include "run_fixture.h"
#include "fake_coll.h"
#include "sqlutil.h"
#include "testutil.h"

#define C_US 40
#define C_PS ((long long)C_US * 1000000)

static const char fabric[] =
	"[topology]\ntype = leaf_spine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
	"link_rate = 100Gbps\nlink_delay = 1us\ngpus_per_host = %d\n"
	"[job.t]\nworkload = chakra\ntrace = %s/%s\niterations = %d\n%s";

/* Runs the traces PREFIX.r.et of run_tmpdir as job t. */
static sqlite3 *run_trace(const char *prefix, int gpus_per_host, int iterations, const char *extra, bool free_comm)
{
	char text[1024];
	snprintf(text, sizeof text, fabric, gpus_per_host, run_tmpdir, prefix, iterations, extra);
	return run_text_free(text, free_comm);
}

static void prefix_path(char *buf, size_t n, const char *prefix)
{
	snprintf(buf, n, "%s/%s", run_tmpdir, prefix);
}

static void test_pipeline_free(void)
{
	enum { P = 4, M = 3 };
	char pre[300];
	prefix_path(pre, sizeof pre, "pp");
	for (int s = 0; s < P; s++) {
		struct gnode g;
		open_rank(pre, s);
		for (int m = 0; m < M; m++) {
			uint64_t base = 10 + 10 * (uint64_t)m;
			if (s > 0) {
				node_init(&g, base, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, "recv");
				attr_i32(&g, "comm_src", s - 1);
				attr_i32(&g, "comm_tag", m);
				emit(&g);
			}
			comp(&g, base + 1, C_US);
			if (s > 0)
				dep_data(&g, base);
			if (m)
				dep_ctrl(&g, base - 10 + 1);
			emit(&g);
			if (s < P - 1) {
				node_init(&g, base + 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, "send");
				attr_i32(&g, "comm_dst", s + 1);
				attr_i32(&g, "comm_tag", m);
				attr_i64(&g, "comm_size", 1 << 20);
				dep_data(&g, base + 1);
				emit(&g);
			}
		}
		close_rank();
	}
	uint64_t calls = fake_coll_calls;
	sqlite3 *db = run_trace("pp", 1, 1, "", true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(fake_coll_calls - calls, (P - 1) * M);  /* one message per send */
	CU_ASSERT_EQUAL(q_int(db, "SELECT end_ps - start_ps FROM iteration"), (M + P - 1) * C_PS);
	CU_ASSERT_EQUAL(q_int(db, "SELECT compute_ps FROM iteration"), (M + P - 1) * C_PS);
	CU_ASSERT_EQUAL(q_int(db, "SELECT exposed_comm_ps + bubble_ps FROM iteration"), 0);
	sqlite3_close(db);
}

static void test_compute_stream(void)
{
	char pre[300];
	prefix_path(pre, sizeof pre, "stream");
	struct gnode g;
	open_rank(pre, 0);
	comp(&g, 1, C_US); emit(&g);
	comp(&g, 2, C_US); emit(&g);  /* independent of 1: waits for the stream */
	node_init(&g, 3, CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE, "load");
	g.n.duration_micros = C_US;   /* beside the stream */
	emit(&g);
	node_init(&g, 4, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, "meta");
	dep_data(&g, 3);              /* 0 time */
	emit(&g);
	close_rank();
	sqlite3 *db = run_trace("stream", 1, 1, "", true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT end_ps - start_ps FROM iteration"), 2 * C_PS);
	CU_ASSERT_EQUAL(q_int(db, "SELECT compute_ps FROM iteration"), 2 * C_PS);
	sqlite3_close(db);
}

static void write_barrier(const char *name)
{
	char pre[300];
	prefix_path(pre, sizeof pre, name);
	for (int r = 0; r < 2; r++) {
		struct gnode g;
		open_rank(pre, r);
		comp(&g, 1, r ? 3 * C_US : C_US); emit(&g);
		coll(&g, 2, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BARRIER, 0, NULL); dep_data(&g, 1); emit(&g);
		comp(&g, 3, C_US); dep_data(&g, 2); emit(&g);
		close_rank();
	}
}

static void test_barrier(void)
{
	write_barrier("barrier");
	for (int fabric_on = 0; fabric_on < 2; fabric_on++) {
		sqlite3 *db = run_trace("barrier", 1, 1, "", !fabric_on);
		CU_ASSERT_PTR_NOT_NULL_FATAL(db);
		CU_ASSERT_EQUAL(q_int(db, "SELECT end_ps - start_ps FROM iteration"), 4 * C_PS);
		CU_ASSERT_EQUAL(q_int(db, "SELECT compute_ps FROM iteration"), 4 * C_PS);
		CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow"), 0);  /* a barrier moves nothing */
		sqlite3_close(db);
	}
}

static void test_iterations(void)
{
	write_barrier("iter");
	sqlite3 *db = run_trace("iter", 1, 3, "start = 5us\n", true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration"), 3);
	CU_ASSERT_EQUAL(q_int(db, "SELECT MIN(start_ps) FROM iteration"), 5000000);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration WHERE end_ps - start_ps = 4 * 40000000"), 3);
	/* back to back: each starts when the previous ended */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM iteration a JOIN iteration b ON b.iteration = a.iteration + 1 "
			     "WHERE b.start_ps = a.end_ps"), 2);
	sqlite3_close(db);
}

static void test_tags(void)
{
	char pre[300];
	prefix_path(pre, sizeof pre, "tags");
	/* 4 ranks on one host of 4 GPUs: an all-reduce named "dp", one with
	 * another name (within a host: tp) and an all-to-all (ep). */
	for (int r = 0; r < 4; r++) {
		struct gnode g;
		open_rank(pre, r);
		coll(&g, 1, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 1 << 16, "dp"); emit(&g);
		coll(&g, 2, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 1 << 16, "17"); dep_data(&g, 1); emit(&g);
		coll(&g, 3, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL, 1 << 16, "17"); dep_data(&g, 2); emit(&g);
		close_rank();
	}
	sqlite3 *db = run_trace("tags", 4, 1, "hosts = host0\n", false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective"), 3);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective WHERE op = 'allreduce' AND parallelism = 'dp'"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective WHERE op = 'allreduce' AND parallelism = 'tp'"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective WHERE op = 'alltoall' AND parallelism = 'ep'"), 1);
	/* in order: each starts when the previous ended */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM collective a JOIN collective b "
			     "ON b.collective_id = a.collective_id + 1 WHERE b.start_ps = a.end_ps"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT exposed_dp_ps + exposed_tp_ps + exposed_ep_ps = end_ps - start_ps "
			     "AND compute_ps = 0 FROM iteration"), 1);
	sqlite3_close(db);
}

TEST_MAIN("chakra",
	  { "pipeline, free communication: (M + P - 1) C", test_pipeline_free },
	  { "COMP nodes share a stream, MEM runs beside it", test_compute_stream },
	  { "a barrier waits for its slowest member", test_barrier },
	  { "iterations run back to back from start", test_iterations },
	  { "parallelism tags from pg_name, layout and op", test_tags })
