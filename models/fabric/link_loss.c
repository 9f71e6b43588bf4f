/*
 * link_loss.c — lossy links (see link_loss.h): the `loss` lines of
 * [failure], their resolution against the built fabric, and the draws.
 *
 * Resolution: `loss = all RATE` sets every link, a `loss = NODE NODE RATE`
 * line sets every link between the two nodes (several, when they are
 * joined by parallel links) and wins over `all` whatever the order; a rate
 * of 0 leaves a link lossless. A link is lossy in both directions, each
 * with its own stream.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "fabric.h"
#include "link_loss.h"
#include "rng.h"
#include "units.h"
#include "xalloc.h"

/* ---- The key ---- */

static int rate_parse(const char *s, double *p)
{
	char *end = NULL;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < 0 || v >= 1)
		return -1;
	*p = v;
	return 0;
}

static bool same_link(const struct link_loss_entry *e, const char *a, const char *b)
{
	if (!e->a || !a)
		return !e->a && !a;
	return (!strcmp(e->a, a) && !strcmp(e->b, b)) || (!strcmp(e->a, b) && !strcmp(e->b, a));
}

static int loss_parse(const struct cfg_key *k, void *base, const char *value,
		      const struct cfg_store_ctx *ctx, char *expected)
{
	struct link_loss_cfg *c = CFG_FIELD(base, k->off, struct link_loss_cfg);
	char **tok;
	size_t n = units_list(value, &tok);
	bool all = n == 2 && !strcmp(tok[0], "all");
	double p = 0;
	if (!(all || n == 3)) {
		snprintf(expected, CFG_EXPECTED_MAX, "NODE NODE RATE (a link and its frame-loss probability, "
			 "e.g. tor0 agg1 1e-4) or all RATE");
		goto fail;
	}
	if (rate_parse(tok[n - 1], &p) < 0) {
		snprintf(expected, CFG_EXPECTED_MAX, "a frame-loss probability RATE in [0, 1) (e.g. 1e-4), "
			 "not '%s'", tok[n - 1]);
		goto fail;
	}
	const char *a = all ? NULL : tok[0], *b = all ? NULL : tok[1];
	for (size_t i = 0; i < c->n; i++)
		if (same_link(&c->e[i], a, b)) {
			snprintf(expected, CFG_EXPECTED_MAX, "one loss line per link (%s%s%s is also at line %d)",
				 all ? "all" : a, all ? "" : " ", all ? "" : b, c->e[i].line);
			goto fail;
		}
	c->e = xrealloc(c->e, (c->n + 1) * sizeof *c->e);
	c->e[c->n++] = (struct link_loss_entry){ .a = all ? NULL : xstrdup(a), .b = all ? NULL : xstrdup(b),
						 .p = p, .line = ctx->line };
	units_list_free(tok, n);
	return 0;
fail:
	units_list_free(tok, n);
	return -1;
}

static void loss_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const struct link_loss_cfg *c = CFG_FIELD(base, k->off, const struct link_loss_cfg);
	if (!c->n) {
		cfg_text_unset(t, k);
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct link_loss_entry *e = &c->e[i];
		char r[40];
		/* The shortest text that reads back as the same double. */
		for (int prec = 6; prec <= 17; prec++) {
			snprintf(r, sizeof r, "%.*g", prec, e->p);
			if (strtod(r, NULL) == e->p)
				break;
		}
		cfg_text_begin(t, k->name);
		if (e->a) {
			cfg_text_word(t, "", e->a);
			cfg_text_word(t, "", e->b);
		} else {
			cfg_text_word(t, "", "all");
		}
		cfg_text_word(t, "", r);
		cfg_text_end(t);
	}
}

static void loss_free(const struct cfg_key *k, void *base)
{
	(void)k;
	struct link_loss_cfg *c = CFG_FIELD(base, k->off, struct link_loss_cfg);
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].a);
		free(c->e[i].b);
	}
	free(c->e);
	c->e = NULL;
	c->n = 0;
}

const struct cfg_custom link_loss_key = {
	.parse = loss_parse, .write = loss_write, .free = loss_free,
	.type_doc = "repeated line: NODE NODE RATE, or all RATE", .repeated = true,
};

/* ---- Resolution and draws ---- */

uint64_t link_loss_gap(struct link_loss *l)
{
	/* Inversion: gap = 1 + floor(ln u / ln(1-p)), u uniform on (0, 1). */
	double g = floor(log(gsl_rng_uniform_pos(l->rng)) / l->log_keep);
	return g >= 0x1p62 ? (uint64_t)1 << 62 : 1 + (uint64_t)g;
}

