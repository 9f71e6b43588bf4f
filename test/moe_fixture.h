/*
 * moe_fixture.h — loading a mixture-of-experts job for the tests of its
 * plan (test_job_moe, test_job_moe_routing): a scenario text resolved to a
 * struct job_spec. Include after run_fixture.h (its temporary folder).
 */
#ifndef ROCESIM_TEST_MOE_FIXTURE_H
#define ROCESIM_TEST_MOE_FIXTURE_H

#include <stdio.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "run.h"

/* Loads a scenario text and resolves its first job onto n_gpus GPUs;
 * 0, or -1 with the message in *err (malloc'd). */
static inline int load(const char *text, int n_gpus, struct config *cfg, struct job_spec *s, char **err)
{
	char path[300];
	snprintf(path, sizeof path, "%s/moe.ini", run_tmpdir);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	if (scenario_load(cfg, path, NULL, 0, err) < 0)
		return -1;
	const struct cfg_inst *ji = cfg_next(cfg, &job_section, NULL);
	if (job_spec_init(s, cfg, ji->name, ji->data, n_gpus, err) < 0) {
		config_free(cfg);
		return -1;
	}
	return 0;
}

static inline void unload(struct config *cfg, struct job_spec *s)
{
	job_spec_free(s);
	config_free(cfg);
}

#endif
