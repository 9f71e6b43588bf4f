/*
 * log.c — user-facing errors and warnings, and invariant failures.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "log.h"
#include "sim.h"

static void (*log_cleanup)(void);
/* A partitioned run's rank other than 0: its warnings and input errors are
 * rank 0's too (every rank reads the same scenario), so only rank 0 says
 * them; internal errors say which rank. */
static bool follower;
static char follower_tag[32];

void log_set_rank(int rank)
{
	follower = rank > 0;
	snprintf(follower_tag, sizeof follower_tag, "sim (rank %d): ", rank);
}

void log_set_cleanup(void (*fn)(void)) { log_cleanup = fn; }

static void run_cleanup(void)
{
	void (*fn)(void) = log_cleanup;
	log_cleanup = NULL; /* never twice, even if cleanup itself fails */
	if (fn)
		fn();
}

static void report(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die_input(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (!follower)
		report("sim: ", fmt, ap);
	va_end(ap);
	run_cleanup();
	exit(EXIT_INPUT);
}

void die_internal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char prefix[64];
	snprintf(prefix, sizeof prefix, "%sinternal error: ", follower ? follower_tag : "sim: ");
	report(prefix, fmt, ap);
	va_end(ap);
	run_cleanup();
	exit(EXIT_INTERNAL);
}

void warnx_sim(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (!follower)
		report("sim: warning: ", fmt, ap);
	va_end(ap);
}

void sim_assert_fail(const struct sim *sim, const struct sim_elem *e, const char *cond,
		     const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%sinternal error at t=%lld ps in %s (%s:%d, %s): ",
		follower ? follower_tag : "sim: ", sim ? (long long)sim->now : -1LL,
		sim && e && sim_elem_id(e) < sim->n_elems && sim->elem_names[sim_elem_id(e)]
			? sim->elem_names[sim_elem_id(e)] : "?",
		file, line, cond);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	run_cleanup();
	abort();
}
