/*
 * config.c — loading a scenario: read the .ini and apply --set overrides
 * (config_read.c), validate every section and key against the schema's
 * key tables (config.h), fill each section's struct, run the models'
 * rules, record where each key came from.
 *
 * Loading is in three passes so that overrides apply before validation:
 * (1) the file is read into raw sections of (key, value, line), catching
 * syntax errors, unknown sections and keys and duplicates at their line;
 * (2) --set entries replace or add raw entries; (3) each section's values
 * are parsed into typed fields (its type first, when it has one), then
 * required keys are checked, and once every section is typed the rules
 * of each section and type run. The first error ends the load with one
 * located message and the config freed, so nothing downstream ever sees a
 * half-valid scenario. Errors found later, by the models, are located
 * through the origins recorded here (cfg_error_at).
 */
#define _GNU_SOURCE  /* asprintf, vasprintf, strndup */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_internal.h"
#include "xalloc.h"

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

/* "FILE:LINE: [SECTION] KEY = 'VALUE': expected WHAT" into *err, unless it
 * holds an error already (the first error wins). */
static void err_value(char **err, const struct cfg_raw_section *s, const struct cfg_raw_entry *e,
		      const char *expected)
{
	char w[512];
	cfg_set_err(err, "%s: [%s] %s = '%s': expected %s", where(e->file, e->line, w, sizeof w),
		    s->name, e->key, e->value, expected);
}

/* "FILE:LINE: [SECTION] missing required key 'KEY'WHY" into *err, unless it
 * holds an error already. */
static void err_missing(char **err, const struct cfg_raw_section *s, const char *key, const char *why)
{
	char w[512];
	cfg_set_err(err, "%s: [%s] missing required key '%s'%s", where(s->file, s->line, w, sizeof w),
		    s->name, key, why ? why : "");
}

/* A required key missing from s, a section --set alone made ([job.gtp]
 * from --set job.gtp.tp=4) while the scenario has others of its kind
 * (names, comma-separated): the likely mistake is a misspelt NAME, not a
 * forgotten key: "--set: no job 'gtp' (jobs: gpt): did you mean 'gpt'? A
 * job added by --set needs its required key 'model'". */
static void err_set_misspelt(char **err, const struct cfg_raw_section *s, const char *names, const char *key,
			     const char *why)
{
	const char *name = s->name + strlen(s->sec->name) + 1;
	char mean[96];
	/* "jobs"; "traffic sections" (a mass noun takes no s). */
	size_t ln = strlen(s->sec->name);
	bool mass = ln >= 2 && strcmp(s->sec->name + ln - 2, "ic") == 0;
	bool close = cfg_suggest(name, names, mean, sizeof mean);
	cfg_set_err(err, "--set: no %s '%s' (%s%s: %s)%s%s%s %s added by --set needs its required key '%s'%s",
		    s->sec->name, name, s->sec->name, mass ? " sections" : "s", names,
		    close ? ": did you mean '" : "", close ? mean : "", close ? "'? A" : "; a",
		    s->sec->name, key, why ? why : "");
}

/* A required key missing from s (see err_set_misspelt for sections only
 * --set made). */
static void missing(struct loader *L, const struct cfg_raw_section *s, const char *key, const char *why)
{
	if (s->file != cfg_set_origin || !s->sec->named) {
		err_missing(&L->err, s, key, why);
		return;
	}
	char names[CFG_EXPECTED_MAX / 2];
	size_t len = 0, count = 0;
	names[0] = '\0';
	for (size_t i = 0; i < L->raw.n; i++) {
		const struct cfg_raw_section *o = &L->raw.s[i];
		if (o->sec != s->sec || o == s || len >= sizeof names)
			continue;
		len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", count++ ? ", " : "",
					o->name + strlen(s->sec->name) + 1);
	}
	if (!count)     /* nothing to have misspelt: a section added on purpose */
		err_missing(&L->err, s, key, why);
	else
		err_set_misspelt(&L->err, s, names, key, why);
}

