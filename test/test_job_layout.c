/*
 * test_job_layout.c — Megatron-Core rank layout (models/job/job_layout.c):
 * rank <-> coordinates for placement orders, and the TP/PP/DP/EP/EDP
 * groups: right sizes, members share the fixed coordinates, every rank is
 * in exactly one group of each kind.
 */
#include <stdlib.h>
#include <string.h>
#include "job_layout.h"
#include "testutil.h"

static char *dflt[] = { "tp", "ep", "dp", "pp" };
static char *rev[] = { "pp", "dp", "ep", "tp" };

/* Default order tp,ep,dp,pp: rank = tp + 2 ep + 4 edp + 8 pp for tp 2, ep 2, dp 4, pp 2. */
static void test_default_order(void)
{
	struct job_layout l;
	CU_ASSERT_EQUAL_FATAL(job_layout_init(&l, 2, 2, 4, 2, dflt, 4), 0);
	CU_ASSERT_EQUAL(l.n_ranks, 16);
	CU_ASSERT_EQUAL(job_layout_rank(&l, 1, 0, 0, 0), 1);
	CU_ASSERT_EQUAL(job_layout_rank(&l, 0, 1, 0, 0), 2);
	CU_ASSERT_EQUAL(job_layout_rank(&l, 0, 0, 1, 0), 4);
	CU_ASSERT_EQUAL(job_layout_rank(&l, 0, 0, 0, 1), 8);
	for (int r = 0; r < l.n_ranks; r++) {
		int c[JOB_NDIMS];
		job_layout_coords(&l, r, c);
		CU_ASSERT_EQUAL(job_layout_rank(&l, c[JOB_DIM_TP], c[JOB_DIM_EP], c[JOB_DIM_EDP], c[JOB_DIM_PP]), r);
		CU_ASSERT_EQUAL(c[JOB_DIM_TP], r % 2);
		CU_ASSERT_EQUAL(c[JOB_DIM_PP], r / 8);
		/* dp index = edp x ep + ep: ranks 0..7 of stage 0 step through dp by 2 */
		CU_ASSERT_EQUAL(job_layout_dp_index(&l, r), (r % 8) / 2);
		CU_ASSERT_EQUAL(job_layout_rank_dp(&l, r % 2, (r % 8) / 2, r / 8), r);
	}
}

static void test_reversed_order(void)
{
	struct job_layout l;
	CU_ASSERT_EQUAL_FATAL(job_layout_init(&l, 2, 2, 4, 2, rev, 4), 0);
	/* pp innermost (stride 1), then edp (2 values, stride 2), ep (stride 4), tp (stride 8). */
	CU_ASSERT_EQUAL(job_layout_rank(&l, 0, 0, 0, 1), 1);
	CU_ASSERT_EQUAL(job_layout_rank(&l, 0, 0, 1, 0), 2);
	CU_ASSERT_EQUAL(job_layout_rank(&l, 0, 1, 0, 0), 4);
	CU_ASSERT_EQUAL(job_layout_rank(&l, 1, 0, 0, 0), 8);
	int g[16];
	CU_ASSERT_EQUAL(job_layout_group(&l, JOB_GROUP_TP, 0, g), 2);
	CU_ASSERT_EQUAL(g[0], 0);
	CU_ASSERT_EQUAL(g[1], 8);
	CU_ASSERT_EQUAL(job_layout_group(&l, JOB_GROUP_PP, 0, g), 2);
	CU_ASSERT_EQUAL(g[1], 1);
	char *bad[] = { "tp", "tp", "dp", "pp" };
	CU_ASSERT_EQUAL(job_layout_init(&l, 2, 2, 4, 2, bad, 4), -1);
}

/* Every group: the size of its kind, members agree on the fixed coordinates,
 * each rank in exactly one group of each kind, and the group holds the rank. */
static void check_groups(char **placement)
{
	struct job_layout l;
	const int tp = 2, pp = 3, dp = 4, ep = 2;
	CU_ASSERT_EQUAL_FATAL(job_layout_init(&l, tp, pp, dp, ep, placement, 4), 0);
	const int sizes[] = { [JOB_GROUP_TP] = tp, [JOB_GROUP_PP] = pp, [JOB_GROUP_DP] = dp,
			      [JOB_GROUP_EP] = ep, [JOB_GROUP_EDP] = dp / ep };
	/* fixed[g][d]: coordinate d is the same within a group of kind g */
	const int fixed[5][JOB_NDIMS] = {
		[JOB_GROUP_TP] = { 0, 1, 1, 1 }, [JOB_GROUP_PP] = { 1, 1, 1, 0 },
		[JOB_GROUP_DP] = { 1, 0, 0, 1 }, [JOB_GROUP_EP] = { 1, 0, 1, 1 },
		[JOB_GROUP_EDP] = { 1, 1, 0, 1 },
	};
	for (int kind = 0; kind < 5; kind++) {
		int *count = calloc((size_t)l.n_ranks, sizeof *count), g[64];
		for (int r = 0; r < l.n_ranks; r++) {
			int n = job_layout_group(&l, kind, r, g);
			CU_ASSERT_EQUAL(n, sizes[kind]);
			int c0[JOB_NDIMS], has = 0;
			job_layout_coords(&l, r, c0);
			for (int i = 0; i < n; i++) {
				int c[JOB_NDIMS];
				job_layout_coords(&l, g[i], c);
				for (int d = 0; d < JOB_NDIMS; d++)
					if (fixed[kind][d])
						CU_ASSERT_EQUAL(c[d], c0[d]);
				has |= g[i] == r;
				if (g[0] == r)   /* count each group once, from its first member */
					count[g[i]]++;
			}
			CU_ASSERT(has);
		}
		for (int r = 0; r < l.n_ranks; r++)
			CU_ASSERT_EQUAL(count[r], 1);
		free(count);
	}
}

static void test_groups_default(void) { check_groups(dflt); }
static void test_groups_reversed(void) { check_groups(rev); }

/* tp innermost puts a TP group on consecutive GPUs (one host with
 * gpus_per_host >= tp); pp outermost makes stage s the s-th block. */
static void test_tp_consecutive(void)
{
	struct job_layout l;
	CU_ASSERT_EQUAL_FATAL(job_layout_init(&l, 4, 2, 2, 1, dflt, 4), 0);
	int g[8];
	for (int r = 0; r < l.n_ranks; r++) {
		job_layout_group(&l, JOB_GROUP_TP, r, g);
		CU_ASSERT_EQUAL(g[0], r / 4 * 4);
		CU_ASSERT_EQUAL(g[3], r / 4 * 4 + 3);
		job_layout_group(&l, JOB_GROUP_DP, r, g);
		CU_ASSERT_EQUAL(g[1] - g[0], 4);
	}
}

TEST_MAIN("job_layout",
	  { "default placement tp,ep,dp,pp", test_default_order },
	  { "reversed placement", test_reversed_order },
	  { "groups (default order)", test_groups_default },
	  { "groups (reversed order)", test_groups_reversed },
	  { "tp innermost is consecutive", test_tp_consecutive })
