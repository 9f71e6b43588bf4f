/*
 * config.c — loading a scenario: read the .ini and apply --set overrides
 * (config_read.c), validate every section and key against the table of
 * config_keys.c, fill struct config, record where each key came from.
 *
 * Loading is in three passes so that overrides apply before validation:
 * (1) the file is read into raw sections of (key, value, line), catching
 * syntax errors, unknown sections and keys and duplicates at their line;
 * (2) --set entries replace or add raw entries; (3) each section's values
 * are parsed into typed fields, then required keys and cross-key rules
 * (config_rules.c) are checked. The first error ends the load with one
 * located message and the config freed, so nothing downstream ever sees a
 * half-valid scenario. Errors found later, by the models, are located
 * through the origins recorded here (cfg_error_at).
 */
#define _GNU_SOURCE  /* asprintf, vasprintf, strndup */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_keys.h"

struct loader {
	struct config *cfg;
	struct cfg_raw raw;           /* sections as read, then overridden */
	char *err;                    /* first error */
};

/* "scen.ini:12", "scen.ini" (line 0) or "--set". */
static const char *where(const char *file, int line, char *buf, size_t n)
{
	if (file == cfg_set_origin || line <= 0)
		return file;
	snprintf(buf, n, "%s:%d", file, line);
	return buf;
}

/* ---- Validation ---- */

char *cfg_err_value(const struct cfg_raw_section *s, const struct cfg_raw_entry *e, const char *expected)
{
	char w[512], *m;
	if (asprintf(&m, "%s: [%s] %s = '%s': expected %s", where(e->file, e->line, w, sizeof w),
		     s->name, e->key, e->value, expected) < 0)
		abort();
	return m;
}

char *cfg_err_missing(const struct cfg_raw_section *s, const char *key, const char *why)
{
	char w[512], *m;
	if (asprintf(&m, "%s: [%s] missing required key '%s'%s", where(s->file, s->line, w, sizeof w),
		     s->name, key, why ? why : "") < 0)
		abort();
	return m;
}

static void err_value(struct loader *L, const struct cfg_raw_section *s, const struct cfg_raw_entry *e,
		      const char *expected)
{
	if (!L->err)
		L->err = cfg_err_value(s, e, expected);
}

static void err_missing(struct loader *L, const struct cfg_raw_section *s, const char *key, const char *why)
{
	if (!L->err)
		L->err = cfg_err_missing(s, key, why);
}

static struct cfg_store_ctx ctx_of(const struct loader *L, const struct cfg_raw_entry *e)
{
	return (struct cfg_store_ctx){ .file = e ? e->file : NULL, .dir = L->cfg->dir,
				       .from_set = e && e->file == cfg_set_origin, .line = e ? e->line : 0 };
}

static void *fixed_base(struct config *cfg, enum cfg_sec_kind kind)
{
	switch (kind) {
	case SEC_SIMULATION: return &cfg->simulation;
	case SEC_TOPOLOGY: return &cfg->topology;
	case SEC_SWITCH: return &cfg->sw;
	case SEC_NIC: return &cfg->nic;
	case SEC_DCQCN: return &cfg->dcqcn;
	case SEC_MULTICAST: return &cfg->multicast;
	case SEC_PCAP: return &cfg->pcap;
	case SEC_OUTPUT: return &cfg->output;
	default: return NULL;
	}
}

static int defaults(struct loader *L, const struct cfg_raw_section *s, enum cfg_sec_kind kind,
		    void *base, int type)
{
	char exp[CFG_EXPECTED_MAX], w[512];
	const struct cfg_key *bad = NULL;
	struct cfg_store_ctx ctx = ctx_of(L, NULL);
	if (cfg_section_defaults(kind, base, type, &ctx, &bad, exp) == 0)
		return 0;
	cfg_set_err(&L->err, "%s: [%s] %s = '%s' (default): expected %s",
		s ? where(s->file, s->line, w, sizeof w) : L->cfg->path, s ? s->name : cfg_sec_names[kind],
		bad->name, bad->def, exp);
	return -1;
}