static struct cfg_store_ctx ctx_of(const struct loader *L, const struct cfg_raw_entry *e,
				   const struct cfg_inst *inst)
{
	return (struct cfg_store_ctx){ .file = e ? e->file : NULL, .dir = L->cfg->dir,
				       .from_set = e && e->file == cfg_set_origin, .line = e ? e->line : 0,
				       .section = inst->title, .sec = inst->sec };
}

/* Defaults of keys[0..n) into base; s is the section as read (NULL when absent). */
static int defaults(struct loader *L, const struct cfg_raw_section *s, const struct cfg_inst *inst,
		    const struct cfg_key *keys, size_t n, void *base)
{
	char exp[CFG_EXPECTED_MAX], w[512];
	const struct cfg_key *bad = NULL;
	struct cfg_store_ctx ctx = ctx_of(L, NULL, inst);
	if (cfg_keys_defaults(keys, n, base, &ctx, &bad, exp) == 0)
		return 0;
	cfg_set_err(&L->err, "%s: [%s] %s = '%s' (default): expected %s",
		s ? where(s->file, s->line, w, sizeof w) : L->cfg->path, inst->title,
		bad->name, bad->def, exp);
	return -1;
}

static bool in_list(const char *const *list, const char *name)
{
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* The section's KT_TYPE key, NULL when it has none. */
static const struct cfg_key *type_key(const struct cfg_section *sec)
{
	for (size_t i = 0; i < sec->n_keys; i++)
		if (sec->keys[i].type == KT_TYPE)
			return &sec->keys[i];
	return NULL;
}

/* The section's type from its KT_TYPE key, with the type's struct and
 * its defaults. */
static int section_type(struct loader *L, struct cfg_raw_section *s, struct cfg_inst *inst)
{
	char exp[CFG_EXPECTED_MAX];
	const struct cfg_key *tk = type_key(inst->sec);
	if (!tk)
		return 0;
	struct cfg_raw_entry *e = cfg_raw_find(s, tk->name);
	if (!e && !tk->def) {
		missing(L, s, tk->name, NULL);
		return -1;
	}
	/* A type key with a default ([job] workload) takes it when unset. */
	struct cfg_store_ctx ctx = ctx_of(L, e, inst);
	if (cfg_key_store(tk, inst->data, e ? e->value : tk->def, &ctx, exp) < 0) {
		if (e)
			err_value(&L->err, s, e, exp);
		else
			cfg_set_err(&L->err, "%s: [%s] %s = '%s' (default): expected %s", L->cfg->path,
				    inst->title, tk->name, tk->def, exp);
		return -1;
	}
	inst->type = cfg_type_at(inst->sec, (size_t)*CFG_FIELD(inst->data, tk->off, int));
	if (inst->type->size) {
		inst->type_data = calloc(1, inst->type->size);
		if (!inst->type_data)
			abort();
	}
	return defaults(L, s, inst, inst->type->keys, inst->type->n_keys, inst->type_data);
}

/* Parses every entry of s into its instance, after its type and defaults. */
static int section_values(struct loader *L, struct cfg_raw_section *s)
{
	char exp[CFG_EXPECTED_MAX], buf[CFG_EXPECTED_MAX / 2];
	struct cfg_inst *inst = s->inst;
	const struct cfg_section *sec = inst->sec;
	if (section_type(L, s, inst) < 0)
		return -1;
	const struct cfg_type *type = inst->type;
	if (sec->named && defaults(L, s, inst, sec->keys, sec->n_keys, inst->data) < 0)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		struct cfg_raw_entry *e = &s->e[i];
		/* The reader took only keys of the section or of its types: a
		 * key not found here is a key of another type. */
		const struct cfg_key *k = cfg_key_find(sec, type, e->key);
		if (!k) {
			cfg_keys_names(sec, type, buf, sizeof buf);
			snprintf(exp, sizeof exp, "a key of type %s (one of %s)", type->name, buf);
			err_value(&L->err, s, e, exp);
			return -1;
		}
		/* inih cuts a value at a ';' after a blank, so "a,;b" or a
		 * --set value with ';' would not read back from the resolved
		 * text (found by test/fuzz/fuzz_scenario). */
		if (strchr(e->value, ';')) {
			err_value(&L->err, s, e, "a value without ';' (a comment starts at ';')");
			return -1;
		}
		if (k->type == KT_TYPE)
			continue; /* stored by section_type */
		bool own = k >= sec->keys && k < sec->keys + sec->n_keys;
		struct cfg_store_ctx ctx = ctx_of(L, e, inst);
		if (cfg_key_store(k, own ? inst->data : inst->type_data, e->value, &ctx, exp) < 0) {
			err_value(&L->err, s, e, exp);
			return -1;
		}
	}
	for (size_t i = 0; i < sec->n_keys; i++) {
		const struct cfg_key *k = &sec->keys[i];
		if (k->required && !cfg_raw_find(s, k->name) && !(type && in_list(type->not_required, k->name))) {
			missing(L, s, k->name, NULL);
			return -1;
		}
	}
	for (size_t i = 0; type && i < type->n_keys; i++) {
		const struct cfg_key *k = &type->keys[i];
		if (k->required && !cfg_raw_find(s, k->name)) {
			snprintf(buf, sizeof buf, " for type %s", type->name);
			missing(L, s, k->name, buf);
			return -1;
		}
	}
	return 0;
}

