/*
 * failure_keys.c — the [failure] section: what goes wrong with the fabric.
 * Link and switch failures (failure.h): scheduled failures (`link`,
 * `switch`), routing's detection delay, and random failures per link
 * class (`mtbf`, `mttr`, `horizon`); frame loss (`loss`, link_loss.c,
 * which parses its own lines).
 *
 * Names are checked against the built fabric in failure.c (they are not
 * known while the scenario is read); here only the form of each line and
 * its times: DOWN >= 0, UP > DOWN.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "failure.h"
#include "link_loss.h"
#include "units.h"
#include "xalloc.h"

#define FC(f) offsetof(struct failure_cfg, f)

/* "tor0:p3" or "tor0:3" into name and port; a bare name has port -1. */
static int split_port(char *tok, int *port)
{
	*port = -1;
	char *c = strrchr(tok, ':');
	if (!c)
		return 0;
	const char *d = c[1] == 'p' ? c + 2 : c + 1;
	char *end;
	long v = strtol(d, &end, 10);
	if (!*d || *end || v < 0 || v > 65535)
		return -1;
	*c = '\0';
	*port = (int)v;
	return 0;
}

/* `link = A B DOWN [UP]` (n_names 2) or `switch = S DOWN [UP]` (1). */
static int line_parse(const struct cfg_key *k, void *base, const char *value,
		      const struct cfg_store_ctx *ctx, char *expected)
{
	bool is_link = strcmp(k->name, "link") == 0;
	int names = is_link ? 2 : 1;
	const char *what = is_link ? "NODE[:PORT] NODE[:PORT] DOWN_AT [UP_AT] (such as 'tor0 agg1 2ms 5ms')"
				   : "SWITCH DOWN_AT [UP_AT] (such as 'agg1 2ms 5ms')";
	struct fail_lines *l = CFG_FIELD(base, k->off, struct fail_lines);
	char sub[UNITS_EXPECTED_MAX];
	char **tok;
	size_t n = units_list(value, &tok);
	struct fail_line f = { .line = ctx->line, .port_a = -1, .port_b = -1, .up_ps = -1 };
	int rc = -1;
	if (n != (size_t)names + 1 && n != (size_t)names + 2)
		snprintf(expected, CFG_EXPECTED_MAX, "%s", what);
	else if (is_link && (split_port(tok[0], &f.port_a) < 0 || split_port(tok[1], &f.port_b) < 0))
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with PORT a number", what);
	else if (units_time(tok[names], &f.down_ps, sub) < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with DOWN_AT %s", what, sub);
	else if (n == (size_t)names + 2 && units_time(tok[names + 1], &f.up_ps, sub) < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with UP_AT %s", what, sub);
	else if (f.down_ps < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with DOWN_AT >= 0", what);
	else if (n == (size_t)names + 2 && f.up_ps <= f.down_ps)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with UP_AT later than DOWN_AT", what);
	else
		rc = 0;
	if (rc == 0) {
		l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
		f.a = tok[0];
		tok[0] = NULL;
		if (is_link) {
			f.b = tok[1];
			tok[1] = NULL;
		}
		l->v[l->n++] = f;
	}
	units_list_free(tok, n);
	return rc;
}

static void line_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const struct fail_lines *l = CFG_FIELD(base, k->off, const struct fail_lines);
	char b[64];
	for (size_t i = 0; i < l->n; i++) {
		const struct fail_line *f = &l->v[i];
		cfg_text_begin(t, k->name);
		const char *nm[2] = { f->a, f->b };
		int pt[2] = { f->port_a, f->port_b };
		for (int j = 0; j < 2 && nm[j]; j++) {
			if (pt[j] >= 0) {
				snprintf(b, sizeof b, "%s:p%d", nm[j], pt[j]);
				cfg_text_word(t, "", b);
			} else {
				cfg_text_word(t, "", nm[j]);
			}
		}
		units_format_time(f->down_ps, b, sizeof b);
		cfg_text_word(t, "", b);
		if (f->up_ps >= 0) {
			units_format_time(f->up_ps, b, sizeof b);
			cfg_text_word(t, "", b);
		}
		cfg_text_end(t);
	}
}

static void line_free(const struct cfg_key *k, void *base)
{
	struct fail_lines *l = CFG_FIELD(base, k->off, struct fail_lines);
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].a);
		free(l->v[i].b);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static const struct cfg_custom link_line = {
	.parse = line_parse, .write = line_write, .free = line_free,
	.type_doc = "repeated line: NODE[:PORT] NODE[:PORT] DOWN_AT [UP_AT]", .repeated = true,
};
static const struct cfg_custom switch_line = {
	.parse = line_parse, .write = line_write, .free = line_free,
	.type_doc = "repeated line: SWITCH DOWN_AT [UP_AT]", .repeated = true,
};

/* The words of the link classes, in enum fail_class order. */
static const char *const class_names[] = { "host", "fabric", NULL };

/* `mtbf = CLASS TIME` / `mttr = CLASS TIME`: into the per-class array at off. */
static int class_parse(const struct cfg_key *k, void *base, const char *value,
		       const struct cfg_store_ctx *ctx, char *expected)
{
	(void)ctx;
	simtime_t *v = CFG_FIELD(base, k->off, simtime_t);
	char sub[UNITS_EXPECTED_MAX];
	char **tok;
	size_t n = units_list(value, &tok);
	int rc = -1, c = -1;
	for (int i = 0; n == 2 && class_names[i]; i++)
		if (strcmp(tok[0], class_names[i]) == 0)
			c = i;
	simtime_t t = 0;
	if (n != 2 || c < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "CLASS TIME with CLASS host (host links) or fabric "
			 "(links between switches), such as 'fabric 20ms'");
	else if (units_time(tok[1], &t, sub) < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "CLASS TIME, with TIME %s", sub);
	else if (t <= 0)
		snprintf(expected, CFG_EXPECTED_MAX, "CLASS TIME, with TIME > 0");
	else
		rc = 0;
	if (rc == 0)
		v[c] = t;
	units_list_free(tok, n);
	return rc;
}

static void class_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const simtime_t *v = CFG_FIELD(base, k->off, const simtime_t);
	char b[64];
	for (int c = 0; c < FAIL_CLASSES; c++) {
		if (!v[c])
			continue;
		units_format_time(v[c], b, sizeof b);
		cfg_text_begin(t, k->name);
		cfg_text_word(t, "", class_names[c]);
		cfg_text_word(t, "", b);
		cfg_text_end(t);
	}
}

