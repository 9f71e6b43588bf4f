/*
 * par_loop.c — the conservative windows of a partitioned run (parallel.h).
 *
 * Window: every rank runs, alone, its events ranked before the bound
 * min(T + L, stop + 1), T the earliest pending event of any rank and L the
 * lookahead: a frame sent at or after T lands at T + L or later, so no rank
 * can receive, during the window, anything that lands in it. Then the
 * ranks trade the frames sent (par_exchange) and agree on the next T.
 *
 * The end comes at the event the sequential run ends on:
 *   - done: a rank whose own work is finished (world_done: every message
 *     it posted ended, every source ended) stops at that event; when every
 *     rank is done, the latest of their stopping events, by (time, key),
 *     is the sequential run's last, and each rank runs up to it (a
 *     hostless rank of partition = hosts has no work: it is done from the
 *     start and only carries frames);
 *   - [simulation] stop: windows never pass it;
 *   - a signal: at the next window boundary (an interrupted run is not
 *     reproducible in any mode);
 *   - the watchdog: its tick is a window bound, decided on the ranks' sums
 *     (par_tick), and its verdict sets the stop on every rank alike.
 */
#include <stdlib.h>
#include <string.h>
#include "fabric.h"
#include "log.h"
#include "nic.h"
#include "par_internal.h"
#include "results.h"
#include "sim.h"
#include "xalloc.h"

#ifdef HAVE_MPI

/* What every rank says at a window's boundary: the fields, then the
 * bytes of frames it sends each rank (so the trade needs no count
 * exchange of its own). */
enum { SAID_DONE_T, SAID_DONE_KEY, SAID_NEXT_T, SAID_INTERRUPT, SAID_PAUSED, SAID_COUNTS };

static simtime_t local_next(struct sim *sim)
{
	const struct event *e = evq_peek(&sim->q);
	return e ? e->t : SIMTIME_NEVER;
}

static simtime_t global_next(struct par *p)
{
	int64_t mine = local_next(p->sim), min = mine;
	double t0 = par_wall();
	MPI_Allreduce(&mine, &min, 1, MPI_INT64_T, MPI_MIN, p->comm);
	p->st.wait_s += par_wall() - t0;
	return min;
}

static bool run_window(struct par *p, simtime_t bt, uint64_t bk, bool check_done)
{
	double t0 = par_wall();
	uint64_t before = p->sim->events;
	bool done = port_run_bounded(p->sim, bt, bk, check_done, p->elem_owner, p->me, &p->st.foreign);
	p->st.events += p->sim->events - before;
	p->st.busy_s += par_wall() - t0;
	if (done) {
		p->done = true;
		p->done_t = p->sim->now;
		p->done_key = p->sim->key_now;
	}
	return done;
}

/* The bound of the window starting at T: (time, key), exclusive. */
static void window_bound(struct par *p, simtime_t T, simtime_t limit, simtime_t *bt, uint64_t *bk, bool *tick)
{
	*bt = T + p->lookahead;
	if (*bt > limit || *bt < T) /* past the limit (or the sum overflowed) */
		*bt = limit;
	*bk = 0;
	*tick = false;
	for (int i = 0; i < p->n_ticks; i++) {
		const struct par_tick_src *k = &p->ticks[i];
		/* the pending tick is its element's last event */
		if (*k->on && (*k->t < *bt || (*k->t == *bt && k->elem->key - 1 < *bk))) {
			*bt = *k->t;
			*bk = k->elem->key - 1;
			*tick = true;
		}
	}
}

/* The watchdog's tick, alone (every rank runs it, with the ranks' sums). */
static void run_tick(struct par *p, simtime_t t, uint64_t key)
{
	uint64_t foreign = 0;
	port_run_bounded(p->sim, t, key + 1, false, p->elem_owner, p->me, &foreign);
	p->st.foreign += foreign;
}

/* The ranks say where they stand (all: n rows of w). While the others
 * are not there yet, this rank writes its waiting result rows
 * (results_defer, set by par_run): work taken off the windows in which
 * it is the slowest. */
static void say(struct par *p, int64_t *mine, int64_t *all, int w)
{
	struct results *res = p->sim->res;
	double t0 = par_wall(), writing = 0;
	/* Non-blocking on every rank: it does not match a blocking one. */
	MPI_Request rq;
	MPI_Iallgather(mine, w, MPI_INT64_T, all, w, MPI_INT64_T, p->comm, &rq);
	for (int done = 0;;) {
		MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		double t1 = par_wall();
		size_t left = res ? results_flush_some(res, 1) : 0;
		writing += par_wall() - t1;
		if (!left) { /* nothing (more) to write: just wait */
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			break;
		}
	}
	p->st.busy_s += writing;
	p->st.wait_s += par_wall() - t0 - writing;
}

