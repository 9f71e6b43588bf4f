/*
 * collective.h — collective operations over a group of GPU ranks (issue 4).
 *
 * A collective runs as dependent rounds of messages between ranks
 * (msg.h), chunked and pipelined as NCCL does (`chunk` bytes per message,
 * `channels` parallel rings/trees), so its time emerges from the fabric.
 * Algorithms are looked up by name in one registry. Every message carries
 * the collective's id, job, iteration and parallelism; when the last one
 * arrives the `collective` row is written (with ideal_ps, its time alone on
 * the idle fabric) and on_done runs.
 */
#ifndef ROCESIM_COLLECTIVE_H
#define ROCESIM_COLLECTIVE_H

#include <stdint.h>
#include "sim.h"

struct world;
struct coll;

enum coll_op { COLL_ALLREDUCE, COLL_REDUCE_SCATTER, COLL_ALLGATHER, COLL_ALLTOALL,
	       COLL_BROADCAST, COLL_SENDRECV };

typedef void (*coll_done_fn)(struct sim *sim, struct coll *c, void *ctx);

struct coll_spec {
	enum coll_op op;
	const char *algorithm;      /* "ring", "halving_doubling", "tree", "direct" (registry name) */
	const int *gpus; int n;     /* rank -> global GPU id; copied */
	uint64_t size_b;            /* nccl-tests convention (SCENARIO.md collective.size_bytes) */
	const uint64_t *a2a_b;      /* alltoall: n x n bytes, [i*n+j] from rank i to rank j
				     * (copied); NULL = size_b / n to each other rank */
	int root;                   /* broadcast root; sendrecv: rank 0 sends to rank 1 */
	uint64_t chunk_b;           /* [job] chunk */
	int channels;               /* [job] channels */
	const char *source, *parallelism, *job; /* static strings */
	int64_t iteration;          /* -1 when none */
	coll_done_fn on_done;       /* may be NULL */
	void *ctx;
};

/* Checks that an algorithm exists for op ("tree" only for allreduce, ...);
 * NULL when it does, else a static message of what is accepted. */
const char *coll_check(enum coll_op op, const char *algorithm, int n);
/* op by name ("allreduce"), -1 when unknown. */
int coll_op_by_name(const char *name);
const char *coll_op_name(enum coll_op op);

/* Starts the collective now; returns its handle (valid until on_done returns). */
struct coll *coll_start(struct world *w, const struct coll_spec *s);
int64_t coll_id(const struct coll *c);

#endif
