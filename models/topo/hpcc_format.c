/*
 * hpcc_format.c — parsers of HPCC ns-3's topology.txt and flow.txt (see
 * hpcc_format.h for the formats and the node naming).
 *
 * HPCC's ns-3 reads both files with C++ `>>`, so only the order of
 * whitespace-separated tokens matters, not how they are split over lines;
 * we read them the same way and report the line of the offending token.
 *
 * Hostile input (these functions are fuzzed): every token is copied into a
 * bounded buffer (a longer one is an error), any control byte other than
 * whitespace is an error, integers are checked for overflow, and declared
 * counts are checked against what the text could possibly hold before
 * anything is allocated, so memory stays O(len).
 */
#include "hpcc_format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "units.h"
#include "xalloc.h"

#define TOK_MAX 64                 /* longest token accepted, NUL included */

struct lex {
	const char *name;          /* file name for messages */
	const char *p, *end;
	int line;                  /* line of p */
	int tok_line;              /* line of the last token read (at the end: of the
				    * last token there was, so messages name a real line) */
	char tok[TOK_MAX];
	char **err;
};

static int lex_err(struct lex *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int lex_err(struct lex *lx, const char *fmt, ...)
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
static int lex_next(struct lex *lx, const char *what)
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
		if (n + 1 >= TOK_MAX)
			return lex_err(lx, "a token longer than %d bytes where %s was expected",
				       TOK_MAX - 1, what);
		lx->tok[n++] = (char)c;
		lx->p++;
	}
	lx->tok[n] = '\0';
	return 1;
}

/* A token that must be there. */
static int lex_need(struct lex *lx, const char *what)
{
	int r = lex_next(lx, what);
	if (r == 0)
		return lex_err(lx, "the file ends where %s was expected", what);
	return r < 0 ? -1 : 0;
}

/* An unsigned decimal integer <= max. */
static int lex_uint(struct lex *lx, const char *what, uint64_t max, uint64_t *out)
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
static int lex_end(struct lex *lx, const char *after)
{
	int r = lex_next(lx, "the end of the file");
	if (r < 0)
		return -1;
	if (r > 0)
		return lex_err(lx, "unexpected '%s' after %s; expected the end of the file",
			       lx->tok, after);
	return 0;
}

/* ---- topology.txt ------------------------------------------------------ */

