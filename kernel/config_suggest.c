/*
 * config_suggest.c — "did you mean 'link_rate'?" for a misspelt section,
 * key, value or job name (config_internal.h).
 *
 * The distance is the optimal string alignment distance (Levenshtein's
 * insertions, deletions and substitutions, plus the transposition of two
 * adjacent characters, each costing 1), case-insensitive: "link_rte",
 * "lnik_rate" and "Link_rate" are all 1 from "link_rate". A candidate is
 * suggested when it is the closest and at most max(1, len / 3) edits away
 * (len: the length of what was typed), so a short word gets only a one-edit
 * suggestion ("gtp" -> "gpt") and an unrelated word none.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"

/* Words longer than this are compared on their first CFG_SUGGEST_MAX
 * characters: names in a scenario are far shorter. */
#define CFG_SUGGEST_MAX 63

int cfg_edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	if (la > CFG_SUGGEST_MAX)
		la = CFG_SUGGEST_MAX;
	if (lb > CFG_SUGGEST_MAX)
		lb = CFG_SUGGEST_MAX;
	/* d[i][j]: distance between a[0..i) and b[0..j). */
	int d[CFG_SUGGEST_MAX + 1][CFG_SUGGEST_MAX + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j - 1] + (ai != bj);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Whether c separates words of a list ("a, b or c"). */
static bool is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t';
}

bool cfg_suggest(const char *word, const char *list, char *out, size_t n)
{
	size_t lw = strlen(word);
	int limit = (int)(lw / 3) > 1 ? (int)(lw / 3) : 1;
	int best = limit + 1;
	const char *best_w = NULL;
	size_t best_len = 0;
	if (!lw)
		return false;
	for (const char *p = list; *p; ) {
		while (*p && is_sep(*p))
			p++;
		size_t len = 0;
		while (p[len] && !is_sep(p[len]))
			len++;
		if (!len)
			break;
		/* "or" joins the last word of a list; it is never a candidate. */
		bool joiner = len == 2 && strncmp(p, "or", 2) == 0;
		int dist = joiner ? best : cfg_edit_distance(word, lw, p, len);
		/* An exact match is no misspelling: the caller's error is
		 * another one. */
		if (dist < best && !(len == lw && strncmp(p, word, len) == 0)) {
			best = dist;
			best_w = p;
			best_len = len;
		}
		p += len;
	}
	if (!best_w)
		return false;
	if (n)
		snprintf(out, n, "%.*s", (int)best_len, best_w);
	return true;
}

const char *cfg_did_you_mean(const char *word, const char *list, char *out, size_t n)
{
	char w[CFG_SUGGEST_MAX + 1];
	if (!n)
		return "";
	out[0] = '\0';
	if (cfg_suggest(word, list, w, sizeof w))
		snprintf(out, n, " (did you mean '%s'?)", w);
	return out;
}

const char *cfg_section_did_you_mean(const struct cfg_schema *s, const char *header, char *out, size_t n)
{
	/* A named section's header is compared on its part before the first
	 * dot ("jobb.gpt" -> "job.gpt"); the others whole. */
	const char *dot = strchr(header, '.');
	size_t lh = dot ? (size_t)(dot - header) : strlen(header);
	int limit = (int)(lh / 3) > 1 ? (int)(lh / 3) : 1, best = limit + 1;
	const struct cfg_section *best_s = NULL;
	if (n)
		out[0] = '\0';
	for (size_t i = 0; cfg_sec_at(s, i); i++) {
		const struct cfg_section *sec = cfg_sec_at(s, i);
		if (sec->named != (dot != NULL))
			continue;
		int d = cfg_edit_distance(header, lh, sec->name, strlen(sec->name));
		if (d < best) {
			best = d;
			best_s = sec;
		}
	}
	if (best_s && n)
		snprintf(out, n, " (did you mean '%s%s'?)", best_s->name, dot ? dot : "");
	return n ? out : "";
}
