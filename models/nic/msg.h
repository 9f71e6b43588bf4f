/*
 * msg.h — a message between two GPUs: the transport a collective or a job
 * uses, whatever carries it.
 *
 * Between GPUs of one host the message rides the NVLink-class fabric
 * (nvlink.h, fluid max-min sharing per message); between hosts it is an
 * RDMA WRITE from the source GPU's NIC to the destination GPU's NIC
 * (GPU i uses NIC i mod nics_per_host, world.h). Either way it becomes one
 * `flow` row with job, iteration, collective_id, parallelism and both GPU
 * names, and on_recv runs when its last byte reached the destination GPU.
 */
#ifndef ROCESIM_MSG_H
#define ROCESIM_MSG_H

#include <stdbool.h>
#include <stdint.h>
#include "flow.h"
#include "sim.h"

struct world;

struct msg {
	int src_gpu, dst_gpu;       /* global GPU ids (world.h); src_gpu != dst_gpu */
	uint64_t size_b;            /* > 0 */
	const char *source;         /* "job.moe", "traffic.ar" (static, kept by reference) */
	const char *parallelism;    /* "dp" "tp" "pp" "ep" "micro" (static) */
	const char *job;            /* NULL when not a job's (static) */
	int64_t iteration;          /* -1 when none */
	int64_t collective_id;      /* -1 when none */
	flow_done_fn on_recv;       /* last byte at the destination GPU; may be NULL */
	void *ctx;                  /* passed to on_recv */
	bool prio_set;              /* between hosts it rides class prio, else [nic] priority */
	int prio;                   /* 0..7, when prio_set */
};

/* Sends m now (sim->now); the flow returned is the message's record
 * (already decorated from m). */
struct flow *msg_send(struct world *w, const struct msg *m);

#endif
