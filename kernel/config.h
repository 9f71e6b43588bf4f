/*
 * config.h — the scenario: sections and keys that the models declare, and
 * the machinery that loads, validates, documents and writes them back.
 *
 * The kernel knows no section by name. Each part of the simulator declares
 * its sections beside its code (a struct cfg_section: its keys, the struct
 * they fill, the rules between them), and a part with a registry of kinds
 * (topologies, traffic sources) declares one struct cfg_type per kind,
 * with the kind's own keys and struct, chosen by the section's `type` key.
 * The run harness lists the sections in a struct cfg_schema. Loading reads
 * an .ini file with inih, applies --set overrides, checks every section
 * and key (type, unit, range, required, unknown, rules), fills each
 * section's struct with typed values and defaults, and keeps where every
 * key came from for the errors found later. Nothing is run or written
 * before it succeeds.
 *
 * Errors name file:line, [section], key, the value and what was expected:
 *   scenarios/x.ini:12: [topology] link_rate = '100': expected a rate with a unit (bps, Kbps, Mbps, Gbps, Tbps, GBps)
 * A --set override is located as "--set" instead of file:line.
 *
 * Key types (enum cfg_key_type) and the field each fills at `off`:
 *   KT_TIME simtime_t · KT_RATE uint64_t bps · KT_SIZE uint64_t bytes ·
 *   KT_INT int · KT_LLONG long long · KT_SEED uint64_t · KT_NUMBER double ·
 *   KT_BOOL bool · KT_ENUM int, the index of the word in its vocabulary ·
 *   KT_WORD char *, a word of the vocabulary · KT_NAME char *, one word ·
 *   KT_LIST char ** at off and its size_t count at off2 · KT_PATH_IN
 *   char *, a readable file, relative to the scenario's folder ·
 *   KT_PATH_OUT char *, relative to the current folder · KT_DATA char *, a
 *   built-in data name (the vocabulary, file data_dir/NAME data_ext of the
 *   data folder) or an input path · KT_NUM_MAP, KT_SIZE_MAP struct
 *   cfg_rate_map · KT_SIZE_AUTO, KT_SIZE_OFF, KT_RATE_OFF uint64_t, with a
 *   bool at off2 set for "auto"/"off" · KT_TYPE int, the index of the
 *   section's type (struct cfg_type) · KT_CUSTOM whatever its parser
 *   fills (struct cfg_custom; repeated lines such as `flow = ...`).
 */
#ifndef ROCESIM_CONFIG_H
#define ROCESIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "simtime.h"

#define CFG_MAX_RATE_MAP 16
#define CFG_EXPECTED_MAX 1024

/* A number (or size in bytes) that may depend on link rate:
 * "0.125" or "100Gbps:400KB 400Gbps:1600KB". */
struct cfg_rate_map {
	bool is_map;                          /* false: `scalar` applies to every rate */
	double scalar;
	int n;                                /* entries when is_map */
	uint64_t rate_bps[CFG_MAX_RATE_MAP];
	double val[CFG_MAX_RATE_MAP];
	double per_25g;                       /* > 0: a default of per_25g x rate / 25Gbps
					       * (HPCC's ECN thresholds); is_map is false */
	const char *section, *key;            /* "switch", "ecn_kmin", set by the loader: for
					       * cfg_rate_map_get's error */
	const char *file;                     /* where it was given (scenario path or "--set") */
	int line;                             /* 0 for --set or a default */
};

enum cfg_key_type {
	KT_TIME, KT_RATE, KT_SIZE, KT_INT, KT_LLONG, KT_SEED, KT_NUMBER, KT_BOOL,
	KT_ENUM, KT_WORD, KT_NAME, KT_LIST, KT_PATH_IN, KT_PATH_OUT, KT_DATA,
	KT_NUM_MAP, KT_SIZE_MAP, KT_SIZE_AUTO, KT_SIZE_OFF, KT_RATE_OFF,
	KT_TYPE, KT_CUSTOM,
};

