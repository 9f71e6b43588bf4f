/*
 * config_doc.c — the scenario key reference that `sim --keys` prints,
 * generated from the key table cfg_keys[] (config_keys.c) so that it names
 * exactly the sections, keys, types, ranges, defaults and type-specific keys
 * the loader accepts; nothing here is written twice.
 *
 * Layout: every section in canonical order as a `[section]` line
 * ([job.NAME], [traffic.NAME] for the repeatable ones), then one line per
 * key in table order:
 *   NAME  TYPE; DEFAULT-OR-REQUIRED[; types T1, T2] -- HELP
 * where TYPE is in words with the key's range ("integer from 0 to 7",
 * "one of flow|packet"), the default is the table's scenario text
 * ("default 1ms"), or what applies when unset ("default: link_rate"), or
 * "required" ("required for type X"), and the types a [topology] or
 * [traffic.NAME] key belongs to follow ("every type" for the common ones;
 * left out when they are exactly the types that require it).
 */
#include <stdio.h>
#include <string.h>
#include "config_keys.h"

#define T(x) (1u << (x))

/* "a|b|c" for a vocabulary. */
static void vocab_bars(const char *const *vocab, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; vocab[i] && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "|" : "", vocab[i]);
}

/* The key's type in words, with its range. */
static void type_text(const struct cfg_key *k, char *buf, size_t n)
{
	char v[CFG_EXPECTED_MAX / 2], r[128];
	switch (k->type) {
	case KT_TIME: cfg_range_text(k, "time", buf, n); return;
	case KT_RATE: cfg_range_text(k, "rate", buf, n); return;
	case KT_SIZE: cfg_range_text(k, "size", buf, n); return;
	case KT_INT:
	case KT_LLONG:
		cfg_range_text(k, k->range & CFG_R_EVEN ? "even integer" : "integer", buf, n);
		return;
	case KT_SEED: snprintf(buf, n, "integer >= 0"); return;
	case KT_NUMBER: cfg_range_text(k, "number", buf, n); return;
	case KT_BOOL: snprintf(buf, n, "boolean (on|off)"); return;
	case KT_ENUM:
	case KT_WORD:
		vocab_bars(k->vocab, v, sizeof v);
		snprintf(buf, n, "one of %s", v);
		return;
	case KT_NAME: snprintf(buf, n, "name"); return;
	case KT_LIST: snprintf(buf, n, "list"); return;
	case KT_PATH_IN: snprintf(buf, n, "path (input file)"); return;
	case KT_PATH_OUT: snprintf(buf, n, "path (output)"); return;
	case KT_CDF:
		vocab_bars(cfg_cdf_builtin, v, sizeof v);
		snprintf(buf, n, "%s or a path", v);
		return;
	case KT_NUM_MAP:
	case KT_SIZE_MAP:
		cfg_range_text(k, k->type == KT_NUM_MAP ? "number" : "size", r, sizeof r);
		snprintf(buf, n, "%s or per-rate map", r);
		return;
	case KT_SIZE_AUTO:
	case KT_SIZE_OFF:
	case KT_RATE_OFF:
		cfg_range_text(k, k->type == KT_RATE_OFF ? "rate" : "size", r, sizeof r);
		snprintf(buf, n, "%s or %s", k->type == KT_SIZE_AUTO ? "auto" : "off", r);
		return;
	case KT_FLOW:
	case KT_GROUP:
		snprintf(buf, n, "repeated line");
		return;
	}
	snprintf(buf, n, "value");
}

/* "fat_tree" or "leaf_spine, rail_optimized": the types of a bit set. */
static void types_text(enum cfg_sec_kind sec, unsigned bits, char *buf, size_t n)
{
	const char *const *names = sec == SEC_TOPOLOGY ? cfg_topo_type_names : cfg_traffic_type_names;
	size_t len = 0;
	buf[0] = '\0';
	for (int t = 0; names[t] && len < n; t++)
		if (bits & T(t))
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", names[t]);
}

/* How many of the types of a bit set are named (for "type" or "types"). */
static int types_count(enum cfg_sec_kind sec, unsigned bits)
{
	const char *const *names = sec == SEC_TOPOLOGY ? cfg_topo_type_names : cfg_traffic_type_names;
	int c = 0;
	for (int t = 0; names[t]; t++)
		c += (bits & T(t)) != 0;
	return c;
}

static void print_key(FILE *out, const struct cfg_key *k)
{
	char type[CFG_EXPECTED_MAX], types[256];
	bool typed = k->sec == SEC_TOPOLOGY || k->sec == SEC_TRAFFIC;
	type_text(k, type, sizeof type);
	fprintf(out, "  %-22s %s", k->name, type);
	if (k->required == CFG_ALL) {
		fputs("; required", out);
	} else if (k->required) {
		types_text(k->sec, k->required, types, sizeof types);
		fprintf(out, "; required for type%s %s", types_count(k->sec, k->required) > 1 ? "s" : "", types);
	}
	if (k->def)
		fprintf(out, "; default %s", k->def);
	else if (k->def_doc)
		fprintf(out, "; default: %s", k->def_doc);
	else if (!k->required)
		fputs("; default: unset", out);
	/* A key required for exactly the types it belongs to says so once. */
	if (typed && k->applies && k->applies != k->required) {
		types_text(k->sec, k->applies, types, sizeof types);
		fprintf(out, "; type%s %s", types_count(k->sec, k->applies) > 1 ? "s" : "", types);
	} else if (typed && !k->applies) {
		fputs("; every type", out);
	}
	fprintf(out, " -- %s\n", k->help);
}

void config_print_keys(FILE *out)
{
	fputs("Scenario sections and keys (SCENARIO.md \"Keys\"). Each key: its type,\n"
	      "its default or where it is required, the topology or traffic types it\n"
	      "belongs to, and its meaning. Times: ps ns us ms s; rates: bps Kbps Mbps\n"
	      "Gbps Tbps GBps; sizes: B KB MB GB KiB MiB GiB; lists separated by commas\n"
	      "or spaces; per-rate maps such as 100Gbps:400KB 400Gbps:1600KB. A long\n"
	      "value continues on indented lines.\n", out);
	for (int s = 0; s < SEC_N; s++) {
		fprintf(out, "\n[%s%s]\n", cfg_sec_names[s], s == SEC_JOB || s == SEC_TRAFFIC ? ".NAME" : "");
		for (size_t i = 0; i < cfg_n_keys; i++)
			if (cfg_keys[i].sec == (enum cfg_sec_kind)s)
				print_key(out, &cfg_keys[i]);
	}
}
