/*
 * log.c — user-facing errors and warnings, and invariant failures.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "log.h"
#include "sim.h"

static void (*log_cleanup)(void);

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
	report("sim: ", fmt, ap);
	va_end(ap);
	run_cleanup();
	exit(EXIT_INPUT);
}

void die_internal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("sim: internal error: ", fmt, ap);
	va_end(ap);
	run_cleanup();
	exit(EXIT_INTERNAL);
}

void warnx_sim(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("sim: warning: ", fmt, ap);
	va_end(ap);
}

void sim_assert_fail(const struct sim *sim, const struct sim_elem *e, const char *cond,
		     const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "sim: internal error at t=%lld ps in %s (%s:%d, %s): ",
		sim ? (long long)sim->now : -1LL,
		sim && e && sim_elem_id(e) < sim->n_elems && sim->elem_names[sim_elem_id(e)]
			? sim->elem_names[sim_elem_id(e)] : "?",
		file, line, cond);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	run_cleanup();
	abort();
}
