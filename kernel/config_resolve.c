/*
 * config_resolve.c — the typed config back to text: cfg->resolved, stored
 * as run.config, a scenario that loads to the same config.
 *
 * The text lists every section and key in the table's order with its value
 * or default, formatted exactly (times in the largest unit that divides
 * them, numbers in the shortest form strtod reads back identically), so
 * loading it again gives the same config; it is written next to the
 * parsers of config_values.c's key types, one case per type. Unset
 * optional keys and rate-scaled defaults are written as comments, which
 * re-read as "unset" and keep the text a valid scenario. Input paths are
 * written absolute so the text re-loads from any folder. Values that do
 * not fit a line (long lists, maps, groups) go on indented continuation
 * lines, since the reader refuses lines over inih's limit (config_read.c).
 */
#define _GNU_SOURCE  /* open_memstream, realpath */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_internal.h"

/* Where a value of several words is broken onto continuation lines. */
#define RESOLVED_WIDTH 78
/* The longest line the reader takes (config_read.c: Debian's inih, built
 * with INI_MAX_LINE 200, less "\r\n\0"). A word may come close to it: a
 * scenario may hold a 196-character word on a line of its own. */
#define RESOLVED_LINE_MAX 197

/* Writes "key = w1, w2, ..." with the words wrapped onto indented
 * continuation lines past RESOLVED_WIDTH; the reader joins each line back
 * with one space, which every list, map and repeated-key parser accepts. */
struct cfg_text {
	FILE *f;
	const struct config *cfg;
	size_t col;          /* column reached on the current line */
	size_t words;        /* words written so far */
};

void cfg_text_begin(struct cfg_text *w, const char *key)
{
	w->words = 0;
	fprintf(w->f, "%s =", key);
	w->col = strlen(key) + 2;
}

/* Whether the reader might not take a continuation line starting with
 * word as more of the value: a comment ('#'; values hold no ';'), or a
 * key name before '=' or ':' (config_read.c's continuation(); the '='
 * may be the next word of a group or a flow). Found by fuzz_scenario. */
static bool misread_first(const struct config *cfg, const char *word)
{
	if (*word == '#')
		return true;
	size_t n = strcspn(word, "=:");
	for (size_t k = 0; cfg_sec_at(cfg->schema, k); k++)
		if (cfg_key_named(cfg_sec_at(cfg->schema, k), word, n))
			return true;
	return false;
}

/* One word, after glue ("," for lists, "" for maps and groups) and a blank
 * or a line break. A word longer than RESOLVED_WIDTH stays whole, and every
 * line stays within RESOLVED_LINE_MAX: a long word goes on a line indented
 * by one blank, and glue that would pass the limit at the end of a line
 * gets a line of its own (the reader joins lines with a blank, which every
 * parser takes around glue). Found by fuzz_scenario. */
void cfg_text_word(struct cfg_text *w, const char *glue, const char *word)
{
	size_t len = strlen(word);
	if (!w->words)
		glue = "";
	size_t g = strlen(glue);
	/* Room is kept for the glue that may follow the word. */
	bool here = w->words ? w->col + 2 * g + 1 + len <= RESOLVED_WIDTH
			     : w->col + 1 + len + 1 <= RESOLVED_LINE_MAX;
	if (here) {
		fprintf(w->f, "%s %s", glue, word);
		w->col += g + 1 + len;
	} else {
		if (w->col + g > RESOLVED_LINE_MAX)
			fprintf(w->f, "\n %s", glue);
		else
			fputs(glue, w->f);
		/* A comma, a separator to every parser (units_list), leads a
		 * word the reader would misread at the start of a line. */
		const char *lead = misread_first(w->cfg, word) ? ", " : "";
		int indent = 4;
		if (indent + strlen(lead) + len + 1 > RESOLVED_LINE_MAX) {
			indent = 1;
			if (*lead)
				lead = ",";
		}
		fprintf(w->f, "\n%*s%s%s", indent, "", lead, word);
		w->col = (size_t)indent + strlen(lead) + len;
	}
	w->words++;
}

