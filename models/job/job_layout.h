/*
 * job_layout.h — Megatron-Core rank layout of a job: which GPU holds which
 * (tp, ep, edp, pp) coordinate, and the process groups.
 *
 * A job has tp × pp × dp ranks. Expert parallelism is carved out of data
 * parallelism (Megatron-Core): the dp index splits into ep (size ep) and
 * edp, the expert-data-parallel index (size dp/ep), with
 * dp index = edp × ep + ep index. The `placement` list orders the four
 * dimensions innermost first (default tp, ep, dp, pp — Megatron-Core's
 * tp-cp-ep-dp-pp without cp; `dp` in the list stands for edp), so
 *   rank = Σ coord[d] × stride[d],  stride[first] = 1,
 *   stride[next] = stride[prev] × size[prev],
 * and rank r runs on gpus[r] (the job's GPUs: its hosts in the order
 * listed, each host's GPUs in order).
 *
 * Groups (members in order of the varying coordinate):
 *   tp    same ep, edp, pp          size tp
 *   pp    same tp, ep, edp          size pp (ordered by stage)
 *   dp    same tp, pp               size dp (non-expert gradients; ordered by dp index)
 *   ep    same tp, edp, pp          size ep (all-to-all)
 *   edp   same tp, ep, pp           size dp/ep (expert gradients)
 */
#ifndef ROCESIM_JOB_LAYOUT_H
#define ROCESIM_JOB_LAYOUT_H

#include <stddef.h>

enum job_dim { JOB_DIM_TP, JOB_DIM_EP, JOB_DIM_EDP, JOB_DIM_PP, JOB_NDIMS };
enum job_group { JOB_GROUP_TP, JOB_GROUP_PP, JOB_GROUP_DP, JOB_GROUP_EP, JOB_GROUP_EDP };

struct job_layout {
	int size[JOB_NDIMS];      /* tp, ep, dp/ep, pp */
	int stride[JOB_NDIMS];    /* rank = sum coord x stride */
	int n_ranks;              /* tp x pp x dp */
	const int *gpu;           /* [n_ranks] rank -> global GPU id (not owned), may be NULL */
};

/* placement: names "tp" "ep" "dp" "pp", innermost first (already checked
 * to be a permutation by the config). Returns 0, or -1 on a bad name. */
int job_layout_init(struct job_layout *l, int tp, int pp, int dp, int ep,
		    char *const *placement, size_t n_placement);
int job_layout_rank(const struct job_layout *l, int tp, int ep, int edp, int pp);
void job_layout_coords(const struct job_layout *l, int rank, int coord[JOB_NDIMS]);
/* Data-parallel index (edp x ep + ep) of a rank, and the rank of
 * (tp, dp index, pp). */
int job_layout_dp_index(const struct job_layout *l, int rank);
int job_layout_rank_dp(const struct job_layout *l, int tp, int dp_index, int pp);
/* Members of group g containing `rank`, as ranks, into out (room for
 * n_ranks); returns the group size. */
int job_layout_group(const struct job_layout *l, enum job_group g, int rank, int *out);

#endif
