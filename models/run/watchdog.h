/*
 * watchdog.h — noticing a run that no longer moves: PFC deadlock and stall
 * detection ([simulation] watchdog, docs/scenario.md).
 *
 * A periodic event (one per watchdog period of simulated time, never per
 * packet) compares a progress count — data packets delivered to NICs plus
 * flows finished (NVLink messages included) — with the one seen at the
 * previous tick. While it moves, or while no flow is outstanding, nothing
 * happens. When it has not moved for a whole period and flows remain:
 *   - deadlock: the wait-for graph of paused ports (watchdog_find_cycles)
 *     has a cycle whose ports have all stayed paused since the silence
 *     began. The run stops; run.status = 'deadlock', the cycles go to the
 *     `deadlock` table and stderr (sw0:p1 (prio 3) -> sw1:p2 (prio 3) -> ...).
 *   - stall: no cycle, but nothing was delivered for max(watchdog,
 *     2 x [nic] rto) — one retransmission timeout is how long a lost packet
 *     legitimately silences a flow, so a loss never reads as a stall. The
 *     run stops; run.status = 'stalled'; stderr names the outstanding flows
 *     and the ports holding frames.
 * The tick does not touch any model state and schedules on an element
 * registered after every other one, so runs that never stall produce
 * byte-identical flow tables with or without it. It stops re-arming when
 * watchdog_stop is called (the run's work is done) or when it is the only
 * event left and nothing is outstanding, so it never keeps a finished run
 * alive; with flows outstanding and no event left, nothing can ever move
 * again: that is a stall at once.
 */
#ifndef ROCESIM_WATCHDOG_H
#define ROCESIM_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "sim.h"

struct world;
struct port;
struct results;

enum watchdog_verdict { WD_RUNNING, WD_DEADLOCK, WD_STALLED };

/* One port of a cycle: egress `port` of switch `node` is paused in class
 * `prio` by its peer, whose ingress holds bytes for the next hop's egress. */
struct wd_hop {
	const char *node;          /* the port's node (the topology's name) */
	int port;                  /* its index there */
	int prio;
};

/* Cycles found: cycle i is hops[start[i] .. start[i + 1]). */
struct wd_cycles {
	struct wd_hop *hops;
	int n_hops, cap_hops;
	int *start;                /* [n + 1] */
	int n, cap;
};

#define WD_MAX_CYCLES 64

/* What a tick reads of the whole run (a partitioned run sums its ranks'). */
struct wd_view {
	uint64_t progress;         /* packets delivered + flows done */
	bool idle;                 /* every posted flow finished */
	bool empty;                /* no other event pending */
	uint64_t nic_flows;        /* unfinished flows carried by queue pairs */
};

struct watchdog {
	struct sim_elem elem;      /* registered last: its ties never reorder model events */
	struct world *w;
	simtime_t period_ps;       /* [simulation] watchdog */
	simtime_t stall_ps;        /* silence that makes a stall: max(period, 2 x rto) */
	uint64_t last_progress;    /* packets delivered + flows done at the last tick */
	simtime_t silent_since;    /* last tick that saw progress (or no flow outstanding) */
	bool active;
	bool ticking;              /* a tick is pending (it stops when the queue empties) */
	enum watchdog_verdict verdict;
	simtime_t verdict_at;
	struct wd_cycles cycles;   /* with WD_DEADLOCK */
	simtime_t next_tick;       /* while ticking: when the pending tick fires */
	/* A partitioned run (parallel.h): replaces the local view by the
	 * ranks' sums, and this rank's part of the wait-for graph (records of
	 * ints, watchdog.c) by every rank's (*all malloc'd). NULL: sequential. */
	void (*global)(void *ctx, struct wd_view *v);
	void (*global_graph)(void *ctx, const int *part, int n, int **all, int *n_all);
	void *global_ctx;
};

/* Arms the first tick one period from now (after the world and its traffic
 * are built). */
void watchdog_start(struct watchdog *wd, struct world *w, simtime_t period_ps);
/* The run's work is done: the pending tick, when it fires, does nothing. */
static inline void watchdog_stop(struct watchdog *wd) { wd->active = false; }
/* New work arrived after the ticks stopped for want of events (a driver's
 * post, api.c): the next tick one period from now. */
void watchdog_rearm(struct watchdog *wd);
void watchdog_free(struct watchdog *wd);

/* The cycles of the wait-for graph of w's paused switch egresses, each
 * starting at its lowest (port, class), at most WD_MAX_CYCLES, found in
 * port order (deterministic). Only ports paused since `since` count. */
int watchdog_find_cycles(const struct world *w, simtime_t since, struct wd_cycles *out);
void wd_cycles_free(struct wd_cycles *c);

/* "sw0:p1 (prio 3) -> sw1:p2 (prio 3) -> sw0:p1" into buf. */
/* The same for the watchdog's tick: with wd->global_graph, over every
 * rank's part of the graph. */
int wd_find_cycles(const struct watchdog *wd, const struct world *w, simtime_t since, struct wd_cycles *out);
void watchdog_cycle_name(const struct wd_cycles *c, int i, char *buf, size_t size);
/* The verdict on f (stderr): cycles, or the outstanding flows and busy ports. */
void watchdog_report(struct watchdog *wd, FILE *f);
/* deadlock rows (cycle, position, node, port, priority). */
void watchdog_write(const struct watchdog *wd, struct results *res);
/* run.status of a verdict ('deadlock', 'stalled'), NULL while running. */
const char *watchdog_status(const struct watchdog *wd);

#endif
