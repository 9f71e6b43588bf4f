/*
 * config_read.c — the first two passes of loading a scenario (config.c):
 * reading the .ini text into raw sections of (key, value, file, line) with
 * inih, then applying --set overrides to them. Nothing is typed here;
 * config.c validates the raw sections against the schema's key tables
 * afterwards.
 *
 * Caught here, each at its line: what inih cannot parse, unknown sections
 * and keys, sections and keys given twice (other than repeated keys such
 * as `flow`), and lines too long for inih's buffer.
 *
 * Lines. Debian's inih is built with INI_MAX_LINE 200 (197 characters of
 * text) and passes no line numbers to the handler, so inih reads through
 * our reader, which counts lines and refuses an over-long line instead of
 * letting inih cut it silently. Long values are written over several lines
 * instead: a non-blank, non-comment line that starts with blanks and
 * follows a key of the current section continues that key's value. The
 * reader appends it to the key's last entry, joined by one space (so a
 * list, a per-rate map or a flow simply goes on), and hands inih an empty
 * line. Doing this here rather than with inih's INI_ALLOW_MULTILINE keeps
 * it independent of how inih was built, and keeps a continued `flow =`
 * one flow: inih would call the handler again with the same key, which
 * cannot be told apart from a second `flow =` line. The typed parser of
 * config_values.c then judges the joined value. An indented line straight
 * after a section header is an ordinary line, as in Python's configparser.
 */
#define _GNU_SOURCE  /* vasprintf, strndup */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>
#include "config_internal.h"
#include "lex.h"
#include "xalloc.h"

const char cfg_set_origin[] = "--set";
#define SET_ORIGIN cfg_set_origin

/* The reader's and handler's state while inih runs over cfg->text. */
struct read_state {
	struct config *cfg;
	struct cfg_raw *raw;
	const char *pos;              /* reader position in cfg->text */
	int line;                     /* line last handed to inih */
	int cur;                      /* current section, -1 before the first */
	int last;                     /* its entry a continuation line extends; -1: none */
	char *err;                    /* first error */
};

void cfg_set_err(char **err, const char *fmt, ...)
{
	if (*err)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		abort();
	va_end(ap);
}

static struct cfg_raw_section *find_section(struct cfg_raw *raw, const char *name)
{
	for (size_t i = 0; i < raw->n; i++)
		if (strcmp(raw->s[i].name, name) == 0)
			return &raw->s[i];
	return NULL;
}

struct cfg_raw_entry *cfg_raw_find(const struct cfg_raw_section *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->e[i].key, key) == 0)
			return &s->e[i];
	return NULL;
}

static struct cfg_raw_section *add_section(struct cfg_raw *raw, const char *name,
					   const struct cfg_section *sec, const char *file, int line)
{
	raw->s = xrealloc(raw->s, (raw->n + 1) * sizeof *raw->s);
	raw->s[raw->n] = (struct cfg_raw_section){ .name = xstrdup(name), .sec = sec,
						   .file = file, .line = line };
	return &raw->s[raw->n++];
}

static void add_entry(struct cfg_raw_section *s, const char *key, const char *value,
		      const char *file, int line)
{
	s->e = xrealloc(s->e, (s->n + 1) * sizeof *s->e);
	s->e[s->n++] = (struct cfg_raw_entry){ xstrdup(key), xstrdup(value), file, line };
}

static bool is_repeated(const struct cfg_key *k)
{
	return k->type == KT_CUSTOM && k->custom->repeated;
}

/* A section header met by the reader: [name]. Headers are handled here
 * rather than in inih's handler, which never sees a section without keys. */
