/*
 * job_plan_internal.h — what job_plan.c (job_spec_init) needs from
 * job_prog.c, inside models/job/ only.
 */
#ifndef ROCESIM_JOB_PLAN_INTERNAL_H
#define ROCESIM_JOB_PLAN_INTERNAL_H

#include "job_plan.h"

struct wl_pp_slot;
struct wl_dp_item;

/* Builds stage st's program for one iteration into s->prog[st]. bucket_end
 * holds each gradient bucket's last item (wl_dp_buckets); slots (2·m·vpp)
 * and items (layers_per_stage + 2) are scratch space of the caller's. */
void job_build_stage(struct job_spec *s, int st, const int *bucket_end, struct wl_pp_slot *slots,
		     struct wl_dp_item *items);

#endif
