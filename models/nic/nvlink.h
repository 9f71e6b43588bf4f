/*
 * nvlink.h — the NVLink-class fabric inside a host: messages between GPUs of
 * one host, modelled per message (a fluid), not per packet (docs/architecture.md "The network").
 *
 * Model. Every GPU has an egress and an ingress capacity of [topology]
 * nvlink_rate (per GPU per direction; H100 450 GB/s, docs/protocol.md "Training jobs"); a
 * message from GPU a to GPU b uses a's egress and b's ingress (GPUs behind
 * a non-blocking NVSwitch). The messages of a host draining at one time
 * share those capacities max-min fairly (progressive filling), recomputed
 * whenever one of them starts or finishes draining; the last byte reaches
 * the destination GPU nvlink_delay after the data drained. A message alone
 * takes ceil(size x 8 / nvlink_rate) + nvlink_delay, its ideal.
 *
 * Each message is one struct flow from the world's pool (qp NULL, src/dst
 * the GPUs' endpoints, src_gpu/dst_gpu set), counted in flows_posted and
 * flows_done; on arrival end = recv_end = the arrival time, on_recv then
 * on_done run, its `flow` row is written and the flow freed.
 */
#ifndef ROCESIM_NVLINK_H
#define ROCESIM_NVLINK_H

#include <stdint.h>
#include "flow.h"
#include "simtime.h"

struct world;
struct nvlink;

/* Starts a message from GPU src to GPU dst of the same host now; the flow
 * returned is its record (qp NULL), which the caller may decorate before
 * its event ends: no event of the message runs before nvlink_post returns.
 * Needs w->nvlink (hosts with more than one GPU). */
struct flow *nvlink_post(struct world *w, int src_gpu, int dst_gpu, uint64_t size_b,
			 const char *source, const char *parallelism);

/* The NVLink fabrics of every host of w (world_build, gpus_per_host > 1). */
struct nvlink *nvlink_create(struct world *w);
/* Frees w->nvlink (flows live in the world's pool) and sets it NULL. */
void nvlink_free(struct world *w);

/* Its sending time alone: ceil(size_b x 8 / nvlink_rate). */
simtime_t nvlink_send_ps(const struct world *w, uint64_t size_b);
/* A message alone: ceil(size_b x 8 / nvlink_rate) + nvlink_delay. */
simtime_t nvlink_ideal_ps(const struct world *w, uint64_t size_b);
/* Rows with NULL ends for every message not yet arrived, in posting order. */
void nvlink_write_unfinished(struct world *w);
/* After a run that ran dry: no message left anywhere (aborts otherwise). */
void nvlink_check_drained(struct world *w);

#endif