static struct cfg_inst *add_inst(struct config *cfg, size_t *cap, const struct cfg_section *sec,
				 const char *title, const char *name)
{
	if (cfg->n_inst == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		cfg->inst = realloc(cfg->inst, *cap * sizeof *cfg->inst);
		if (!cfg->inst)
			abort();
	}
	struct cfg_inst *i = &cfg->inst[cfg->n_inst++];
	*i = (struct cfg_inst){ .sec = sec, .title = xstrdup(title), .name = name ? xstrdup(name) : NULL,
				.data = calloc(1, sec->size ? sec->size : 1) };
	if (!i->data)
		abort();
	return i;
}

/* One rules hook on instance inst (s: the section as read, NULL if absent). */
static int run_rules(struct loader *L, int (*rules)(struct cfg_check *), struct cfg_inst *inst,
		     struct cfg_raw_section *s)
{
	if (!rules)
		return 0;
	struct cfg_check c = { .cfg = L->cfg, .inst = inst, .data = inst->data,
			       .type_data = inst->type_data, .raw_ = s, .err_ = &L->err };
	if (rules(&c) == 0)
		return 0;
	if (!L->err)
		cfg_set_err(&L->err, "%s: [%s]: a rule between its keys failed", L->cfg->path, inst->title);
	return -1;
}

/* "type, link_rate, link_delay": the keys a section requires. */
static void required_keys(const struct cfg_section *sec, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sec->n_keys && len < n; i++)
		if (sec->keys[i].required)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", sec->keys[i].name);
}

