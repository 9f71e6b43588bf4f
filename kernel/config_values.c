/*
 * config_values.c — a scenario string to its typed field: cfg_key_store,
 * one parser per key type of config.h, with the range check of the
 * key's table row; input paths and the built-in data files; per-rate maps
 * read back at a link rate.
 *
 * Every parser either stores the value (freeing what the field held) or
 * fills `expected` with what would have been accepted, worded to follow
 * "KEY = 'VALUE': expected ..." (config.c adds the location). Defaults go
 * through the same parsers (cfg_keys_defaults), so the table cannot hold
 * a default the parser would refuse. A model's own key types (KT_CUSTOM)
 * bring their parser. config_resolve.c writes each type back as text.
 */
#define _GNU_SOURCE  /* asprintf */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config_internal.h"

#ifndef ROCESIM_SRCDATADIR
#define ROCESIM_SRCDATADIR "data"
#endif
#ifndef ROCESIM_DATADIR
#define ROCESIM_DATADIR "/usr/local/share/rocesim/data"
#endif

/* ---- Parsing one value into its field ---- */

static char *builtin_path(const struct cfg_key *k, const char *name);
static int failf(char *expected, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(char *expected, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(expected, CFG_EXPECTED_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *noun_of(const struct cfg_key *k)
{
	switch (k->type) {
	case KT_INT: case KT_LLONG: case KT_SEED:
		return k->range & CFG_R_EVEN ? "an even integer" : "an integer";
	case KT_TIME: return "a time";
	case KT_RATE: case KT_RATE_OFF: return "a rate";
	case KT_SIZE: case KT_SIZE_MAP: case KT_SIZE_AUTO: case KT_SIZE_OFF: return "a size";
	default: return "a number";
	}
}

void cfg_range_text(const struct cfg_key *k, const char *noun, char *buf, size_t n)
{
	bool lo = k->range & (CFG_R_MIN | CFG_R_MIN_OPEN), hi = k->range & (CFG_R_MAX | CFG_R_MAX_OPEN);
	bool integer = k->type == KT_INT || k->type == KT_LLONG || k->type == KT_SEED;
	if (lo && hi && integer && !(k->range & (CFG_R_MIN_OPEN | CFG_R_MAX_OPEN)))
		snprintf(buf, n, "%s from %g to %g", noun, k->lo, k->hi);
	else if (lo && hi)
		snprintf(buf, n, "%s in %c%g, %g%c", noun, k->range & CFG_R_MIN_OPEN ? '(' : '[',
			 k->lo, k->hi, k->range & CFG_R_MAX_OPEN ? ')' : ']');
	else if (lo)
		snprintf(buf, n, "%s %s %g", noun, k->range & CFG_R_MIN_OPEN ? ">" : ">=", k->lo);
	else if (hi)
		snprintf(buf, n, "%s %s %g", noun, k->range & CFG_R_MAX_OPEN ? "<" : "<=", k->hi);
	else
		snprintf(buf, n, "%s", noun);
}

static bool in_range(const struct cfg_key *k, double v)
{
	if ((k->range & CFG_R_MIN) && !(v >= k->lo))
		return false;
	if ((k->range & CFG_R_MIN_OPEN) && !(v > k->lo))
		return false;
	if ((k->range & CFG_R_MAX) && !(v <= k->hi))
		return false;
	if ((k->range & CFG_R_MAX_OPEN) && !(v < k->hi))
		return false;
	if ((k->range & CFG_R_EVEN) && (long long)v % 2 != 0)
		return false;
	return true;
}

static int range_fail(const struct cfg_key *k, char *expected)
{
	cfg_range_text(k, noun_of(k), expected, CFG_EXPECTED_MAX);
	return -1;
}

/* One value of a per-rate map or its scalar form. */
static int map_value(const struct cfg_key *k, const char *s, double *v, char *expected)
{
	if (k->type == KT_NUM_MAP)
		return units_number(s, v, expected);
	uint64_t b;
	if (units_size(s, &b, expected) < 0)
		return -1;
	*v = (double)b;
	return 0;
}

static int store_map(const struct cfg_key *k, struct cfg_rate_map *m, const char *value,
		     const struct cfg_store_ctx *ctx, char *expected)
{
	const char *what = k->type == KT_NUM_MAP
		? "a number or a per-rate map such as '100Gbps:0.125 400Gbps:0.0625'"
		: "a size or a per-rate map such as '100Gbps:400KB 400Gbps:1600KB'";
	char sub[UNITS_EXPECTED_MAX], rt[UNITS_EXPECTED_MAX];
	struct cfg_rate_map r = { .section = ctx->section, .key = k->name,
				   .file = ctx->file, .line = ctx->line };
	char **tok;
	size_t n = units_list(value, &tok);
	int rc = -1;
	cfg_range_text(k, noun_of(k), rt, sizeof rt);
	if (n == 0) {
		failf(expected, "%s", what);
	} else if (n == 1 && !strchr(tok[0], ':')) {
		if (map_value(k, tok[0], &r.scalar, sub) < 0)
			failf(expected, "%s", what);
		else if (!in_range(k, r.scalar))
			failf(expected, "%s", rt);
		else
			rc = 0;
	} else {
		rc = 0;
		r.is_map = true;
		for (size_t i = 0; i < n && rc == 0; i++) {
			char *colon = strchr(tok[i], ':');
			uint64_t rate;
			double v;
			rc = -1;
			if (!colon) {
				failf(expected, "%s ('%s' has no RATE:)", what, tok[i]);
				break;
			}
			*colon = '\0';
			if (units_rate(tok[i], &rate, sub) < 0 || rate == 0)
				failf(expected, "%s, with RATE %s", what, sub);
			else if (map_value(k, colon + 1, &v, sub) < 0)
				failf(expected, "%s, with each value %s", what, sub);
			else if (!in_range(k, v))
				failf(expected, "%s at every rate", rt);
			else if (r.n == CFG_MAX_RATE_MAP)
				failf(expected, "at most %d rates in the map", CFG_MAX_RATE_MAP);
			else
				rc = 0;
			for (int j = 0; j < r.n && rc == 0; j++)
				if (r.rate_bps[j] == rate)
					rc = failf(expected, "each rate once in the map (%s is given twice)", tok[i]);
			if (rc == 0) {
				r.rate_bps[r.n] = rate;
				r.val[r.n++] = v;
			}
		}
	}
	units_list_free(tok, n);
	if (rc == 0)
		*m = r;
	return rc;
}

static int store_path_in(char **field, const char *value, const struct cfg_store_ctx *ctx, char *expected)
{
	struct stat st;
	if (!*value)
		return failf(expected, "a path to a file");
	char *p = ctx->from_set ? strdup(value) : cfg_path_join(ctx->dir, value);
	if (!p)
		abort();
	if (stat(p, &st) != 0 || access(p, R_OK) != 0) {
		failf(expected, "a readable file (%s: %s)", p, strerror(errno));
		free(p);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		failf(expected, "a file, not a folder (%s)", p);
		free(p);
		return -1;
	}
	free(*field);
	*field = p;
	return 0;
}

static int store_word(const struct cfg_key *k, const char *value, int *index, char *expected)
{
	char list[CFG_EXPECTED_MAX / 2];
	for (size_t i = 0; cfg_vocab_word(k, i); i++)
		if (strcmp(cfg_vocab_word(k, i), value) == 0) {
			*index = (int)i;
			return 0;
		}
	char mean[96];
	cfg_vocab_text(k, list, sizeof list);
	return failf(expected, "%s%s%s", cfg_vocab_word(k, 1) ? "one of " : "", list,
		     cfg_did_you_mean(value, list, mean, sizeof mean));
}

/* The section's type named value (KT_TYPE). */
static int store_type(const struct cfg_section *sec, const char *value, int *index, char *expected)
{
	char list[CFG_EXPECTED_MAX / 2];
	size_t len = 0, n = 0;
	while (cfg_type_at(sec, n))
		n++;
	for (size_t i = 0; i < n; i++)
		if (strcmp(cfg_type_at(sec, i)->name, value) == 0) {
			*index = (int)i;
			return 0;
		}
	list[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof list; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", cfg_type_at(sec, i)->name);
	char mean[96];
	return failf(expected, "one of %s%s", list, cfg_did_you_mean(value, list, mean, sizeof mean));
}

/* Replaces the string field at off with a copy of v. */
static void set_str(void *base, size_t off, const char *v)
{
	char **field = CFG_FIELD(base, off, char *);
	free(*field);
	if (!(*field = strdup(v)))
		abort();
}

int cfg_key_store(const struct cfg_key *k, void *base, const char *value,
		  const struct cfg_store_ctx *ctx, char *expected)
{
	char sub[UNITS_EXPECTED_MAX];
	long long ll;
	uint64_t u;
	double d;
	int idx = 0;

	if (k->per_25g > 0)
		*CFG_FIELD(base, k->off2, bool) = false;  /* given: not the scaled default */
	switch (k->type) {
	case KT_TIME:
		if (units_time(value, CFG_FIELD(base, k->off, simtime_t), expected) < 0)
			return -1;
		return in_range(k, (double)*CFG_FIELD(base, k->off, simtime_t)) ? 0 : range_fail(k, expected);
	case KT_RATE:
	case KT_SIZE:
		if ((k->type == KT_RATE ? units_rate : units_size)(value, &u, expected) < 0)
			return -1;
		*CFG_FIELD(base, k->off, uint64_t) = u;
		return in_range(k, (double)u) ? 0 : range_fail(k, expected);
	case KT_INT:
	case KT_LLONG:
		if (units_int(value, &ll, sub) < 0 || (k->type == KT_INT && (ll > INT_MAX || ll < INT_MIN)) ||
		    !in_range(k, (double)ll))
			return range_fail(k, expected);
		if (k->type == KT_INT)
			*CFG_FIELD(base, k->off, int) = (int)ll;
		else
			*CFG_FIELD(base, k->off, long long) = ll;
		return 0;
	case KT_SEED:
		if (units_int(value, &ll, sub) < 0 || ll < 0)
			return failf(expected, "a non-negative integer");
		*CFG_FIELD(base, k->off, uint64_t) = (uint64_t)ll;
		return 0;
	case KT_NUMBER:
		if (units_number(value, &d, expected) < 0)
			return -1;
		*CFG_FIELD(base, k->off, double) = d;
		return in_range(k, d) ? 0 : range_fail(k, expected);
	case KT_BOOL:
		return units_bool(value, CFG_FIELD(base, k->off, bool), expected);
	case KT_ENUM:
		if (store_word(k, value, &idx, expected) < 0)
			return -1;
		*CFG_FIELD(base, k->off, int) = idx;
		return 0;
	case KT_WORD:
		if (store_word(k, value, &idx, expected) < 0)
			return -1;
		set_str(base, k->off, cfg_vocab_word(k, (size_t)idx));
		return 0;
	case KT_TYPE:
		if (store_type(ctx->sec, value, &idx, expected) < 0)
			return -1;
		*CFG_FIELD(base, k->off, int) = idx;
		return 0;
	case KT_NAME:
		if (!*value || strpbrk(value, ", \t"))
			return failf(expected, "one name");
		set_str(base, k->off, value);
		return 0;
	case KT_LIST: {
		char **v;
		size_t n = units_list(value, &v);
		if (n == 0)
			return failf(expected, "a list of names separated by commas or spaces");
		units_list_free(*CFG_FIELD(base, k->off, char **), *CFG_FIELD(base, k->off2, size_t));
		*CFG_FIELD(base, k->off, char **) = v;
		*CFG_FIELD(base, k->off2, size_t) = n;
		return 0;
	}
	case KT_PATH_IN:
		return store_path_in(CFG_FIELD(base, k->off, char *), value, ctx, expected);
	case KT_PATH_OUT:
		if (!*value)
			return failf(expected, "a path");
		set_str(base, k->off, value);
		return 0;
	case KT_DATA: {
		/* store_path_in's message holds the path: CFG_EXPECTED_MAX, not sub's size. */
		char why[CFG_EXPECTED_MAX], names[CFG_EXPECTED_MAX / 2];
		if (cfg_data_is_builtin(k, value)) {
			char *p = builtin_path(k, value);
			if (!p)
				return failf(expected, "a built-in name whose data file %s/%s%s is installed "
					     "(not found in %s nor %s)", k->data_dir, value, k->data_ext,
					     ROCESIM_SRCDATADIR, ROCESIM_DATADIR);
			free(p);
			set_str(base, k->off, value);
			return 0;
		}
		if (store_path_in(CFG_FIELD(base, k->off, char *), value, ctx, why) < 0) {
			size_t len = 0;
			names[0] = '\0';
			for (size_t i = 0; cfg_vocab_word(k, i) && len < sizeof names; i++)
				len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
							cfg_vocab_word(k, i));
			return failf(expected, "%s or %s", names, why);
		}
		return 0;
	}
	case KT_NUM_MAP:
	case KT_SIZE_MAP:
		return store_map(k, CFG_FIELD(base, k->off, struct cfg_rate_map), value, ctx, expected);
	case KT_SIZE_AUTO:
	case KT_SIZE_OFF:
	case KT_RATE_OFF: {
		const char *word = k->type == KT_SIZE_AUTO ? "auto" : "off";
		if (strcmp(value, word) == 0) {
			*CFG_FIELD(base, k->off2, bool) = true;
			*CFG_FIELD(base, k->off, uint64_t) = 0;
			return 0;
		}
		if ((k->type == KT_RATE_OFF ? units_rate : units_size)(value, &u, sub) < 0)
			return failf(expected, "%s or %s", word, sub);
		if (!in_range(k, (double)u))
			return range_fail(k, expected);
		*CFG_FIELD(base, k->off2, bool) = false;
		*CFG_FIELD(base, k->off, uint64_t) = u;
		return 0;
	}
	case KT_CUSTOM:
		return k->custom->parse(k, base, value, ctx, expected);
	}
	return failf(expected, "a known key type");
}

/* ---- Paths and built-in data ---- */

char *cfg_path_join(const char *dir, const char *path)
{
	char *p;
	if (path[0] == '/' || !dir || strcmp(dir, ".") == 0)
		p = strdup(path);
	else if (asprintf(&p, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", path) < 0)
		p = NULL;
	if (!p)
		abort();
	return p;
}

bool cfg_data_is_builtin(const struct cfg_key *k, const char *value)
{
	for (size_t i = 0; cfg_vocab_word(k, i); i++)
		if (strcmp(cfg_vocab_word(k, i), value) == 0)
			return true;
	return false;
}

/* The source tree first, so ./sim in a build tree uses the data next to
 * it, then the installed copy. */
static char *builtin_path(const struct cfg_key *k, const char *name)
{
	const char *dirs[] = { ROCESIM_SRCDATADIR, ROCESIM_DATADIR };
	for (int i = 0; i < 2; i++) {
		char *p;
		if (asprintf(&p, "%s/%s/%s%s", dirs[i], k->data_dir, name, k->data_ext) < 0)
			abort();
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

char *cfg_find_data(const struct config *cfg, const struct cfg_key *k, const char *name_or_path)
{
	if (cfg_data_is_builtin(k, name_or_path))
		return builtin_path(k, name_or_path);
	if (access(name_or_path, R_OK) == 0)
		return strdup(name_or_path);
	if (cfg && cfg->dir && name_or_path[0] != '/') {
		char *p = cfg_path_join(cfg->dir, name_or_path);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

double cfg_scaled_default(double per_25g, uint64_t rate_bps)
{
	return per_25g * (double)rate_bps / 25e9;
}

int cfg_rate_map_get(const struct cfg_rate_map *m, uint64_t rate_bps, double *out, char **err)
{
	char r[64], have[CFG_MAX_RATE_MAP * 24] = "", w[512] = "";
	if (m->per_25g > 0 && !m->is_map) {
		*out = cfg_scaled_default(m->per_25g, rate_bps);
		return 0;
	}
	if (!m->is_map) {
		*out = m->scalar;
		return 0;
	}
	for (int i = 0; i < m->n; i++)
		if (m->rate_bps[i] == rate_bps) {
			*out = m->val[i];
			return 0;
		}
	size_t len = 0;
	for (int i = 0; i < m->n; i++) {
		units_format_rate(m->rate_bps[i], r, sizeof r);
		len += (size_t)snprintf(have + len, sizeof have - len, "%s%s", i ? ", " : "", r);
	}
	units_format_rate(rate_bps, r, sizeof r);
	if (m->file && m->line > 0)
		snprintf(w, sizeof w, "%s:%d: ", m->file, m->line);
	else if (m->file)
		snprintf(w, sizeof w, "%s: ", m->file);
	if (err && asprintf(err, "%s[%s] %s has no entry for %s: expected an entry for every link rate (it has %s)",
			    w, m->section, m->key, r, have) < 0)
		abort();
	return -1;
}

bool cfg_rate_map_le(const struct cfg_rate_map *a, const struct cfg_rate_map *b, uint64_t *rate)
{
	int na = a->is_map ? a->n : 1, nb = b->is_map ? b->n : 1;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++) {
			if (a->is_map && b->is_map && a->rate_bps[i] != b->rate_bps[j])
				continue;
			double va = a->is_map ? a->val[i] : a->scalar, vb = b->is_map ? b->val[j] : b->scalar;
			if (va > vb) {
				*rate = a->is_map ? a->rate_bps[i] : b->is_map ? b->rate_bps[j] : 0;
				return false;
			}
		}
	return true;
}
