/*
 * cli.h — the command line of `sim` (docs/scenario.md "Command line").
 *
 * Options may come before or after the scenario. --set splits at the first
 * '='; the section is what precedes the last dot of the left part
 * (--set job.moe.tp=8 -> section "job.moe", key "tp"). --seed N is
 * --set simulation.seed=N. --sweep is checked here for its SECTION.KEY=
 * form only; its values are split by the sweep (sweep.h).
 */
#ifndef ROCESIM_CLI_H
#define ROCESIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "config.h"

struct cli {
	const char *scenario;        /* the one positional argument */
	const char *output;          /* -o/--output, NULL when not given */
	bool append;                 /* --append */
	struct cfg_override *sets;   /* --set and --seed, in command-line order */
	size_t n_sets;
	const char *pcap_dir;        /* --pcap DIR */
	const char *fct_path;        /* --fct FILE */
	bool quiet;                  /* -q */
	bool check;                  /* --check */
	int ranks;                   /* --ranks N (with --check): print the partition
				      * for N ranks; 0 when not given */
	bool keys;                   /* --keys: print the scenario key reference and exit 0 */
	bool serve;                  /* --serve: the line protocol on stdin/stdout (serve.c) */
	const char **sweeps;         /* --sweep SECTION.KEY=V1,V2,... as given (into argv), in order */
	size_t n_sweeps;
	int jobs;                    /* -j/--jobs N: a sweep's points at a time; 0 when not given */
	bool help, version;          /* -h / -V: print and exit 0 */
};

/* Most processes -j may ask for. */
#define CLI_MAX_JOBS 1024
#define CLI_MAX_JOBS_TEXT "1024"

/* Parses argv. Returns 0 on success; on a usage error prints
 * "sim: <what>\nTry 'sim --help'." to stderr and returns 2. */
int cli_parse(int argc, char **argv, struct cli *out);
/* SECTION.KEY=VALUE split as --set does: split at the first '='; the
 * section is everything before the last dot of the left part, so sections
 * that contain dots (job.moe) need no quoting, while values may contain
 * anything ('=', '.', paths). 0 with *out's three strings malloc'd, 2 when
 * arg has no such form, -1 when out of memory. */
int cli_split_set(const char *arg, struct cfg_override *out);
void cli_free(struct cli *c);
void cli_usage(FILE *to);
/* SIGINT and SIGTERM to fn, each blocking the other while fn runs (so two
 * sent at once are still first and second), SA_RESTART so that a wait
 * goes on after it. */
void cli_catch_signals(void (*fn)(int));

#endif
