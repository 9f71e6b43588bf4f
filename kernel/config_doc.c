/*
 * config_doc.c — the scenario key reference that `sim --keys` prints,
 * generated from the models' key tables through the schema (config.h), so
 * that it names exactly the sections, keys, types, ranges and defaults the
 * loader accepts; nothing here is written twice.
 *
 * Layout: every section in the schema's order as a `[section]` line
 * ([job.NAME], [traffic.NAME] for the named ones), then one line per key:
 *   NAME  TYPE; DEFAULT-OR-REQUIRED -- HELP
 * where TYPE is in words with the key's range ("integer from 0 to 7",
 * "one of flow|packet"), the default is the table's scenario text
 * ("default 1ms"), or what applies when unset ("default: link_rate"), or
 * "required". A section with types (a `type` key) lists after its own keys
 * each type, "type = NAME -- HELP", with the keys only that type takes
 * indented under it, and the section's keys it does not need.
 */
#include <stdio.h>
#include <string.h>
#include "config_internal.h"

/* "a|b|c" for a vocabulary. */
static void vocab_bars(const struct cfg_key *k, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; cfg_vocab_word(k, i) && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "|" : "", cfg_vocab_word(k, i));
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
		vocab_bars(k, v, sizeof v);
		snprintf(buf, n, "one of %s", v);
		return;
	case KT_TYPE: snprintf(buf, n, "one of the types below"); return;
	case KT_NAME: snprintf(buf, n, "name"); return;
	case KT_LIST: snprintf(buf, n, "list"); return;
	case KT_PATH_IN: snprintf(buf, n, "path (input file)"); return;
	case KT_PATH_OUT: snprintf(buf, n, "path (output)"); return;
	case KT_DATA:
		vocab_bars(k, v, sizeof v);
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
	case KT_CUSTOM:
		snprintf(buf, n, "%s", k->custom->type_doc);
		return;
	}
	snprintf(buf, n, "value");
}

static void print_key(FILE *out, const struct cfg_key *k, const char *indent)
{
	char type[CFG_EXPECTED_MAX];
	type_text(k, type, sizeof type);
	fprintf(out, "%s%-*s %s", indent, 24 - (int)strlen(indent), k->name, type);
	if (k->required)
		fputs("; required", out);
	if (k->def)
		fprintf(out, "; default %s", k->def);
	else if (k->def_doc)
		fprintf(out, "; default: %s", k->def_doc);
	else if (!k->required)
		fputs("; default: unset", out);
	fprintf(out, " -- %s\n", k->help);
}

void config_print_keys(const struct cfg_schema *schema, FILE *out)
{
	fputs("Scenario sections and keys. Each key: its type, its default or that it\n"
	      "is required, and its meaning; a section with types lists each type\n"
	      "with the keys only it takes. Times: ps ns us ms s; rates: bps Kbps Mbps\n"
	      "Gbps Tbps GBps; sizes: B KB MB GB KiB MiB GiB; lists separated by commas\n"
	      "or spaces; per-rate maps such as 100Gbps:400KB 400Gbps:1600KB. A long\n"
	      "value continues on indented lines.\n", out);
	for (size_t s = 0; cfg_sec_at(schema, s); s++) {
		const struct cfg_section *sec = cfg_sec_at(schema, s);
		fprintf(out, "\n[%s%s]%s%s\n", sec->name, sec->named ? ".NAME" : "", sec->help ? " -- " : "",
			sec->help ? sec->help : "");
		for (size_t i = 0; i < sec->n_keys; i++)
			print_key(out, &sec->keys[i], "  ");
		const char *type_key = "type";
		for (size_t i = 0; i < sec->n_keys; i++)
			if (sec->keys[i].type == KT_TYPE)
				type_key = sec->keys[i].name;
		for (size_t t = 0; cfg_type_at(sec, t); t++) {
			const struct cfg_type *ty = cfg_type_at(sec, t);
			fprintf(out, "  %s = %s -- %s\n", type_key, ty->name, ty->help);
			for (size_t i = 0; ty->not_required && ty->not_required[i]; i++)
				fprintf(out, "    (%s: not needed)\n", ty->not_required[i]);
			for (size_t i = 0; i < ty->n_keys; i++)
				print_key(out, &ty->keys[i], "    ");
		}
	}
}
