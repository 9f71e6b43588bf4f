/*
 * testutil.h — shared CUnit scaffolding: each test program lists its tests
 * in a table and calls TEST_MAIN. Exit status is the number of failures,
 * so automake's harness sees a failing program.
 */
#ifndef ROCESIM_TESTUTIL_H
#define ROCESIM_TESTUTIL_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

struct test_case { const char *name; void (*fn)(void); };

static inline int test_run(const char *suite, const struct test_case *tc)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite(suite, NULL, NULL);
	for (; tc->name; tc++)
		CU_add_test(s, tc->name, tc->fn);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}

#define TEST_MAIN(suite, ...) \
	int main(void) { static const struct test_case t_[] = { __VA_ARGS__, { 0, 0 } }; return test_run(suite, t_); }

#endif
