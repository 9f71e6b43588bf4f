/*
 * sweep_plan.c — a sweep's points (sweep.h): parsing --sweep, the
 * cartesian product in its order, each point's overrides and label.
 *
 * Points are numbered in mixed radix: the last axis is the least
 * significant digit, so the first --sweep varies slowest, as nested loops
 * written in the order of the command line would.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep.h"
#include "xalloc.h"

void sweep_axis_free(struct sweep_axis *a)
{
	for (size_t i = 0; i < a->n_values; i++)
		free(a->values[i]);
	free(a->values);
	free(a->section);
	free(a->key);
	memset(a, 0, sizeof *a);
}

int sweep_axis_parse(const char *spec, struct sweep_axis *out, char **why)
{
	memset(out, 0, sizeof *out);
	*why = NULL;
	struct cfg_override o;
	int rc = cli_split_set(spec, &o);
	if (rc == 2) {
		*why = str_printf("--sweep '%s': expected SECTION.KEY=V1,V2,...", spec);
		return 2;
	}
	if (rc < 0)
		return -1;
	out->section = o.section;
	out->key = o.key;
	/* Unescape into one buffer, cutting at the unescaped commas. */
	const char *v = o.value;
	char *buf = xmalloc(strlen(v) + 1), *w = buf;
	size_t start = 0;
	for (const char *p = v;; p++) {
		if (*p == '\\' && (p[1] == ',' || p[1] == '\\')) {
			*w++ = *++p;
			continue;
		}
		if (*p != ',' && *p) {
			*w++ = *p;
			continue;
		}
		*w = '\0';
		if (w == buf + start) {
			*why = str_printf("--sweep '%s': value %zu is empty (values are separated by commas; "
					  "write '\\,' for a comma inside a value)", spec, out->n_values + 1);
			free(buf);
			free(o.value);
			sweep_axis_free(out);
			return 2;
		}
		out->values = xrealloc(out->values, (out->n_values + 1) * sizeof *out->values);
		out->values[out->n_values++] = xstrdup(buf + start);
		start = (size_t)(++w - buf);
		if (!*p)
			break;
	}
	free(buf);
	free(o.value);
	return 0;
}

size_t sweep_n_points(const struct sweep_axis *ax, size_t n_ax)
{
	size_t n = 1;
	for (size_t a = 0; a < n_ax; a++) {
		if (ax[a].n_values > SWEEP_MAX_POINTS / n)
			return 0;
		n *= ax[a].n_values;
	}
	return n;
}

size_t sweep_value_at(const struct sweep_axis *ax, size_t n_ax, size_t p, size_t a)
{
	for (size_t b = n_ax; b-- > a + 1; )
		p /= ax[b].n_values;
	return p % ax[a].n_values;
}

void sweep_point_overrides(const struct sweep_axis *ax, size_t n_ax, size_t p, const struct cfg_override *base,
			   size_t n_base, struct cfg_override *out)
{
	for (size_t i = 0; i < n_base; i++)
		out[i] = base[i];
	for (size_t a = 0; a < n_ax; a++)
		out[n_base + a] = (struct cfg_override){ .section = ax[a].section, .key = ax[a].key,
							  .value = ax[a].values[sweep_value_at(ax, n_ax, p, a)] };
}

char *sweep_point_label(const struct sweep_axis *ax, size_t n_ax, size_t p)
{
	char *s = xstrdup("");
	for (size_t a = 0; a < n_ax; a++) {
		char *n = str_printf("%s%s%s.%s=%s", s, a ? " " : "", ax[a].section, ax[a].key,
				     ax[a].values[sweep_value_at(ax, n_ax, p, a)]);
		free(s);
		s = n;
	}
	return s;
}
