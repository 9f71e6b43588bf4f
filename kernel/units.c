/*
 * units.c — parsers and formatters for the typed values of scenario files
 * (docs/scenario.md "Values").
 *
 * Times, rates and sizes are parsed exactly: the decimal literal is read as
 * digits into a 128-bit mantissa and a power of ten, multiplied by the unit
 * in integers and accepted only if the result is a whole number of the base
 * unit (ps, bps, bytes). Going through double would turn "1.1us" into
 * 1099999.9999 ps and make runs depend on rounding. Units are matched
 * exactly, because case carries meaning (Gbps bits vs GBps bytes).
 * Formatting picks the largest unit that divides the value exactly, so the
 * resolved configuration re-reads to the same integers.
 */
#define _GNU_SOURCE  /* strndup, strncasecmp */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "units.h"

typedef unsigned __int128 u128;

struct unit { const char *name; uint64_t mult; };

static const struct unit time_units[] = {
	{ "ps", 1 }, { "ns", 1000ull }, { "us", 1000000ull },
	{ "ms", 1000000000ull }, { "s", 1000000000000ull }, { NULL, 0 },
};
/* GBps (bytes per second) is how GPU interconnects are quoted; it is parsed but never
 * formatted, so an 800Gbps link is not shown as 100GBps. */
static const struct unit rate_units[] = {
	{ "bps", 1 }, { "Kbps", 1000ull }, { "Mbps", 1000000ull },
	{ "Gbps", 1000000000ull }, { "Tbps", 1000000000000ull },
	{ "GBps", 8000000000ull }, { NULL, 0 },
};
static const struct unit size_units[] = {
	{ "B", 1 }, { "KB", 1000ull }, { "MB", 1000000ull }, { "GB", 1000000000ull },
	{ "KiB", 1024ull }, { "MiB", 1048576ull }, { "GiB", 1073741824ull }, { NULL, 0 },
};

#define TIME_EXPECTED "a time with a unit (ps, ns, us, ms, s)"
#define RATE_EXPECTED "a rate with a unit (bps, Kbps, Mbps, Gbps, Tbps, GBps)"
#define SIZE_EXPECTED "a size with a unit (B, KB, MB, GB, KiB, MiB, GiB)"

static int fail(char *expected, const char *what)
{
	if (expected)
		snprintf(expected, UNITS_EXPECTED_MAX, "%s", what);
	return -1;
}

/* A decimal literal as an exact mantissa and power of ten. */
struct decimal {
	bool neg;
	u128 mant;
	int exp10;
};

#define MANT_DIGITS_MAX 36  /* 10^36 < 2^128 with room for one more digit */

/* Reads [+-]digits[.digits][(e|E)[+-]digits] from *sp; advances *sp past it.
 * Returns -1 if there is no digit or the literal has too many significant
 * digits to be held exactly. */