void cfg_text_end(struct cfg_text *w)
{
	fputc('\n', w->f);
}

/* Shortest %g form that reads back to the same double. */
static void number_text(double v, char *b, size_t n)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(b, n, "%.*g", p, v);
		if (strtod(b, NULL) == v)
			break;
	}
}

static void map_value_text(const struct cfg_key *k, double v, char *b, size_t n)
{
	if (k->type == KT_NUM_MAP)
		number_text(v, b, n);
	else
		units_format_size((uint64_t)llround(v), b, n);
}

/* "; ecn_kmin = 400KB at 100Gbps (default: 100KB per 25Gbps ...)": the
 * scaled default stays a comment so the re-read config keeps its flag. */
static void put_scaled(FILE *f, const struct cfg_key *k, const struct config *cfg)
{
	uint64_t rates[2] = { 0, 0 };
	if (cfg->schema->scale_rates)
		cfg->schema->scale_rates(cfg, rates);
	int n = k->per_host_rate || rates[0] == rates[1] ? 1 : 2;
	char b[64];
	if (!rates[0] || !rates[n - 1]) { /* not known before the fabric is built */
		fprintf(f, "; %s = (default: %s)\n", k->name, k->def_doc);
		return;
	}
	fprintf(f, "; %s =", k->name);
	for (int i = 0; i < n; i++) {
		double v = cfg_scaled_default(k->per_25g, rates[i]);
		if (k->type == KT_RATE)
			units_format_rate((uint64_t)llround(v), b, sizeof b);
		else
			units_format_size((uint64_t)llround(v), b, sizeof b);
		fprintf(f, "%s %s at ", i ? "," : "", b);
		units_format_rate(rates[i], b, sizeof b);
		fputs(b, f);
	}
	fprintf(f, " (default: %s)\n", k->def_doc);
}

static void put_unset(FILE *f, const struct cfg_key *k)
{
	fprintf(f, "; %s = (unset: %s)\n", k->name, k->def_doc ? k->def_doc : "none");
}

void cfg_text_unset(struct cfg_text *t, const struct cfg_key *k)
{
	put_unset(t->f, k);
}

static void put_path(FILE *f, const struct cfg_key *k, const char *p)
{
	char *abs = p ? realpath(p, NULL) : NULL;
	fprintf(f, "%s = %s\n", k->name, abs ? abs : p);
	free(abs);
}