int hpcc_topology_parse(const char *name, const char *text, size_t len, struct topo *t,
			char **err)
{
	struct lex lx = { .name = name, .p = text, .end = text + len, .line = 1, .tok_line = 1,
			  .err = err };
	memset(t, 0, sizeof *t);
	*err = NULL;
	uint64_t n_nodes, n_sw, n_links;
	unsigned char *is_sw = NULL;
	int *our_id = NULL, *deg = NULL;

	if (lex_uint(&lx, "the node count", TOPO_MAX_NODES, &n_nodes) < 0 ||
	    lex_uint(&lx, "the switch count", TOPO_MAX_NODES, &n_sw) < 0 ||
	    lex_uint(&lx, "the link count", INT32_MAX / 2, &n_links) < 0)
		goto fail;
	/* What the text can hold: a switch id takes >= 2 bytes, a link line
	 * ("0 1 1bps 0s 0\n") >= 14 (8 keeps the message for a truncated file
	 * "the file ends" while memory stays O(len)), and every host needs a
	 * link. */
	if (n_sw > n_nodes) {
		lex_err(&lx, "%llu switches among %llu nodes; expected at most as many switches as nodes",
			(unsigned long long)n_sw, (unsigned long long)n_nodes);
		goto fail;
	}
	if (n_sw > len / 2 || n_links > len / 8) {
		lex_err(&lx, "%llu switches and %llu links declared, more than the %zu bytes of "
			"the file can hold", (unsigned long long)n_sw, (unsigned long long)n_links, len);
		goto fail;
	}
	if (n_nodes - n_sw > 2 * n_links) {
		lex_err(&lx, "%llu hosts but %llu links: expected every host on a link",
			(unsigned long long)(n_nodes - n_sw), (unsigned long long)n_links);
		goto fail;
	}
	if (n_nodes == n_sw) {
		lex_err(&lx, "%llu nodes, all switches: expected at least one host",
			(unsigned long long)n_nodes);
		goto fail;
	}
	int nn = (int)n_nodes;
	is_sw = xcalloc((size_t)nn, 1);
	for (uint64_t i = 0; i < n_sw; i++) {
		uint64_t id;
		if (lex_uint(&lx, "a switch id", n_nodes - 1, &id) < 0)
			goto fail;
		if (is_sw[id]) {
			lex_err(&lx, "switch id %llu is listed twice", (unsigned long long)id);
			goto fail;
		}
		is_sw[id] = 1;
	}

	/* Our ids: hosts in HPCC id order, then switches in HPCC id order. */
	int n_hosts = nn - (int)n_sw;
	our_id = xmalloc((size_t)nn * sizeof *our_id);
	if (topo_reserve(t, nn, (int)n_links) < 0)
		goto oom;
	t->hpcc_id = malloc((size_t)nn * sizeof *t->hpcc_id);
	if (!t->hpcc_id)
		goto oom;
	for (int pass = 0; pass < 2; pass++)
		for (int id = 0, h = 0, s = 0; id < nn; id++) {
			if (is_sw[id] != pass)
				continue;
			int u = pass ? topo_add_named(t, "sw", s++, NODE_SWITCH, 1)
				     : topo_add_named(t, "host", h++, NODE_HOST, 0);
			if (u < 0)
				goto oom;
			our_id[id] = u;
			t->hpcc_id[u] = id;
		}
	t->n_hosts = n_hosts;
	t->nics_per_host = 1;

	deg = xcalloc((size_t)nn, sizeof *deg);
	for (uint64_t i = 0; i < n_links; i++) {
		uint64_t a, b;
		uint64_t rate;
		simtime_t delay;
		double loss;
		char expected[UNITS_EXPECTED_MAX];
		if (lex_uint(&lx, "a link's first node id", n_nodes - 1, &a) < 0 ||
		    lex_uint(&lx, "a link's second node id", n_nodes - 1, &b) < 0)
			goto fail;
		if (a == b) {
			lex_err(&lx, "link from node %llu to itself; expected two distinct nodes",
				(unsigned long long)a);
			goto fail;
		}
		if (!is_sw[a] && !is_sw[b]) {
			lex_err(&lx, "link between hosts %llu and %llu; expected a host to link to a switch",
				(unsigned long long)a, (unsigned long long)b);
			goto fail;
		}
		if (lex_need(&lx, "a link rate") < 0)
			goto fail;
		if (units_rate(lx.tok, &rate, expected) < 0) {
			lex_err(&lx, "link rate '%s': expected %s", lx.tok, expected);
			goto fail;
		}
		if (rate == 0) {
			lex_err(&lx, "link rate '%s': expected a rate greater than 0", lx.tok);
			goto fail;
		}
		if (lex_need(&lx, "a link delay") < 0)
			goto fail;
		if (units_time(lx.tok, &delay, expected) < 0) {
			lex_err(&lx, "link delay '%s': expected %s", lx.tok, expected);
			goto fail;
		}
		if (delay < 0) {
			lex_err(&lx, "link delay '%s': expected a delay that is not negative", lx.tok);
			goto fail;
		}
		if (lex_need(&lx, "a link error rate") < 0)
			goto fail;
		if (units_number(lx.tok, &loss, expected) < 0 || loss != 0.0) {
			lex_err(&lx, "link error rate '%s': expected 0 (rocesim models no random link loss)",
				lx.tok);
			goto fail;
		}
		/* The host end is `a` (topology.h); switch-switch links keep the
		 * file's order, and ports are numbered in file order. */
		int ua = our_id[a], ub = our_id[b];
		if (!is_sw[b]) {
			int x = ua;
			ua = ub;
			ub = x;
		}
		if (ua < n_hosts && ++deg[ua] > 1) {
			lex_err(&lx, "host %d (%s) has a second link; expected one link per host",
				t->hpcc_id[ua], t->nodes[ua].name);
			goto fail;
		}
		if (topo_add_link(t, ua, ub, rate, delay) < 0)
			goto oom;
	}
	if (lex_end(&lx, "the last link") < 0)
		goto fail;
	for (int u = 0; u < n_hosts; u++)
		if (!deg[u]) {
			lex_err(&lx, "host %d (%s) has no link; expected every host on one link",
				t->hpcc_id[u], t->nodes[u].name);
			goto fail;
		}
	topo_finalize(t);
	if (!t->port_off)
		goto oom;
	free(is_sw);
	free(our_id);
	free(deg);
	return 0;
oom:
	err_printf(err, "%s: out of memory for %llu nodes and %llu links", name,
		   (unsigned long long)n_nodes, (unsigned long long)n_links);
fail:
	free(is_sw);
	free(our_id);
	free(deg);
	topology_free(t);
	return -1;
}

/* ---- flow.txt ---------------------------------------------------------- */

/* "2.000000962" -> 2000000962000 ps, exactly: seconds as a decimal with at
 * most 12 fractional digits (a ps), no sign, no exponent. */
