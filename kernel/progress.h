/*
 * progress.h — the progress line on stderr: simulated time reached, percent
 * of the stop time (or of flows finished), events per second, ETA. Redrawn
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
/* Draws if enough wall time passed since the last draw. */
void progress_update(struct progress *p, simtime_t now, uint64_t events,
		     uint64_t flows_done, uint64_t flows_total);
/* Final newline when something was drawn. */
void progress_end(struct progress *p);
double wall_seconds(void);

#endif