static void class_free(const struct cfg_key *k, void *base)
{
	(void)k;
	(void)base;
}

static const struct cfg_custom class_line = {
	.parse = class_parse, .write = class_write, .free = class_free,
	.type_doc = "repeated line: CLASS TIME (CLASS host or fabric)", .repeated = true,
};

static const struct cfg_key failure_keys[] = {
	{ "link", KT_CUSTOM, .custom = &link_line, .off = FC(links),
	  .help = "repeated: NODE NODE DOWN_AT [UP_AT]: that link (both directions) is down from "
		  "DOWN_AT until UP_AT (for good without); NODE:PORT picks one of parallel links" },
	{ "switch", KT_CUSTOM, .custom = &switch_line, .off = FC(switches),
	  .help = "repeated: SWITCH DOWN_AT [UP_AT]: every link of that switch is down" },
	{ "detection", KT_TIME, "50us", CFG_GE(0), .off = FC(detection_ps),
	  .help = "from a failure (or repair) until every switch's routing drops (or restores) "
		  "the link" },
	{ "mtbf", KT_CUSTOM, .custom = &class_line, .off = FC(mtbf_ps),
	  .help = "repeated: CLASS TIME: mean time between failures of each link of the class "
		  "(host: host links; fabric: links between switches); exponential, per-link streams" },
	{ "mttr", KT_CUSTOM, .custom = &class_line, .off = FC(mttr_ps),
	  .help = "repeated: CLASS TIME: mean time to repair of a random failure of the class "
		  "(exponential), given with its mtbf" },
	{ "horizon", KT_TIME, "0s", CFG_GE(0), .off = FC(horizon_ps),
	  .help = "random failures start before this time; 0: [simulation] stop" },
	{ "loss", KT_CUSTOM, .def_doc = "none", .custom = &link_loss_key, .off = FC(loss),
	  .help = "repeated: NODE NODE RATE (that link, both directions) or all RATE (every link; a "
		  "link's own line wins): probability that a frame crossing it is corrupted and "
		  "dropped by the receiver" },
};

static int failure_rules(struct cfg_check *c)
{
	const struct failure_cfg *fc = c->data;
	for (int k = 0; k < FAIL_CLASSES; k++) {
		if (fc->mtbf_ps[k] && !fc->mttr_ps[k])
			return cfg_fail(c, "mttr", "a line '%s TIME' for the mtbf of class %s",
					class_names[k], class_names[k]);
		if (fc->mttr_ps[k] && !fc->mtbf_ps[k])
			return cfg_fail(c, "mtbf", "a line '%s TIME' for the mttr of class %s",
					class_names[k], class_names[k]);
	}
	return 0;
}

const struct cfg_section failure_section = {
	.name = "failure", .help = "faults of the fabric: link and switch failures and routing's reaction, lossy links",
	CFG_KEYS(failure_keys), .size = sizeof(struct failure_cfg), .rules = failure_rules,
};
