/*
 * units.h — parsing of the typed values of scenario files (docs/scenario.md
 * "Values"): times, rates, sizes, booleans, integers, numbers, lists and
 * per-rate maps.
 *
 * Every parser returns 0 on success and -1 on failure, filling `expected`
 * (when not NULL) with a short description of what was expected, for the
 * caller's error message, e.g. "a time with a unit (ps, ns, us, ms, s)".
 */
#ifndef ROCESIM_UNITS_H
#define ROCESIM_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "simtime.h"

#define UNITS_EXPECTED_MAX 160

/* "1.5us" -> 1500000. Units ps ns us ms s; a bare number is an error. */
int units_time(const char *s, simtime_t *out, char *expected);
/* "100Gbps" -> 100000000000. Units bps Kbps Mbps Gbps Tbps and GBps (bytes/s). */
int units_rate(const char *s, uint64_t *out, char *expected);
/* "32MiB" -> 33554432. Units B KB MB GB (powers of 1000), KiB MiB GiB (1024). */
int units_size(const char *s, uint64_t *out, char *expected);
/* on/off, true/false, yes/no (any case). */
int units_bool(const char *s, bool *out, char *expected);
/* A bare decimal integer (optional sign). */
int units_int(const char *s, long long *out, char *expected);
/* A bare number, decimal or with exponent, or a fraction "1/256". */
int units_number(const char *s, double *out, char *expected);

/* Splits a list at commas and/or whitespace; returns the count, fills a
 * malloc'd array of malloc'd strings (free with units_list_free). */
size_t units_list(const char *s, char ***out);
void units_list_free(char **v, size_t n);

/* Formats for the resolved configuration text (inverse of the parsers). */
void units_format_time(simtime_t t, char *buf, size_t n);   /* "1500ns" exact */
void units_format_rate(uint64_t bps, char *buf, size_t n);  /* "100Gbps" exact */
void units_format_size(uint64_t b, char *buf, size_t n);    /* "32MiB" exact */

#endif
