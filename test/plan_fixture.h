/*
 * plan_fixture.h — a job's plan as `sim --check` computes it, for the tests
 * that compare it with the flow table of a run (test_jobs, test_coll_mcast,
 * test_job_sched, test_job_moe, ...).
 * Include after run_fixture.h (its temporary folder).
 */
#ifndef ROCESIM_TEST_PLAN_FIXTURE_H
#define ROCESIM_TEST_PLAN_FIXTURE_H

#include <sqlite3.h>
#include "job.h"
#include "job_plan.h"
#include "run.h"
#include "sqlutil.h"

/* Loads the scenario text and resolves its first job's plan into *s
 * (free both with job_spec_free and config_free). */
static inline void plan_spec(const char *text, struct config *cfg, struct job_spec *s)
{
	char path[300], *err = NULL;
	snprintf(path, sizeof path, "%s/plan.ini", run_tmpdir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(scenario_load(cfg, path, NULL, 0, &err), 0);
	const struct cfg_inst *job = cfg_next(cfg, &job_section, NULL);
	CU_ASSERT_EQUAL_FATAL(job_spec_init(s, cfg, job->name, job->data, 1 << 20, &err), 0);
}

/* The job's plan as --check computes it (jobs_print_plan's totals). */
static inline void plan_of(const char *text, struct job_plan_totals *t, struct job_spec *spec_out)
{
	struct config cfg;
	struct job_spec s;
	plan_spec(text, &cfg, &s);
	job_plan_totals(&s, t);
	if (spec_out) {  /* the scalar parts only */
		*spec_out = s;
		spec_out->prog = NULL;
		spec_out->bucket = NULL;
		spec_out->cfg = NULL;
	}
	job_spec_free(&s);
	config_free(&cfg);
}

/* The run in db moved exactly the plan's bytes t of every parallelism
 * (the flow table's size_bytes; iteration < 0: the whole run). */
static inline void plan_bytes_match(sqlite3 *db, const struct job_plan_totals *t, int iteration)
{
	for (int p = 0; p < JOB_NPAR; p++) {
		char q[300], it[40] = "";
		if (iteration >= 0)
			snprintf(it, sizeof it, " AND iteration = %d", iteration);
		snprintf(q, sizeof q, "SELECT COALESCE(SUM(size_bytes), 0) FROM flow WHERE parallelism = '%s'%s",
			 job_par_name[p], it);
		long long got = q_int(db, q);
		if ((uint64_t)got != t->bytes[p])
			printf("\n    iteration %d %s: simulated %lld, plan %llu", iteration, job_par_name[p], got,
			       (unsigned long long)t->bytes[p]);
		CU_ASSERT_EQUAL((uint64_t)got, t->bytes[p]);
	}
}

#endif
