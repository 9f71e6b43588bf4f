/*
 * test_evq.c — the event queue against a plain sorted reference (bursts in
 * the hot heap included), the run loop's ordering, stop rules, polls and
 * event count, the refusal of events in the past, and lazy timer
 * cancellation.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gsl/gsl_rng.h>
#include "evq.h"
#include "pool.h"
#include "sim.h"
#include "sim_loop.h"
#include "testutil.h"

static int ref_cmp(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The reference: a linear scan for the minimum of n > 0 events. */
static size_t ref_min(const struct event *ref, size_t n)
{
	size_t min = 0;
	for (size_t i = 1; i < n; i++)
		if (ref_cmp(&ref[i], &ref[min]) < 0)
			min = i;
	return min;
}

/* Inserts e into the queue and records it in ref[*n], the reference. */
static void add(struct evq *q, struct event *ref, size_t *n, struct event e)
{
	evq_insert(q, &e);
	ref[(*n)++] = e;
}

/* Adds 100 events at time t, equal but for their keys, rising or falling
 * with the order of insertion. */
static void add_ties(struct evq *q, struct event *ref, size_t *n, simtime_t t, bool rising)
{
	for (uint32_t i = 0; i < 100; i++)
		add(q, ref, n, (struct event){ .t = t, .key = EVQ_KEY(rising ? i + 1 : 100 - i, 0), .arg = i });
}

/* Pops the queue's minimum into *got and removes the reference's from
 * ref[0..*n); 1 when they differ. */
static int pop_vs_ref(struct evq *q, struct event *ref, size_t *n, struct event *got)
{
	size_t min = ref_min(ref, *n);
	CU_ASSERT_FATAL(evq_pop(q, got));
	int differ = got->t != ref[min].t || got->key != ref[min].key || got->arg != ref[min].arg;
	ref[min] = ref[--*n];
	return differ;
}

/* Pops the n events left: they must come out as the sorted reference. */
static void drain_vs_ref(struct evq *q, struct event *ref, size_t n)
{
	qsort(ref, n, sizeof *ref, ref_cmp);
	for (size_t i = 0; i < n; i++) {
		struct event got = { 0 };
		CU_ASSERT_FATAL(evq_pop(q, &got));
		CU_ASSERT(got.t == ref[i].t && got.key == ref[i].key);
	}
	CU_ASSERT_EQUAL(evq_size(q), 0);
}

/* 10^5 random inserts and pops with many equal times: the heap must pop
 * exactly what a sorted array pops, in (time, element, sequence) order. */
static void test_heap_vs_sorted_reference(void)
{
	struct evq q;
	evq_init(&q);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	gsl_rng_set(r, 42);
	size_t cap = 100000, n = 0;
	struct event *ref = malloc(cap * sizeof *ref);
	uint64_t seq[16] = { 0 };
	long mismatches = 0, pops = 0;
	for (int op = 0; op < 100000; op++) {
		if (n == 0 || gsl_rng_uniform(r) < 0.55) {
			uint32_t elem = (uint32_t)gsl_rng_uniform_int(r, 16);
			struct event e = { .t = (simtime_t)gsl_rng_uniform_int(r, 50), /* many ties */
					   .key = EVQ_KEY(elem, seq[elem]++), .arg = (uintptr_t)op };
			add(&q, ref, &n, e);
		} else {
			struct event got = { 0 };
			const struct event *top = evq_peek(&q);
			CU_ASSERT_PTR_NOT_NULL_FATAL(top);
			struct event want_top = *top;
			mismatches += pop_vs_ref(&q, ref, &n, &got);
			if (want_top.t != got.t || want_top.key != got.key || want_top.arg != got.arg)
				mismatches++;
			pops++;
		}
		CU_ASSERT_EQUAL_FATAL(evq_size(&q), n);
		CU_ASSERT_EQUAL_FATAL(evq_empty(&q), n == 0);
	}
	CU_ASSERT(pops > 40000);
	CU_ASSERT_EQUAL(mismatches, 0);
	drain_vs_ref(&q, ref, n);
	struct event none;
	CU_ASSERT_EQUAL(evq_pop(&q, &none), 0);
	CU_ASSERT_PTR_NULL(evq_peek(&q));
	free(ref);
	gsl_rng_free(r);
	evq_free(&q);
}

