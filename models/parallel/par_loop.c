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
 *     is the sequential run's last, and each rank runs up to it;
 *   - [simulation] stop: windows never pass it;
 *   - a signal: at the next window boundary (an interrupted run is not
 *     reproducible in any mode);
 *   - the watchdog: its tick is a window bound, decided on the ranks' sums
 *     (par_watch), and its verdict sets the stop on every rank alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabric.h"
#include "log.h"
#include "par_internal.h"
#include "port.h"
#include "sim.h"
#include "watchdog.h"
#include "world.h"
#include "xalloc.h"

#ifdef HAVE_MPI

/* What every rank says at a window's boundary. */
struct said {
	int64_t done_t;            /* its done event's time, -1 when not done */
	uint64_t done_key;
	int64_t next_t;            /* its earliest pending event, SIMTIME_NEVER: none */
	int32_t interrupt;
	int32_t pad;
};

static void gather(struct par *p, const struct said *mine, struct said *all)
{
	double t0 = par_wall();
	MPI_Allgather(mine, sizeof *mine, MPI_BYTE, all, sizeof *mine, MPI_BYTE, p->comm);
	p->st.sync_s += par_wall() - t0;
}

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
	p->st.sync_s += par_wall() - t0;
	return min;
}

static bool run_window(struct par *p, simtime_t bt, uint64_t bk, bool check_done)
{
	uint64_t last = 0;
	double t0 = par_wall();
	uint64_t before = p->sim->events;
	bool done = port_run_bounded(p->sim, bt, bk, check_done, p->elem_owner, p->me, &last, &p->st.foreign);
	p->st.events += p->sim->events - before;
	p->st.busy_s += par_wall() - t0;
	if (done) {
		p->done = true;
		p->done_t = p->sim->now;
		p->done_key = last;
	}
	return done;
}

static void exchange(struct par *p)
{
	double t0 = par_wall();
	par_exchange(p);
	p->st.sync_s += par_wall() - t0;
	p->st.windows++;
}

/* The bound of the window starting at T: (time, key), exclusive. */
static void window_bound(struct par *p, simtime_t T, simtime_t limit, simtime_t *bt, uint64_t *bk, bool *tick)
{
	*bt = T + p->lookahead;
	if (*bt > limit || *bt < T) /* past the limit (or the sum overflowed) */
		*bt = limit;
	*bk = 0;
	*tick = false;
	struct watchdog *wd = p->wd;
	if (wd && wd->ticking && wd->next_tick < *bt) {
		*bt = wd->next_tick;
		*bk = wd->elem.key - 1; /* the pending tick is its element's last event */
		*tick = true;
	}
}

/* The watchdog's tick, alone (every rank runs it, with the ranks' sums). */
static void run_tick(struct par *p, simtime_t t, uint64_t key)
{
	uint64_t last, foreign = 0;
	port_run_bounded(p->sim, t, key + 1, false, p->elem_owner, p->me, &last, &foreign);
	p->st.foreign += foreign;
}

int par_run(struct par *p)
{
	struct sim *sim = p->sim;
	struct said *all = xcalloc((size_t)p->n, sizeof *all);
	int stopped;
	for (;;) {
		simtime_t T = global_next(p);
		if (getenv("ROCESIM_PAR_DEBUG") && p->st.windows % 1000 == 0)
			fprintf(stderr, "rank %d window %llu T %lld L %lld events %llu done %d\n", p->me,
				(unsigned long long)p->st.windows, (long long)T, (long long)p->lookahead,
				(unsigned long long)p->st.events, p->done);
		if (T == SIMTIME_NEVER) { /* every queue is empty */
			struct said mine = { .done_t = -1, .next_t = T,
					     .interrupt = sim->interrupt && *sim->interrupt };
			mine.done_t = sim->done && sim->done(sim, sim->done_ctx) ? 0 : -1;
			gather(p, &mine, all);
			bool done = true, intr = false;
			for (int r = 0; r < p->n; r++) {
				done &= all[r].done_t >= 0;
				intr |= all[r].interrupt;
			}
			stopped = intr ? SIM_INTERRUPTED : done ? SIM_DONE : SIM_RAN_DRY;
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
		bool paused = p->done; /* done before: it waits for the others' verdict */
		if (!paused)
			paused = run_window(p, bt, bk, true);
		struct said mine = { .done_t = p->done ? p->done_t : -1, .done_key = p->done_key,
				     .interrupt = sim->interrupt && *sim->interrupt };
		gather(p, &mine, all);
		bool done = true, intr = false;
		int last = 0;
		for (int r = 0; r < p->n; r++) {
			done &= all[r].done_t >= 0;
			intr |= all[r].interrupt;
			if (all[r].done_t > all[last].done_t ||
			    (all[r].done_t == all[last].done_t && all[r].done_key > all[last].done_key))
				last = r;
		}
		if (done) {
			/* The sequential run's last event is the latest done one. */
			run_window(p, all[last].done_t, all[last].done_key + 1, false);
			sim->now = all[last].done_t;
			stopped = SIM_DONE;
			break;
		}
		if (intr) {
			stopped = SIM_INTERRUPTED;
			break;
		}
		if (paused)
			run_window(p, bt, bk, false);
		exchange(p);
		if (tick)
			run_tick(p, bt, bk);
	}
	free(all);
	return stopped;
}

void par_run_to(struct par *p, simtime_t t)
{
	struct sim *sim = p->sim;
	for (;;) {
		simtime_t T = global_next(p);
		if (T == SIMTIME_NEVER || T > t)
			break;
		simtime_t bt;
		uint64_t bk;
		bool tick;
		window_bound(p, T, t + 1, &bt, &bk, &tick);
		run_window(p, bt, bk, false);
		exchange(p);
		if (tick)
			run_tick(p, bt, bk);
	}
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

static void wd_global(void *ctx, struct wd_view *v)
{
	struct par *p = ctx;
	uint64_t in[4] = { v->progress, v->idle ? 0 : 1, v->empty ? 0 : 1, v->nic_flows }, out[4];
	MPI_Allreduce(in, out, 4, MPI_UINT64_T, MPI_SUM, p->comm);
	v->progress = out[0];
	v->idle = out[1] == 0;
	v->empty = out[2] == 0;
	v->nic_flows = out[3];
}

static bool wd_any(void *ctx, bool v)
{
	struct par *p = ctx;
	int mine = v, any = mine;
	MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, p->comm);
	return any != 0;
}

void par_watch(struct par *p, struct watchdog *wd)
{
	/* Registered after par_attach: every rank runs it alike. */
	p->elem_owner = xrealloc(p->elem_owner, p->sim->n_elems * sizeof *p->elem_owner);
	p->elem_owner[sim_elem_id(&wd->elem)] = -1;
	p->wd = wd;
	wd->global = wd_global;
	wd->global_any = wd_any;
	wd->global_ctx = p;
}

#else

int par_run(struct par *p) { (void)p; return SIM_RAN_DRY; }
void par_run_to(struct par *p, simtime_t t) { (void)p; (void)t; }
uint64_t par_sum(struct par *p, uint64_t v) { (void)p; return v; }
bool par_all(struct par *p, bool v) { (void)p; return v; }
void par_watch(struct par *p, struct watchdog *wd) { (void)p; (void)wd; }

#endif
