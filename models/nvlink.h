/*
 * nvlink.h — the NVLink-class fabric inside a host (issue 4: to be built).
 *
 * Carries messages between GPUs of one host per message, with max-min fair
 * sharing of each GPU's NVLink bandwidth per direction ([topology]
 * nvlink_rate, nvlink_delay), not per packet.
 */
#ifndef ROCESIM_NVLINK_H
#define ROCESIM_NVLINK_H

#include <stdint.h>
#include "flow.h"

struct world;

/* Starts a message from GPU src to GPU dst of the same host now; the flow
 * returned is its record (qp NULL), which the caller may decorate before
 * its event ends. Its on_recv runs when the last byte arrived, then the row
 * is written and the flow freed. */
struct flow *nvlink_post(struct world *w, int src_gpu, int dst_gpu, uint64_t size_b,
			 const char *source, const char *parallelism);

#endif