/* Range flags: checked against lo/hi after parsing. */
#define CFG_R_MIN      0x01u   /* value >= lo */
#define CFG_R_MIN_OPEN 0x02u   /* value > lo */
#define CFG_R_MAX      0x04u   /* value <= hi */
#define CFG_R_MAX_OPEN 0x08u   /* value < hi */
#define CFG_R_EVEN     0x10u   /* an even integer */

/* Shorthands for key tables. */
#define CFG_POS .range = CFG_R_MIN_OPEN, .lo = 0                       /* > 0 */
#define CFG_GE(x) .range = CFG_R_MIN, .lo = (x)                        /* >= x */
#define CFG_IN(a, b) .range = CFG_R_MIN | CFG_R_MAX, .lo = (a), .hi = (b)
#define CFG_UNIT .range = CFG_R_MIN_OPEN | CFG_R_MAX, .lo = 0, .hi = 1  /* (0, 1] */

/* What a value parser knows beyond the string. */
struct cfg_store_ctx {
	const char *file;       /* scenario path or "--set"; NULL for a default */
	const char *dir;        /* the scenario's folder */
	bool from_set;          /* given with --set: paths are relative to the cwd */
	int line;               /* for repeated keys */
	const char *section;    /* "switch", "traffic.ws" */
	const struct cfg_section *sec;
};

struct cfg_key;
struct cfg_text;
struct cfg_section;
struct config;

/* A key type of a model's own (KT_CUSTOM): its parser, writer and freer. */
struct cfg_custom {
	/* Parses value into the struct at base (a repeated key appends one
	 * entry per call); 0, or -1 with `expected` (CFG_EXPECTED_MAX bytes)
	 * filled as "what would have been accepted". */
	int (*parse)(const struct cfg_key *k, void *base, const char *value,
		     const struct cfg_store_ctx *ctx, char *expected);
	/* Writes the key's lines into the resolved text (cfg_text_*). */
	void (*write)(const struct cfg_key *k, const void *base, struct cfg_text *t);
	/* Frees what the key's field owns. */
	void (*free)(const struct cfg_key *k, void *base);
	const char *type_doc;   /* for sim --keys: "repeated line: SRC DST SIZE START" */
	bool repeated;          /* the key may be given on several lines */
};

struct cfg_key {
	const char *name;
	enum cfg_key_type type;
	const char *def;        /* default as scenario text; NULL: none, or computed */
	const char *def_doc;    /* what applies when unset (resolved text, help) */
	bool required;          /* must be given (unless the section's type waives it) */
	unsigned range;         /* CFG_R_* */
	double lo, hi;
	/* KT_ENUM, KT_WORD, KT_DATA: the words, NULL-terminated, or a
	 * function giving word i (NULL past the last) of a registry. */
	const char *const *vocab;
	const char *(*vocab_fn)(const void *arg, size_t i);
	const void *vocab_arg;
	const char *data_dir, *data_ext; /* KT_DATA: built-in NAME is data_dir/NAME data_ext */
	size_t off;             /* field in the section's (or type's) struct */
	size_t off2;            /* KT_LIST count; flag of KT_SIZE_AUTO/OFF, KT_RATE_OFF
				 * and of rate-scaled defaults */
	double per_25g;         /* > 0: default is per_25g x rate / 25Gbps, flagged at off2 */
	bool per_host_rate;     /* with per_25g: shown at the host link rate only (a NIC's
				 * value), not at each link rate */
	const struct cfg_custom *custom; /* KT_CUSTOM */
	const char *help;
};

/* The field of a section struct a key fills. */
#define CFG_FIELD(base, off, type) ((type *)((char *)(base) + (off)))
#define CFG_KEYS(a) .keys = (a), .n_keys = sizeof(a) / sizeof((a)[0])

struct cfg_check;

/* One value of a section's `type` key: a kind of a part's registry (a
 * topology, a traffic source) with the keys only it takes, filling its
 * own struct (`size` bytes, cfg_inst.type_data). */