/* The queue as a simulation uses it: the clock only advances, and each
 * event schedules followers at a mix of delays — now (ties), a few ns
 * (serialisation), a microsecond (propagation), hundreds of microseconds
 * (timers) — plus bursts of a thousand simultaneous events. This walks
 * every path of the wheel: current bucket, wheel, far heap, the hot heap of
 * a large bucket, jumps over empty time and width re-tuning rebuilds. The
 * pops must equal a linear-scan reference's, in (time, key) order. */
static void test_wheel_vs_reference(void)
{
	struct evq q;
	evq_init(&q);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	gsl_rng_set(r, 7);
	size_t cap = 4096, n = 0;
	struct event *ref = malloc(cap * sizeof *ref);
	uint64_t seq[64] = { 0 };
	simtime_t now = 0;
	long mismatches = 0, pops = 0, shifts_seen = 0;
	int last_shift = q.shift;
	for (int op = 0; op < 300000; op++) {
		int burst = gsl_rng_uniform(r) < 0.0005 ? 1000 : 1;
		if (n == 0 || gsl_rng_uniform(r) < 0.5 || burst > 1) {
			for (int k = 0; k < burst && n < cap; k++) {
				double u = gsl_rng_uniform(r);
				simtime_t d = u < 0.2 ? 0
					: u < 0.7 ? (simtime_t)gsl_rng_uniform_int(r, 100000)
					: u < 0.95 ? 1000000 + (simtime_t)gsl_rng_uniform_int(r, 1000)
					: (simtime_t)gsl_rng_uniform_int(r, 1000000000);
				uint32_t elem = (uint32_t)gsl_rng_uniform_int(r, 64);
				struct event e = { .t = now + (burst > 1 ? 5000 : d),
						   .key = EVQ_KEY(elem, seq[elem]++), .arg = (uintptr_t)op };
				add(&q, ref, &n, e);
			}
		} else {
			struct event got = { 0 };
			mismatches += pop_vs_ref(&q, ref, &n, &got);
			now = got.t;
			pops++;
		}
		if (q.shift != last_shift) {
			shifts_seen++;
			last_shift = q.shift;
		}
		CU_ASSERT_EQUAL_FATAL(evq_size(&q), n);
		CU_ASSERT_EQUAL_FATAL(evq_empty(&q), n == 0);
	}
	CU_ASSERT(pops > 100000);
	CU_ASSERT(shifts_seen > 0); /* the width was re-tuned at least once */
	CU_ASSERT_EQUAL(mismatches, 0);
	drain_vs_ref(&q, ref, n);
	free(ref);
	gsl_rng_free(r);
	evq_free(&q);
}

/* A burst (a sub-bucket list too long to keep sorted by insertion) goes to
 * the hot heap; an event then inserted into a later sub-bucket of the same
 * bucket must wait for the whole burst (its bit is held aside while the
 * heap is in use). With the initial width (1024 ps buckets, 16 ps
 * sub-buckets) t = 1000 and 1010 are sub-buckets 62 and 63 of bucket 0.
 * Keys rise, so each insert walks to the list's end: past 64 the list
 * stops being sorted. Keys that fall insert at the head: a long list that
 * stays sorted and pops without the heap (in the current bucket; a
 * spread sorts a list once, and a long one is a burst). */
