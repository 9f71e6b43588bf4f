/*
 * traffic_harness.h — the test world of the traffic-source tests
 * (test_traffic.c for the static sources, test_poisson.c for Poisson): the
 * [traffic.X] sections under test are loaded as scenario text (through
 * scenario_load_text, as `sim` loads a file) together with a small star of
 * n hosts "host0".. on one switch "sw0" at 100 Gb/s; the world is built
 * with world_build, and its post() hook is replaced by a recorder of what
 * would have been handed to the NICs (time, src, dst, size), so sources
 * are tested without running the fabric.
 *
 * The test's text comes first in the scenario "test.ini", so a line
 * number in it is the line an error names ("test.ini:4"); the harness's
 * own [simulation] and [topology] sections follow it.
 *
 * Header-only, as testutil.h: each test program is one file, so the
 * recorder's state is that program's own.
 */
#ifndef ROCESIM_TRAFFIC_HARNESS_H
#define ROCESIM_TRAFFIC_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "config.h"
#include "config_fixture.h"
#include "flow.h"
#include "run.h"
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

/* ---- a loaded scenario and its built world ---- */

struct harness {
	struct sim sim;
	struct config cfg;
	struct world w;
	struct colls *cs;              /* the collectives of collective sources */
	struct traffic *tr;            /* the sources, after setup */
	uint32_t elems_built;          /* sim.n_elems after world_build: the fabric's */
};

/* The scenario: the test's text, then [simulation] (seed, and sim_keys:
 * more "key = value\n" lines, or NULL) and a star of n_hosts hosts.
 * Malloc'd. */
static inline char *h_text(int n_hosts, uint64_t seed, const char *sim_keys, const char *text)
{
	char *s = NULL;
	CU_ASSERT_FATAL(asprintf(&s,
				 "%s\n"
				 "[simulation]\n"
				 "seed = %llu\n"
				 "%s"
				 "[topology]\n"
				 "type = star\n"
				 "hosts = %d\n"
				 "link_rate = 100Gbps\n"
				 "link_delay = 1us\n",
				 text, (unsigned long long)seed, sim_keys ? sim_keys : "", n_hosts) > 0);
	return s;
}

/* Loads the scenario and builds its world (sim seeded and stopped as
 * [simulation] says, as run.c does); post() records. Fails the test when
 * the text does not load or the world does not build. */
static inline void h_init_sim(struct harness *h, int n_hosts, uint64_t seed, const char *sim_keys,
			      const char *text)
{
	memset(h, 0, sizeof *h);
	char *s = h_text(n_hosts, seed, sim_keys, text);
	char *err = NULL;
	int rc = scenario_load_text(&h->cfg, "test.ini", s, strlen(s), NULL, 0, &err);
	if (rc != 0)
		fprintf(stderr, "\n  scenario_load_text: %s\n  in:\n%s\n", err, s);
	free(s);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	const struct sim_cfg *sc = scenario_sim(&h->cfg);
	CU_ASSERT_EQUAL_FATAL(sc->seed, seed);
	sim_init(&h->sim, sc->seed);
	h->sim.cfg = &h->cfg;
	h->sim.stop_at = sc->stop;     /* poisson's stop when its section has none */
	rc = world_build(&h->w, &h->sim, &h->cfg, &err);
	if (rc != 0)
		fprintf(stderr, "\n  world_build: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	/* The star: hosts 0..n-1 named host<i>, then the switch sw0. */
	CU_ASSERT_EQUAL_FATAL(h->w.fab.n_hosts, n_hosts);
	CU_ASSERT_EQUAL_FATAL(h->w.fab.n_nodes, n_hosts + 1);
	CU_ASSERT_EQUAL_FATAL(world_host_id(&h->w, "host0"), 0);
	CU_ASSERT_EQUAL_FATAL(topo_find(&h->w.fab.topo, "sw0"), n_hosts);
	h->w.post = rec_post;
	h->elems_built = h->sim.n_elems;
	n_recs = 0;
}

static inline void h_init(struct harness *h, int n_hosts, uint64_t seed, const char *text)
{
	h_init_sim(h, n_hosts, seed, NULL, text);
}

static inline void h_free(struct harness *h)
{
	traffic_free(h->tr);
	h->tr = NULL;
	colls_free(h->cs);
	h->cs = NULL;
	world_free(&h->w);
	sim_free(&h->sim);
	config_free(&h->cfg);
}

/* The scenario must not load: the loader's error is one line holding a
 * and b (b may be NULL), and the config is left zeroed. */
static inline void expect_load_error(int n_hosts, const char *text, const char *a, const char *b)
{
	char *s = h_text(n_hosts, 1, NULL, text);
	expect_load_error_text("test.ini", s, a, b);
	free(s);
}

/* traffic_setup must fail with an error containing each of the strings. */
static inline void expect_setup_error(struct harness *h, const char *a, const char *b)
{
	char *err = NULL;
	if (!h->cs)
		h->cs = colls_new(&h->w);
	CU_ASSERT_EQUAL(traffic_setup(&h->w, h->cs, &h->tr, &err), -1);
	CU_ASSERT_PTR_NULL(h->tr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT(msg_has_all(err, (const char *const[]){ a, b, NULL }));
	/* A failed setup leaves nothing behind: no source, nothing scheduled,
	 * no element beyond the fabric's. */
	CU_ASSERT_EQUAL(h->w.sources_active, 0);
	CU_ASSERT_EQUAL(evq_size(&h->sim.q), 0);
	CU_ASSERT_EQUAL(h->sim.n_elems, h->elems_built);
	CU_ASSERT_EQUAL(n_recs, 0);
	free(err);
}

static inline void setup_and_run(struct harness *h)
{
	char *err = NULL;
	if (!h->cs)
		h->cs = colls_new(&h->w);
	int rc = traffic_setup(&h->w, h->cs, &h->tr, &err);
	if (rc != 0)
		fprintf(stderr, "\n  traffic_setup: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT(h->w.sources_active > 0);
	CU_ASSERT_EQUAL(sim_run(&h->sim), SIM_RAN_DRY);
	/* Every source said it will post no more. */
	CU_ASSERT_EQUAL(h->w.sources_active, 0);
}

#endif