struct cfg_type {
	const char *name;
	const char *help;
	const struct cfg_key *keys;
	size_t n_keys;
	size_t size;
	/* Keys of the section that this type does not need: not required. */
	const char *const *not_required;
	/* Rules between keys, once every section is typed; 0 or -1 (cfg_fail). */
	int (*rules)(struct cfg_check *c);
};

struct cfg_section {
	const char *name;       /* "nic"; for a named section, "job" of [job.NAME] */
	bool named;             /* any number of [name.NAME] sections */
	bool required;          /* the scenario must have it */
	const char *help;
	const struct cfg_key *keys;
	size_t n_keys;
	size_t size;            /* bytes of the struct its keys fill */
	/* With a KT_TYPE key: type i of the section's registry, NULL past the last. */
	const struct cfg_type *(*type_at)(size_t i);
	int (*rules)(struct cfg_check *c);
};

/* The sections a program accepts, in the order they are documented and
 * written back. */
struct cfg_schema {
	const struct cfg_section *(*section_at)(size_t i);  /* NULL past the last */
	/* Link rates that rate-scaled defaults are shown at in the resolved
	 * text (host links first); 0 where not known before the fabric is
	 * built. May be NULL. */
	void (*scale_rates)(const struct config *cfg, uint64_t rates[2]);
};

/* A section of the loaded scenario: given in the file, by --set, or (for a
 * section that is not named) its defaults. */
struct cfg_inst {
	const struct cfg_section *sec;
	char *title;            /* "nic", "job.moe": as written, for messages */
	char *name;             /* NAME of [job.NAME]; NULL for other sections */
	void *data;             /* sec->size bytes, typed */
	const struct cfg_type *type; /* the chosen type, NULL without a KT_TYPE key */
	void *type_data;        /* type->size bytes (NULL when 0) */
};

/* Where a key came from, for errors raised after loading. */
struct cfg_origin {
	char *section, *key;           /* "traffic.ws", "receiver" */
	char *value;
	const char *file;              /* the scenario path, or "--set" */
	int line;                      /* 0 for --set */
};

struct config {
	const struct cfg_schema *schema;
	char *path;                    /* scenario path as given */
	char *dir;                     /* its folder: relative input paths resolve against it */
	char *name;                    /* basename without .ini: default output results/<name>.db */
	char *text;                    /* the scenario file as read */
	char *resolved;                /* every section and key with defaults filled (run.config) */
	struct cfg_inst *inst;         /* schema order; named sections in file order */
	size_t n_inst;
	struct cfg_origin *origins; size_t n_origins;   /* every key read */
	struct cfg_origin *section_origins;             /* each section header (key, value NULL) */
	size_t n_section_origins;
};

/* A --set SECTION.KEY=VALUE override (already split by the command line). */
struct cfg_override { char *section, *key, *value; };

/* Loads and validates. On error returns -1 and sets *err to a malloc'd one-line
 * message (caller prints it and exits 2); the config is then freed already. */
int config_load(struct config *cfg, const struct cfg_schema *schema, const char *path,
		const struct cfg_override *ov, size_t n_ov, char **err);
/* As config_load, from len bytes of text in memory (no NUL needed at its
 * end): path names it in errors and its folder resolves relative input
 * paths; no file is read for the scenario itself (the fuzz target's door). */
int config_load_text(struct config *cfg, const struct cfg_schema *schema, const char *path,
		     const char *text, size_t len, const struct cfg_override *ov, size_t n_ov, char **err);
void config_free(struct config *cfg);

/* The instance of a section that is not named (always there: defaults
 * when the file has none), or NULL when the schema has no such section. */
const struct cfg_inst *cfg_inst(const struct config *cfg, const struct cfg_section *sec);
/* Its typed struct. */
static inline const void *cfg_get(const struct config *cfg, const struct cfg_section *sec)
{
	const struct cfg_inst *i = cfg_inst(cfg, sec);
	return i ? i->data : NULL;
}
/* Instances of a section in order: the first when prev is NULL, then the
 * one after prev; NULL after the last. */
const struct cfg_inst *cfg_next(const struct config *cfg, const struct cfg_section *sec,
				const struct cfg_inst *prev);