static void test_burst_then_later_sub(void)
{
	struct evq q;
	evq_init(&q);
	struct event ref[104];
	size_t n = 0;
	add_ties(&q, ref, &n, 1000, true);
	CU_ASSERT_EQUAL(q.sub_mask, 0); /* the burst holds the sub-buckets aside */
	struct event got;
	CU_ASSERT_EQUAL(pop_vs_ref(&q, ref, &n, &got), 0);
	CU_ASSERT(got.t == 1000 && got.key == EVQ_KEY(1, 0));
	CU_ASSERT(q.hot.n > 0); /* the burst is in the hot heap */
	add(&q, ref, &n, (struct event){ .t = 1010, .key = EVQ_KEY(0, 0), .arg = 200 });
	add(&q, ref, &n, (struct event){ .t = 1000, .key = EVQ_KEY(200, 0), .arg = 201 });
	add(&q, ref, &n, (struct event){ .t = 1012, .key = EVQ_KEY(0, 1), .arg = 202 });
	CU_ASSERT_EQUAL(q.sub_mask, 0); /* held while the heap is in use */
	CU_ASSERT_EQUAL(evq_size(&q), n);
	drain_vs_ref(&q, ref, n);
	CU_ASSERT(evq_empty(&q));

	n = 0;
	add_ties(&q, ref, &n, 1005, false);
	CU_ASSERT_EQUAL(pop_vs_ref(&q, ref, &n, &got), 0);
	CU_ASSERT(got.key == EVQ_KEY(1, 0));
	CU_ASSERT_EQUAL(q.hot.n, 0); /* sorted as it grew: no heap */
	drain_vs_ref(&q, ref, n);
	evq_free(&q);
}

/* A burst that a spread finds (bucket 2: 2048-3071 ps) waits, unsorted,
 * behind the bucket's earlier sub-buckets, which pop from their sorted
 * lists on the slow path ("held" mode: no fast path while a burst is
 * pending); an insert then, before the burst, still comes first. */
static void test_spread_burst_held(void)
{
	struct evq q;
	evq_init(&q);
	struct event ref[110];
	size_t n = 0;
	add_ties(&q, ref, &n, 3000, true);
	add(&q, ref, &n, (struct event){ .t = 2100, .key = EVQ_KEY(7, 1), .arg = 100 });
	add(&q, ref, &n, (struct event){ .t = 2100, .key = EVQ_KEY(3, 1), .arg = 101 });
	struct event got;
	CU_ASSERT_EQUAL(pop_vs_ref(&q, ref, &n, &got), 0);
	CU_ASSERT(got.t == 2100 && got.key == EVQ_KEY(3, 1));
	CU_ASSERT(q.sub_mask == 0 && q.hot.n == 0 && q.burst != 0); /* held, the burst waiting */
	add(&q, ref, &n, (struct event){ .t = 2500, .key = EVQ_KEY(9, 1), .arg = 102 });
	add(&q, ref, &n, (struct event){ .t = 3000, .key = EVQ_KEY(0, 5), .arg = 103 });
	CU_ASSERT_EQUAL(evq_size(&q), n);
	drain_vs_ref(&q, ref, n);
	CU_ASSERT(evq_empty(&q));
	evq_free(&q);
}

/* A sparse phase (one event every microsecond) widens the buckets; the
 * dense phase after it (8,000 events in 16 us, some 500 a bucket) must
 * narrow them as soon as it enters the first overloaded bucket after the
 * current one, not after the 16,384 buckets of a periodic tune; and the
 * pops stay in (time, key) order throughout. */
