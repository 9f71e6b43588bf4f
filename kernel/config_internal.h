/*
 * config_keys.h — the one table of scenario sections and keys, and the
 * internal interface of kernel/config*.c:
 *   config.c          loading: the three passes, validation, origins
 *   config_read.c     passes 1-2: the .ini text and --set into raw sections
 *   config_keys.c     the table, its lookups, defaults and freeing
 *   config_rules.c    rules between keys
 *   config_values.c   value parsers (one per key type), paths, built-in data
 *   config_resolve.c  the typed config back to scenario text
 *   config_doc.c      the key reference (sim --keys)
 *
 * Every key is one row: section, name, type, default (as scenario text, so
 * defaults go through the same parser as user values), range, the topology
 * or traffic types it belongs to, where it is required, the struct field it
 * fills and help text. Adding a key touches one row (and its field in
 * config.h); validation, defaults, error lists and the resolved text follow.
 */
#ifndef ROCESIM_CONFIG_KEYS_H
#define ROCESIM_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"
#include "units.h"

enum cfg_sec_kind {
	SEC_SIMULATION, SEC_TOPOLOGY, SEC_SWITCH, SEC_NIC, SEC_DCQCN,
	SEC_MULTICAST, SEC_PCAP, SEC_OUTPUT, SEC_JOB, SEC_TRAFFIC, SEC_N
};

enum cfg_key_type {
	KT_TIME,        /* simtime_t */
	KT_RATE,        /* uint64_t bps */
	KT_SIZE,        /* uint64_t bytes */
	KT_INT,         /* int */
	KT_LLONG,       /* long long */
	KT_SEED,        /* uint64_t, a non-negative integer */
	KT_NUMBER,      /* double */
	KT_BOOL,        /* bool */
	KT_ENUM,        /* a word of vocab, stored as its index in an enum field */
	KT_WORD,        /* a word of vocab, stored as a malloc'd string */
	KT_NAME,        /* one word (a node name), malloc'd */
	KT_LIST,        /* char ** at off, size_t count at off2 */
	KT_PATH_IN,     /* input file: relative to the scenario's folder, must be readable */
	KT_PATH_OUT,    /* output path, relative to the current directory */
	KT_CDF,         /* a built-in distribution name or an input path */
	KT_NUM_MAP,     /* struct cfg_rate_map of numbers */
	KT_SIZE_MAP,    /* struct cfg_rate_map of sizes (bytes) */
	KT_SIZE_AUTO,   /* "auto" or a size; bool at off2 is true for auto */
	KT_SIZE_OFF,    /* "off" or a size; bool at off2 is true for off */
	KT_RATE_OFF,    /* "off" or a rate; bool at off2 is true for off */
	KT_FLOW,        /* repeated "SRC DST SIZE START" (struct cfg_traffic) */
	KT_GROUP,       /* repeated "NAME SRC DST..." (struct cfg_multicast) */
};

/* Range flags: checked against lo/hi after parsing. */
#define CFG_R_MIN      0x01u   /* value >= lo */
#define CFG_R_MIN_OPEN 0x02u   /* value > lo */
#define CFG_R_MAX      0x04u   /* value <= hi */
#define CFG_R_MAX_OPEN 0x08u   /* value < hi */
#define CFG_R_EVEN     0x10u   /* an even integer */

#define CFG_ALL (~0u)           /* every topology or traffic type */

struct cfg_key {
	enum cfg_sec_kind sec;
	const char *name;
	enum cfg_key_type type;
	const char *def;        /* default as scenario text; NULL: none, or computed */
	const char *def_doc;    /* what applies when unset (resolved text, help) */
	unsigned applies;       /* bit per topology/traffic type; 0 = every type */
	unsigned required;      /* bit per type where the key must be given */
	unsigned range;         /* CFG_R_* */
	double lo, hi;
	const char *const *vocab; /* KT_ENUM, KT_WORD: NULL-terminated */
	size_t off;             /* field in the section's struct */
	size_t off2;            /* KT_LIST count; flag of KT_SIZE_AUTO/OFF and of scaled defaults */
	double per_25g;         /* > 0: default is per_25g x rate / 25Gbps, flagged at off2 */
	const char *help;
};

/* The field of a section struct a key fills. */
#define CFG_FIELD(base, off, type) ((type *)((char *)(base) + (off)))

extern const struct cfg_key cfg_keys[];
extern const size_t cfg_n_keys;

/* Section names in canonical order; job and traffic take ".NAME". */
extern const char *const cfg_sec_names[SEC_N];
extern const char *const cfg_topo_type_names[];     /* by enum cfg_topo_type, NULL-terminated */
extern const char *const cfg_traffic_type_names[];  /* by enum cfg_traffic_type */
extern const char *const cfg_cdf_builtin[];         /* websearch, hadoop, ... */

