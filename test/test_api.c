/*
 * test_api.c — librocesim's C API (models/run/api.c, rocesim.h) against
 * batch runs of the same work (run_scenario, the path `sim` takes):
 *
 *   - an nccl-tests-style sweep of all-reduces (8 B doubling up to 1 MiB by
 *     default, 18 sizes; ROCESIM_API_SWEEP_MAX=1GiB for the whole 8 B ..
 *     1 GiB range, 28 sizes, about 7 s of CPU in an -O2 build: too slow
 *     for CI under ASan), each posted when the previous one
 *     completed, at the times a batch run's [traffic] collective sections
 *     start them: the completion times the API reports equal the batch
 *     run's collective.end_ps to the picosecond, and the API's database
 *     holds the same collective and flow timings;
 *   - a driver that emulates a data-parallel training job step by step
 *     (its own compute, then the gradient all-reduces of its 3 buckets
 *     posted through the API, each chained after the previous as the
 *     job's stream runs them, then its optimizer step) reproduces the
 *     batch [job]'s iteration rows (start_ps, end_ps) exactly, with the
 *     compute time, buckets and optimizer time taken from the job's plan
 *     (rocesim_job_dp_plan);
 *   - errors: posting in the past, advancing backwards, unknown names, bad
 *     ops and groups are error codes with messages, nothing changed;
 *     a bad scenario is a located message; close writes the run row.
 * Fabric: 4 hosts of 2 GPUs on one switch (test/api_fabric.ini's).
 */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rocesim.h"
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"
#include "units.h"

#define FABRIC \
	"[simulation]\nseed = 1\nprogress = off\n" \
	"[topology]\ntype = star\nhosts = 4\ngpus_per_host = 2\nlink_rate = 100Gbps\nlink_delay = 1us\n"

#define N_GPUS 8

/* The fabric as a file for rocesim_open. */
static const char *fabric_file(void)
{
	static char path[256];
	if (!path[0]) {
		snprintf(path, sizeof path, "%s/fabric.ini", run_tmpdir);
		FILE *f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs(FABRIC, f);
		fclose(f);
	}
	return path;
}

static uint64_t sweep_max(void)
{
	const char *e = getenv("ROCESIM_API_SWEEP_MAX");
	uint64_t b = 1u << 20;
	char why[UNITS_EXPECTED_MAX];
	if (e && units_size(e, &b, why) < 0) {
		printf("ROCESIM_API_SWEEP_MAX: %s\n", why);
		b = 1u << 20;
	}
	return b;
}

/* ---- the sweep ---- */

#define MAX_SIZES 32

/* Start of each size: the previous one's start plus a gap far above its
 * time on this fabric (2 x size over 100 Gb/s is what each host sends in
 * a ring all-reduce; 4x that plus 50 us), so each batch collective runs
 * alone as the next nccl-tests iteration would. The test checks it did. */
static int sweep_plan(uint64_t *size, int64_t *start)
{
	int n = 0;
	int64_t t = 0;
	for (uint64_t s = 8; s <= sweep_max() && n < MAX_SIZES; s *= 2) {
		size[n] = s;
		start[n] = t;
		t += 50 * 1000000LL + 4 * (int64_t)(2 * s * 80); /* 80 ps per byte at 100 Gb/s */
		n++;
	}
	return n;
}