static int decimal_parse(const char **sp, struct decimal *d)
{
	const char *s = *sp;
	int ndig = 0, sig = 0;
	d->neg = false;
	d->mant = 0;
	d->exp10 = 0;
	if (*s == '+' || *s == '-')
		d->neg = *s++ == '-';
	bool frac = false;
	int zeros = 0;  /* zeros after the last non-zero digit, not yet in mant */
	for (;; s++) {
		if (*s == '.' && !frac) {
			frac = true;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			break;
		ndig++;
		if (frac)
			d->exp10--;
		if (*s == '0') {
			zeros += d->mant != 0;
			continue;
		}
		sig += zeros + 1;
		if (sig > MANT_DIGITS_MAX)
			return -1;
		for (; zeros > 0; zeros--)
			d->mant *= 10;
		d->mant = d->mant * 10 + (unsigned)(*s - '0');
	}
	d->exp10 += zeros;
	if (ndig == 0)
		return -1;
	if ((*s == 'e' || *s == 'E') &&
	    (isdigit((unsigned char)s[1]) ||
	     ((s[1] == '+' || s[1] == '-') && isdigit((unsigned char)s[2])))) {
		s++;
		bool eneg = false;
		if (*s == '+' || *s == '-')
			eneg = *s++ == '-';
		long e = 0;
		while (isdigit((unsigned char)*s)) {
			if (e < 100000)
				e = e * 10 + (*s - '0');
			s++;
		}
		d->exp10 += (int)(eneg ? -e : e);
	}
	*sp = s;
	return 0;
}

enum exact_status { EXACT_OK, EXACT_FRACTION, EXACT_TOO_LARGE };

/* mant * mult * 10^exp10 as an integer no larger than limit. */
static enum exact_status decimal_scale(const struct decimal *d, uint64_t mult,
				       uint64_t limit, uint64_t *out)
{
	if (d->mant == 0) {
		*out = 0;
		return EXACT_OK;
	}
	const u128 max = ~(u128)0;
	if (d->mant > max / mult)
		return EXACT_TOO_LARGE;
	u128 x = d->mant * mult;
	int e = d->exp10;
	for (; e < 0; e++) {
		if (x % 10 != 0)
			return EXACT_FRACTION;
		x /= 10;
	}
	for (; e > 0; e--) {
		if (x > (u128)limit)
			return EXACT_TOO_LARGE;
		x *= 10;
	}
	if (x > (u128)limit)
		return EXACT_TOO_LARGE;
	*out = (uint64_t)x;
	return EXACT_OK;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Matches the rest of s (trailing blanks allowed) against a unit table. */
static const struct unit *unit_match(const char *s, const struct unit *units)
{
	s = skip_space(s);
	size_t len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	for (const struct unit *u = units; u->name; u++)
		if (strlen(u->name) == len && memcmp(u->name, s, len) == 0)
			return u;
	return NULL;
}

struct quantity_kind {
	const struct unit *units;
	const char *expected;        /* syntax error */
	const char *whole;           /* not a whole number of the base unit */
	const char *negative;
	const char *too_large;
	uint64_t limit;
};

static const struct quantity_kind q_time = {
	time_units, TIME_EXPECTED, "a whole number of picoseconds",
	"a non-negative time", "a time below 2^63 ps (about 106 days)", INT64_MAX,
};
static const struct quantity_kind q_rate = {
	rate_units, RATE_EXPECTED, "a whole number of bits per second",
	"a non-negative rate", "a rate below 2^64 bps", UINT64_MAX,
};
static const struct quantity_kind q_size = {
	size_units, SIZE_EXPECTED, "a whole number of bytes",
	"a non-negative size", "a size below 2^64 bytes", UINT64_MAX,
};

static int quantity(const char *s, const struct quantity_kind *k, uint64_t *out, char *expected)
{
	struct decimal d;
	if (!s)
		return fail(expected, k->expected);
	s = skip_space(s);
	if (decimal_parse(&s, &d) < 0)
		return fail(expected, k->expected);
	const struct unit *u = unit_match(s, k->units);
	if (!u)
		return fail(expected, k->expected);
	if (d.neg && d.mant != 0)
		return fail(expected, k->negative);
	uint64_t v;
	switch (decimal_scale(&d, u->mult, k->limit, &v)) {
	case EXACT_FRACTION:
		return fail(expected, k->whole);
	case EXACT_TOO_LARGE:
		return fail(expected, k->too_large);
	case EXACT_OK:
		break;
	}
	*out = v;
	return 0;
}

int units_time(const char *s, simtime_t *out, char *expected)
{
	uint64_t v;
	if (quantity(s, &q_time, &v, expected) < 0)
		return -1;
	*out = (simtime_t)v;
	return 0;
}

int units_rate(const char *s, uint64_t *out, char *expected)
{
	return quantity(s, &q_rate, out, expected);
}

int units_size(const char *s, uint64_t *out, char *expected)
{
	return quantity(s, &q_size, out, expected);
}

int units_bool(const char *s, bool *out, char *expected)
{
	static const char *const yes[] = { "on", "true", "yes" };
	static const char *const no[] = { "off", "false", "no" };
	if (s) {
		s = skip_space(s);
		size_t len = strlen(s);
		while (len > 0 && isspace((unsigned char)s[len - 1]))
			len--;
		for (int i = 0; i < 3; i++) {
			if (strlen(yes[i]) == len && strncasecmp(s, yes[i], len) == 0) {
				*out = true;
				return 0;
			}
			if (strlen(no[i]) == len && strncasecmp(s, no[i], len) == 0) {
				*out = false;
				return 0;
			}
		}
	}
	return fail(expected, "a boolean (on/off, true/false, yes/no)");
}

int units_int(const char *s, long long *out, char *expected)
{
	if (!s)
		return fail(expected, "an integer");
	s = skip_space(s);
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return fail(expected, "an integer");
	while (isdigit((unsigned char)*p))
		p++;
	if (*skip_space(p) != '\0')
		return fail(expected, "an integer");
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno == ERANGE)
		return fail(expected, "an integer from -2^63 to 2^63-1");
	*out = v;
	return 0;
}

/* End of a decimal literal [+-]digits[.digits][(e|E)[+-]digits] at s, or
 * NULL. strtod alone would also take "inf", "nan" and hex floats. */
static const char *scan_decimal(const char *s)
{
	int ndig = 0;
	if (*s == '+' || *s == '-')
		s++;
	while (isdigit((unsigned char)*s)) {
		s++;
		ndig++;
	}
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			ndig++;
	if (ndig == 0)
		return NULL;
	if (*s == 'e' || *s == 'E') {
		const char *e = s + 1;
		if (*e == '+' || *e == '-')
			e++;
		if (isdigit((unsigned char)*e)) {
			while (isdigit((unsigned char)*e))
				e++;
			s = e;
		}
	}
	return s;
}

static int plain_number(const char **sp, double *out)
{
	const char *end = scan_decimal(*sp);
	if (!end)
		return -1;
	char *e;
	double v = strtod(*sp, &e);
	if (e != end || !isfinite(v))
		return -1;
	*sp = end;
	*out = v;
	return 0;
}

int units_number(const char *s, double *out, char *expected)
{
	static const char what[] = "a number (such as 0.5, 1e-3 or 1/256)";
	if (!s)
		return fail(expected, what);
	s = skip_space(s);
	double a;
	if (plain_number(&s, &a) < 0)
		return fail(expected, what);
	s = skip_space(s);
	if (*s == '/') {
		s = skip_space(s + 1);
		double b;
		if (*s == '+' || *s == '-' || plain_number(&s, &b) < 0)
			return fail(expected, what);
		if (b == 0)
			return fail(expected, "a fraction with a non-zero denominator");
		a /= b;
		s = skip_space(s);
	}
	if (*s != '\0')
		return fail(expected, what);
	*out = a;
	return 0;
}

static bool is_list_sep(char c)
{
	return c == ',' || isspace((unsigned char)c);
}

size_t units_list(const char *s, char ***out)
{
	size_t n = 0, cap = 0;
	char **v = NULL;
	while (s && *s) {
		while (*s && is_list_sep(*s))
			s++;
		if (!*s)
			break;
		const char *b = s;
		while (*s && !is_list_sep(*s))
			s++;
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			char **nv = realloc(v, cap * sizeof *v);
			if (!nv)
				abort();
			v = nv;
		}
		v[n] = strndup(b, (size_t)(s - b));
		if (!v[n])
			abort();
		n++;
	}
	*out = v;
	return n;
}

void units_list_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Largest unit (by size) that divides v exactly; units[] is ascending. */
static void format_exact(uint64_t v, const struct unit *units, size_t n_units,
			 const char *sign, char *buf, size_t n)
{
	const struct unit *best = &units[0];
	for (size_t i = 0; i < n_units; i++)
		if (v == 0 ? units[i].mult > best->mult
			   : (v % units[i].mult == 0 && units[i].mult > best->mult))
			best = &units[i];
	snprintf(buf, n, "%s%llu%s", sign, (unsigned long long)(v / best->mult), best->name);
}

void units_format_time(simtime_t t, char *buf, size_t n)
{
	uint64_t v = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
	format_exact(v, time_units, 5, t < 0 ? "-" : "", buf, n);
}

void units_format_rate(uint64_t bps, char *buf, size_t n)
{
	if (bps == 0) {
		snprintf(buf, n, "0bps");
		return;
	}
	format_exact(bps, rate_units, 5, "", buf, n);  /* bit units only */
}

void units_format_size(uint64_t b, char *buf, size_t n)
{
	if (b == 0) {
		snprintf(buf, n, "0B");
		return;
	}
	format_exact(b, size_units, 7, "", buf, n);
}