static void test_sparse_then_dense(void)
{
	struct evq q;
	evq_init(&q);
	int shift0 = q.shift;
	simtime_t now = 0;
	struct event got;
	struct event e = { .t = 0, .key = EVQ_KEY(1, 0) };
	evq_insert(&q, &e);
	for (uint64_t i = 1; i <= 200000; i++) {
		CU_ASSERT_FATAL(evq_pop(&q, &got));
		now = got.t;
		e = (struct event){ .t = now + 1000000, .key = EVQ_KEY(1, i) };
		evq_insert(&q, &e);
	}
	int wide = q.shift;
	CU_ASSERT(wide >= shift0 + 8); /* about one event a bucket of 1 us: 2^20 ps */
	CU_ASSERT_FATAL(evq_pop(&q, &got));
	now = got.t;
	enum { DENSE = 8000 };
	struct event *ref = malloc(DENSE * sizeof *ref);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	gsl_rng_set(r, 11);
	size_t n = 0;
	for (uint32_t i = 0; i < DENSE; i++)
		add(&q, ref, &n, (struct event){ .t = now + 1 + (simtime_t)gsl_rng_uniform_int(r, 16000000),
						 .key = EVQ_KEY(2 + i % 64, i), .arg = i });
	long mismatches = 0, narrowed_after = -1;
	for (long pops = 0; n > 0; pops++) {
		mismatches += pop_vs_ref(&q, ref, &n, &got);
		if (narrowed_after < 0 && q.shift <= wide - 4)
			narrowed_after = pops;
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	CU_ASSERT(narrowed_after >= 0 && narrowed_after < DENSE / 8);
	free(ref);
	gsl_rng_free(r);
	evq_free(&q);
}

static int order_log[64], order_n;

static void record(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim;
	(void)obj;
	order_log[order_n++] = (int)arg;
}

/* Equal-time events run by (scheduling element id, its sequence), not by the
 * order in which they were inserted. */
static void test_tie_break_by_element(void)
{
	struct sim sim;
	struct sim_elem a, b;
	sim_init(&sim, 1);
	sim_elem_register(&sim, &a, "a");
	sim_elem_register(&sim, &b, "b");
	order_n = 0;
	sched_at(&sim, 100, &b, record, NULL, 20);
	sched_at(&sim, 100, &a, record, NULL, 10);
	sched_at(&sim, 100, &b, record, NULL, 21);
	sched_at(&sim, 50, &b, record, NULL, 5);
	sched_at(&sim, 100, &a, record, NULL, 11);
	CU_ASSERT_EQUAL(sim_run(&sim), SIM_RAN_DRY);
	int want[] = { 5, 10, 11, 20, 21 };
	CU_ASSERT_EQUAL_FATAL(order_n, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(order_log[i], want[i]);
	CU_ASSERT_EQUAL(sim.now, 100);
	CU_ASSERT_EQUAL(sim.events, 5);
	sim_free(&sim);
}

static void record_hot(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)obj;
	order_log[order_n++] = 1000 + (int)arg;
	if (arg < 30) /* handlers that schedule, as a landing schedules the next */
		sched_at(sim, sim->now + 7, &sim->kernel, arg % 2 ? record_hot : record, NULL, arg + 3);
}

/* Mixed handlers, some scheduling more: the order in which events run,
 * each by its own handler, and the stop, with the loop's direct calls
 * (sim_run_with, as port_run runs a fabric) and without. */
static int run_mix(bool direct, simtime_t stop)
{
	struct sim sim;
	struct sim_elem a;
	sim_init(&sim, 1);
	sim_elem_register(&sim, &a, "a");
	sim.stop_at = stop;
	order_n = 0;
	for (int i = 0; i < 12; i++)
		sched_at(&sim, 10 * (i % 4), i % 3 ? &a : &sim.kernel, i % 2 ? record_hot : record, NULL,
			 (uintptr_t)i);
	int r = direct ? sim_run_with(&sim, record_hot, NULL) : sim_run(&sim);
	CU_ASSERT_EQUAL(sim.events, (uint64_t)order_n);
	sim_free(&sim);
	return r;
}

static void test_direct_calls(void)
{
	for (int k = 0; k < 2; k++) {
		simtime_t stop = k ? 45 : SIMTIME_NEVER;
		int r = run_mix(false, stop), n = order_n, want[64];
		memcpy(want, order_log, sizeof want);
		CU_ASSERT(n > 12); /* the hot handler scheduled more */
		CU_ASSERT_EQUAL(run_mix(true, stop), r);
		CU_ASSERT_EQUAL_FATAL(order_n, n);
		for (int i = 0; i < n; i++)
			CU_ASSERT_EQUAL(order_log[i], want[i]);
	}
}

static void test_stop_time(void)
{
	struct sim sim;
	sim_init(&sim, 1);
	sim.stop_at = 75;
	order_n = 0;
	sched_at(&sim, 50, &sim.kernel, record, NULL, 1);
	sched_at(&sim, 100, &sim.kernel, record, NULL, 2);
	CU_ASSERT_EQUAL(sim_run(&sim), SIM_STOP_TIME);
	CU_ASSERT_EQUAL(order_n, 1);
	CU_ASSERT_EQUAL(sim.now, 75);
	sim_free(&sim);
}

/* The run loop's polls. A chain of events, one a time unit apart; the one
 * numbered `force_at` asks for a poll (sim_poll_soon) and the done hook
 * says yes from `done_from` on; the one numbered `uncount_at` is not
 * counted (as a sampler's). Progress is reported at every periodic poll. */
static struct poll_case {
	int force_at, done_from, uncount_at, limit, ran, asked;
	uint64_t progress_at[16];
	int n_progress;
} pc;

static void chain(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)obj;
	pc.ran++;
	if ((int)arg == pc.force_at)
		sim_poll_soon(sim);
	if ((int)arg == pc.uncount_at)
		sim_uncount_event(sim);
	if ((int)arg + 1 < pc.limit)
		sched_at(sim, sim->now + 1, &sim->kernel, chain, NULL, arg + 1);
}

