/*
 * progress.h — the progress line on stderr: simulated time reached, percent
 * of the stop time (or of flows finished, or of the jobs' iterations),
 * events per second, ETA. Redrawn
 * in place ('\r') at most a few times a second when stderr is a terminal or
 * `progress = on`; never under -q.
 */
#ifndef ROCESIM_PROGRESS_H
#define ROCESIM_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include "simtime.h"

struct progress {
	bool enabled;
	bool tty;                /* stderr is a terminal: redraw with '\r' */
	double t0, last;         /* wall clock (s) at start and last draw */
	simtime_t stop_at;       /* SIMTIME_NEVER when the run ends by finishing work */
	uint64_t flows_total;    /* when known, for percent by flows */
	uint64_t last_events;    /* events at the last draw: ev/s is the rate since then */
	bool drawn;              /* a line was drawn: progress_end ends it */
};

void progress_init(struct progress *p, bool enabled, simtime_t stop_at);
/* Fraction of the run done (-1: unknown): now over the stop time when
 * there is one, else the least of flows_done over the known flows and
 * work (the models' own fraction, -1 when they have none), at most 1. */
double progress_fraction(const struct progress *p, simtime_t now, uint64_t flows_done, double work);
/* Draws if enough wall time passed since the last draw. work as above;
 * estimated: it rests on an estimate (the ETA is marked '~'). */
void progress_update(struct progress *p, simtime_t now, uint64_t events,
		     uint64_t flows_done, uint64_t flows_total, double work, bool estimated);
/* Final newline when something was drawn. */
void progress_end(struct progress *p);
double wall_seconds(void);

#endif
