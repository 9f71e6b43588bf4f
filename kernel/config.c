/*
 * config.c — loading a scenario: read the .ini with inih, apply --set
 * overrides, validate every section and key against the table of
 * config_keys.c, fill struct config, record where each key came from.
 *
 * Loading is in three passes so that overrides apply before validation:
 * (1) the file is read into raw sections of (key, value, line), catching
 * syntax errors, unknown sections and keys and duplicates at their line;
 * (2) --set entries replace or add raw entries; (3) each section's values
 * are parsed into typed fields, then required keys and cross-key rules are
 * checked. The first error ends the load with one located message and the
 * config freed, so nothing downstream ever sees a half-valid scenario.
 */
#define _GNU_SOURCE  /* asprintf, vasprintf, strndup */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>
#include "config_keys.h"

const char cfg_set_origin[] = "--set";
#define SET_ORIGIN cfg_set_origin

struct loader {
	struct config *cfg;
	const char *pos;              /* reader position in cfg->text */
	int line;                     /* line last handed to inih */
	struct cfg_raw_section *s;
	size_t n_s;
	int cur;                      /* current section, -1 before the first */
	char *err;                    /* first error */
};

static void set_err(struct loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(struct loader *L, const char *fmt, ...)
{
	if (L->err)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&L->err, fmt, ap) < 0)
		abort();
	va_end(ap);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		abort();
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		abort();
	return d;
}

/* "scen.ini:12", "scen.ini" (line 0) or "--set". */
static const char *where(const char *file, int line, char *buf, size_t n)
{
	if (file == SET_ORIGIN || line <= 0)
		return file;
	snprintf(buf, n, "%s:%d", file, line);
	return buf;
}

static void sections_list(char *buf, size_t n)
{
	size_t len = 0;
	for (int k = 0; k < SEC_N && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s", k ? ", " : "", cfg_sec_names[k],
					k == SEC_JOB || k == SEC_TRAFFIC ? ".NAME" : "");
}

static struct cfg_raw_section *find_section(struct loader *L, const char *name)
{
	for (size_t i = 0; i < L->n_s; i++)
		if (strcmp(L->s[i].name, name) == 0)
			return &L->s[i];
	return NULL;
}

struct cfg_raw_entry *cfg_raw_find(struct cfg_raw_section *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->e[i].key, key) == 0)
			return &s->e[i];
	return NULL;
}

static struct cfg_raw_section *add_section(struct loader *L, const char *name, int kind,
				       const char *file, int line)
{
	L->s = xrealloc(L->s, (L->n_s + 1) * sizeof *L->s);
	L->s[L->n_s] = (struct cfg_raw_section){ .name = xstrdup(name), .kind = kind,
					     .file = file, .line = line, .type = -1 };
	return &L->s[L->n_s++];
}

static void add_entry(struct cfg_raw_section *s, const char *key, const char *value,
		      const char *file, int line)
{
	s->e = xrealloc(s->e, (s->n + 1) * sizeof *s->e);
	s->e[s->n++] = (struct cfg_raw_entry){ xstrdup(key), xstrdup(value), file, line };
}

static bool is_repeated(const struct cfg_key *k)
{
	return k->type == KT_FLOW || k->type == KT_GROUP;
}

/* A section header met by the reader: [name]. Headers are handled here
 * rather than in inih's handler, which never sees a section without keys. */
static void section_header(struct loader *L, const char *line)
{
	char buf[CFG_EXPECTED_MAX];
	const char *file = L->cfg->path;
	const char *close = strchr(line, ']');
	if (!close) {
		set_err(L, "%s:%d: '%s': expected a section header [NAME]", file, L->line, line);
		return;
	}
	const char *after = close + 1 + strspn(close + 1, " \t");
	if (*after && *after != ';' && *after != '#') {
		set_err(L, "%s:%d: '%s': expected nothing but a comment after the section header", file, L->line, line);
		return;
	}
	const char *b = line + 1, *e = close;
	while (b < e && (*b == ' ' || *b == '\t'))
		b++;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	char *name = strndup(b, (size_t)(e - b));
	if (!name)
		abort();
	int kind = cfg_sec_kind_of(name);
	struct cfg_raw_section *dup;
	if (kind < 0) {
		sections_list(buf, sizeof buf);
		if (strncmp(name, "job.", 4) == 0 || strncmp(name, "traffic.", 8) == 0)
			set_err(L, "%s:%d: section [%s]: expected a NAME of letters, digits, '_', '-' or '.'",
				file, L->line, name);
		else
			set_err(L, "%s:%d: unknown section [%s]: expected one of %s", file, L->line, name, buf);
	} else if ((dup = find_section(L, name))) {
		set_err(L, "%s:%d: section [%s] given twice (first at line %d): expected each section once",
			file, L->line, name, dup->line);
	} else {
		add_section(L, name, kind, file, L->line);
		L->cur = (int)L->n_s - 1;
	}
	free(name);
}