static bool chain_done(struct sim *sim, void *ctx)
{
	(void)sim;
	(void)ctx;
	pc.asked++;
	return pc.done_from >= 0 && pc.ran > pc.done_from;
}

static void chain_progress(struct sim *sim, void *ctx)
{
	(void)ctx;
	if (pc.n_progress < 16)
		pc.progress_at[pc.n_progress++] = sim->events;
}

static int run_chain(int limit, int force_at, int done_from, int uncount_at, uint64_t *events)
{
	struct sim sim;
	sim_init(&sim, 1);
	pc = (struct poll_case){ .force_at = force_at, .done_from = done_from,
				 .uncount_at = uncount_at, .limit = limit };
	sim.done = chain_done;
	sim.progress = chain_progress;
	sim.progress_every = SIM_POLL_EVERY;
	sched_at(&sim, 0, &sim.kernel, chain, NULL, 0);
	int r = sim_run(&sim);
	*events = sim.events;
	sim_free(&sim);
	return r;
}

/* A forced poll asks the done hook right after its event and leaves the
 * periodic polls (every SIM_POLL_EVERY counted events) where they were;
 * an uncounted event is in neither count; sim->events is exact at each
 * poll and at the end. */
static void test_polls(void)
{
	uint64_t ev;
	int limit = 3 * SIM_POLL_EVERY + 10;
	/* No forced poll: periodic ones only, then the end (ran dry). */
	CU_ASSERT_EQUAL(run_chain(limit, -1, -1, -1, &ev), SIM_RAN_DRY);
	CU_ASSERT_EQUAL(ev, (uint64_t)limit);
	CU_ASSERT_EQUAL_FATAL(pc.n_progress, 4);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(pc.progress_at[i], (uint64_t)(i + 1) * SIM_POLL_EVERY);
	CU_ASSERT_EQUAL(pc.progress_at[3], (uint64_t)limit);
	/* Forced at event 100, not done: the hook is asked once more, the
	 * periodic polls stay at the same counts. */
	CU_ASSERT_EQUAL(run_chain(limit, 100, -1, -1, &ev), SIM_RAN_DRY);
	CU_ASSERT_EQUAL(ev, (uint64_t)limit);
	CU_ASSERT_EQUAL(pc.asked, 3 + 1 + 1); /* periodic, forced, at the end */
	CU_ASSERT_EQUAL_FATAL(pc.n_progress, 4);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(pc.progress_at[i], (uint64_t)(i + 1) * SIM_POLL_EVERY);
	/* Forced at event 100 and done: the run ends right after it. */
	CU_ASSERT_EQUAL(run_chain(limit, 100, 100, -1, &ev), SIM_DONE);
	CU_ASSERT_EQUAL(ev, 101);
	CU_ASSERT_EQUAL(pc.ran, 101);
	/* Forced at the last event before a periodic poll: both at once. */
	CU_ASSERT_EQUAL(run_chain(limit, SIM_POLL_EVERY - 1, -1, -1, &ev), SIM_RAN_DRY);
	CU_ASSERT_EQUAL(pc.progress_at[0], SIM_POLL_EVERY);
	CU_ASSERT_EQUAL(pc.asked, 3 + 1 + 1); /* the forced poll, then the periodic one, at once */
	/* An uncounted event: one event more runs before each later poll. */
	CU_ASSERT_EQUAL(run_chain(limit, -1, -1, 50, &ev), SIM_RAN_DRY);
	CU_ASSERT_EQUAL(ev, (uint64_t)limit - 1);
	CU_ASSERT_EQUAL(pc.ran, limit);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(pc.progress_at[i], (uint64_t)(i + 1) * SIM_POLL_EVERY);
	/* Uncounted and forced in the same event: the forced poll still comes
	 * right after it, and the count leaves it out. */
	CU_ASSERT_EQUAL(run_chain(limit, 60, 60, 60, &ev), SIM_DONE);
	CU_ASSERT_EQUAL(pc.ran, 61);
	CU_ASSERT_EQUAL(ev, 60);
}

