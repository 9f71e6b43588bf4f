/*
 * results_info.h — the run a result-database test writes (scenario, config,
 * seed, version and this build's schema), shared by test_results.c and
 * test_results_waiting.c.
 */
#ifndef ROCESIM_TEST_RESULTS_INFO_H
#define ROCESIM_TEST_RESULTS_INFO_H

#include "results.h"
#include "run.h"

static const struct results_run_info info = {
	.scenario = "scenarios/test.ini",
	.config = "[simulation]\nseed = 7\n",
	.seed = 7,
	.version = "0.1.0-test",
	.schema_sql = rocesim_schema_sql,
	.index_sql = rocesim_index_sql,
};

#endif
