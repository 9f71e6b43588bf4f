/*
 * sweep.h — `sim --sweep`: one scenario run at every combination of some
 * keys' values, the points run as separate processes (-j at a time) and
 * gathered into one result database (docs/sweeps.md).
 *
 * The plan (sweep_plan.c): each --sweep SECTION.KEY=V1,V2,... is an axis;
 * the points are the cartesian product of the axes' values, the first axis
 * varying slowest, numbered 0..n-1 (shown 1..n). A point is the scenario
 * with the command line's --set and --seed, then its axes' values as more
 * --set overrides (the last override of a key wins, so a swept key
 * replaces the same key's --set).
 *
 * The run (sweep.c, sweep_proc.c): every point is loaded and checked
 * (`sim --check`) before any runs, so a bad value in the last point is
 * refused before the first writes anything; then each point runs as
 * `sim -q -o TEMP.db` and the parent copies the finished databases into
 * the target in point order (results.h, "Gathering runs"). Under mpirun
 * rank 0 deals the points to the ranks as they have room, and gathers
 * them all (sweep_ranks.c).
 */
#ifndef ROCESIM_SWEEP_H
#define ROCESIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"

/* Most points a sweep may have. */
#define SWEEP_MAX_POINTS 100000

/* One --sweep: a key and its values. */
struct sweep_axis {
	char *section;     /* "traffic.ws" */
	char *key;         /* "load" */
	char **values;     /* unescaped: "\," became ",", "\\" became "\" */
	size_t n_values;   /* >= 1 */
};

/* SECTION.KEY=V1,V2,... into *out (the key split as --set splits it,
 * cli_split_set). Values are split at commas not preceded by a backslash;
 * "\," is a comma inside a value and "\\" a backslash; any other backslash
 * is kept. Returns 0, or 2 with *why (malloc'd) when spec has no
 * SECTION.KEY= or a value is empty; -1 when out of memory. */
int sweep_axis_parse(const char *spec, struct sweep_axis *out, char **why);
void sweep_axis_free(struct sweep_axis *a);

/* The number of points, or 0 when it would pass SWEEP_MAX_POINTS. */
size_t sweep_n_points(const struct sweep_axis *ax, size_t n_ax);
/* The index of axis a's value at point p (0-based). */
size_t sweep_value_at(const struct sweep_axis *ax, size_t n_ax, size_t p, size_t a);
/* Point p's overrides: base[0..n_base) then one per axis, in axis order,
 * into out (room for n_base + n_ax); the strings are base's and ax's. */
void sweep_point_overrides(const struct sweep_axis *ax, size_t n_ax, size_t p, const struct cfg_override *base,
			   size_t n_base, struct cfg_override *out);
/* Point p's label, "section.key=value" per axis joined by spaces (run.sweep). malloc'd. */
char *sweep_point_label(const struct sweep_axis *ax, size_t n_ax, size_t p);

struct cli;
/* `sim --sweep ...`: runs the sweep the command line describes. self is
 * argv[0] (the binary to run the points with when /proc/self/exe cannot
 * be read). Returns the exit status: 0 every point finished (or the sweep
 * was interrupted: the points run so far are kept, the interrupted ones
 * with status 'interrupted'); 2 bad input, nothing written; otherwise the
 * worst point's (1 before 3). Under mpirun every rank returns the same. */
int sweep_main(const struct cli *cli, const char *self);

#endif
