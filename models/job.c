/*
 * job.c — training jobs (see job.h). Placeholder until the workload models land.
 */
#include <stdlib.h>
#include "config.h"
#include "job.h"
#include "world.h"

int jobs_setup(struct world *w, char **err)
{
	const struct config *cfg = w->cfg;
	if (!cfg->n_jobs)
		return 0;
	char section[160];
	snprintf(section, sizeof section, "job.%s", cfg->jobs[0].name);
	*err = cfg_error_at(cfg, section, "model", 0,
			    "training jobs are validated but not simulated by this version of rocesim");
	return -1;
}

void jobs_print_plan(const struct world *w, FILE *out)
{
	(void)w; (void)out;
}

void jobs_free(struct world *w)
{
	(void)w;
}