/* Parses every entry of s into s->base, after its type and defaults. */
static int section_values(struct loader *L, struct cfg_raw_section *s)
{
	char exp[CFG_EXPECTED_MAX], buf[CFG_EXPECTED_MAX / 2];
	if (s->kind == SEC_TOPOLOGY || s->kind == SEC_TRAFFIC) {
		struct cfg_raw_entry *e = cfg_raw_find(s, "type");
		if (!e) {
			err_missing(L, s, "type", NULL);
			return -1;
		}
		struct cfg_store_ctx ctx = ctx_of(L, e);
		if (cfg_key_store(cfg_key_find(s->kind, "type"), s->base, e->value, &ctx, exp) < 0) {
			err_value(L, s, e, exp);
			return -1;
		}
		s->type = s->kind == SEC_TOPOLOGY ? (int)((struct cfg_topology *)s->base)->type
						  : (int)((struct cfg_traffic *)s->base)->type;
	}
	if (fixed_base(L->cfg, s->kind) == NULL || s->kind == SEC_TOPOLOGY)
		if (defaults(L, s, s->kind, s->base, s->type) < 0)
			return -1;
	const char *type_name = s->kind == SEC_TOPOLOGY ? cfg_topo_type_names[s->type]
			      : s->kind == SEC_TRAFFIC ? cfg_traffic_type_names[s->type] : NULL;
	for (size_t i = 0; i < s->n; i++) {
		struct cfg_raw_entry *e = &s->e[i];
		const struct cfg_key *k = cfg_key_find(s->kind, e->key);
		if (!cfg_key_applies(k, s->type)) {
			cfg_keys_names(s->kind, s->type, buf, sizeof buf);
			snprintf(exp, sizeof exp, "a key of type %s (one of %s)", type_name, buf);
			err_value(L, s, e, exp);
			return -1;
		}
		/* inih cuts a value at a ';' after a blank, so "a,;b" or a
		 * --set value with ';' would not read back from the resolved
		 * text (found by test/fuzz/fuzz_scenario). */
		if (strchr(e->value, ';')) {
			err_value(L, s, e, "a value without ';' (a comment starts at ';')");
			return -1;
		}
		struct cfg_store_ctx ctx = ctx_of(L, e);
		if (cfg_key_store(k, s->base, e->value, &ctx, exp) < 0) {
			err_value(L, s, e, exp);
			return -1;
		}
	}
	for (size_t i = 0; i < cfg_n_keys; i++) {
		const struct cfg_key *k = &cfg_keys[i];
		if (k->sec != s->kind || !k->required || cfg_raw_find(s, k->name))
			continue;
		if (k->required == CFG_ALL) {
			err_missing(L, s, k->name, NULL);
			return -1;
		}
		if (s->type >= 0 && (k->required & (1u << s->type))) {
			snprintf(buf, sizeof buf, " for type %s", type_name);
			err_missing(L, s, k->name, buf);
			return -1;
		}
	}
	return 0;
}

static int validate(struct loader *L)
{
	struct config *cfg = L->cfg;
	size_t nj = 0, nt = 0;
	bool topology = false;
	for (int k = 0; k < SEC_N; k++)
		if (fixed_base(cfg, k) && k != SEC_TOPOLOGY && defaults(L, NULL, k, fixed_base(cfg, k), -1) < 0)
			return -1;
	for (size_t i = 0; i < L->raw.n; i++) {
		nj += L->raw.s[i].kind == SEC_JOB;
		nt += L->raw.s[i].kind == SEC_TRAFFIC;
		topology |= L->raw.s[i].kind == SEC_TOPOLOGY;
	}
	cfg->jobs = calloc(nj ? nj : 1, sizeof *cfg->jobs);
	cfg->traffic = calloc(nt ? nt : 1, sizeof *cfg->traffic);
	if (!cfg->jobs || !cfg->traffic)
		abort();
	for (size_t i = 0; i < L->raw.n; i++) {
		struct cfg_raw_section *s = &L->raw.s[i];
		const char *dot = strchr(s->name, '.');
		if (s->kind == SEC_JOB) {
			s->base = &cfg->jobs[cfg->n_jobs];
			cfg->jobs[cfg->n_jobs++].name = cfg_xstrdup(dot + 1);
		} else if (s->kind == SEC_TRAFFIC) {
			s->base = &cfg->traffic[cfg->n_traffic];
			cfg->traffic[cfg->n_traffic++].name = cfg_xstrdup(dot + 1);
		} else {
			s->base = fixed_base(cfg, s->kind);
		}
	}
	if (!topology) {
		cfg_set_err(&L->err, "%s: missing required section [topology]: expected type, link_rate, link_delay "
			"and the keys of the type", cfg->path);
		return -1;
	}
	for (size_t i = 0; i < L->raw.n; i++)
		if (section_values(L, &L->raw.s[i]) < 0 || cfg_section_rules(cfg, &L->raw.s[i], &L->err) < 0)
			return -1;
	return cfg_global_rules(cfg, L->raw.s, L->raw.n, &L->err);
}

static void build_origins(struct loader *L)
{
	struct config *cfg = L->cfg;
	size_t n = 0;
	for (size_t i = 0; i < L->raw.n; i++)
		n += L->raw.s[i].n;
	cfg->origins = calloc(n ? n : 1, sizeof *cfg->origins);
	cfg->section_origins = calloc(L->raw.n ? L->raw.n : 1, sizeof *cfg->section_origins);
	if (!cfg->origins || !cfg->section_origins)
		abort();
	for (size_t i = 0; i < L->raw.n; i++) {
		struct cfg_raw_section *s = &L->raw.s[i];
		cfg->section_origins[cfg->n_section_origins++] =
			(struct cfg_origin){ cfg_xstrdup(s->name), NULL, NULL, s->file, s->line };
		for (size_t j = 0; j < s->n; j++)
			cfg->origins[cfg->n_origins++] = (struct cfg_origin){
				cfg_xstrdup(s->name), cfg_xstrdup(s->e[j].key), cfg_xstrdup(s->e[j].value),
				s->e[j].file, s->e[j].line };
	}
}

