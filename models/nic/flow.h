/*
 * flow.h — a message (one RDMA WRITE) and its lifecycle record.
 *
 * Created by a traffic source or workload through nic_post(), owned by the
 * sending QP until its last byte is acknowledged, then told to the world's
 * observers (its `flow` row) and returned to the pool. Everything about a
 * flow that reaches the results is here.
 */
#ifndef ROCESIM_FLOW_H
#define ROCESIM_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include "simtime.h"

struct sim;
struct flow;
struct qp;

/* Called when the sender sees the message complete (after the row is
 * filled, before it is written and freed), or when it fully reached the
 * receiver (on_recv). */
typedef void (*flow_done_fn)(struct sim *sim, struct flow *f, void *ctx);

struct hpcc_flow;

struct flow {
	struct flow *next;         /* QP message list link (posting order) */
	uint64_t id;               /* flow_id: order of posting, from 1 */
	struct qp *qp;             /* sending QP */
	int32_t src, dst;          /* host ids */
	uint64_t size_b;
	uint32_t first_psn, last_psn; /* PSN range (unwrapped, 32-bit), once psn_valid */
	uint32_t n_pkts;
	bool psn_valid;            /* its first packet was sent: first/last_psn are set */
	simtime_t start;           /* posted */
	simtime_t recv_end;        /* last byte reached the receiver, -1 until then */
	simtime_t end;             /* last byte acknowledged, -1 until then */
	simtime_t ideal;           /* ideal FCT on the idle fabric */
	uint64_t retx_pkts, ecn_marked, cnp_received;
	const char *source;        /* "traffic.ws" (static string owned by the config) */
	const char *parallelism;   /* "micro", "bg", ... (static) */
	const char *job;           /* NULL when not a job's */
	int64_t iteration, collective_id; /* -1 when none */
	int32_t src_gpu, dst_gpu;  /* -1 when none */
	const char *dst_name;      /* its row's dst when not a host: a multicast sender's group */
	const struct hpcc_flow *hpcc; /* posted from this line of an HPCC flow.txt
				    * (its ports, for [output] hpcc_fct), else NULL */
	flow_done_fn on_done;      /* may be NULL */
	void *on_done_ctx;
	/* Called once when the last byte reached the receiver (recv_end set),
	 * which is what a dependent step of a workload waits for; may be NULL. */
	flow_done_fn on_recv;
	void *on_recv_ctx;
	uint64_t first_b;          /* once psn_valid: its first byte's offset in its QP's stream */
};

struct world;

/* A new record from w->flow_pool, posted now and counted in flows_posted;
 * src/dst are endpoint ids (world.h). */
struct flow *flow_new(struct world *w, int src, int dst, uint64_t size_b, const char *source,
		      const char *parallelism);
/* The last byte reached the receiver: recv_end, then on_recv. */
void flow_received(struct sim *sim, struct flow *f);
/* Its end is now and it counts as done; after the last posted flow, the
 * done hook is asked right after this event (flow_finish's first step,
 * also multicast's). */
void flow_ended(struct sim *sim, struct world *w, struct flow *f);
/* The sender sees the message complete: end, flows_done, on_done, the
 * world's observers (its row), and the record goes back to the pool
 * (kept if it had retransmissions: duplicates may still be in flight). */
void flow_finish(struct sim *sim, struct world *w, struct flow *f);

#endif