static int parse_seconds(const char *s, simtime_t *out)
{
	/* 9223371 s: with up to 0.999999999999 s added it still fits int64 ps. */
	const simtime_t max_s = INT64_MAX / 1000000000000LL - 1;
	simtime_t whole = 0, frac = 0;
	int digits = 0, frac_digits = 0;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > (max_s - (*s - '0')) / 10)
			return -1;
		whole = whole * 10 + (*s - '0');
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (++frac_digits > 12)
				return -1;
			frac = frac * 10 + (*s - '0');
		}
	if (*s || !digits)
		return -1;
	for (int i = frac_digits; i < 12; i++)
		frac *= 10;
	*out = whole * 1000000000000LL + frac;
	return 0;
}

struct pair_key { int src, dst; size_t i; };

static int pair_cmp(const void *a, const void *b)
{
	const struct pair_key *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int hpcc_flows_parse(const char *name, const char *text, size_t len, struct hpcc_flow **flows,
		     size_t *n, char **err)
{
	struct lex lx = { .name = name, .p = text, .end = text + len, .line = 1, .tok_line = 1,
			  .err = err };
	*flows = NULL;
	*n = 0;
	*err = NULL;
	uint64_t count;
	struct hpcc_flow *v = NULL;
	/* A flow line ("0 1 3 1 1 0\n") takes >= 12 bytes; 6 keeps memory
	 * O(len) and the message for a truncated file "the file ends". */
	if (lex_uint(&lx, "the flow count", UINT32_MAX, &count) < 0)
		return -1;
	if (count > len / 6) {
		lex_err(&lx, "%llu flows declared, more than the %zu bytes of the file can hold",
			(unsigned long long)count, len);
		return -1;
	}
	v = xcalloc(count ? (size_t)count : 1, sizeof *v);
	for (uint64_t i = 0; i < count; i++) {
		struct hpcc_flow *f = &v[i];
		uint64_t src, dst, pg, dport, size;
		if (lex_uint(&lx, "a flow's source node id", TOPO_MAX_NODES - 1, &src) < 0)
			goto fail;
		f->line = lx.tok_line;
		if (lex_uint(&lx, "a flow's destination node id", TOPO_MAX_NODES - 1, &dst) < 0 ||
		    lex_uint(&lx, "a flow's priority", 7, &pg) < 0 ||
		    lex_uint(&lx, "a flow's destination port", 65535, &dport) < 0 ||
		    lex_uint(&lx, "a flow's size in bytes", UINT64_MAX / 2, &size) < 0)
			goto fail;
		if (src == dst) {
			lex_err(&lx, "flow from node %llu to itself; expected two distinct hosts",
				(unsigned long long)src);
			goto fail;
		}
		if (size == 0) {
			lex_err(&lx, "flow of 0 bytes; expected a size of at least 1 byte");
			goto fail;
		}
		if (lex_need(&lx, "a flow's start time in seconds") < 0)
			goto fail;
		if (parse_seconds(lx.tok, &f->start_ps) < 0) {
			lex_err(&lx, "start time '%s': expected seconds as a decimal number "
				"(at most 12 decimals, below 9223372 s)", lx.tok);
			goto fail;
		}
		if (i > 0 && f->start_ps < v[i - 1].start_ps) {
			lex_err(&lx, "start time %s is before the previous flow's; expected flows "
				"in ascending start time (as HPCC's ns-3 reads them)", lx.tok);
			goto fail;
		}
		f->src = (int)src;
		f->dst = (int)dst;
		f->priority = (int)pg;
		f->dport = (uint32_t)dport;
		f->size_b = size;
	}
	if (lex_end(&lx, "the last flow") < 0)
		goto fail;
	/* HPCC's source ports: each (src, dst) pair counts from 10000 in file
	 * order (third.cc portNumder). A stable sort by pair groups them. */
	if (count) {
		struct pair_key *k = xmalloc((size_t)count * sizeof *k);
		for (size_t i = 0; i < count; i++)
			k[i] = (struct pair_key){ v[i].src, v[i].dst, i };
		qsort(k, (size_t)count, sizeof *k, pair_cmp);
		uint32_t next = 10000;
		for (size_t i = 0; i < count; i++) {
			if (i == 0 || k[i].src != k[i - 1].src || k[i].dst != k[i - 1].dst)
				next = 10000;
			v[k[i].i].sport = next++;
		}
		free(k);
	}
	*flows = v;
	*n = (size_t)count;
	return 0;
fail:
	free(v);
	return -1;
}

/* ---- files ------------------------------------------------------------- */

int hpcc_file_read(const char *path, char **text, size_t *len, char **err)
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
