/*
 * config_keys.c — finding sections and keys in a schema (config.h), and
 * the table-driven defaults and freeing of a section's struct.
 *
 * The models' key tables are the single source of truth: names, types,
 * defaults (written as scenario text and parsed like user input, so a
 * default can never be a value the parser would reject), ranges and where
 * a key is required. config.c drives validation from them,
 * config_values.c parses values by their types, config_resolve.c writes
 * the resolved text, config_doc.c prints them for `sim --keys`, and error
 * messages list valid keys from them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_internal.h"
#include "xalloc.h"

/* NAME of [job.NAME]: a word that can appear in results and --set. */
static bool valid_instance_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

const struct cfg_section *cfg_sec_of(const struct cfg_schema *s, const char *header, bool *bad_name)
{
	*bad_name = false;
	for (size_t i = 0; cfg_sec_at(s, i); i++) {
		const struct cfg_section *sec = cfg_sec_at(s, i);
		size_t len = strlen(sec->name);
		if (sec->named) {
			if (strncmp(header, sec->name, len) == 0 && header[len] == '.') {
				if (valid_instance_name(header + len + 1))
					return sec;
				*bad_name = true;
				return NULL;
			}
		} else if (strcmp(header, sec->name) == 0) {
			return sec;
		}
	}
	return NULL;
}

void cfg_sections_list(const struct cfg_schema *s, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; cfg_sec_at(s, i) && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s", i ? ", " : "", cfg_sec_at(s, i)->name,
					cfg_sec_at(s, i)->named ? ".NAME" : "");
}

static const struct cfg_key *in_keys(const struct cfg_key *keys, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

const struct cfg_key *cfg_key_find(const struct cfg_section *sec, const struct cfg_type *type,
				   const char *name)
{
	const struct cfg_key *k = in_keys(sec->keys, sec->n_keys, name);
	if (k)
		return k;
	if (type)
		return in_keys(type->keys, type->n_keys, name);
	for (size_t i = 0; cfg_type_at(sec, i) && !k; i++)
		k = in_keys(cfg_type_at(sec, i)->keys, cfg_type_at(sec, i)->n_keys, name);
	return k;
}

bool cfg_key_named(const struct cfg_section *sec, const char *text, size_t len)
{
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	char *name = xmalloc(len + 1);
	memcpy(name, text, len);
	name[len] = '\0';
	bool key = cfg_key_find(sec, NULL, name) != NULL;
	free(name);
	return key;
}

/* Appends the names of keys not yet in buf. */
static size_t names_add(const struct cfg_key *keys, size_t nk, char *buf, size_t len, size_t n)
{
	for (size_t i = 0; i < nk && len < n; i++) {
		bool seen = false;
		for (const char *p = buf; !seen && (p = strstr(p, keys[i].name)); p++) {
			size_t l = strlen(keys[i].name);
			seen = (p == buf || p[-1] == ' ') && (p[l] == ',' || p[l] == '\0');
		}
		if (!seen)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", keys[i].name);
	}
	return len;
}

void cfg_keys_names(const struct cfg_section *sec, const struct cfg_type *type, char *buf, size_t n)
{
	buf[0] = '\0';
	size_t len = names_add(sec->keys, sec->n_keys, buf, 0, n);
	if (type)
		names_add(type->keys, type->n_keys, buf, len, n);
	for (size_t i = 0; !type && cfg_type_at(sec, i); i++)
		len = names_add(cfg_type_at(sec, i)->keys, cfg_type_at(sec, i)->n_keys, buf, len, n);
}

const char *cfg_vocab_word(const struct cfg_key *k, size_t i)
{
	if (k->vocab_fn)
		return k->vocab_fn(k->vocab_arg, i);
	return k->vocab ? k->vocab[i] : NULL;
}

void cfg_vocab_text(const struct cfg_key *k, char *buf, size_t n)
{
	size_t len = 0, count = 0;
	while (cfg_vocab_word(k, count))
		count++;
	buf[0] = '\0';
	for (size_t i = 0; i < count && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					i == 0 ? "" : i + 1 == count ? " or " : ", ", cfg_vocab_word(k, i));
}

/* ---- Defaults and freeing, driven by the tables ---- */

int cfg_keys_defaults(const struct cfg_key *keys, size_t n, void *base,
		      const struct cfg_store_ctx *ctx, const struct cfg_key **bad, char *expected)
{
	for (size_t i = 0; i < n; i++) {
		const struct cfg_key *k = &keys[i];
		if (k->type == KT_TYPE)
			continue; /* set with the section's type (its default too) */
		if (k->type == KT_TIME && !k->def)
			*CFG_FIELD(base, k->off, simtime_t) = SIMTIME_NEVER;
		if (k->def && cfg_key_store(k, base, k->def, ctx, expected) < 0) {
			*bad = k;
			return -1;
		}
		if (k->per_25g > 0) {
			*CFG_FIELD(base, k->off2, bool) = true;
			if (k->type == KT_SIZE_MAP || k->type == KT_NUM_MAP)
				*CFG_FIELD(base, k->off, struct cfg_rate_map) =
					(struct cfg_rate_map){ .per_25g = k->per_25g,
								.section = ctx->section, .key = k->name };
		}
	}
	return 0;
}

void cfg_key_free(const struct cfg_key *k, void *base)
{
	switch (k->type) {
	case KT_WORD: case KT_NAME: case KT_PATH_IN: case KT_PATH_OUT: case KT_DATA:
		free(*CFG_FIELD(base, k->off, char *));
		*CFG_FIELD(base, k->off, char *) = NULL;
		break;
	case KT_LIST:
		units_list_free(*CFG_FIELD(base, k->off, char **), *CFG_FIELD(base, k->off2, size_t));
		*CFG_FIELD(base, k->off, char **) = NULL;
		*CFG_FIELD(base, k->off2, size_t) = 0;
		break;
	case KT_CUSTOM:
		k->custom->free(k, base);
		break;
	default:
		break;
	}
}
