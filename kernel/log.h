/*
 * log.h — messages to the user and internal invariants.
 *
 * Input errors end the process with status 2 (docs/scenario.md); internal failures
 * with status 1. SIM_ASSERT checks an invariant in every build and reports
 * the simulated time and element; SIM_DEBUG_ASSERT only in --enable-debug.
 */
#ifndef ROCESIM_LOG_H
#define ROCESIM_LOG_H

#include <stdbool.h>
#include "simtime.h"

#define EXIT_INPUT 2      /* bad input */
#define EXIT_STALLED 3    /* stopped by a detected PFC deadlock or stall */
#define EXIT_INTERNAL 1   /* internal failure */

struct sim;
struct sim_elem;

/* "sim: error: ..." on stderr, then exit(EXIT_INPUT). */
_Noreturn void die_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sim: internal error: ..." on stderr, then exit(EXIT_INTERNAL). */
_Noreturn void die_internal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sim: warning: ..." on stderr (always; warnings are never silenced by -q). */
void warnx_sim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* This process is rank `rank` of a partitioned run (parallel.h): above 0,
 * warnings and input errors are left to rank 0, which says the same ones,
 * and internal errors name the rank. */
void log_set_rank(int rank);
/* Hook run before die_* exits (e.g. remove a temporary database). */
void log_set_cleanup(void (*fn)(void));

_Noreturn void sim_assert_fail(const struct sim *sim, const struct sim_elem *e,
			       const char *cond, const char *file, int line,
			       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#define SIM_ASSERT(sim, elem, cond, ...) \
	do { if (__builtin_expect(!(cond), 0)) \
		sim_assert_fail((sim), (elem), #cond, __FILE__, __LINE__, __VA_ARGS__); } while (0)
#ifdef SIM_DEBUG
#define SIM_DEBUG_ASSERT(sim, elem, cond, ...) SIM_ASSERT(sim, elem, cond, __VA_ARGS__)
#else
#define SIM_DEBUG_ASSERT(sim, elem, cond, ...) do { (void)sizeof(cond); } while (0)
#endif

#endif