static void section_header(struct read_state *R, const char *line)
{
	char buf[CFG_EXPECTED_MAX];
	char mean[96];
	const char *file = R->cfg->path;
	const char *close = strchr(line, ']');
	R->last = -1;
	if (!close) {
		cfg_set_err(&R->err, "%s:%d: '%s': expected a section header [NAME]", file, R->line, line);
		return;
	}
	const char *after = close + 1 + strspn(close + 1, " \t");
	if (*after && *after != ';' && *after != '#') {
		cfg_set_err(&R->err, "%s:%d: '%s': expected nothing but a comment after the section header",
			    file, R->line, line);
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
	bool bad_name;
	const struct cfg_section *sec = cfg_sec_of(R->cfg->schema, name, &bad_name);
	struct cfg_raw_section *dup;
	if (!sec) {
		cfg_sections_list(R->cfg->schema, buf, sizeof buf);
		if (bad_name)
			cfg_set_err(&R->err, "%s:%d: section [%s]: expected a NAME of letters, digits, '_', '-' or '.'",
				    file, R->line, name);
		else
			cfg_set_err(&R->err, "%s:%d: unknown section [%s]%s: expected one of %s",
				    file, R->line, name,
				    cfg_section_did_you_mean(R->cfg->schema, name, mean, sizeof mean), buf);
	} else if ((dup = find_section(R->raw, name))) {
		cfg_set_err(&R->err, "%s:%d: section [%s] given twice (first at line %d): expected each section once",
			    file, R->line, name, dup->line);
	} else {
		add_section(R->raw, name, sec, file, R->line);
		R->cur = (int)R->raw->n - 1;
	}
	free(name);
}

/* A continuation line (leading blanks already skipped, len > 0): appended
 * to the current section's last entry with one space. An inline comment
 * ends it as inih ends a value's: at a ';' that follows a blank. */
static void continuation(struct read_state *R, const char *t, size_t len)
{
	struct cfg_raw_section *s = &R->raw->s[R->cur];
	struct cfg_raw_entry *e = &s->e[R->last];
	for (size_t i = 1; i < len; i++)
		if (t[i] == ';' && (t[i - 1] == ' ' || t[i - 1] == '\t')) {
			len = i;
			break;
		}
	while (len && (t[len - 1] == ' ' || t[len - 1] == '\t'))
		len--;
	/* `  hosts = 4` under an indented key list would otherwise silently
	 * become part of the previous value. */
	size_t name_len = strcspn(t, "=:");
	if (name_len < len && cfg_key_named(s->sec, t, name_len)) {
		cfg_set_err(&R->err, "%s:%d: [%s] '%.*s': expected a key at the start of its line "
			    "(an indented line continues the value of %s from line %d)",
			    R->cfg->path, R->line, s->name, (int)len, t, e->key, e->line);
		return;
	}
	size_t old = strlen(e->value);
	e->value = xrealloc(e->value, old + 1 + len + 1);
	e->value[old] = ' ';
	memcpy(e->value + old + 1, t, len);
	e->value[old + 1 + len] = '\0';
}

/* inih reader: hands over one line of cfg->text at a time (see the file
 * comment): counts lines, refuses lines inih would cut at its buffer size
 * `num`, takes continuation lines itself and strips leading blanks. */
static char *reader(char *str, int num, void *stream)
{
	struct read_state *R = stream;
	if (R->err || *R->pos == '\0')
		return NULL;
	const char *b = R->pos;
	const char *nl = strchr(b, '\n');
	size_t len = nl ? (size_t)(nl - b) : strlen(b);
	R->pos = nl ? nl + 1 : b + len;
	R->line++;
	if (R->line == 1 && len >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) {
		b += 3;
		len -= 3;
	}
	if (len && b[len - 1] == '\r')
		len--;
	if (len + 3 > (size_t)num) {  /* inih needs room for "\r\n\0" */
		cfg_set_err(&R->err, "%s:%d: line of %zu characters: expected at most %d characters per line; "
			    "continue a long value on indented lines", R->cfg->path, R->line, len, num - 3);
		return NULL;
	}
	size_t indent = 0;
	while (indent < len && (b[indent] == ' ' || b[indent] == '\t'))
		indent++;
	b += indent;
	len -= indent;
	if (indent && len && *b != ';' && *b != '#' && R->cur >= 0 && R->last >= 0) {
		continuation(R, b, len);
		if (R->err)
			return NULL;
		strcpy(str, "\n");
		return str;
	}
	memcpy(str, b, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	if (*b == '[') {
		str[len] = '\0';
		section_header(R, str);
		if (R->err)
			return NULL;
		str[len] = '\n';
	}
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct read_state *R = user;
	char buf[CFG_EXPECTED_MAX];
	char mean[96];
	const char *file = R->cfg->path;
	(void)section;  /* the reader tracks sections, trimmed and validated */
	if (R->err)
		return 0;
	if (R->cur < 0) {
		cfg_set_err(&R->err, "%s:%d: %s = '%s' outside any section: expected a [section] header first",
			    file, R->line, name, value);
		return 0;
	}
	struct cfg_raw_section *s = &R->raw->s[R->cur];
	const struct cfg_key *k = cfg_key_find(s->sec, NULL, name);
	if (!k) {
		cfg_keys_names(s->sec, NULL, buf, sizeof buf);
		cfg_set_err(&R->err, "%s:%d: [%s] unknown key '%s'%s: expected one of %s",
			    file, R->line, s->name, name, cfg_did_you_mean(name, buf, mean, sizeof mean), buf);
		return 0;
	}
	struct cfg_raw_entry *dup = cfg_raw_find(s, name);
	if (dup && !is_repeated(k)) {
		cfg_set_err(&R->err, "%s:%d: [%s] %s = '%s': key given twice (first at line %d): expected each key once",
			    file, R->line, s->name, name, value, dup->line);
		return 0;
	}
	add_entry(s, name, value, file, R->line);
	R->last = (int)s->n - 1;
	return 1;
}

static int parse_text(struct config *cfg, struct cfg_raw *raw, char **err);

/* Whether len bytes of text hold a NUL byte, which would end the text
 * early for inih (*err set then). */
static bool has_nul(const struct config *cfg, const char *text, size_t len, char **err)
{
	if (!memchr(text, '\0', len))
		return false;
	cfg_set_err(err, "%s: cannot read: expected a text file (it contains NUL bytes)", cfg->path);
	return true;
}

int cfg_read_file(struct config *cfg, struct cfg_raw *raw, char **err)
{
	size_t len;
	if (lex_read_file(cfg->path, &cfg->text, &len, err) < 0 || has_nul(cfg, cfg->text, len, err))
		return -1;
	return parse_text(cfg, raw, err);
}

int cfg_read_mem(struct config *cfg, struct cfg_raw *raw, const char *text, size_t len, char **err)
{
	if (has_nul(cfg, text, len, err))
		return -1;
	cfg->text = xmalloc(len + 1);
	memcpy(cfg->text, text, len);
	cfg->text[len] = '\0';
	return parse_text(cfg, raw, err);
}

/* Pass 1 over cfg->text (NUL-terminated, no NUL inside). */
static int parse_text(struct config *cfg, struct cfg_raw *raw, char **err)
{
	struct read_state R = { .cfg = cfg, .raw = raw, .cur = -1, .last = -1 };
	R.pos = cfg->text;
	int rc = ini_parse_stream(reader, &R, handler, &R);
	if (rc > 0 && (!R.err || rc < R.line)) {
		/* inih's own syntax error (no '=' or ':'), reported at its line. */
		const char *p = cfg->text;
		for (int i = 1; i < rc && p; i++) {
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
		}
		int n = p ? (int)strcspn(p, "\r\n") : 0;
		free(R.err);
		R.err = NULL;
		cfg_set_err(&R.err, "%s:%d: '%.*s': expected [section], key = value, or a comment",
			    cfg->path, rc, n, p ? p : "");
	}
	if (R.err) {
		cfg_set_err(err, "%s", R.err);
		free(R.err);
		return -1;
	}
	return 0;
}

int cfg_apply_overrides(const struct config *cfg, struct cfg_raw *raw, const struct cfg_override *ov,
			size_t n_ov, char **err)
{
	char buf[CFG_EXPECTED_MAX];
	char mean[96];
	for (size_t i = 0; i < n_ov; i++) {
		const char *sec = ov[i].section ? ov[i].section : "", *key = ov[i].key ? ov[i].key : "";
		const char *value = ov[i].value ? ov[i].value : "";
		bool bad_name;
		const struct cfg_section *cs = cfg_sec_of(cfg->schema, sec, &bad_name);
		if (!cs) {
			cfg_sections_list(cfg->schema, buf, sizeof buf);
			cfg_set_err(err, "--set: unknown section [%s]%s: expected one of %s", sec,
				    cfg_section_did_you_mean(cfg->schema, sec, mean, sizeof mean), buf);
			return -1;
		}
		const struct cfg_key *k = cfg_key_find(cs, NULL, key);
		if (!k) {
			cfg_keys_names(cs, NULL, buf, sizeof buf);
			cfg_set_err(err, "--set: [%s] unknown key '%s'%s: expected one of %s", sec, key,
				    cfg_did_you_mean(key, buf, mean, sizeof mean), buf);
			return -1;
		}
		struct cfg_raw_section *s = find_section(raw, sec);
		if (!s)
			s = add_section(raw, sec, cs, SET_ORIGIN, 0);
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

void cfg_raw_free(struct cfg_raw *raw)
{
	for (size_t i = 0; i < raw->n; i++) {
		for (size_t j = 0; j < raw->s[i].n; j++) {
			free(raw->s[i].e[j].key);
			free(raw->s[i].e[j].value);
		}
		free(raw->s[i].e);
		free(raw->s[i].name);
	}
	free(raw->s);
	raw->s = NULL;
	raw->n = 0;
}