static void test_sweep(void)
{
	uint64_t size[MAX_SIZES];
	int64_t start[MAX_SIZES];
	int n = sweep_plan(size, start);
	/* Batch: one [traffic] collective section per size. */
	size_t cap = 4096 + (size_t)n * 200;
	char *text = malloc(cap);
	size_t len = (size_t)snprintf(text, cap, "%s", FABRIC);
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"[traffic.s%02d]\ntype = collective\nop = allreduce\nalgorithm = ring\n"
					"size = %" PRIu64 "B\nstart = %" PRId64 "ps\n", i, size[i], start[i]);
	sqlite3 *batch = run_text(text);
	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(batch);
	int64_t end[MAX_SIZES];
	sqlite3_stmt *st;
	CU_ASSERT_FATAL(sqlite3_prepare_v2(batch, "SELECT size_bytes, start_ps, end_ps FROM collective "
					   "ORDER BY start_ps", -1, &st, NULL) == SQLITE_OK);
	int rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW && rows < n) {
		CU_ASSERT_EQUAL((uint64_t)sqlite3_column_int64(st, 0), size[rows]);
		CU_ASSERT_EQUAL(sqlite3_column_int64(st, 1), start[rows]);
		end[rows] = sqlite3_column_int64(st, 2);
		/* The premise: it ended before the next began. */
		if (rows + 1 < n)
			CU_ASSERT(end[rows] < start[rows + 1]);
		rows++;
	}
	sqlite3_finalize(st);
	CU_ASSERT_EQUAL_FATAL(rows, n);

	/* The API: each size posted once the previous one completed. */
	char db[300];
	snprintf(db, sizeof db, "%s/sweep_api.db", run_tmpdir);
	rocesim *h = rocesim_open(fabric_file(), NULL, 0, db);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(rocesim_n_gpus(h), N_GPUS);
	int gpus[N_GPUS];
	for (int g = 0; g < N_GPUS; g++) {
		char name[32];
		snprintf(name, sizeof name, "host%d.gpu%d", g / 2, g % 2);
		gpus[g] = rocesim_endpoint(h, name);
		CU_ASSERT_EQUAL(gpus[g], g);
	}
	int same = 0;
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL_FATAL(rocesim_post_coll(h, "allreduce", "ring", gpus, N_GPUS, size[i], start[i],
							1000 + (uint64_t)i), ROCESIM_OK);
		struct rocesim_completion c;
		CU_ASSERT_EQUAL_FATAL(rocesim_next(h, INT64_MAX, &c), 1);
		CU_ASSERT_EQUAL(c.tag, 1000 + (uint64_t)i);
		CU_ASSERT_EQUAL(c.kind, ROCESIM_COLL);
		CU_ASSERT_EQUAL(c.bytes, size[i]);
		CU_ASSERT_EQUAL(c.posted_ps, start[i]);
		CU_ASSERT_EQUAL(rocesim_now(h), c.time_ps);
		if (c.time_ps == end[i])
			same++;
		else
			printf("\n  %" PRIu64 " B: API %" PRId64 " ps, batch %" PRId64 " ps", size[i], c.time_ps, end[i]);
	}
	CU_ASSERT_EQUAL(same, n);
	printf("\n  %d sizes, 8 B .. %" PRIu64 " B: %d completion times equal the batch run's", n, size[n - 1],
	       same);
	const char *status = NULL;
	CU_ASSERT_EQUAL(rocesim_close(h, &status), ROCESIM_OK);
	CU_ASSERT_STRING_EQUAL(status, "complete");
	/* The databases agree on every collective and flow timing. */
	sqlite3 *api = db_open(db);
	CU_ASSERT_PTR_NOT_NULL_FATAL(api);
	const char *cq = "SELECT op, algorithm, group_size, size_bytes, start_ps, end_ps, ideal_ps FROM collective "
			 "ORDER BY start_ps";
	const char *fq = "SELECT src, dst, src_gpu, dst_gpu, size_bytes, start_ps, end_ps, recv_end_ps, packets "
			 "FROM flow ORDER BY flow_id";
	char *a = run_dump(api, cq), *b = run_dump(batch, cq);
	CU_ASSERT_STRING_EQUAL(a, b);
	if (strcmp(a, b))
		printf("\nAPI:\n%s\nbatch:\n%s\n", a, b);
	free(a);
	free(b);
	a = run_dump(api, fq);
	b = run_dump(batch, fq);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT(strlen(a) > 1000);
	free(a);
	free(b);
	CU_ASSERT_EQUAL(q_int(api, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
	sqlite3_close(api);
	sqlite3_close(batch);
}

/* ---- a data-parallel job, emulated ---- */

/* dp only (8 GPUs), zero 0, no overlap, 2 micro-batches; gradient
 * buckets of 600,000 parameters: 3 buckets (3 MiB, 3 MiB, 1 MiB of fp32
 * gradients) reduced one after another on the job's stream. */
#define DP_JOB \
	"[job.dp]\nmodel = custom\nlayers = 2\nhidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n" \
	"global_batch = 16\ndp = 8\niterations = 3\ndp_bucket = 600000\n"

static void test_dp_job(void)
{
	sqlite3 *batch = run_text(FABRIC DP_JOB);
	CU_ASSERT_PTR_NOT_NULL_FATAL(batch);
	/* The plan, from the same scenario opened through the library. */
	char ini[300];
	snprintf(ini, sizeof ini, "%s/dp_job.ini", run_tmpdir);
	FILE *f = fopen(ini, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(FABRIC DP_JOB, f);
	fclose(f);
	rocesim *ph = rocesim_open(ini, NULL, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
	struct rocesim_dp_plan p;
	CU_ASSERT_EQUAL_FATAL(rocesim_job_dp_plan(ph, "dp", &p), ROCESIM_OK);
	CU_ASSERT_EQUAL(rocesim_job_dp_plan(ph, "nope", &(struct rocesim_dp_plan){ 0 }), ROCESIM_E_NAME);
	CU_ASSERT_EQUAL(p.iterations, 3);
	CU_ASSERT_EQUAL(p.n_gpus, N_GPUS);
	CU_ASSERT_EQUAL(p.n_buckets, 3);
	CU_ASSERT(p.compute_ps > 0);
	CU_ASSERT(p.optimizer_ps > 0);
	CU_ASSERT_STRING_EQUAL(p.algorithm, "ring");
	/* The buckets are the batch run's dp collectives, in order. */
	for (int b = 0; b < p.n_buckets && b < 3; b++) {
		char q[200];
		snprintf(q, sizeof q, "SELECT size_bytes FROM collective WHERE parallelism = 'dp' AND iteration = 0 "
			 "ORDER BY start_ps, collective_id LIMIT 1 OFFSET %d", b);
		CU_ASSERT_EQUAL((int64_t)p.bucket_bytes[b], q_int(batch, q));
	}
	int gpus[N_GPUS];
	uint64_t bucket[8];
	int nb = p.n_buckets < 8 ? p.n_buckets : 8;
	for (int i = 0; i < p.n_gpus && i < N_GPUS; i++)
		gpus[i] = p.gpus[i];
	for (int b = 0; b < nb; b++)
		bucket[b] = p.bucket_bytes[b];
	struct rocesim_dp_plan plan = p;
	char alg[64];
	snprintf(alg, sizeof alg, "%s", p.algorithm);
	plan.algorithm = alg;
	/* p's pointers go with it; closing does not run the job on. */
	const char *status = NULL;
	CU_ASSERT_EQUAL(rocesim_close(ph, &status), ROCESIM_OK);
	CU_ASSERT_STRING_EQUAL(status, "stopped");

	/* The emulation: compute (the driver's), the reductions (rocesim's),
	 * the optimizer step (the driver's). */
	rocesim *h = rocesim_open(fabric_file(), NULL, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(rocesim_coll_options(h, plan.chunk_bytes, plan.channels), ROCESIM_OK);
	int64_t t = plan.start_ps;
	printf("\n  plan: compute %" PRId64 " ps, optimizer %" PRId64 " ps, %d bucket(s), the first %" PRIu64 " B",
	       plan.compute_ps, plan.optimizer_ps, plan.n_buckets, bucket[0]);
	sqlite3_stmt *st;
	CU_ASSERT_FATAL(sqlite3_prepare_v2(batch, "SELECT start_ps, end_ps FROM iteration WHERE job = 'dp' "
					   "ORDER BY iteration", -1, &st, NULL) == SQLITE_OK);
	int it = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t start = t, done = 0;
		/* The first bucket when the compute ends; each next one as the
		 * previous ends, in its completion's event (the job's stream). */
		for (int b = 0; b < nb; b++) {
			uint64_t tag = (uint64_t)(it * 100 + b);
			if (b == 0)
				CU_ASSERT_EQUAL_FATAL(rocesim_post_coll(h, "allreduce", plan.algorithm, gpus, (size_t)plan.n_gpus,
									bucket[b], t + plan.compute_ps, tag), ROCESIM_OK)
			else
				CU_ASSERT_EQUAL_FATAL(rocesim_post_coll_after(h, tag - 1, "allreduce", plan.algorithm, gpus,
									      (size_t)plan.n_gpus, bucket[b], tag), ROCESIM_OK)
		}
		for (int b = 0; b < nb; b++) {
			struct rocesim_completion c;
			CU_ASSERT_EQUAL_FATAL(rocesim_next(h, INT64_MAX, &c), 1);
			CU_ASSERT_EQUAL(c.tag, (uint64_t)(it * 100 + b));
			done = c.time_ps;
		}
		t = done + plan.optimizer_ps;
		CU_ASSERT_EQUAL(start, sqlite3_column_int64(st, 0));
		CU_ASSERT_EQUAL(t, sqlite3_column_int64(st, 1));
		printf("\n  iteration %d: emulated %" PRId64 " .. %" PRId64 " ps, batch %lld .. %lld ps", it, start, t,
		       (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1));
		it++;
	}
	sqlite3_finalize(st);
	CU_ASSERT_EQUAL(it, plan.iterations);
	CU_ASSERT_EQUAL(rocesim_close(h, NULL), ROCESIM_OK);
	sqlite3_close(batch);

	/* A job that is not data-parallel only is refused, with why. */
	snprintf(ini, sizeof ini, "%s/tp_job.ini", run_tmpdir);
	f = fopen(ini, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(FABRIC DP_JOB "tp = 2\n", f);
	fclose(f);
	const char *set[] = { "job.dp.dp=4" };
	ph = rocesim_open(ini, set, 1, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
	CU_ASSERT_EQUAL(rocesim_job_dp_plan(ph, "dp", &p), ROCESIM_E_ARG);
	CU_ASSERT_PTR_NOT_NULL(strstr(rocesim_last_error(ph), "not data-parallel only"));
	rocesim_close(ph, NULL);
}

/* ---- errors ---- */

static void test_errors(void)
{
	/* A bad scenario: NULL, and the located message. */
	char bad[300];
	snprintf(bad, sizeof bad, "%s/bad.ini", run_tmpdir);
	FILE *f = fopen(bad, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = fast\n", f);
	fclose(f);
	CU_ASSERT_PTR_NULL(rocesim_open(bad, NULL, 0, NULL));
	CU_ASSERT(msg_has_all(rocesim_last_error(NULL), (const char *const[]){ "bad.ini:5", "link_delay", "fast", NULL }));
	const char *typo[] = { "topology.hosts=4", "topology.link_rat=1Gbps" };
	CU_ASSERT_PTR_NULL(rocesim_open(fabric_file(), typo, 2, NULL));
	CU_ASSERT(msg_has_all(rocesim_last_error(NULL), (const char *const[]){ "link_rat", "link_rate", NULL }));
	const char *nokey[] = { "nodot" };
	CU_ASSERT_PTR_NULL(rocesim_open(fabric_file(), nokey, 1, NULL));
	CU_ASSERT_PTR_NOT_NULL(strstr(rocesim_last_error(NULL), "SECTION.KEY=VALUE"));
	CU_ASSERT_PTR_NULL(rocesim_open("/nonexistent/x.ini", NULL, 0, NULL));

	char db[300];
	snprintf(db, sizeof db, "%s/errors.db", run_tmpdir);
	rocesim *h = rocesim_open(fabric_file(), NULL, 0, db);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	struct rocesim_completion c;
	CU_ASSERT_EQUAL(rocesim_next(h, INT64_MAX, &c), ROCESIM_E_IDLE);
	CU_ASSERT_EQUAL(rocesim_poll(h, &c), 0);
	CU_ASSERT_EQUAL(rocesim_advance(h, 5000000), ROCESIM_OK);
	CU_ASSERT_EQUAL(rocesim_now(h), 5000000);
	/* The past: refused, nothing posted, the clock where it was. */
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 0, 2, 1000, 4999999, 1), ROCESIM_E_PAST);
	CU_ASSERT(msg_has_all(rocesim_last_error(h), (const char *const[]){ "4999999 ps", "past", "5000000", NULL }));
	CU_ASSERT_EQUAL(rocesim_advance(h, 4000000), ROCESIM_E_PAST);
	int g4[] = { 0, 1, 2, 3 };
	CU_ASSERT_EQUAL(rocesim_post_coll(h, "allreduce", NULL, g4, 4, 1000, 0, 1), ROCESIM_E_PAST);
	CU_ASSERT_EQUAL(rocesim_now(h), 5000000);
	CU_ASSERT_EQUAL(rocesim_pending(h), 0);
	/* Names, ops, groups. */
	CU_ASSERT_EQUAL(rocesim_endpoint(h, "host9.gpu0"), ROCESIM_E_NAME);
	CU_ASSERT_EQUAL(rocesim_endpoint(h, "host1.gpu2"), ROCESIM_E_NAME);
	CU_ASSERT_EQUAL(rocesim_endpoint(h, "host1"), N_GPUS + 1);
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 0, 99, 1000, 6000000, 1), ROCESIM_E_NAME);
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 0, N_GPUS + 1, 1000, 6000000, 1), ROCESIM_E_ARG);
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 3, 3, 1000, 6000000, 1), ROCESIM_E_ARG);
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 0, 3, 0, 6000000, 1), ROCESIM_E_ARG);
	CU_ASSERT_EQUAL(rocesim_post_coll(h, "allreduse", NULL, g4, 4, 1000, 6000000, 1), ROCESIM_E_ARG);
	CU_ASSERT(msg_has_all(rocesim_last_error(h), (const char *const[]){ "allreduse", "allreduce", NULL }));
	CU_ASSERT_EQUAL(rocesim_post_coll(h, "alltoall", "ring", g4, 4, 1000, 6000000, 1), ROCESIM_E_ARG);
	CU_ASSERT_EQUAL(rocesim_post_coll(h, "allreduce", "halving_doubling", g4, 3, 1000, 6000000, 1), ROCESIM_E_ARG);
	int dup[] = { 0, 1, 1 };
	CU_ASSERT_EQUAL(rocesim_post_coll(h, "allreduce", NULL, dup, 3, 1000, 6000000, 1), ROCESIM_E_ARG);
	int far[] = { 0, N_GPUS };
	CU_ASSERT_EQUAL(rocesim_post_coll(h, "allreduce", NULL, far, 2, 1000, 6000000, 1), ROCESIM_E_NAME);
	CU_ASSERT_EQUAL(rocesim_post_coll(h, "allreduce", NULL, g4, 1, 1000, 6000000, 1), ROCESIM_E_ARG);
	CU_ASSERT_EQUAL(rocesim_coll_options(h, 0, 2), ROCESIM_E_ARG);
	CU_ASSERT_EQUAL(rocesim_post_coll_after(h, 77, "allreduce", NULL, g4, 4, 1000, 1), ROCESIM_E_NAME);
	CU_ASSERT_EQUAL(rocesim_post_msg_after(h, 77, 0, 1, 1000, 1), ROCESIM_E_NAME);
	CU_ASSERT_EQUAL(rocesim_pending(h), 0);
	/* Work: a host-to-host message (as [traffic] flows), a GPU pair over
	 * NVLink, and one across the switch; completions in time order. */
	CU_ASSERT_EQUAL(rocesim_post_msg(h, N_GPUS + 0, N_GPUS + 2, 100000, 6000000, 11), ROCESIM_OK);
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 0, 1, 100000, 6000000, 12), ROCESIM_OK);
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 1, 7, 100000, 7000000, 13), ROCESIM_OK);
	CU_ASSERT_EQUAL(rocesim_pending(h), 3);
	/* Not yet: a limit before the first completion. */
	CU_ASSERT_EQUAL(rocesim_next(h, 6000001, &c), 0);
	CU_ASSERT_EQUAL(rocesim_now(h), 6000001);
	int64_t last = 0;
	int got = 0;
	while (rocesim_next(h, INT64_MAX, &c) == 1) {
		CU_ASSERT(c.time_ps >= last);
		CU_ASSERT(c.time_ps > c.posted_ps);
		CU_ASSERT_EQUAL(c.bytes, 100000);
		last = c.time_ps;
		got++;
	}
	CU_ASSERT_EQUAL(got, 3);
	CU_ASSERT_EQUAL(rocesim_pending(h), 0);
	/* A message left unfinished: close says 'stopped'. */
	CU_ASSERT_EQUAL(rocesim_post_msg(h, 2, 5, 10000000, rocesim_now(h), 14), ROCESIM_OK);
	int64_t end = rocesim_now(h) + 10000000;
	CU_ASSERT_EQUAL(rocesim_advance(h, end), ROCESIM_OK);
	const char *status = NULL;
	CU_ASSERT_EQUAL(rocesim_close(h, &status), ROCESIM_OK);
	CU_ASSERT_STRING_EQUAL(status, "stopped");
	sqlite3 *d = db_open(db);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(q_int(d, "SELECT count(*) FROM run WHERE status = 'stopped' AND events > 0 AND wall_s IS NOT NULL "
			    "AND config LIKE '%star%'"), 1);
	CU_ASSERT_EQUAL(q_int(d, "SELECT sim_end_ps FROM run"), end);
	CU_ASSERT_EQUAL(q_int(d, "SELECT count(*) FROM flow"), 4);
	CU_ASSERT_EQUAL(q_int(d, "SELECT count(*) FROM flow WHERE end_ps IS NULL AND size_bytes = 10000000"), 1);
	CU_ASSERT_EQUAL(q_int(d, "SELECT count(*) FROM flow WHERE source = 'api' AND src_gpu IS NULL AND src = 'host0' "
			    "AND dst = 'host2'"), 1);
	CU_ASSERT_EQUAL(q_int(d, "SELECT count(*) FROM node"), 4 + 1 + N_GPUS);
	sqlite3_close(d);

	/* Close with nothing posted: 'complete', the run row finished. */
	h = rocesim_open(fabric_file(), NULL, 0, db);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(rocesim_advance(h, 1000), ROCESIM_OK);
	CU_ASSERT_EQUAL(rocesim_close(h, &status), ROCESIM_OK);
	CU_ASSERT_STRING_EQUAL(status, "complete");
	d = db_open(db);
	CU_ASSERT_EQUAL(q_int(d, "SELECT count(*) FROM run WHERE status = 'complete' AND sim_end_ps = 1000"), 1);
	sqlite3_close(d);
	CU_ASSERT_EQUAL(rocesim_close(NULL, NULL), ROCESIM_E_ARG);
}

TEST_MAIN("api",
	  { "nccl-tests sweep: API completions equal the batch collective rows", test_sweep },
	  { "data-parallel job emulated step by step: batch iteration times", test_dp_job },
	  { "errors: past, backwards, names, ops, groups; close writes the run row", test_errors })
