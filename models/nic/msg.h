/*
 * msg.h — a message between two GPUs: the transport a collective or a job
 * uses, whatever carries it.
 *
 * Between GPUs of one host the message rides the NVLink-class fabric
 * (nvlink.h, fluid max-min sharing per message); between hosts it is an
 * RDMA WRITE from the source GPU's NIC to the destination GPU's NIC
 * (GPU i uses NIC i mod nics_per_host, world.h). Either way it becomes one
 * `flow` row with job, iteration, collective_id, parallelism and both GPU
 * names, and on_recv runs when its last byte reached the destination GPU,
 * or recv_delay later (msg_late.c).
 *
 * A message with recv_delay > 0 ("late") is what lets a partitioned run
 * spread the hosts of a model that reacts to arrivals at zero delay (a
 * training job) over ranks: every rank runs a copy of the model, posts
 * only its own hosts' messages (the others' only count their ids), and
 * the rank that owns the destination GPU tells every rank when the
 * message arrived; the copies all run on_recv recv_delay later, with the
 * same event key, which needs recv_delay >= the run's lookahead.
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
	simtime_t recv_delay;       /* on_recv this long after the last byte arrived
				     * (msg_late.c); 0: at once. Late messages need
				     * msg_late_enable first. */
};

/* Sends m now (sim->now); the flow returned is the message's record
 * (already decorated from m). In a partitioned run whose source GPU
 * another rank owns, only its id (and queue pair) is counted here, as
 * that rank posts it: returns NULL. */
struct flow *msg_send(struct world *w, const struct msg *m);

/* ---- Late messages (msg_late.c) ---- */

/* Makes late messages possible: registers an element per host that
 * orders their deliveries (once; ids after every element built so far,
 * so a scenario without late messages numbers its elements as before). */
void msg_late_enable(struct world *w);
/* Keeps on_recv of late message id (on every rank: each copy of the model
 * posts it, msg_send), until it is delivered. */
void msg_late_keep(struct world *w, uint64_t id, const struct msg *m);
/* The last byte of message id reached its GPU now, on this rank (its
 * record, or this rank's copy of another rank's record); does nothing
 * unless id is a late message. Schedules its delivery and tells the
 * other ranks (w->late_far). */
void msg_late_arrived(struct world *w, uint64_t id);
/* Another rank's word that late message id is delivered at t, with key. */
void msg_late_land(struct world *w, uint64_t id, simtime_t t, uint64_t key);
void msg_late_free(struct world *w);

#endif
