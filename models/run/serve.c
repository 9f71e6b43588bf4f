/*
 * serve.c — `sim --serve SCENARIO.ini`: the line protocol over the C API
 * (rocesim.h), for drivers in any language (docs/library.md "Line
 * protocol"). One request per line on the input, exactly one reply line per
 * request on the output, flushed at once:
 *
 *   endpoint NAME                       -> ok ID
 *   post msg SRC DST BYTES AT TAG       -> ok
 *   post coll OP ALG BYTES AT TAG GPU.. -> ok          (ALG '-' = the op's default)
 *   options CHUNK CHANNELS              -> ok
 *   advance T                           -> ok NOW
 *   next [LIMIT]                        -> done TAG TIME BYTES KIND POSTED ID | none NOW
 *   poll                                -> done ... | none NOW
 *   now | pending                       -> ok N
 *   close                               -> ok STATUS   (and the server exits)
 *   anything else                       -> error CODE MESSAGE
 * SRC, DST and GPU are names (host3.gpu1, host3) or endpoint numbers;
 * BYTES a bare integer (bytes) or a size with its unit (1MiB); AT, T and
 * LIMIT a bare integer (ps) or a time with its unit (10us); AT may also be
 * after:TAG (start when the pending post tagged TAG completes). KIND is msg or
 * coll. CODE is input, past, name, arg, stalled, idle, io or syntax. End of
 * input closes the run as `close` does (its reply still written). Empty
 * lines and lines starting with '#' get no reply.
 */
#include <ctype.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rocesim.h"
#include "log.h"
#include "run.h"
#include "serve.h"
#include "units.h"
#include "xalloc.h"

#define SERVE_MAX_WORDS 4096        /* a collective over up to ~4000 GPUs on one line */

