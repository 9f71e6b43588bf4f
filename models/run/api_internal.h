/*
 * api_internal.h — what api.c (the handle: open, clock, completions,
 * close) and api_post.c (posting messages and collectives, their events
 * and completion callbacks) share. Not for other files: the API is
 * rocesim.h.
 */
#ifndef ROCESIM_API_INTERNAL_H
#define ROCESIM_API_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "collective.h"
#include "config.h"
#include "job.h"
#include "rocesim.h"
#include "run.h"
#include "sim.h"

#define API_CHUNK_B (512u * 1024u) /* as [traffic] collective: [job] chunk's default */
#define API_CHANNELS 2             /* [job] channels' default */
#define API_SOURCE "api"           /* flow.source and collective rows of posted work */

struct api_post {
	struct api_post *prev, *next; /* the handle's pending list */
	struct rocesim *h;
	int kind;                     /* enum rocesim_kind */
	uint64_t tag;
	simtime_t at_ps;
	uint64_t size_b;
	int src, dst;                 /* message: endpoints (GPUs, or n_gpus + host) */
	struct coll_spec spec;        /* collective: spec.gpus = gpus */
	int *gpus;                    /* collective: [spec.n], freed once started */
	int64_t id;                   /* flow_id / collective_id once started, else -1 */
	struct api_post *then, *then_last; /* posts that start when this one completes, in order */
	struct api_post *then_next;   /* a chained post: the next of its predecessor's */
};

struct rocesim {
	struct config cfg;            /* the loaded scenario (the run reads it) */
	struct run *run;
	struct sim *sim;
	struct world *w;
	struct colls *colls;
	struct sim_elem elem;         /* "api": schedules the posts */
	struct api_post *posts;       /* pending: posted and not complete */
	int n_pending;
	struct rocesim_completion *q; /* completions not yet taken: a ring */
	size_t q_head, q_n, q_cap;
	uint64_t chunk_b;             /* collectives posted next */
	int channels;
	const char *verdict;          /* 'deadlock' / 'stalled' once the watchdog stopped the run */
	char *err;                    /* the last error's message */
	struct job_dp_plan *plans;    /* rocesim_job_dp_plan's answers, kept until close */
	int n_plans;
};


/* Sets h's error message; returns rc. */
int api_fail(struct rocesim *h, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* ROCESIM_E_ARG for a NULL handle, else 0. */
int api_check_open(const struct rocesim *h);
/* 0 when t (for `what`, in the message) is a time a post or the clock may
 * take: not before now, below SIMTIME_NEVER, the run not stopped. */
int api_check_time(struct rocesim *h, int64_t t, const char *what);

#endif