/* Scheduling in the past is an internal error (abort), whether the time
 * lies in the current bucket or far before it: the wheel's fast path
 * never takes such an event, so sched_at checks only its slow path. */
static simtime_t past_dt;

static void schedule_past(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)obj;
	(void)arg;
	sched_at(sim, sim->now - past_dt, &sim->kernel, record, NULL, 0);
}

static int run_past(simtime_t now, simtime_t dt)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		struct sim sim;
		sim_init(&sim, 1);
		past_dt = dt;
		sched_at(&sim, now, &sim.kernel, schedule_past, NULL, 0);
		sim_run(&sim);
		_exit(0);
	}
	int status;
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	return WIFSIGNALED(status) ? WTERMSIG(status) : -WEXITSTATUS(status);
}

static void test_past_event_refused(void)
{
	CU_ASSERT_EQUAL(run_past(1000000, 1), SIGABRT);          /* same bucket */
	CU_ASSERT_EQUAL(run_past(1000000000, 999999000), SIGABRT); /* far before it */
	CU_ASSERT_EQUAL(run_past(1000000, 0), 0);                /* now itself is fine */
}

static int timer_fired;
static simtime_t timer_at;

static void on_timer(struct sim *sim, void *obj)
{
	(void)obj;
	timer_fired++;
	timer_at = sim->now;
}

/* Re-arming supersedes the earlier arming; cancel suppresses it. */
static void test_timer_lazy_cancel(void)
{
	struct sim sim;
	struct sim_timer tm;
	sim_init(&sim, 1);
	sim_timer_init(&tm, &sim.kernel, on_timer, NULL);
	timer_fired = 0;
	sim_timer_set(&sim, &tm, 100);
	sim_timer_set(&sim, &tm, 300);
	sim_run(&sim);
	CU_ASSERT_EQUAL(timer_fired, 1);
	CU_ASSERT_EQUAL(timer_at, 300);
	sim_timer_set(&sim, &tm, 400);
	sim_timer_cancel(&tm);
	sim_run(&sim);
	CU_ASSERT_EQUAL(timer_fired, 1);
	CU_ASSERT_FALSE(tm.armed);
	sim_free(&sim);
}

static void test_pool_reuse(void)
{
	struct pool p;
	pool_init(&p, 48, 4);
	void *v[10];
	for (int i = 0; i < 10; i++)
		v[i] = pool_get(&p);
	CU_ASSERT_EQUAL(p.live, 10);
	CU_ASSERT_EQUAL(p.n_chunks, 3);
	pool_put(&p, v[3]);
	CU_ASSERT_PTR_EQUAL(pool_get(&p), v[3]);
	for (int i = 0; i < 10; i++)
		pool_put(&p, v[i]);
	CU_ASSERT_EQUAL(p.live, 0);
	CU_ASSERT_EQUAL(p.peak, 10);
	pool_destroy(&p);
}

TEST_MAIN("evq",
	  { "queue matches a sorted reference on 1e5 operations with ties", test_heap_vs_sorted_reference },
	  { "wheel matches a reference under a simulation's event mix", test_wheel_vs_reference },
	  { "equal times break by scheduling element and sequence", test_tie_break_by_element },
	  { "stop time", test_stop_time },
	  { "a burst in the hot heap precedes later sub-buckets", test_burst_then_later_sub },
	  { "a burst found by a spread waits behind sorted sub-buckets", test_spread_burst_held },
	  { "a dense phase after a sparse one narrows the buckets at once", test_sparse_then_dense },
	  { "forced and periodic polls, uncounted events, the event count", test_polls },
	  { "direct calls of hot handlers keep the order", test_direct_calls },
	  { "timers cancel lazily", test_timer_lazy_cancel },
	  { "an event scheduled in the past is refused", test_past_event_refused },
	  { "pool reuses objects", test_pool_reuse })