size_t cfg_count(const struct config *cfg, const struct cfg_section *sec);

/* ---- Rules (a section's or a type's rules hook) ---- */

/* What a rules hook sees: every section typed; data and type_data may be
 * changed (defaults computed from other keys). */
struct cfg_check {
	const struct config *cfg;
	const struct cfg_inst *inst;
	void *data, *type_data;
	void *raw_;                    /* the loader's: the section as read */
	char **err_;
};
/* Whether key was given (in the file or with --set), and its text. */
bool cfg_given(const struct cfg_check *c, const char *key);
const char *cfg_given_value(const struct cfg_check *c, const char *key);
/* Fails the load at key: "FILE:LINE: [SECTION] KEY = 'VALUE': expected
 * WHAT" (or "[SECTION] KEY (default): ..." when it was not given).
 * Returns -1. */
int cfg_fail(struct cfg_check *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fails the load: "FILE:LINE: [SECTION] missing required key 'KEY'WHY". Returns -1. */
int cfg_fail_missing(struct cfg_check *c, const char *key, const char *why);

/* ---- Values after loading ---- */

/* Value of a per-rate map at a link rate; -1 with *err set when the map has
 * no entry for that rate ("no entry for 40Gbps in ecn_kmin"). */
int cfg_rate_map_get(const struct cfg_rate_map *m, uint64_t rate_bps, double *out, char **err);
/* a <= b at every rate both define; else false with *rate the first rate
 * where it fails (0: the scalars). */
bool cfg_rate_map_le(const struct cfg_rate_map *a, const struct cfg_rate_map *b, uint64_t *rate);

/* " (did you mean 'X'?)" into out when list ("a, b or c") has an X close
 * enough to be a misspelling of word, else ""; returns out (for models'
 * own name lookups: GPUs, hosts). */
const char *cfg_did_you_mean(const char *word, const char *list, char *out, size_t n);

/* For errors found after loading (an unknown host name in a traffic section):
 * formats "FILE:LINE: [SECTION] KEY = 'VALUE': MESSAGE" into a malloc'd string.
 * line_override > 0 replaces the key's line (repeated keys such as `flow`). */
char *cfg_error_at(const struct config *cfg, const char *section, const char *key,
		   int line_override, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* " (did you mean 'X'?)" into out when list ("a, b, c") holds a word close
 * enough to be a misspelling of word (config_suggest.c), else ""; returns
 * out. For names known only once the world is built (node names) and
 * rules that check a vocabulary of their own. */
const char *cfg_did_you_mean(const char *word, const char *list, char *out, size_t n);

/* " (did you mean 'X'?)" into out when list ("a, b or c") has a word X
 * close enough to word to be a misspelling of it, else ""; returns out.
 * For models that check names only the built world knows (node names). */
const char *cfg_did_you_mean(const char *word, const char *list, char *out, size_t n);

/* A KT_DATA value (a built-in name of key k, or a path) to a readable
 * file: malloc'd, NULL when neither is found. */
char *cfg_find_data(const struct config *cfg, const struct cfg_key *k, const char *name_or_path);

/* The key reference of `sim --keys`: every section of the schema in order,
 * each key with type, default or where it is required, and its meaning;
 * the keys of each type of a typed section under it (config_doc.c). */
void config_print_keys(const struct cfg_schema *schema, FILE *out);

/* ---- Writing a custom key's value into the resolved text ---- */

/* "key = w1 w2 ..." wrapped onto indented continuation lines as needed. */
void cfg_text_begin(struct cfg_text *t, const char *key);
void cfg_text_word(struct cfg_text *t, const char *glue, const char *word);
void cfg_text_end(struct cfg_text *t);
/* "; key = (unset: DOC)". */
void cfg_text_unset(struct cfg_text *t, const struct cfg_key *k);

/* "a, b or c" for a key's vocabulary, into buf. */
void cfg_vocab_text(const struct cfg_key *k, char *buf, size_t n);
/* Word i of a key's vocabulary, NULL past the last. */
const char *cfg_vocab_word(const struct cfg_key *k, size_t i);

#endif
