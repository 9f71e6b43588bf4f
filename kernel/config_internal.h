/*
 * config_internal.h — what the files of the configuration machinery share
 * (not for models, which see config.h):
 *   config.c          loading: the three passes, validation, origins, rules
 *   config_read.c     passes 1-2: the .ini text and --set into raw sections
 *   config_keys.c     key lookups in a schema, defaults and freeing
 *   config_values.c   value parsers (one per key type), paths, built-in data
 *   config_resolve.c  the typed config back to scenario text
 *   config_doc.c      the key reference (sim --keys)
 */
#ifndef ROCESIM_CONFIG_INTERNAL_H
#define ROCESIM_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"
#include "units.h"

/* ---- The schema ---- */

/* Section i of the schema, NULL past the last. */
static inline const struct cfg_section *cfg_sec_at(const struct cfg_schema *s, size_t i)
{
	return s->section_at(i);
}
/* The section a header names ("traffic.ws" -> the traffic section), NULL
 * if none; *bad_name is set for a named section with an invalid NAME. */
const struct cfg_section *cfg_sec_of(const struct cfg_schema *s, const char *header, bool *bad_name);
/* "simulation, topology, ..., job.NAME, traffic.NAME" into buf. */
void cfg_sections_list(const struct cfg_schema *s, char *buf, size_t n);
/* Type i of a section, NULL past the last (or without types). */
static inline const struct cfg_type *cfg_type_at(const struct cfg_section *sec, size_t i)
{
	return sec->type_at ? sec->type_at(i) : NULL;
}
/* A key of sec: its own keys, then those of type (NULL: of every type). */
const struct cfg_key *cfg_key_find(const struct cfg_section *sec, const struct cfg_type *type,
				   const char *name);
/* Whether the first len bytes of text, less trailing blanks, name a key of
 * sec or of any of its types: a line the reader must not take for more of
 * the previous value (config_read.c's continuation lines, config_resolve.c's
 * wrapping). */
bool cfg_key_named(const struct cfg_section *sec, const char *text, size_t len);
/* "buffer, pfc, ...": the keys of sec and of type (NULL: of every type). */
void cfg_keys_names(const struct cfg_section *sec, const struct cfg_type *type, char *buf, size_t n);
/* Fills the defaults of keys[0..n) in the struct at base (zeroed by the
 * caller): table defaults, SIMTIME_NEVER for unset times and the flags of
 * rate-scaled defaults. Returns 0, or -1 with *bad and `expected` set (a
 * built-in data file is missing). */
int cfg_keys_defaults(const struct cfg_key *keys, size_t n, void *base,
		      const struct cfg_store_ctx *ctx, const struct cfg_key **bad, char *expected);
/* Frees what key k's field owns in the struct at base. */
void cfg_key_free(const struct cfg_key *k, void *base);

/* config_values.c: parses value for key k and stores it in the struct at
 * base (freeing what the field held). Returns 0, or -1 with `expected`
 * filled. */
int cfg_key_store(const struct cfg_key *k, void *base, const char *value,
		  const struct cfg_store_ctx *ctx, char *expected);

/* ---- Raw sections: the loader's working form ---- */

struct cfg_raw_entry {
	char *key, *value;
	const char *file;             /* cfg->path or "--set" (cfg_set_origin) */
	int line;                     /* 0 for --set */
};

struct cfg_raw_section {
	char *name;                   /* "traffic.ws" */
	const struct cfg_section *sec;
	const char *file;
	int line;
	struct cfg_raw_entry *e;
	size_t n;
	struct cfg_inst *inst;        /* its instance, during validation */
};

extern const char cfg_set_origin[];  /* "--set": compared by address */

/* The raw sections of a scenario, in file order (--set ones last). */
struct cfg_raw {
	struct cfg_raw_section *s;
	size_t n;
};

/* config_read.c: pass 1, reads cfg->path into cfg->text and raw; pass 2,
 * applies the overrides to raw. Return 0, or -1 with *err set. */
int cfg_read_file(struct config *cfg, struct cfg_raw *raw, char **err);
/* Pass 1 over len bytes of text in memory instead of cfg->path's file. */
int cfg_read_mem(struct config *cfg, struct cfg_raw *raw, const char *text, size_t len, char **err);
int cfg_apply_overrides(const struct config *cfg, struct cfg_raw *raw, const struct cfg_override *ov,
			size_t n_ov, char **err);
void cfg_raw_free(struct cfg_raw *raw);
struct cfg_raw_entry *cfg_raw_find(const struct cfg_raw_section *s, const char *key);
/* Sets *err to a malloc'd message unless it holds one already (the first
 * error wins). */
void cfg_set_err(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* config_suggest.c: the optimal string alignment distance between a[0..la)
 * and b[0..lb), case-insensitive. */
int cfg_edit_distance(const char *a, size_t la, const char *b, size_t lb);
/* The word of list ("a, b or c") closest to word, when close enough to be a
 * misspelling of it, into out; false when none is. */
bool cfg_suggest(const char *word, const char *list, char *out, size_t n);
/* The same for a section header ("topolgy", "jobb.gpt"). */
const char *cfg_section_did_you_mean(const struct cfg_schema *s, const char *header, char *out, size_t n);

/* config_resolve.c: builds cfg->resolved from the typed values. Returns 0 or -1 (no memory). */
int cfg_resolve_text(struct config *cfg);

/* config_values.c */
/* The range of key k in words after noun: "an integer from 0 to 7",
 * "a number in (0, 1]", "a time > 0"; just noun when it has none. */
void cfg_range_text(const struct cfg_key *k, const char *noun, char *buf, size_t n);
/* Joins a relative path to dir ("." leaves it as is); malloc'd. */
char *cfg_path_join(const char *dir, const char *path);
/* Whether value is a built-in data name of key k (KT_DATA). */
bool cfg_data_is_builtin(const struct cfg_key *k, const char *value);
/* Bytes (or bps) of a scaled default at a rate: per_25g x rate / 25Gbps. */
double cfg_scaled_default(double per_25g, uint64_t rate_bps);

#endif
