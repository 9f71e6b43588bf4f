/*
 * host_fixture.h — a world built from scenario text, for tests that drive
 * NVLink and GPU messages directly (test_nvlink.c, test_hosts.c): the text
 * is written to a private folder, loaded through scenario_load as main.c
 * does, and built with world_build; the run ends when every posted flow is
 * done (world_done). Header-only, like testutil.h.
 */
#ifndef ROCESIM_HOST_FIXTURE_H
#define ROCESIM_HOST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "run.h"
#include "sim.h"
#include "testutil.h"
#include "world.h"

struct bed {
	struct config cfg;
	struct sim sim;
	struct world w;
	char dir[64];              /* private folder: scen.ini (and what a test adds) */
	char ini[96];
};

/* Builds the world of `text`; 0, or -1 after printing why. */
static inline int bed_open(struct bed *b, const char *text)
{
	memset(b, 0, sizeof *b);
	snprintf(b->dir, sizeof b->dir, "/tmp/rocesim-hosts-XXXXXX");
	if (!mkdtemp(b->dir))
		return -1;
	snprintf(b->ini, sizeof b->ini, "%s/scen.ini", b->dir);
	FILE *f = fopen(b->ini, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	char *err = NULL;
	if (scenario_load(&b->cfg, b->ini, NULL, 0, &err) < 0) {
		printf("\n  config: %s\n", err);
		free(err);
		unlink(b->ini);
		rmdir(b->dir);
		return -1;
	}
	sim_init(&b->sim, scenario_sim(&b->cfg)->seed);
	b->sim.cfg = &b->cfg;
	if (world_build(&b->w, &b->sim, &b->cfg, &err) < 0) {
		printf("\n  world: %s\n", err);
		free(err);
		sim_free(&b->sim);
		config_free(&b->cfg);
		unlink(b->ini);
		rmdir(b->dir);
		return -1;
	}
	b->sim.done = world_done;
	b->sim.done_ctx = &b->w;
	return 0;
}

static inline void bed_close(struct bed *b)
{
	world_free(&b->w);
	sim_free(&b->sim);
	config_free(&b->cfg);
	unlink(b->ini);
	rmdir(b->dir);
}

#endif
