/*
 * progress.c — the progress line on stderr (progress.h):
 *
 *   sim: t=1.234ms (12.3%) 15.2M ev/s ETA 0:12
 *
 * Simulated time reached; percent of the stop time when the run has one,
 * else the least of the fractions known: flows finished when their total
 * is known, the work its models report (the jobs' iterations, counted from
 * their plans; progress_fraction), else no percent and no ETA; events per
 * second since the previous draw (the current speed, which is what tells a
 * user the run slowed down); ETA from the average progress rate since the
 * start (steadier than the last interval's), marked '~' when the fraction
 * rests on an estimate (a job's iteration time before one has ended).
 *
 * On a terminal the line is redrawn in place ('\r', erase to end of line)
 * at most every 0.5 s of wall time. When stderr is not a terminal (progress
 * = on with stderr redirected) each update is its own line, at most every
 * 5 s, so a log file stays readable. progress_update is called from the
 * event loop every few thousand events: when it is not time to draw it
 * costs one clock_gettime.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define PROGRESS_TTY_PERIOD_S 0.5
#define PROGRESS_LOG_PERIOD_S 5.0

double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(struct progress *p, bool enabled, simtime_t stop_at)
{
	*p = (struct progress){
		.enabled = enabled,
		.tty = isatty(STDERR_FILENO) == 1,
		.t0 = wall_seconds(),
		.stop_at = stop_at,
	};
	p->last = p->t0;
}

/* "1.234ms": three decimals of the largest unit not above t. */
static void format_simtime(char *buf, size_t len, simtime_t t)
{
	static const struct { simtime_t ps; const char *unit; } units[] = {
		{ SIMTIME_S, "s" }, { SIMTIME_MS, "ms" }, { SIMTIME_US, "us" }, { SIMTIME_NS, "ns" },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (t >= units[i].ps) {
			snprintf(buf, len, "%.3f%s", (double)t / (double)units[i].ps, units[i].unit);
			return;
		}
	snprintf(buf, len, "%" PRId64 "ps", (int64_t)t);
}

/* "15.2M": one decimal with a K/M/G suffix. */
static void format_rate(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.1fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1fK", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

/* "0:12", "12:34", "1:02:03". */
static void format_eta(char *buf, size_t len, double s)
{
	if (s > 359999.0)      /* more than 99 hours: a number means nothing */
		s = 359999.0;
	unsigned long secs = (unsigned long)(s + 0.5);
	unsigned long h = secs / 3600, m = secs / 60 % 60, sec = secs % 60;
	if (h)
		snprintf(buf, len, "%lu:%02lu:%02lu", h, m, sec);
	else
		snprintf(buf, len, "%lu:%02lu", m, sec);
}

double progress_fraction(const struct progress *p, simtime_t now, uint64_t flows_done, double work)
{
	double frac = -1.0;
	if (p->stop_at != SIMTIME_NEVER && p->stop_at > 0) {
		frac = (double)now / (double)p->stop_at;
	} else {
		if (p->flows_total)
			frac = (double)flows_done / (double)p->flows_total;
		if (work >= 0.0 && (frac < 0.0 || work < frac))
			frac = work;
	}
	return frac > 1.0 ? 1.0 : frac;
}

void progress_update(struct progress *p, simtime_t now, uint64_t events,
		     uint64_t flows_done, uint64_t flows_total, double work, bool estimated)
{
	if (!p->enabled)
		return;
	double w = wall_seconds();
	double period = p->tty ? PROGRESS_TTY_PERIOD_S : PROGRESS_LOG_PERIOD_S;
	if (w - p->last < period)
		return;
	if (flows_total)
		p->flows_total = flows_total;

	double frac = progress_fraction(p, now, flows_done, work);
	bool stop = p->stop_at != SIMTIME_NEVER && p->stop_at > 0;

	double dt = w - p->last;
	double ev_rate = events >= p->last_events && dt > 0
		? (double)(events - p->last_events) / dt : 0.0;

	char t[32], rate[32], line[128];
	format_simtime(t, sizeof t, now);
	format_rate(rate, sizeof rate, ev_rate);
	int n = snprintf(line, sizeof line, "sim: t=%s", t);
	if (frac >= 0.0)
		n += snprintf(line + n, sizeof line - (size_t)n, " (%.1f%%)", frac * 100.0);
	n += snprintf(line + n, sizeof line - (size_t)n, " %s ev/s", rate);
	if (frac > 0.0) {
		char eta[32];
		format_eta(eta, sizeof eta, (w - p->t0) * (1.0 - frac) / frac);
		snprintf(line + n, sizeof line - (size_t)n, " ETA %s%s", estimated && !stop ? "~" : "", eta);
	}

	if (p->tty)
		fprintf(stderr, "\r%s\033[K", line);
	else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
	p->last = w;
	p->last_events = events;
	p->drawn = true;
}

void progress_end(struct progress *p)
{
	/* Only a terminal's line is left open; log lines end themselves. */
	if (p->enabled && p->drawn && p->tty) {
		fputc('\n', stderr);
		fflush(stderr);
	}
	p->drawn = false;
}
