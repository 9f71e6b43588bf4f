/*
 * serve.h — `sim --serve`: the line protocol (serve.c, docs/library.md).
 */
#ifndef ROCESIM_SERVE_H
#define ROCESIM_SERVE_H

#include <stddef.h>
#include <stdio.h>

/* Opens the scenario (sets: "SECTION.KEY=VALUE" overrides; output: the
 * database, NULL for none) and answers the requests read from in on out
 * until `close` or the end of in, then closes the run. Returns the exit
 * status: 0, 2 (the scenario is bad: stderr says why, nothing written),
 * 3 (the watchdog stopped the run) or 1. */
int serve_run(const char *scenario, const char *const *sets, size_t n_sets, const char *output, FILE *in,
	      FILE *out);

#endif