static const char *code_name(int rc)
{
	switch (rc) {
	case ROCESIM_E_INPUT: return "input";
	case ROCESIM_E_PAST: return "past";
	case ROCESIM_E_NAME: return "name";
	case ROCESIM_E_ARG: return "arg";
	case ROCESIM_E_STALLED: return "stalled";
	case ROCESIM_E_IDLE: return "idle";
	case ROCESIM_E_IO: return "io";
	default: return "internal";
	}
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A bare integer, or a value with its unit; 0 or -1 with why. */
static int parse_size(const char *s, uint64_t *out, char *why)
{
	if (all_digits(s)) {
		*out = strtoull(s, NULL, 10);
		return 0;
	}
	return units_size(s, out, why);
}

static int parse_time(const char *s, int64_t *out, char *why)
{
	if (all_digits(s)) {
		*out = strtoll(s, NULL, 10);
		return 0;
	}
	simtime_t t;
	if (units_time(s, &t, why) < 0)
		return -1;
	*out = t;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out);

/* AT: a time, or after:TAG (*after set). */
static int parse_at(const char *s, int64_t *at, bool *after, uint64_t *tag, char *why)
{
	*after = strncmp(s, "after:", 6) == 0;
	if (*after) {
		if (parse_u64(s + 6, tag) == 0)
			return 0;
		snprintf(why, UNITS_EXPECTED_MAX, "after:TAG with TAG an unsigned integer, got '%s'", s);
		return -1;
	}
	return parse_time(s, at, why);
}

static int parse_u64(const char *s, uint64_t *out)
{
	if (!all_digits(s))
		return -1;
	*out = strtoull(s, NULL, 10);
	return 0;
}

struct server {
	rocesim *h;
	FILE *out;
	char why[UNITS_EXPECTED_MAX];
};

/* The replies of errors; they return 0 so that a request's code can
 * return them. */
static int reply_error(struct server *s, int rc)
{
	fprintf(s->out, "error %s %s\n", code_name(rc), rocesim_last_error(s->h));
	return 0;
}

static int syntax(struct server *s, const char *fmt, const char *arg)
{
	fputs("error syntax ", s->out);
	fprintf(s->out, fmt, arg);
	fputc('\n', s->out);
	return 0;
}

/* An endpoint by name or number; < 0 (replied) when unknown. */
static int endpoint(struct server *s, const char *w)
{
	if (all_digits(w))
		return atoi(w);
	int id = rocesim_endpoint(s->h, w);
	if (id < 0)
		reply_error(s, id);
	return id;
}

static void reply_completion(struct server *s, int rc, const struct rocesim_completion *c)
{
	if (rc < 0)
		reply_error(s, rc);
	else if (rc == 0)
		fprintf(s->out, "none %" PRId64 "\n", rocesim_now(s->h));
	else
		fprintf(s->out, "done %" PRIu64 " %" PRId64 " %" PRIu64 " %s %" PRId64 " %" PRId64 "\n", c->tag,
			c->time_ps, c->bytes, c->kind == ROCESIM_COLL ? "coll" : "msg", c->posted_ps, c->id);
}

static int post_msg(struct server *s, char **w, int n)
{
	uint64_t bytes, tag, prev = 0;
	int64_t at = 0;
	bool after;
	if (n != 7)
		return syntax(s, "%s", "expected: post msg SRC DST BYTES AT TAG");
	if (parse_size(w[4], &bytes, s->why) < 0)
		return syntax(s, "BYTES: %s", s->why);
	if (parse_at(w[5], &at, &after, &prev, s->why) < 0)
		return syntax(s, "AT: %s", s->why);
	if (parse_u64(w[6], &tag) < 0)
		return syntax(s, "TAG '%s': expected an unsigned integer", w[6]);
	int src = endpoint(s, w[2]);
	if (src < 0)
		return 0;
	int dst = endpoint(s, w[3]);
	if (dst < 0)
		return 0;
	int rc = after ? rocesim_post_msg_after(s->h, prev, src, dst, bytes, tag)
		       : rocesim_post_msg(s->h, src, dst, bytes, at, tag);
	if (rc < 0)
		return reply_error(s, rc);
	fputs("ok\n", s->out);
	return 0;
}

static int post_coll(struct server *s, char **w, int n)
{
	uint64_t bytes, tag, prev = 0;
	int64_t at = 0;
	bool after;
	if (n < 9)
		return syntax(s, "%s", "expected: post coll OP ALG BYTES AT TAG GPU GPU...");
	if (parse_size(w[4], &bytes, s->why) < 0)
		return syntax(s, "BYTES: %s", s->why);
	if (parse_at(w[5], &at, &after, &prev, s->why) < 0)
		return syntax(s, "AT: %s", s->why);
	if (parse_u64(w[6], &tag) < 0)
		return syntax(s, "TAG '%s': expected an unsigned integer", w[6]);
	int ng = n - 7;
	int *g = xmalloc((size_t)ng * sizeof *g);
	for (int i = 0; i < ng; i++)
		if ((g[i] = endpoint(s, w[7 + i])) < 0) {
			free(g);
			return 0;
		}
	const char *alg = strcmp(w[3], "-") == 0 ? NULL : w[3];
	int rc = after ? rocesim_post_coll_after(s->h, prev, w[2], alg, g, (size_t)ng, bytes, tag)
		       : rocesim_post_coll(s->h, w[2], alg, g, (size_t)ng, bytes, at, tag);
	free(g);
	if (rc < 0)
		return reply_error(s, rc);
	fputs("ok\n", s->out);
	return 0;
}

/* One request; returns 1 after close. */
static int request(struct server *s, char **w, int n, int *status_rc)
{
	struct rocesim_completion c;
	int64_t t;
	const char *cmd = w[0];
	if (strcmp(cmd, "post") == 0 && n >= 2 && strcmp(w[1], "msg") == 0) {
		post_msg(s, w, n);
	} else if (strcmp(cmd, "post") == 0 && n >= 2 && strcmp(w[1], "coll") == 0) {
		post_coll(s, w, n);
	} else if (strcmp(cmd, "advance") == 0 && n == 2) {
		if (parse_time(w[1], &t, s->why) < 0)
			syntax(s, "T: %s", s->why);
		else if ((*status_rc = rocesim_advance(s->h, t)) < 0)
			reply_error(s, *status_rc);
		else
			fprintf(s->out, "ok %" PRId64 "\n", rocesim_now(s->h));
	} else if (strcmp(cmd, "next") == 0 && n <= 2) {
		t = INT64_MAX;
		if (n == 2 && parse_time(w[1], &t, s->why) < 0)
			syntax(s, "LIMIT: %s", s->why);
		else
			reply_completion(s, rocesim_next(s->h, t, &c), &c);
	} else if (strcmp(cmd, "poll") == 0 && n == 1) {
		reply_completion(s, rocesim_poll(s->h, &c), &c);
	} else if (strcmp(cmd, "now") == 0 && n == 1) {
		fprintf(s->out, "ok %" PRId64 "\n", rocesim_now(s->h));
	} else if (strcmp(cmd, "pending") == 0 && n == 1) {
		fprintf(s->out, "ok %d\n", rocesim_pending(s->h));
	} else if (strcmp(cmd, "endpoint") == 0 && n == 2) {
		int id = endpoint(s, w[1]);
		if (id >= 0)
			fprintf(s->out, "ok %d\n", id);
	} else if (strcmp(cmd, "options") == 0 && n == 3) {
		uint64_t chunk;
		int rc;
		if (parse_size(w[1], &chunk, s->why) < 0)
			syntax(s, "CHUNK: %s", s->why);
		else if (!all_digits(w[2]))
			syntax(s, "CHANNELS '%s': expected an integer", w[2]);
		else if ((rc = rocesim_coll_options(s->h, chunk, atoi(w[2]))) < 0)
			reply_error(s, rc);
		else
			fputs("ok\n", s->out);
	} else if (strcmp(cmd, "close") == 0 && n == 1) {
		return 1;
	} else {
		syntax(s, "unknown request '%s': expected endpoint, post msg, post coll, options, advance, "
		       "next, poll, now, pending or close (with their arguments)", cmd);
	}
	return 0;
}

int serve_run(const char *scenario, const char *const *sets, size_t n_sets, const char *output, FILE *in,
	      FILE *out)
{
	struct server s = { .out = out };
	s.h = rocesim_open(scenario, sets, n_sets, output);
	if (!s.h) {
		fprintf(stderr, "sim: %s\n", rocesim_last_error(NULL));
		return EXIT_INPUT;
	}
	char *line = NULL;
	size_t cap = 0;
	char **w = xmalloc(SERVE_MAX_WORDS * sizeof *w);
	int stalled = 0;
	while (getline(&line, &cap, in) >= 0) {
		int n = 0;
		for (char *tok = strtok(line, " \t\r\n"); tok && n < SERVE_MAX_WORDS; tok = strtok(NULL, " \t\r\n"))
			w[n++] = tok;
		if (!n || w[0][0] == '#')
			continue;
		int rc = 0;
		if (n == SERVE_MAX_WORDS)
			syntax(&s, "a line of more than %s words", "4095");
		else if (request(&s, w, n, &rc))
			break;
		if (rc == ROCESIM_E_STALLED)
			stalled = 1;
		fflush(out);
	}
	free(w);
	free(line);
	const char *status;
	int rc = rocesim_close(s.h, &status);
	if (rc == ROCESIM_E_IO)
		fprintf(out, "error io %s\n", "the result database could not be written");
	else
		fprintf(out, "ok %s\n", status);
	fflush(out);
	return rc == ROCESIM_E_STALLED || stalled ? EXIT_STALLED : rc ? EXIT_INTERNAL : 0;
}
