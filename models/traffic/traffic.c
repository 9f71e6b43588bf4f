/*
 * traffic.c — the registry of traffic types and the lifetime of sources.
 *
 * traffic_setup turns every [traffic.NAME] section, in file order, into one
 * source through the table below, in two phases: first every source is
 * created and validated (nothing is registered or scheduled, so a bad
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
#include "traffic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "world.h"
#include "xalloc.h"

struct traffic {
	struct traffic_src **src;      /* [n], in cfg->traffic order */
	char **section;                /* [n] "traffic.NAME" */
	size_t n;
	uint64_t flows_expected;       /* sum over static sources */
	bool unbounded;                /* some source (poisson) has no known count */
};

/* Source constructor per `[traffic.X] type`; the names live in the
 * config's one key table (cfg_traffic_type_name), so names and dispatch
 * share the enum. NULL: accepted by the config, no model yet. */
static const traffic_create_fn traffic_creators[] = {
	[TRAFFIC_POISSON] = traffic_poisson_create,
	[TRAFFIC_INCAST] = traffic_incast_create,
	[TRAFFIC_PERMUTATION] = traffic_permutation_create,
	[TRAFFIC_ALL_TO_ALL] = traffic_all_to_all_create,
	[TRAFFIC_FLOWS] = traffic_flows_create,
	[TRAFFIC_HPCC] = traffic_hpcc_create,
	[TRAFFIC_MULTICAST] = traffic_multicast_create,
	[TRAFFIC_COLLECTIVE] = traffic_collective_create,
};

int traffic_host_list(struct world *w, const char *section, const char *key,
		      char *const *names, size_t n, int **ids, char **err)
{
	int n_hosts = w->topo.n_hosts;
	*ids = NULL;
	if (n == 0 || (n == 1 && strcmp(names[0], "all") == 0)) {
		int *v = xmalloc((n_hosts ? n_hosts : 1) * sizeof *v);
		for (int h = 0; h < n_hosts; h++)
			v[h] = h;
		*ids = v;
		return n_hosts;
	}
	int *v = xmalloc(n * sizeof *v);
	/* Seen-marks catch a host listed twice, which would silently double
	 * its share of the traffic. */
	unsigned char *seen = xcalloc(n_hosts ? n_hosts : 1, 1);
	for (size_t i = 0; i < n; i++) {
		int h = world_host_id(w, names[i]);
		if (h < 0) {
			*err = cfg_error_at(w->cfg, section, key, 0, "unknown host '%s'", names[i]);
			goto fail;
		}
		if (seen[h]) {
			*err = cfg_error_at(w->cfg, section, key, 0, "host '%s' is listed twice", names[i]);
			goto fail;
		}
		seen[h] = 1;
		v[i] = h;
	}
	free(seen);
	*ids = v;
	return (int)n;
fail:
	free(seen);
	free(v);
	return -1;
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

int traffic_setup(struct world *w, char **err)
{
	const struct config *cfg = w->cfg;
	*err = NULL;
	struct traffic *tr = xcalloc(1, sizeof *tr);
	size_t n = cfg->n_traffic;
	tr->src = xcalloc(n ? n : 1, sizeof *tr->src);
	tr->section = xcalloc(n ? n : 1, sizeof *tr->section);
	tr->n = n;

	/* Phase 1: create and validate every source. */
	for (size_t i = 0; i < n; i++) {
		const struct cfg_traffic *ct = &cfg->traffic[i];
		tr->section[i] = str_printf("traffic.%s", ct->name);
		traffic_create_fn create = (unsigned)ct->type < sizeof traffic_creators / sizeof *traffic_creators
						   ? traffic_creators[ct->type] : NULL;
		if (!create) {
			*err = cfg_error_at(cfg, tr->section[i], "type", 0,
					    "traffic type '%s' is not supported by this version of rocesim",
					    cfg_traffic_type_name(ct->type));
			goto fail;
		}
		struct traffic_src *s = create(w, ct, i, tr->section[i], err);
		if (!s)
			goto fail;
		s->w = w;
		s->ct = ct;
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
	w->traffic = tr;
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

void traffic_free(struct world *w)
{
	if (!w->traffic)
		return;
	traffic_destroy_all(w->traffic);
	w->traffic = NULL;
}

uint64_t traffic_flows_expected(const struct world *w)
{
	const struct traffic *tr = w->traffic;
	if (!tr || tr->unbounded)
		return 0;
	return tr->flows_expected;
}