static int validate(struct loader *L)
{
	struct config *cfg = L->cfg;
	const struct cfg_schema *schema = cfg->schema;
	char buf[CFG_EXPECTED_MAX / 2];
	size_t cap = 0;
	/* Instances in schema order, named ones in file order. */
	for (size_t k = 0; cfg_sec_at(schema, k); k++) {
		const struct cfg_section *sec = cfg_sec_at(schema, k);
		if (!sec->named) {
			struct cfg_inst *inst = add_inst(cfg, &cap, sec, sec->name, NULL);
			if (defaults(L, NULL, inst, sec->keys, sec->n_keys, inst->data) < 0)
				return -1;
		}
		for (size_t i = 0; sec->named && i < L->raw.n; i++)
			if (L->raw.s[i].sec == sec)
				add_inst(cfg, &cap, sec, L->raw.s[i].name, strchr(L->raw.s[i].name, '.') + 1);
	}
	for (size_t i = 0; i < L->raw.n; i++)
		for (size_t j = 0; j < cfg->n_inst; j++)
			if (strcmp(cfg->inst[j].title, L->raw.s[i].name) == 0)
				L->raw.s[i].inst = &cfg->inst[j];
	for (size_t k = 0; cfg_sec_at(schema, k); k++) {
		const struct cfg_section *sec = cfg_sec_at(schema, k);
		bool present = false;
		for (size_t i = 0; i < L->raw.n; i++)
			present |= L->raw.s[i].sec == sec;
		if (!sec->required || present)
			continue;
		required_keys(sec, buf, sizeof buf);
		cfg_set_err(&L->err, "%s: missing required section [%s]: expected %s%s", cfg->path, sec->name,
			    buf, sec->type_at ? " and the keys of the type" : "");
		return -1;
	}
	for (size_t i = 0; i < L->raw.n; i++)
		if (section_values(L, &L->raw.s[i]) < 0)
			return -1;
	/* Rules, once every section is typed: the sections as read, in file
	 * order, then those left at their defaults. */
	for (size_t i = 0; i < L->raw.n; i++) {
		struct cfg_inst *inst = L->raw.s[i].inst;
		if (run_rules(L, inst->sec->rules, inst, &L->raw.s[i]) < 0 ||
		    (inst->type && run_rules(L, inst->type->rules, inst, &L->raw.s[i]) < 0))
			return -1;
	}
	for (size_t j = 0; j < cfg->n_inst; j++) {
		bool present = false;
		for (size_t i = 0; i < L->raw.n; i++)
			present |= L->raw.s[i].inst == &cfg->inst[j];
		if (!present && run_rules(L, cfg->inst[j].sec->rules, &cfg->inst[j], NULL) < 0)
			return -1;
	}
	return 0;
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
			(struct cfg_origin){ xstrdup(s->name), NULL, NULL, s->file, s->line };
		for (size_t j = 0; j < s->n; j++)
			cfg->origins[cfg->n_origins++] = (struct cfg_origin){
				xstrdup(s->name), xstrdup(s->e[j].key), xstrdup(s->e[j].value),
				s->e[j].file, s->e[j].line };
	}
}

static void set_names(struct config *cfg, const char *path)
{
	cfg->path = xstrdup(path);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	cfg->dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	size_t len = strlen(base);
	if (len > 4 && strcmp(base + len - 4, ".ini") == 0)
		len -= 4;
	cfg->name = strndup(base, len);
	if (!cfg->dir || !cfg->name)
		abort();
}

