/*
 * job_layout.c — rank ↔ coordinates and process groups (see job_layout.h).
 */
#include <string.h>
#include "job_layout.h"

int job_layout_init(struct job_layout *l, int tp, int pp, int dp, int ep,
		    char *const *placement, size_t n_placement)
{
	static const char *const names[JOB_NDIMS] = { "tp", "ep", "dp", "pp" };
	memset(l, 0, sizeof *l);
	l->size[JOB_DIM_TP] = tp;
	l->size[JOB_DIM_EP] = ep;
	l->size[JOB_DIM_EDP] = dp / ep;
	l->size[JOB_DIM_PP] = pp;
	l->n_ranks = tp * pp * dp;
	if (n_placement != JOB_NDIMS)
		return -1;
	int stride = 1, seen = 0;
	for (size_t i = 0; i < n_placement; i++) {
		int d = -1;
		for (int k = 0; k < JOB_NDIMS; k++)
			if (strcmp(placement[i], names[k]) == 0)
				d = k;
		if (d < 0 || (seen & (1 << d)))
			return -1;
		seen |= 1 << d;
		l->stride[d] = stride;
		stride *= l->size[d];
	}
	return 0;
}

int job_layout_rank(const struct job_layout *l, int tp, int ep, int edp, int pp)
{
	return tp * l->stride[JOB_DIM_TP] + ep * l->stride[JOB_DIM_EP] + edp * l->stride[JOB_DIM_EDP] +
	       pp * l->stride[JOB_DIM_PP];
}

void job_layout_coords(const struct job_layout *l, int rank, int coord[JOB_NDIMS])
{
	for (int d = 0; d < JOB_NDIMS; d++)
		coord[d] = rank / l->stride[d] % l->size[d];
}

int job_layout_dp_index(const struct job_layout *l, int rank)
{
	int c[JOB_NDIMS];
	job_layout_coords(l, rank, c);
	return c[JOB_DIM_EDP] * l->size[JOB_DIM_EP] + c[JOB_DIM_EP];
}

int job_layout_rank_dp(const struct job_layout *l, int tp, int dp_index, int pp)
{
	int ep = l->size[JOB_DIM_EP];
	return job_layout_rank(l, tp, dp_index % ep, dp_index / ep, pp);
}

int job_layout_group(const struct job_layout *l, enum job_group g, int rank, int *out)
{
	int c[JOB_NDIMS], n = 0;
	job_layout_coords(l, rank, c);
	switch (g) {
	case JOB_GROUP_TP:
		for (int i = 0; i < l->size[JOB_DIM_TP]; i++)
			out[n++] = job_layout_rank(l, i, c[JOB_DIM_EP], c[JOB_DIM_EDP], c[JOB_DIM_PP]);
		break;
	case JOB_GROUP_PP:
		for (int i = 0; i < l->size[JOB_DIM_PP]; i++)
			out[n++] = job_layout_rank(l, c[JOB_DIM_TP], c[JOB_DIM_EP], c[JOB_DIM_EDP], i);
		break;
	case JOB_GROUP_DP:
		for (int e = 0; e < l->size[JOB_DIM_EDP]; e++)
			for (int i = 0; i < l->size[JOB_DIM_EP]; i++)
				out[n++] = job_layout_rank(l, c[JOB_DIM_TP], i, e, c[JOB_DIM_PP]);
		break;
	case JOB_GROUP_EP:
		for (int i = 0; i < l->size[JOB_DIM_EP]; i++)
			out[n++] = job_layout_rank(l, c[JOB_DIM_TP], i, c[JOB_DIM_EDP], c[JOB_DIM_PP]);
		break;
	case JOB_GROUP_EDP:
		for (int e = 0; e < l->size[JOB_DIM_EDP]; e++)
			out[n++] = job_layout_rank(l, c[JOB_DIM_TP], c[JOB_DIM_EP], e, c[JOB_DIM_PP]);
		break;
	}
	return n;
}
