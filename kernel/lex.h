/*
 * lex.h — tokens of whitespace-separated text files (the input files of
 * other simulators, which read them with C++ `>>`: only the order of the
 * tokens matters, not how they are split over lines), with the line of
 * each token for located errors "NAME:LINE: what was found, what was
 * expected".
 */
#ifndef ROCESIM_LEX_H
#define ROCESIM_LEX_H

#include <stddef.h>
#include <stdint.h>

#define LEX_TOK_MAX 64             /* longest token accepted, NUL included */

struct lex {
	const char *name;          /* file name for messages */
	const char *p, *end;
	int line;                  /* line of p */
	int tok_line;              /* line of the last token read (at the end: of the
				    * last token there was, so messages name a real line) */
	char tok[LEX_TOK_MAX];
	char **err;
};

/* Tokens of len bytes of text (no NUL needed), errors into *err. */
void lex_init(struct lex *lx, const char *name, const char *text, size_t len, char **err);
/* "NAME:LINE: MESSAGE" into *err (malloc'd) at the last token's line; -1. */
int lex_err(struct lex *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Next token into lx->tok: 1, 0 at the end of the text, -1 on a bad byte or
 * an overlong token (*err set). `what` names the expected token. */
int lex_next(struct lex *lx, const char *what);
/* A token that must be there: 0 or -1. */
int lex_need(struct lex *lx, const char *what);
/* An unsigned decimal integer <= max: 0 or -1. */
int lex_uint(struct lex *lx, const char *what, uint64_t max, uint64_t *out);
/* Nothing but whitespace may follow the last record: 0 or -1. */
int lex_end(struct lex *lx, const char *after);
/* Reads a whole file into *text (malloc'd, NUL-terminated, *len bytes
 * before the NUL). 0, or -1 with *err "PATH: cannot read: REASON". */
int lex_read_file(const char *path, char **text, size_t *len, char **err);

#endif