static void set_names(struct config *cfg, const char *path)
{
	cfg->path = cfg_xstrdup(path);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	cfg->dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : cfg_xstrdup(".");
	size_t len = strlen(base);
	if (len > 4 && strcmp(base + len - 4, ".ini") == 0)
		len -= 4;
	cfg->name = strndup(base, len);
	if (!cfg->dir || !cfg->name)
		abort();
}

/* text NULL: read path's file; otherwise len bytes of text named path. */
static int load(struct config *cfg, const char *path, const char *text, size_t len,
		const struct cfg_override *ov, size_t n_ov, char **err)
{
	struct loader L = { .cfg = cfg };
	memset(cfg, 0, sizeof *cfg);
	if (!path) {
		*err = cfg_xstrdup("no scenario given");
		return -1;
	}
	set_names(cfg, path);
	int read = text ? cfg_read_mem(cfg, &L.raw, text, len, &L.err) : cfg_read_file(cfg, &L.raw, &L.err);
	if (read == 0 && cfg_apply_overrides(&L.raw, ov, n_ov, &L.err) == 0 &&
	    validate(&L) == 0) {
		build_origins(&L);
		if (cfg_resolve_text(cfg) < 0)
			cfg_set_err(&L.err, "%s: out of memory", cfg->path);
	}
	cfg_raw_free(&L.raw);
	if (L.err) {
		config_free(cfg);
		*err = L.err;
		return -1;
	}
	return 0;
}

int config_load(struct config *cfg, const char *path,
		const struct cfg_override *ov, size_t n_ov, char **err)
{
	return load(cfg, path, NULL, 0, ov, n_ov, err);
}

int config_load_text(struct config *cfg, const char *path, const char *text, size_t len,
		     const struct cfg_override *ov, size_t n_ov, char **err)
{
	return load(cfg, path, text ? text : "", text ? len : 0, ov, n_ov, err);
}

static void free_origins(struct cfg_origin *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(o[i].section);
		free(o[i].key);
		free(o[i].value);
	}
	free(o);
}

void config_free(struct config *cfg)
{
	for (int k = 0; k < SEC_N; k++)
		if (fixed_base(cfg, k))
			cfg_section_free(k, fixed_base(cfg, k));
	for (size_t i = 0; i < cfg->n_jobs; i++) {
		cfg_section_free(SEC_JOB, &cfg->jobs[i]);
		free(cfg->jobs[i].name);
	}
	for (size_t i = 0; i < cfg->n_traffic; i++) {
		cfg_section_free(SEC_TRAFFIC, &cfg->traffic[i]);
		free(cfg->traffic[i].name);
	}
	free(cfg->jobs);
	free(cfg->traffic);
	free_origins(cfg->origins, cfg->n_origins);
	free_origins(cfg->section_origins, cfg->n_section_origins);
	free(cfg->path);
	free(cfg->dir);
	free(cfg->name);
	free(cfg->text);
	free(cfg->resolved);
	memset(cfg, 0, sizeof *cfg);
}

char *cfg_error_at(const struct config *cfg, const char *section, const char *key,
		   int line_override, const char *fmt, ...)
{
	char *msg, *out, w[512];
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	const struct cfg_origin *o = NULL, *sec = NULL;
	for (size_t i = 0; key && i < cfg->n_origins; i++) {
		const struct cfg_origin *c = &cfg->origins[i];
		if (strcmp(c->section, section) == 0 && strcmp(c->key, key) == 0 &&
		    (!o || line_override <= 0 || c->line == line_override))
			o = c;  /* the last, or the one at line_override */
	}
	for (size_t i = 0; i < cfg->n_section_origins; i++)
		if (strcmp(cfg->section_origins[i].section, section) == 0)
			sec = &cfg->section_origins[i];
	int rc;
	if (o)
		rc = asprintf(&out, "%s: [%s] %s = '%s': %s",
			      where(o->file, line_override > 0 ? line_override : o->line, w, sizeof w),
			      section, key, o->value, msg);
	else
		rc = asprintf(&out, "%s: [%s]%s%s%s: %s",
			      sec ? where(sec->file, sec->line, w, sizeof w) : cfg->path, section,
			      key ? " " : "", key ? key : "", key ? " (default)" : "", msg);
	if (rc < 0)
		abort();
	free(msg);
	return out;
}

const char *cfg_traffic_type_name(enum cfg_traffic_type t)
{
	return (unsigned)t <= TRAFFIC_COLLECTIVE ? cfg_traffic_type_names[t] : "unknown";
}

const char *cfg_topo_type_name(enum cfg_topo_type t)
{
	return (unsigned)t <= TOPO_RING ? cfg_topo_type_names[t] : "unknown";
}