/* text NULL: read path's file; otherwise len bytes of text named path. */
static int load(struct config *cfg, const struct cfg_schema *schema, const char *path, const char *text,
		size_t len, const struct cfg_override *ov, size_t n_ov, char **err)
{
	struct loader L = { .cfg = cfg };
	memset(cfg, 0, sizeof *cfg);
	cfg->schema = schema;
	if (!path) {
		*err = xstrdup("no scenario given");
		return -1;
	}
	set_names(cfg, path);
	int read = text ? cfg_read_mem(cfg, &L.raw, text, len, &L.err) : cfg_read_file(cfg, &L.raw, &L.err);
	if (read == 0 && cfg_apply_overrides(cfg, &L.raw, ov, n_ov, &L.err) == 0 &&
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

int config_load(struct config *cfg, const struct cfg_schema *schema, const char *path,
		const struct cfg_override *ov, size_t n_ov, char **err)
{
	return load(cfg, schema, path, NULL, 0, ov, n_ov, err);
}

int config_load_text(struct config *cfg, const struct cfg_schema *schema, const char *path,
		     const char *text, size_t len, const struct cfg_override *ov, size_t n_ov, char **err)
{
	return load(cfg, schema, path, text ? text : "", text ? len : 0, ov, n_ov, err);
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
	for (size_t i = 0; i < cfg->n_inst; i++) {
		struct cfg_inst *inst = &cfg->inst[i];
		for (size_t k = 0; k < inst->sec->n_keys; k++)
			cfg_key_free(&inst->sec->keys[k], inst->data);
		for (size_t k = 0; inst->type && inst->type_data && k < inst->type->n_keys; k++)
			cfg_key_free(&inst->type->keys[k], inst->type_data);
		free(inst->data);
		free(inst->type_data);
		free(inst->title);
		free(inst->name);
	}
	free(cfg->inst);
	free_origins(cfg->origins, cfg->n_origins);
	free_origins(cfg->section_origins, cfg->n_section_origins);
	free(cfg->path);
	free(cfg->dir);
	free(cfg->name);
	free(cfg->text);
	free(cfg->resolved);
	memset(cfg, 0, sizeof *cfg);
}

const struct cfg_inst *cfg_inst(const struct config *cfg, const struct cfg_section *sec)
{
	for (size_t i = 0; i < cfg->n_inst; i++)
		if (cfg->inst[i].sec == sec)
			return &cfg->inst[i];
	return NULL;
}

const struct cfg_inst *cfg_next(const struct config *cfg, const struct cfg_section *sec,
				const struct cfg_inst *prev)
{
	size_t i = prev ? (size_t)(prev - cfg->inst) + 1 : 0;
	for (; i < cfg->n_inst; i++)
		if (cfg->inst[i].sec == sec)
			return &cfg->inst[i];
	return NULL;
}

size_t cfg_count(const struct config *cfg, const struct cfg_section *sec)
{
	size_t n = 0;
	for (size_t i = 0; i < cfg->n_inst; i++)
		n += cfg->inst[i].sec == sec;
	return n;
}

/* ---- Rules ---- */

bool cfg_given(const struct cfg_check *c, const char *key)
{
	return c->raw_ && cfg_raw_find(c->raw_, key);
}

const char *cfg_given_value(const struct cfg_check *c, const char *key)
{
	const struct cfg_raw_entry *e = c->raw_ ? cfg_raw_find(c->raw_, key) : NULL;
	return e ? e->value : NULL;
}

int cfg_fail(struct cfg_check *c, const char *key, const char *fmt, ...)
{
	char *what, w[512];
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		abort();
	va_end(ap);
	const struct cfg_raw_section *s = c->raw_;
	const struct cfg_raw_entry *e = s ? cfg_raw_find(s, key) : NULL;
	if (e)
		err_value(c->err_, s, e, what);
	else
		cfg_set_err(c->err_, "%s: [%s] %s (default): expected %s",
			    s ? where(s->file, s->line, w, sizeof w) : c->cfg->path, c->inst->title, key, what);
	free(what);
	return -1;
}

int cfg_fail_missing(struct cfg_check *c, const char *key, const char *why)
{
	const struct cfg_raw_section *s = c->raw_;
	if (s && s->file == cfg_set_origin && s->sec->named) { /* a key the rules require (err_set_misspelt) */
		char names[CFG_EXPECTED_MAX / 2];
		size_t len = 0, count = 0;
		names[0] = '\0';
		for (size_t i = 0; i < c->cfg->n_inst; i++) {
			const struct cfg_inst *o = &c->cfg->inst[i];
			if (o->sec != s->sec || o == c->inst || len >= sizeof names)
				continue;
			len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", count++ ? ", " : "", o->name);
		}
		if (count) {
			err_set_misspelt(c->err_, s, names, key, why);
			return -1;
		}
	}
	if (c->raw_)
		err_missing(c->err_, c->raw_, key, why);
	else
		cfg_set_err(c->err_, "%s: [%s] missing required key '%s'%s", c->cfg->path,
			    c->inst->title, key, why ? why : "");
	return -1;
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
