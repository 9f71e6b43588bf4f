/*
 * traffic_flows.c — `[traffic.NAME] type = flows`: flows listed one per
 * line, `flow = SRC DST SIZE START` (a repeated key), posted in start
 * order, lines with equal starts in section order.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "traffic_internal.h"
#include "units.h"
#include "nic.h"
#include "xalloc.h"

struct flow_spec {                 /* one `flow = SRC DST SIZE START` line */
	char *src, *dst;
	uint64_t size_b;
	simtime_t start;
	int line;
};

struct flows_cfg {
	struct flow_spec *flows; size_t n_flows; /* at least one */
};

static int flow_parse(const struct cfg_key *k, void *base, const char *value,
		      const struct cfg_store_ctx *ctx, char *expected)
{
	(void)k;
	static const char what[] = "SRC DST SIZE START (such as 'host0 host1 1MB 10us')";
	struct flows_cfg *t = base;
	char sub[UNITS_EXPECTED_MAX];
	char **tok;
	size_t n = units_list(value, &tok);
	struct flow_spec f = { .line = ctx->line };
	int rc = -1;
	if (n != 4)
		snprintf(expected, CFG_EXPECTED_MAX, "%s", what);
	else if (units_size(tok[2], &f.size_b, sub) < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with SIZE %s", what, sub);
	else if (f.size_b == 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with SIZE > 0", what);
	else if (units_time(tok[3], &f.start, sub) < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with START %s", what, sub);
	else
		rc = 0;
	if (rc == 0) {
		struct flow_spec *nf = realloc(t->flows, (t->n_flows + 1) * sizeof *nf);
		if (!nf)
			abort();
		f.src = tok[0];
		f.dst = tok[1];
		tok[0] = tok[1] = NULL;
		nf[t->n_flows++] = f;
		t->flows = nf;
	}
	units_list_free(tok, n);
	return rc;
}

static void flow_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const struct flows_cfg *c = base;
	char b[64], t2[64];
	for (size_t i = 0; i < c->n_flows; i++) {
		units_format_size(c->flows[i].size_b, b, sizeof b);
		units_format_time(c->flows[i].start, t2, sizeof t2);
		cfg_text_begin(t, k->name);
		cfg_text_word(t, "", c->flows[i].src);
		cfg_text_word(t, "", c->flows[i].dst);
		cfg_text_word(t, "", b);
		cfg_text_word(t, "", t2);
		cfg_text_end(t);
	}
}

static void flow_free(const struct cfg_key *k, void *base)
{
	(void)k;
	struct flows_cfg *c = base;
	for (size_t i = 0; i < c->n_flows; i++) {
		free(c->flows[i].src);
		free(c->flows[i].dst);
	}
	free(c->flows);
	c->flows = NULL;
	c->n_flows = 0;
}

static const struct cfg_custom flow_line = {
	.parse = flow_parse, .write = flow_write, .free = flow_free,
	.type_doc = "repeated line: SRC DST SIZE START", .repeated = true,
};

static const struct cfg_key keys[] = {
	{ "flow", KT_CUSTOM, .required = true, .custom = &flow_line, .off = offsetof(struct flows_cfg, flows),
	  .help = "repeated: SRC DST SIZE START" },
};

/* Sort key of a `flow` line, with its resolved hosts (name lookups are
 * linear in the node count: do each once). */
struct flow_order { simtime_t start; size_t order; int32_t src, dst; };

static int flow_order_cmp(const void *a, const void *b)
{
	const struct flow_order *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	(void)index;
	const struct flows_cfg *ct = own;
	const struct config *cfg = w->cfg;
	struct static_flow *v;
	struct traffic_src *s = traffic_static_new(ct->n_flows, &v, NULL);
	struct flow_order *ord = xcalloc(ct->n_flows ? ct->n_flows : 1, sizeof *ord);
	for (size_t i = 0; i < ct->n_flows; i++) {
		const struct flow_spec *fs = &ct->flows[i];
		int src = world_host_id(w, fs->src), dst = world_host_id(w, fs->dst);
		if (src < 0 || dst < 0) {
			*err = cfg_error_at(cfg, section, "flow", fs->line, "unknown host '%s'",
					    src < 0 ? fs->src : fs->dst);
			goto fail;
		}
		if (src == dst) {
			*err = cfg_error_at(cfg, section, "flow", fs->line,
					    "source and destination are the same host '%s'", fs->src);
			goto fail;
		}
		ord[i] = (struct flow_order){ fs->start, i, src, dst };
	}
	/* qsort is not stable: the explicit order key keeps equal start times
	 * in section order. */
	qsort(ord, ct->n_flows, sizeof *ord, flow_order_cmp);
	for (size_t i = 0; i < ct->n_flows; i++) {
		const struct flow_spec *fs = &ct->flows[ord[i].order];
		v[i] = (struct static_flow){ fs->start, fs->size_b, ord[i].src, ord[i].dst, NULL };
	}
	free(ord);
	return s;
fail:
	free(ord);
	traffic_src_destroy(s);
	return NULL;
}

static bool flows_known(const void *own, int n_hosts, uint64_t *n)
{
	(void)n_hosts;
	*n = ((const struct flows_cfg *)own)->n_flows;
	return true;
}

const struct traffic_kind traffic_flows = {
	.cfg = { .name = "flows", .help = "flows listed one per line", CFG_KEYS(keys),
		 .size = sizeof(struct flows_cfg) },
	.create = create, .flows_known = flows_known,
};