/* inih reader: hands over one line of cfg->text at a time, counting lines
 * (Debian's inih has no line numbers in the handler), refusing lines that
 * inih would silently cut at INI_MAX_LINE, and stripping leading blanks so
 * an indented line is never taken as a continuation of the previous value. */
static char *reader(char *str, int num, void *stream)
{
	struct loader *L = stream;
	if (L->err || *L->pos == '\0')
		return NULL;
	const char *b = L->pos;
	const char *nl = strchr(b, '\n');
	size_t len = nl ? (size_t)(nl - b) : strlen(b);
	L->pos = nl ? nl + 1 : b + len;
	L->line++;
	if (L->line == 1 && len >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) {
		b += 3;
		len -= 3;
	}
	if (len && b[len - 1] == '\r')
		len--;
	if (len + 3 > (size_t)num) {  /* inih needs room for "\r\n\0" */
		set_err(L, "%s:%d: line of %zu characters: expected at most %d per line",
			L->cfg->path, L->line, len, num - 3);
		return NULL;
	}
	while (len && (*b == ' ' || *b == '\t')) {
		b++;
		len--;
	}
	memcpy(str, b, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	if (*b == '[') {
		str[len] = '\0';
		section_header(L, str);
		if (L->err)
			return NULL;
		str[len] = '\n';
	}
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct loader *L = user;
	char buf[CFG_EXPECTED_MAX];
	const char *file = L->cfg->path;
	(void)section;  /* the reader tracks sections, trimmed and validated */
	if (L->err)
		return 0;
	if (L->cur < 0) {
		set_err(L, "%s:%d: %s = '%s' outside any section: expected a [section] header first",
			file, L->line, name, value);
		return 0;
	}
	struct cfg_raw_section *s = &L->s[L->cur];
	const struct cfg_key *k = cfg_key_find(s->kind, name);
	if (!k) {
		cfg_keys_names(s->kind, -1, buf, sizeof buf);
		set_err(L, "%s:%d: [%s] unknown key '%s': expected one of %s", file, L->line, s->name, name, buf);
		return 0;
	}
	struct cfg_raw_entry *dup = cfg_raw_find(s, name);
	if (dup && !is_repeated(k)) {
		set_err(L, "%s:%d: [%s] %s = '%s': key given twice (first at line %d): expected each key once",
			file, L->line, s->name, name, value, dup->line);
		return 0;
	}
	add_entry(s, name, value, file, L->line);
	return 1;
}

static int read_file(struct loader *L)
{
	struct config *cfg = L->cfg;
	FILE *f = fopen(cfg->path, "rb");
	size_t cap = 0, len = 0;
	if (!f) {
		set_err(L, "%s: cannot read: %s", cfg->path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			cfg->text = xrealloc(cfg->text, cap);
		}
		size_t got = fread(cfg->text + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	cfg->text[len] = '\0';
	int bad = ferror(f);
	int saved = errno;
	fclose(f);
	if (bad) {
		set_err(L, "%s: cannot read: %s", cfg->path, strerror(saved));
		return -1;
	}
	if (memchr(cfg->text, '\0', len)) {
		set_err(L, "%s: cannot read: expected a text file (it contains NUL bytes)", cfg->path);
		return -1;
	}
	L->pos = cfg->text;
	int rc = ini_parse_stream(reader, L, handler, L);
	if (rc > 0 && (!L->err || rc < L->line)) {
		/* inih's own syntax error (no '=' or ':'), reported at its line. */
		const char *p = cfg->text;
		for (int i = 1; i < rc && p; i++) {
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
		}
		int n = p ? (int)strcspn(p, "\r\n") : 0;
		free(L->err);
		L->err = NULL;
		set_err(L, "%s:%d: '%.*s': expected [section], key = value, or a comment", cfg->path, rc,
			n, p ? p : "");
	}
	return L->err ? -1 : 0;
}

static int apply_overrides(struct loader *L, const struct cfg_override *ov, size_t n_ov)
{
	char buf[CFG_EXPECTED_MAX];
	for (size_t i = 0; i < n_ov; i++) {
		const char *sec = ov[i].section ? ov[i].section : "", *key = ov[i].key ? ov[i].key : "";
		const char *value = ov[i].value ? ov[i].value : "";
		int kind = cfg_sec_kind_of(sec);
		if (kind < 0) {
			sections_list(buf, sizeof buf);
			set_err(L, "--set: unknown section [%s]: expected one of %s", sec, buf);
			return -1;
		}
		const struct cfg_key *k = cfg_key_find(kind, key);
		if (!k) {
			cfg_keys_names(kind, -1, buf, sizeof buf);
			set_err(L, "--set: [%s] unknown key '%s': expected one of %s", sec, key, buf);
			return -1;
		}
		struct cfg_raw_section *s = find_section(L, sec);
		if (!s)
			s = add_section(L, sec, kind, SET_ORIGIN, 0);
		struct cfg_raw_entry *e = is_repeated(k) ? NULL : cfg_raw_find(s, key);
		if (e) {
			free(e->value);
			e->value = xstrdup(value);
			e->file = SET_ORIGIN;
			e->line = 0;
		} else {
			add_entry(s, key, value, SET_ORIGIN, 0);
		}
	}
	return 0;
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
				       .from_set = e && e->file == SET_ORIGIN, .line = e ? e->line : 0 };
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
	set_err(L, "%s: [%s] %s = '%s' (default): expected %s",
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
	for (size_t i = 0; i < L->n_s; i++) {
		nj += L->s[i].kind == SEC_JOB;
		nt += L->s[i].kind == SEC_TRAFFIC;
		topology |= L->s[i].kind == SEC_TOPOLOGY;
	}
	cfg->jobs = calloc(nj ? nj : 1, sizeof *cfg->jobs);
	cfg->traffic = calloc(nt ? nt : 1, sizeof *cfg->traffic);
	if (!cfg->jobs || !cfg->traffic)
		abort();
	for (size_t i = 0; i < L->n_s; i++) {
		struct cfg_raw_section *s = &L->s[i];
		const char *dot = strchr(s->name, '.');
		if (s->kind == SEC_JOB) {
			s->base = &cfg->jobs[cfg->n_jobs];
			cfg->jobs[cfg->n_jobs++].name = xstrdup(dot + 1);
		} else if (s->kind == SEC_TRAFFIC) {
			s->base = &cfg->traffic[cfg->n_traffic];
			cfg->traffic[cfg->n_traffic++].name = xstrdup(dot + 1);
		} else {
			s->base = fixed_base(cfg, s->kind);
		}
	}
	if (!topology) {
		set_err(L, "%s: missing required section [topology]: expected type, link_rate, link_delay "
			"and the keys of the type", cfg->path);
		return -1;
	}
	for (size_t i = 0; i < L->n_s; i++)
		if (section_values(L, &L->s[i]) < 0 || cfg_section_rules(cfg, &L->s[i], &L->err) < 0)
			return -1;
	return cfg_global_rules(cfg, L->s, L->n_s, &L->err);
}

static void build_origins(struct loader *L)
{
	struct config *cfg = L->cfg;
	size_t n = 0;
	for (size_t i = 0; i < L->n_s; i++)
		n += L->s[i].n;
	cfg->origins = calloc(n ? n : 1, sizeof *cfg->origins);
	cfg->section_origins = calloc(L->n_s ? L->n_s : 1, sizeof *cfg->section_origins);
	if (!cfg->origins || !cfg->section_origins)
		abort();
	for (size_t i = 0; i < L->n_s; i++) {
		struct cfg_raw_section *s = &L->s[i];
		cfg->section_origins[cfg->n_section_origins++] =
			(struct cfg_origin){ xstrdup(s->name), NULL, NULL, s->file, s->line };
		for (size_t j = 0; j < s->n; j++)
			cfg->origins[cfg->n_origins++] = (struct cfg_origin){
				xstrdup(s->name), xstrdup(s->e[j].key), xstrdup(s->e[j].value),
				s->e[j].file, s->e[j].line };
	}
}

static void free_raw(struct loader *L)
{
	for (size_t i = 0; i < L->n_s; i++) {
		for (size_t j = 0; j < L->s[i].n; j++) {
			free(L->s[i].e[j].key);
			free(L->s[i].e[j].value);
		}
		free(L->s[i].e);
		free(L->s[i].name);
	}
	free(L->s);
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

int config_load(struct config *cfg, const char *path,
		const struct cfg_override *ov, size_t n_ov, char **err)
{
	struct loader L = { .cfg = cfg, .cur = -1 };
	memset(cfg, 0, sizeof *cfg);
	set_names(cfg, path);
	if (read_file(&L) == 0 && apply_overrides(&L, ov, n_ov) == 0 && validate(&L) == 0) {
		build_origins(&L);
		if (cfg_resolve_text(cfg) < 0)
			set_err(&L, "%s: out of memory", cfg->path);
	}
	free_raw(&L);
	if (L.err) {
		config_free(cfg);
		*err = L.err;
		return -1;
	}
	return 0;
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
	return (unsigned)t <= TOPO_HPCC ? cfg_topo_type_names[t] : "unknown";
}
