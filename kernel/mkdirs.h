/*
 * mkdirs.h — `mkdir -p` that remembers what it created, so that an output
 * which then fails to open can take its folders back (nothing half-written:
 * the results database, the capture folder).
 */
#ifndef ROCESIM_MKDIRS_H
#define ROCESIM_MKDIRS_H

#include <stddef.h>

/* Creates dir and its missing parents. Each folder created is appended to
 * *made (*n_made entries; the array is realloc'd, the entries malloc'd),
 * outermost first. Returns 0, or an errno with *where (malloc'd) naming the
 * folder that failed: ENOTDIR when a component exists and is not a folder,
 * ENOMEM when out of memory (then *where may stay NULL). */
int mkdirs(const char *dir, char ***made, size_t *n_made, char **where);

#endif