/* One window up to (bt, bk): the ranks run it, say where they stand
 * (all: n rows of SAID_COUNTS + n), and, unless every one is done or
 * a signal came, finish it and trade frames. Returns SIM_DONE or
 * SIM_INTERRUPTED when the run ends here, else -1 with *T_next a lower
 * bound of the next pending event anywhere. */
static int window(struct par *p, simtime_t bt, uint64_t bk, bool tick, bool check_done, int64_t *all,
		  simtime_t *T_next)
{
	struct sim *sim = p->sim;
	int n = p->n, w = SAID_COUNTS + n;
	/* Done before: it waits for the others' verdict. A hostless rank has
	 * no work of its own: done from the start, it never pauses. */
	bool paused = check_done && p->done && !p->hostless;
	if (!paused)
		paused = run_window(p, bt, bk, check_done && !p->hostless);
	int64_t *mine = xcalloc((size_t)w, sizeof *mine);
	simtime_t next = local_next(sim);
	mine[SAID_DONE_T] = p->hostless ? 0 : p->done ? p->done_t : -1;
	mine[SAID_DONE_KEY] = (int64_t)p->done_key;
	/* A paused rank runs the rest of its window after this: bt bounds it. */
	simtime_t nx = next < p->first_landing ? next : p->first_landing;
	mine[SAID_NEXT_T] = paused && nx < bt ? bt : nx;
	mine[SAID_INTERRUPT] = sim->interrupt && *sim->interrupt;
	mine[SAID_PAUSED] = paused;
	for (int r = 0; r < n; r++)
		mine[SAID_COUNTS + r] = (int64_t)p->out[r].n;
	par_stage(p);
	say(p, mine, all, w);
	free(mine);
	bool done = check_done, intr = false, any_paused = false;
	int last = 0;
	simtime_t min_next = SIMTIME_NEVER;
	for (int r = 0; r < n; r++) {
		const int64_t *a = all + (size_t)r * w, *l = all + (size_t)last * w;
		done &= a[SAID_DONE_T] >= 0;
		intr |= a[SAID_INTERRUPT] != 0;
		any_paused |= a[SAID_PAUSED] != 0;
		if (a[SAID_NEXT_T] < min_next)
			min_next = a[SAID_NEXT_T];
		if (a[SAID_DONE_T] > l[SAID_DONE_T] ||
		    (a[SAID_DONE_T] == l[SAID_DONE_T] && (uint64_t)a[SAID_DONE_KEY] > (uint64_t)l[SAID_DONE_KEY]))
			last = r;
	}
	if (done) {
		/* The sequential run's last event is the latest done one. */
		const int64_t *l = all + (size_t)last * w;
		run_window(p, l[SAID_DONE_T], (uint64_t)l[SAID_DONE_KEY] + 1, false);
		sim->now = l[SAID_DONE_T];
		/* The frames sent in this window are on the wire: onto their
		 * links, as in the sequential run, before the drain runs on. */
		par_exchange(p, NULL, false);
		return SIM_DONE;
	}
	if (any_paused) {
		if (paused)
			run_window(p, bt, bk, false);
		par_exchange(p, NULL, false);
	} else {
		int *rc = xmalloc((size_t)n * sizeof *rc);
		bool none = true, staged = p->shm.on;
		for (int r = 0; r < n; r++) {
			rc[r] = (int)all[(size_t)r * w + SAID_COUNTS + p->me];
			for (int k = 0; k < n; k++) {
				int64_t c = all[(size_t)r * w + SAID_COUNTS + k];
				none &= c == 0;
				staged &= (uint64_t)c <= p->shm.cap; /* rank r staged its frames */
			}
		}
		if (staged)
			par_exchange_staged(p, rc);
		else
			par_exchange(p, rc, none);
		free(rc);
	}
	p->st.windows++;
	if (intr) /* the window finished and its frames traded: nothing half-sent */
		return SIM_INTERRUPTED;
	if (tick)
		run_tick(p, bt, bk);
	*T_next = tick || min_next < bt ? bt : min_next;
	if (tick) /* the tick may arm the next one, or end the run: ask again */
		*T_next = global_next(p);
	return -1;
}

/* The shared-memory trades are set up when the ranks first run
 * together (every rank gets here), not at par_attach, which an input
 * error on one rank may leave early. */
static void trades_open(struct par *p)
{
	if (p->shm.tried)
		return;
	p->shm.tried = true;
	par_shm_open(p);
}

