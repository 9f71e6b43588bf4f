/*
 * traffic.c — the registry of traffic kinds, the [traffic.NAME] section
 * and the lifetime of sources.
 *
 * A kind (traffic_*.c) declares its name, keys and struct; the section's
 * `type` picks one. traffic_setup turns every [traffic.NAME] section, in
 * file order, into one source through the registry (traffic_kinds,
 * traffic_internal.h), in two phases: first every source is created and validated (nothing is registered or scheduled, so a bad
 * section leaves the world untouched); then each is registered as an
 * element "traffic.NAME", counted as active (world_source_begin) and asked
 * to schedule its first event. A source calls world_source_end itself when
 * it will post no more.
 *
 * struct traffic owns the sources and their "traffic.NAME" strings, which
 * must outlive every flow row (flows keep `source` by reference), so they are
 * released only by traffic_free with the world.
 */
#define _GNU_SOURCE
#include "traffic_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "nic.h"
#include "xalloc.h"

struct traffic {
	struct traffic_src **src;      /* [n], in the sections' order */
	char **section;                /* [n] "traffic.NAME" */
	size_t n;
	uint64_t flows_expected;       /* sum over static sources */
	bool unbounded;                /* some source (poisson) has no known count */
};

static const struct cfg_type *type_at(size_t i)
{
	for (size_t k = 0; traffic_kinds[k]; k++)
		if (k == i)
			return &traffic_kinds[k]->cfg;
	return NULL;
}

static const struct cfg_key traffic_keys[] = {
	{ "type", KT_TYPE, .required = true, .help = "traffic pattern" },
};

const struct cfg_section traffic_section = {
	.name = "traffic", .named = true, .help = "a traffic source: its type, then the type's keys",
	CFG_KEYS(traffic_keys), .size = sizeof(int), .type_at = type_at,
};

uint64_t traffic_flows_known(const struct config *cfg, int n_hosts, bool *open)
{
	uint64_t n = 0;
	for (const struct cfg_inst *i = cfg_next(cfg, &traffic_section, NULL); i;
	     i = cfg_next(cfg, &traffic_section, i)) {
		const struct traffic_kind *k = (const struct traffic_kind *)i->type;
		uint64_t m = 0;
		if (k->flows_known && k->flows_known(i->type_data, n_hosts, &m))
			n += m;
		else
			*open = true;
	}
	return n;
}

static void traffic_destroy_all(struct traffic *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		if (tr->src[i])
			tr->src[i]->ops->destroy(tr->src[i]);
		free(tr->section[i]);
	}
	free(tr->src);
	free(tr->section);
	free(tr);
}

int traffic_setup(struct world *w, struct colls *cs, struct traffic **out, char **err)
{
	*out = NULL;
	const struct config *cfg = w->cfg;
	*err = NULL;
	struct traffic *tr = xcalloc(1, sizeof *tr);
	size_t n = cfg_count(cfg, &traffic_section);
	tr->src = xcalloc(n ? n : 1, sizeof *tr->src);
	tr->section = xcalloc(n ? n : 1, sizeof *tr->section);
	tr->n = n;

	/* Phase 1: create and validate every source. */
	const struct cfg_inst *inst = NULL;
	for (size_t i = 0; i < n; i++) {
		inst = cfg_next(cfg, &traffic_section, inst);
		const struct traffic_kind *kind = (const struct traffic_kind *)inst->type;
		tr->section[i] = xstrdup(inst->title);
		struct traffic_src *s = kind->create(w, inst->type_data, i, tr->section[i], err);
		if (!s)
			goto fail;
		s->w = w;
		s->colls = cs;
		s->own = inst->type_data;
		s->index = i;
		s->source = tr->section[i];
		tr->src[i] = s;
		if (s->unbounded)
			tr->unbounded = true;
		else
			tr->flows_expected += s->flows_expected;
	}

	/* Phase 2: nothing can fail any more; register in file order (stable
	 * element ids) and start. */
	*out = tr;
	for (size_t i = 0; i < n; i++) {
		struct traffic_src *s = tr->src[i];
		sim_elem_register(w->sim, &s->elem, s->source);
		world_source_begin(w);
		s->ops->start(s);
	}
	return 0;
fail:
	traffic_destroy_all(tr);
	return -1;
}

void traffic_free(struct traffic *tr)
{
	if (tr)
		traffic_destroy_all(tr);
}

uint64_t traffic_flows_expected(const struct traffic *tr)
{
	if (!tr || tr->unbounded)
		return 0;
	return tr->flows_expected;
}

const char *traffic_closed_loop(const struct config *cfg)
{
	for (const struct cfg_inst *i = cfg_next(cfg, &traffic_section, NULL); i;
	     i = cfg_next(cfg, &traffic_section, i))
		if (((const struct traffic_kind *)i->type)->closed_loop)
			return i->title;
	return NULL;
}
