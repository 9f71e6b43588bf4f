/*
 * job_stream.h — a communicator's stream: NCCL runs the collectives of one
 * communicator one after another, in the order they were issued (one CUDA
 * stream per communicator; a collective uses all the communicator's
 * channels). A job gives each of its DP and EDP groups (per tp index and
 * stage) one stream; the gradient reductions and parameter gathers posted
 * to it start when the previous one has ended.
 */
#ifndef ROCESIM_JOB_STREAM_H
#define ROCESIM_JOB_STREAM_H

#include <stdbool.h>
#include "collective.h"
#include "job_timeline.h"

struct job;
struct job_stream_item;

struct job_stream {
	struct job *job;
	struct job_stream_item *head, *tail; /* head: running (busy) or next */
	bool busy;
};

/* Starts cs now if the stream is idle, else queues it (its gpus are
 * copied); cs->on_done and ctx are called at its end, after the next one
 * has started. cs->ctx is the struct job_join the collective belongs to:
 * a collective that waited in the queue starts when the one ahead ended,
 * so the join's chain (job_timeline.h) continues that one's when later. */
void job_stream_post(struct job_stream *st, const struct coll_spec *cs);
/* Frees what is still queued (a run cut short). */
void job_stream_clear(struct job_stream *st);

#endif
