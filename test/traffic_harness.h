/*
 * traffic_harness.h — the test world of the traffic-source tests
 * (test_traffic.c for the static sources, test_poisson.c for Poisson): a
 * hand-built world of n hosts and one switch whose post() records what
 * would have been handed to the NICs (time, src, dst, size), so sources
 * are tested without a fabric; sections and key origins are filled as the
 * config loader would fill them.
 *
 * Header-only, as testutil.h: each test program is one file, so the
 * recorder's state is that program's own.
 */
#ifndef ROCESIM_TRAFFIC_HARNESS_H
#define ROCESIM_TRAFFIC_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "flow.h"
#include "sim.h"
#include "testutil.h"
#include "topology.h"
#include "traffic.h"
#include "world.h"

/* ---- the recorder ---- */

struct rec { simtime_t t; int src, dst; uint64_t size_b; const char *source, *par; };
static struct rec *recs;
static size_t n_recs, cap_recs;
static struct flow dummy_flow;

static inline struct flow *rec_post(struct world *w, int src, int dst, uint64_t size_b,
			     const char *source, const char *parallelism)
{
	if (n_recs == cap_recs) {
		cap_recs = cap_recs ? 2 * cap_recs : 1024;
		recs = realloc(recs, cap_recs * sizeof *recs);
		if (!recs)
			abort();
	}
	recs[n_recs++] = (struct rec){ w->sim->now, src, dst, size_b, source, parallelism };
	w->flows_posted++;
	return &dummy_flow;
}

/* ---- a minimal world ---- */

#define MAX_TR 4
#define MAX_ORG 16

struct harness {
	struct sim sim;
	struct config cfg;
	struct world w;
	struct cfg_traffic tr[MAX_TR];
	struct cfg_origin org[MAX_ORG];
};

/* n hosts "host0".. plus a switch "sw0" (a node that is not a host). */
static inline void h_init(struct harness *h, int n_hosts, uint64_t seed)
{
	memset(h, 0, sizeof *h);
	sim_init(&h->sim, seed);
	h->cfg.path = "test.ini";
	h->cfg.dir = ".";
	h->cfg.name = "test";
	h->cfg.simulation.seed = seed;
	h->cfg.simulation.stop = SIMTIME_NEVER;
	h->cfg.topology.link_rate_bps = 100000000000ull;
	h->cfg.topology.host_link_rate_bps = 100000000000ull;
	h->cfg.traffic = h->tr;
	h->cfg.origins = h->org;
	for (int i = 0; i < n_hosts; i++)
		CU_ASSERT_FATAL(topo_add_named(&h->w.topo, "host", i, NODE_HOST, 0) == i);
	CU_ASSERT_FATAL(topo_add_named(&h->w.topo, "sw", 0, NODE_SWITCH, 1) == n_hosts);
	h->w.topo.n_hosts = n_hosts;
	topo_finalize(&h->w.topo);
	h->w.sim = &h->sim;
	h->w.cfg = &h->cfg;
	h->w.n_hosts = n_hosts;
	h->w.post = rec_post;
	n_recs = 0;
}

/* Adds a [traffic.NAME] section of the given type (defaults as the config
 * loader would fill them) with its `type` key at line `line`. */
static inline struct cfg_traffic *h_traffic(struct harness *h, const char *name,
				     enum cfg_traffic_type type, int line)
{
	CU_ASSERT_FATAL(h->cfg.n_traffic < MAX_TR && h->cfg.n_origins < MAX_ORG);
	struct cfg_traffic *t = &h->tr[h->cfg.n_traffic++];
	t->name = (char *)name;
	t->type = type;
	t->stop = SIMTIME_NEVER;
	t->repeat = 1;
	char *sec = NULL;
	CU_ASSERT_FATAL(asprintf(&sec, "traffic.%s", name) > 0);
	h->org[h->cfg.n_origins++] = (struct cfg_origin){
		sec, "type", (char *)cfg_traffic_type_name(type), "test.ini", line };
	return t;
}

/* Records where a key was written, for located errors. */
static inline void h_origin(struct harness *h, const char *section, const char *key,
		     const char *value, int line)
{
	CU_ASSERT_FATAL(h->cfg.n_origins < MAX_ORG);
	h->org[h->cfg.n_origins++] = (struct cfg_origin){
		strdup(section), (char *)key, (char *)value, "test.ini", line };
}

static inline void h_free(struct harness *h)
{
	traffic_free(&h->w);
	CU_ASSERT(h->w.traffic == NULL);
	topology_free(&h->w.topo);
	sim_free(&h->sim);
	for (size_t i = 0; i < h->cfg.n_origins; i++)
		free(h->org[i].section);
}

/* traffic_setup must fail with an error containing each of the strings. */
static inline void expect_setup_error(struct harness *h, const char *a, const char *b)
{
	char *err = NULL;
	CU_ASSERT_EQUAL(traffic_setup(&h->w, &err), -1);
	CU_ASSERT_FATAL(err != NULL);
	if (!strstr(err, a) || (b && !strstr(err, b)))
		fprintf(stderr, "\n  unexpected error: %s (wanted '%s' and '%s')\n", err, a, b ? b : "");
	else if (getenv("TEST_VERBOSE"))
		fprintf(stderr, "\n  error as expected: %s", err);
	CU_ASSERT(strstr(err, a) != NULL);
	CU_ASSERT(!b || strstr(err, b) != NULL);
	/* A failed setup leaves nothing behind: no source, nothing scheduled. */
	CU_ASSERT(h->w.traffic == NULL);
	CU_ASSERT_EQUAL(h->w.sources_active, 0);
	CU_ASSERT_EQUAL(evq_size(&h->sim.q), 0);
	free(err);
}

static inline void setup_and_run(struct harness *h)
{
	char *err = NULL;
	int rc = traffic_setup(&h->w, &err);
	if (rc != 0)
		fprintf(stderr, "\n  traffic_setup: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT(h->w.sources_active > 0);
	CU_ASSERT_EQUAL(sim_run(&h->sim), SIM_RAN_DRY);
	/* Every source said it will post no more. */
	CU_ASSERT_EQUAL(h->w.sources_active, 0);
}

#endif