/* Node id of name, or -1 with *err naming the line and a near name. */
static int node_id(struct fabric *f, const char *name, int line, char **err)
{
	for (int u = 0; u < f->n_nodes; u++)
		if (!strcmp(f->nodes[u].name, name))
			return u;
	size_t cap = 1, len = 0;
	for (int u = 0; u < f->n_nodes; u++)
		cap += strlen(f->nodes[u].name) + 2;
	char *list = xmalloc(cap), mean[128];
	list[0] = 0;
	for (int u = 0; u < f->n_nodes; u++)
		len += (size_t)snprintf(list + len, cap - len, "%s%s", u ? ", " : "", f->nodes[u].name);
	*err = cfg_error_at(f->cfg, "failure", "loss", line, "unknown node '%s'%s (nodes: %s ... %s)", name,
			    cfg_did_you_mean(name, list, mean, sizeof mean), f->nodes[0].name,
			    f->nodes[f->n_nodes - 1].name);
	free(list);
	return -1;
}

/* Sets lp[link] = p for every link between the entry's nodes; -1 with
 * *err when a name is unknown or the nodes share no link. */
static int mark_links(struct fabric *f, const struct link_loss_entry *e, double *lp, char **err)
{
	int a = node_id(f, e->a, e->line, err);
	int b = a < 0 ? -1 : node_id(f, e->b, e->line, err);
	if (b < 0)
		return -1;
	int found = 0;
	const struct node *na = &f->nodes[a];
	const struct topo_port *tp = &f->topo.ports[f->topo.port_off[a]];
	for (int i = 0; i < na->n_ports; i++)
		if (tp[i].peer == b) {
			lp[tp[i].link] = e->p;
			found++;
		}
	if (found)
		return 0;
	char peers[200] = "";
	size_t len = 0;
	for (int i = 0; i < na->n_ports && len < sizeof peers - 40; i++)
		len += (size_t)snprintf(peers + len, sizeof peers - len, "%s%s", i ? " " : "",
					f->nodes[tp[i].peer].name);
	*err = cfg_error_at(f->cfg, "failure", "loss", e->line,
			    "%s and %s share no link (a loss line names the two ends of one link; %s's "
			    "neighbours: %s%s)", e->a, e->b, e->a, na->n_ports ? peers : "none",
			    len >= sizeof peers - 40 && na->n_ports ? " ..." : "");
	return -1;
}

int link_loss_build(struct fabric *f, const struct link_loss_cfg *c, char **err)
{
	if (!c || !c->n)
		return 0;
	int n_links = f->topo.n_links;
	double *lp = xmalloc((size_t)(n_links ? n_links : 1) * sizeof *lp);
	double all = 0;
	for (int l = 0; l < n_links; l++)
		lp[l] = -1;
	for (size_t i = 0; i < c->n; i++) {
		if (!c->e[i].a)
			all = c->e[i].p;
		else if (mark_links(f, &c->e[i], lp, err) < 0) {
			free(lp);
			return -1;
		}
	}
	/* The ports this process holds (fabric.h): a draw is its port's own
	 * stream, whoever holds it. */
	int n = 0;
	for (int i = 0; i < f->n_ports; i++) {
		double p = lp[f->topo.ports[i].link] >= 0 ? lp[f->topo.ports[i].link] : all;
		n += p > 0 && fabric_port_held(f, i);
	}
	f->loss = n ? xcalloc((size_t)n, sizeof *f->loss) : NULL;
	f->n_loss = 0;
	for (int i = 0; i < f->n_ports; i++) {
		double p = lp[f->topo.ports[i].link] >= 0 ? lp[f->topo.ports[i].link] : all;
		if (p <= 0 || !fabric_port_held(f, i))
			continue;
		struct link_loss *l = &f->loss[f->n_loss++];
		l->p = p;
		l->log_keep = log1p(-p);
		l->rng = rng_stream(f->sim->seed, RNG_LINK_LOSS, (uint64_t)i);
		l->left = link_loss_gap(l);
		f->ports[i].loss = l;
		f->ports[i].lossy = true;
	}
	free(lp);
	return 0;
}

void link_loss_free(struct fabric *f)
{
	for (int i = 0; i < f->n_loss; i++)
		gsl_rng_free(f->loss[i].rng);
	free(f->loss);
	f->loss = NULL;
	f->n_loss = 0;
}