static void put_key(FILE *f, const struct cfg_key *k, const void *base, const struct cfg_inst *inst,
		    const struct config *cfg)
{
	char b[64];
	const char *str = NULL;
	struct cfg_text w = { .f = f, .cfg = cfg };
	if (k->per_25g > 0 && *CFG_FIELD(base, k->off2, const bool)) {
		put_scaled(f, k, cfg);
		return;
	}
	switch (k->type) {
	case KT_TIME: {
		simtime_t t = *CFG_FIELD(base, k->off, const simtime_t);
		if (!k->def && t == SIMTIME_NEVER)
			return put_unset(f, k);
		units_format_time(t, b, sizeof b);
		str = b;
		break;
	}
	case KT_RATE:
	case KT_SIZE: {
		uint64_t v = *CFG_FIELD(base, k->off, const uint64_t);
		if (!k->def && v == 0)
			return put_unset(f, k);
		(k->type == KT_RATE ? units_format_rate : units_format_size)(v, b, sizeof b);
		str = b;
		break;
	}
	case KT_INT:
	case KT_LLONG: {
		long long v = k->type == KT_INT ? *CFG_FIELD(base, k->off, const int)
						: *CFG_FIELD(base, k->off, const long long);
		if (!k->def && v == 0)
			return put_unset(f, k);
		snprintf(b, sizeof b, "%lld", v);
		str = b;
		break;
	}
	case KT_SEED:
		snprintf(b, sizeof b, "%llu", (unsigned long long)*CFG_FIELD(base, k->off, const uint64_t));
		str = b;
		break;
	case KT_NUMBER: {
		double v = *CFG_FIELD(base, k->off, const double);
		if (!k->def && v == 0) /* a number key without default, unset */
			return put_unset(f, k);
		number_text(v, b, sizeof b);
		str = b;
		break;
	}
	case KT_BOOL:
		str = *CFG_FIELD(base, k->off, const bool) ? "on" : "off";
		break;
	case KT_ENUM:
		str = cfg_vocab_word(k, (size_t)*CFG_FIELD(base, k->off, const int));
		break;
	case KT_TYPE:
		str = inst->type->name;
		break;
	case KT_WORD:
	case KT_NAME:
	case KT_PATH_OUT:
	case KT_PATH_IN:
	case KT_DATA:
		str = *CFG_FIELD(base, k->off, char *const);
		if (!str)
			return put_unset(f, k);
		if (k->type == KT_PATH_IN || (k->type == KT_DATA && !cfg_data_is_builtin(k, str)))
			return put_path(f, k, str);
		break;
	case KT_LIST: {
		char *const *v = *CFG_FIELD(base, k->off, char **const);
		size_t n = *CFG_FIELD(base, k->off2, const size_t);
		if (n == 0)
			return put_unset(f, k);
		cfg_text_begin(&w, k->name);
		for (size_t i = 0; i < n; i++)
			cfg_text_word(&w, ",", v[i]);
		cfg_text_end(&w);
		return;
	}
	case KT_NUM_MAP:
	case KT_SIZE_MAP: {
		const struct cfg_rate_map *m = CFG_FIELD(base, k->off, const struct cfg_rate_map);
		char v[64], e[130];
		cfg_text_begin(&w, k->name);
		if (!m->is_map) {
			map_value_text(k, m->scalar, v, sizeof v);
			cfg_text_word(&w, "", v);
		}
		for (int i = 0; m->is_map && i < m->n; i++) {
			units_format_rate(m->rate_bps[i], b, sizeof b);
			map_value_text(k, m->val[i], v, sizeof v);
			snprintf(e, sizeof e, "%s:%s", b, v);
			cfg_text_word(&w, "", e);
		}
		cfg_text_end(&w);
		return;
	}
	case KT_SIZE_AUTO:
	case KT_SIZE_OFF:
	case KT_RATE_OFF:
		if (*CFG_FIELD(base, k->off2, const bool)) {
			str = k->type == KT_SIZE_AUTO ? "auto" : "off";
		} else {
			(k->type == KT_RATE_OFF ? units_format_rate : units_format_size)(
				*CFG_FIELD(base, k->off, const uint64_t), b, sizeof b);
			str = b;
		}
		break;
	case KT_CUSTOM:
		k->custom->write(k, base, &w);
		return;
	}
	fprintf(f, "%s = %s\n", k->name, str);
}

static void put_section(FILE *f, const struct cfg_inst *inst, const struct config *cfg)
{
	fprintf(f, "\n[%s]\n", inst->title);
	for (size_t i = 0; i < inst->sec->n_keys; i++)
		put_key(f, &inst->sec->keys[i], inst->data, inst, cfg);
	for (size_t i = 0; inst->type && i < inst->type->n_keys; i++)
		put_key(f, &inst->type->keys[i], inst->type_data, inst, cfg);
}

int cfg_resolve_text(struct config *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	fprintf(f, "; %s, resolved: every section and key with its value or default\n", cfg->name);
	for (size_t i = 0; i < cfg->n_inst; i++)
		put_section(f, &cfg->inst[i], cfg);
	if (fclose(f) != 0) {
		free(buf);
		return -1;
	}
	free(cfg->resolved);
	cfg->resolved = buf;
	return 0;
}
