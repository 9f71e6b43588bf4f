/*
 * lex.c — tokens of whitespace-separated text files (lex.h), and reading
 * such a file whole.
 *
 * Hostile input (the readers built on this are fuzzed): every token is
 * copied into a bounded buffer (a longer one is an error), any control
 * byte other than whitespace is an error, integers are checked for
 * overflow.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lex.h"
#include "log.h"
#include "xalloc.h"

void lex_init(struct lex *lx, const char *name, const char *text, size_t len, char **err)
{
	*lx = (struct lex){ .name = name, .p = text, .end = text + len, .line = 1, .tok_line = 1, .err = err };
}

int lex_err(struct lex *lx, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_printf(lx->err, "%s:%d: %s", lx->name, lx->tok_line, msg);
}

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Next token into lx->tok: 1, 0 at the end of the text, -1 on a bad byte or
 * an overlong token (*err set). `what` names the expected token. */
int lex_next(struct lex *lx, const char *what)
{
	while (lx->p < lx->end && is_space((unsigned char)*lx->p)) {
		if (*lx->p == '\n')
			lx->line++;
		lx->p++;
	}
	if (lx->p == lx->end)
		return 0;
	lx->tok_line = lx->line;
	size_t n = 0;
	while (lx->p < lx->end && !is_space((unsigned char)*lx->p)) {
		unsigned char c = (unsigned char)*lx->p;
		if (c < 0x20 || c == 0x7f)
			return lex_err(lx, "control byte 0x%02x where %s was expected", c, what);
		if (n + 1 >= LEX_TOK_MAX)
			return lex_err(lx, "a token longer than %d bytes where %s was expected",
				       LEX_TOK_MAX - 1, what);
		lx->tok[n++] = (char)c;
		lx->p++;
	}
	lx->tok[n] = '\0';
	return 1;
}

/* A token that must be there. */
int lex_need(struct lex *lx, const char *what)
{
	int r = lex_next(lx, what);
	if (r == 0)
		return lex_err(lx, "the file ends where %s was expected", what);
	return r < 0 ? -1 : 0;
}

/* An unsigned decimal integer <= max. */
int lex_uint(struct lex *lx, const char *what, uint64_t max, uint64_t *out)
{
	if (lex_need(lx, what) < 0)
		return -1;
	uint64_t v = 0;
	const char *s = lx->tok;
	if (!*s)
		return lex_err(lx, "'%s': expected %s (a whole number)", lx->tok, what);
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return lex_err(lx, "'%s': expected %s (a whole number)", lx->tok, what);
		uint64_t d = (uint64_t)(*s - '0');
		if (d > max || v > (max - d) / 10)
			return lex_err(lx, "'%s': %s must be at most %llu", lx->tok, what,
				       (unsigned long long)max);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Nothing but whitespace may follow the last record. */
int lex_end(struct lex *lx, const char *after)
{
	int r = lex_next(lx, "the end of the file");
	if (r < 0)
		return -1;
	if (r > 0)
		return lex_err(lx, "unexpected '%s' after %s; expected the end of the file",
			       lx->tok, after);
	return 0;
}

int lex_read_file(const char *path, char **text, size_t *len, char **err)
{
	*text = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_printf(err, "%s: cannot read: %s", path, strerror(errno));
	size_t cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f)) {
			int e = errno;
			fclose(f);
			free(buf);
			return err_printf(err, "%s: cannot read: %s", path, strerror(e));
		}
		if (feof(f))
			break;
		if (n + 1 == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}