int par_run(struct par *p)
{
	struct sim *sim = p->sim;
	trades_open(p);
	/* Result rows wait to be written while the others finish a window
	 * (say). Not in a run driven step by step (par_run_to), whose
	 * driver may read the database between steps. */
	if (sim->res)
		results_defer(sim->res);
	int w = SAID_COUNTS + p->n;
	int64_t *all = xcalloc((size_t)p->n * (size_t)w, sizeof *all);
	int stopped;
	simtime_t T = global_next(p);
	for (;;) {
		if (T == SIMTIME_NEVER) { /* every queue is empty */
			int64_t mine[2] = { p->hostless || (sim->done && sim->done(sim, sim->done_ctx)),
					    sim->interrupt && *sim->interrupt }, agg[2];
			MPI_Allreduce(mine, agg, 1, MPI_INT64_T, MPI_MIN, p->comm);
			MPI_Allreduce(mine + 1, agg + 1, 1, MPI_INT64_T, MPI_MAX, p->comm);
			stopped = agg[1] ? SIM_INTERRUPTED : agg[0] ? SIM_DONE : SIM_RAN_DRY;
			break;
		}
		if (T > sim->stop_at) {
			sim->now = sim->stop_at;
			stopped = SIM_STOP_TIME;
			break;
		}
		simtime_t bt;
		uint64_t bk;
		bool tick;
		window_bound(p, T, sim->stop_at == SIMTIME_NEVER ? SIMTIME_NEVER : sim->stop_at + 1, &bt, &bk, &tick);
		stopped = window(p, bt, bk, tick, true, all, &T);
		if (stopped >= 0)
			break;
		if (p->me == 0 && sim->progress && sim->events >= p->next_progress) {
			p->next_progress = sim->events + sim->progress_every;
			sim->progress(sim, sim->progress_ctx);
		}
	}
	free(all);
	return stopped;
}

void par_run_to(struct par *p, simtime_t t)
{
	struct sim *sim = p->sim;
	trades_open(p);
	int w = SAID_COUNTS + p->n;
	int64_t *all = xcalloc((size_t)p->n * (size_t)w, sizeof *all);
	simtime_t T = global_next(p);
	while (T != SIMTIME_NEVER && T <= t) {
		simtime_t bt;
		uint64_t bk;
		bool tick;
		window_bound(p, T, t + 1, &bt, &bk, &tick);
		window(p, bt, bk, tick, false, all, &T);
	}
	free(all);
	sim->now = t;
}

uint64_t par_sum(struct par *p, uint64_t v)
{
	uint64_t s = v;
	MPI_Allreduce(&v, &s, 1, MPI_UINT64_T, MPI_SUM, p->comm);
	return s;
}

bool par_all(struct par *p, bool v)
{
	int mine = v, all = mine;
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, p->comm);
	return all != 0;
}

void par_sum_all(struct par *p, uint64_t *v, int n)
{
	uint64_t *out = xmalloc((size_t)n * sizeof *out);
	MPI_Allreduce(v, out, n, MPI_UINT64_T, MPI_SUM, p->comm);
	memcpy(v, out, (size_t)n * sizeof *out);
	free(out);
}

void par_gather_ints(struct par *p, const int *part, int n, int **all, int *n_all)
{
	int *counts = xcalloc((size_t)p->n * 2, sizeof *counts), *displs = counts + p->n;
	MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, p->comm);
	int total = 0;
	for (int r = 0; r < p->n; r++) {
		displs[r] = total;
		total += counts[r];
	}
	*all = xmalloc((size_t)(total ? total : 1) * sizeof **all);
	MPI_Allgatherv(part, n, MPI_INT, *all, counts, displs, MPI_INT, p->comm);
	*n_all = total;
	free(counts);
}

void par_tick(struct par *p, const bool *on, const simtime_t *t, const struct sim_elem *elem, bool counted)
{
	if (p->n_ticks == PAR_MAX_TICKS)
		die_internal("more than %d models tick in a partitioned run", PAR_MAX_TICKS);
	/* Registered after par_attach: every rank runs it alike; -2: its
	 * events are not the run's (sim_loop.h). */
	p->elem_owner = xrealloc(p->elem_owner, p->sim->n_elems * sizeof *p->elem_owner);
	for (uint32_t e = p->n_owned; e < p->sim->n_elems; e++)
		p->elem_owner[e] = -1;
	p->n_owned = p->sim->n_elems;
	p->elem_owner[sim_elem_id(elem)] = counted ? -1 : -2;
	p->ticks[p->n_ticks++] = (struct par_tick_src){ .on = on, .t = t, .elem = elem };
}

#else

int par_run(struct par *p) { (void)p; return SIM_RAN_DRY; }
void par_run_to(struct par *p, simtime_t t) { (void)p; (void)t; }
uint64_t par_sum(struct par *p, uint64_t v) { (void)p; return v; }
bool par_all(struct par *p, bool v) { (void)p; return v; }
void par_tick(struct par *p, const bool *on, const simtime_t *t, const struct sim_elem *elem, bool counted)
{
	(void)p;
	(void)on;
	(void)t;
	(void)elem;
	(void)counted;
}
void par_sum_all(struct par *p, uint64_t *v, int n) { (void)p; (void)v; (void)n; }
void par_gather_ints(struct par *p, const int *part, int n, int **all, int *n_all)
{
	(void)p;
	*all = xmalloc((size_t)(n ? n : 1) * sizeof **all);
	memcpy(*all, part, (size_t)n * sizeof **all);
	*n_all = n;
}

#endif