const struct cfg_key *cfg_key_find(enum cfg_sec_kind sec, const char *name);
/* Kind of a section name ("traffic.ws" -> SEC_TRAFFIC); -1 if unknown or
 * a job/traffic section without a valid NAME. */
int cfg_sec_kind_of(const char *section);
/* Whether key k belongs to a section of the given type (topology/traffic
 * type; ignored for other sections). */
bool cfg_key_applies(const struct cfg_key *k, int type);
/* "buffer, pfc, ..." into buf: the keys of sec (of the type, or all when
 * type < 0). */
void cfg_keys_names(enum cfg_sec_kind sec, int type, char *buf, size_t n);
/* "a, b or c" for a vocabulary. */
void cfg_vocab_text(const char *const *vocab, char *buf, size_t n);

/* What a value parser needs beyond the string. */
struct cfg_store_ctx {
	const char *file;       /* scenario path or "--set"; NULL for a default */
	const char *dir;        /* the scenario's folder */
	bool from_set;          /* given with --set: paths are relative to the cwd */
	int line;               /* for repeated keys */
};

#define CFG_EXPECTED_MAX 1024

/* config_values.c: parses value for key k and stores it in the section
 * struct at base (freeing what the field held). Returns 0, or -1 with
 * `expected` filled. */
int cfg_key_store(const struct cfg_key *k, void *base, const char *value,
		  const struct cfg_store_ctx *ctx, char *expected);
/* config_keys.c: fills the defaults of the keys of a section of the given type (after
 * zeroing it): table defaults, SIMTIME_NEVER for unset times and the flags of
 * rate-scaled defaults. Returns 0, or -1 with *bad and `expected` set (a
 * built-in data file is missing). */
int cfg_section_defaults(enum cfg_sec_kind sec, void *base, int type,
			 const struct cfg_store_ctx *ctx, const struct cfg_key **bad, char *expected);
/* Frees what key k's field owns in the struct at base. */
void cfg_key_free(const struct cfg_key *k, void *base);
/* Frees every field of a section struct of the given kind. */
void cfg_section_free(enum cfg_sec_kind sec, void *base);

/* A section as read, before typing: the loader's working form. */
struct cfg_raw_entry {
	char *key, *value;
	const char *file;             /* cfg->path or "--set" (cfg_set_origin) */
	int line;                     /* 0 for --set */
};

struct cfg_raw_section {
	char *name;                   /* "traffic.ws" */
	enum cfg_sec_kind kind;
	const char *file;
	int line;
	struct cfg_raw_entry *e;
	size_t n;
	void *base;                   /* its typed struct, during validation */
	int type;                     /* topology/traffic type, -1 otherwise */
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
int cfg_apply_overrides(struct cfg_raw *raw, const struct cfg_override *ov, size_t n_ov, char **err);
void cfg_raw_free(struct cfg_raw *raw);
struct cfg_raw_entry *cfg_raw_find(struct cfg_raw_section *s, const char *key);
/* Sets *err to a malloc'd message unless it holds one already (the first
 * error wins). */
void cfg_set_err(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* strdup that aborts when out of memory; NULL copies as "". */
char *cfg_xstrdup(const char *s);

/* config.c */
/* "FILE:LINE: [SECTION] KEY = 'VALUE': expected WHAT", malloc'd. */
char *cfg_err_value(const struct cfg_raw_section *s, const struct cfg_raw_entry *e, const char *expected);
/* "FILE:LINE: [SECTION] missing required key 'KEY'WHY", malloc'd. */
char *cfg_err_missing(const struct cfg_raw_section *s, const char *key, const char *why);

/* config_rules.c: rules between keys. Return 0, or -1 with *err set. */
int cfg_section_rules(struct config *cfg, struct cfg_raw_section *s, char **err);
int cfg_global_rules(struct config *cfg, struct cfg_raw_section *s, size_t n, char **err);

/* config_resolve.c: builds cfg->resolved from the typed values. Returns 0 or -1 (no memory). */
int cfg_resolve_text(struct config *cfg);

/* config_values.c */
/* The range of key k in words after noun: "an integer from 0 to 7",
 * "a number in (0, 1]", "a time > 0"; just noun when it has none. */
void cfg_range_text(const struct cfg_key *k, const char *noun, char *buf, size_t n);
/* Joins a relative path to dir ("." leaves it as is); malloc'd. */
char *cfg_path_join(const char *dir, const char *path);
/* Whether name is a built-in CDF name. */
bool cfg_cdf_is_builtin(const char *name);
/* Path of a built-in CDF's data file (source tree first, then installed);
 * malloc'd, NULL when neither is readable. */
char *cfg_cdf_builtin_path(const char *name);
/* Bytes (or bps) of a scaled default at a rate: per_25g x rate / 25Gbps. */
double cfg_scaled_default(double per_25g, uint64_t rate_bps);

#endif
