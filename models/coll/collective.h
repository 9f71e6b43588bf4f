/*
 * collective.h — collective operations over a group of GPU ranks.
 *
 * A collective runs as dependent rounds of messages between ranks
 * (msg.h), chunked and pipelined as NCCL does (`chunk` bytes per message,
 * `channels` parallel rings/trees), so its time emerges from the fabric.
 * Algorithms are looked up by name in one registry. Every message carries
 * the collective's id, job, iteration and parallelism; when the last one
 * arrives the `collective` row is written (with ideal_ps, its time alone on
 * the idle fabric) and on_done runs.
 *
 * Algorithms (op / name):
 *   allreduce      ring, halving_doubling (power-of-two groups), tree (NCCL
 *                  double binary tree)
 *   reduce_scatter ring          allgather ring          broadcast ring (chain)
 *   alltoall       direct        sendrecv  ring or direct (same: rank 0 -> 1)
 *   multicast      broadcast, allgather, and allreduce = ring reduce-scatter
 *                  then multicast all-gather (coll_mcast.c; needs the
 *                  world's multicast groups, mcast.h)
 * The dependency rules of each are in collective.c's header comment.
 *
 * Timing of callbacks: coll_start posts the first messages and returns; it
 * never calls on_done. on_done runs from inside the event in which the last
 * message's last byte reached its destination GPU (or, for a collective
 * with no byte to move, from an event at the start time), after the
 * `collective` row was written; the handle is freed when on_done returns,
 * and on_done may start another collective.
 */
#ifndef ROCESIM_COLLECTIVE_H
#define ROCESIM_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>
#include "sim.h"

struct world;
struct coll;

enum coll_op { COLL_ALLREDUCE, COLL_REDUCE_SCATTER, COLL_ALLGATHER, COLL_ALLTOALL,
	       COLL_BROADCAST, COLL_SENDRECV };

typedef void (*coll_done_fn)(struct sim *sim, struct coll *c, void *ctx);

struct coll_spec {
	enum coll_op op;
	const char *algorithm;      /* a registry name ("ring", "tree", ...); NULL = the op's
				     * first algorithm in the registry (ring; direct for alltoall) */
	const int *gpus; int n;     /* rank -> global GPU id; copied */
	uint64_t size_b;            /* nccl-tests convention (docs/scenario.md "Result vocabularies");
				     * it is also the row's size_bytes, except an alltoall with
				     * a2a_b and size_b 0: the largest row sum of the matrix */
	const uint64_t *a2a_b;      /* alltoall: n x n bytes, [i*n+j] from rank i to rank j
				     * (copied; diagonal ignored, zeros send nothing);
				     * NULL = size_b / n to each other rank */
	int root;                   /* broadcast root; sendrecv: rank 0 sends to rank 1 */
	int gpus_per_host;          /* plans without a world (coll_plan): GPU g is on host
				     * g / gpus_per_host (0 = one GPU per host); multicast's
				     * messages depend on it. Ignored when running. */
	uint64_t chunk_b;           /* [job] chunk */
	int channels;               /* [job] channels */
	const char *source, *parallelism, *job; /* static strings, kept by reference (flow rows) */
	int64_t iteration;          /* -1 when none */
	bool prio_set;              /* its messages ride class prio, else [nic] priority */
	int prio;                   /* 0..7, when prio_set (a job's priority) */
	simtime_t recv_delay;       /* a piece is seen this long after its last byte
				     * arrived (msg.h: late messages; needs
				     * msg_late_enable); unicast pieces only */
	coll_done_fn on_done;       /* may be NULL */
	void *ctx;
};

/* Part i of `parts` near-equal parts of total (the first total % parts get
 * one more): how a buffer is cut over channels, ranks or TP shards. */
static inline uint64_t coll_split(uint64_t total, uint64_t parts, uint64_t i)
{
	return total / parts + (i < total % parts ? 1 : 0);
}

/* Checks that an algorithm exists for op ("tree" only for allreduce, ...);
 * NULL when it does, else a static message of what is accepted. */
const char *coll_check(enum coll_op op, const char *algorithm, int n);
/* The registry's algorithm names for *op (an enum coll_op), in order, its
 * default first; NULL past the last (a key's vocab_fn). */
const char *coll_alg_name_at(const void *op, size_t i);
/* Every algorithm name once, in registry order; arg unused. */
const char *coll_any_alg_name_at(const void *arg, size_t i);
/* The ops' names in enum order; arg unused. */
const char *coll_op_name_at(const void *arg, size_t i);
/* "ring, halving_doubling, tree or multicast": the algorithms of op, into
 * buf (size bytes). */
void coll_alg_list(enum coll_op op, char *buf, size_t size);
/* A config rule of a key naming a collective algorithm: fails at key
 * (cfg_fail, -1) when algorithm is multicast and [multicast] is disabled
 * or unreliable (a collective needs every byte, coll_mcast.c); else 0. */
struct cfg_check;
int coll_rule_multicast(struct cfg_check *c, const char *key, const char *algorithm);
/* Whether algorithm (a registry name, or NULL: the op's default) sends by
 * multicast: its pieces are not late messages (msg.h). */
bool coll_alg_multicast(const char *algorithm);
/* op by name ("allreduce"), -1 when unknown. */
int coll_op_by_name(const char *name);
const char *coll_op_name(enum coll_op op);

/* The collectives of a run on w: ids in starting order, and the ones
 * still running when it stops. */
struct colls;
struct colls *colls_new(struct world *w);
/* Starts the collective now; returns its handle (valid until on_done returns). */
struct coll *coll_start(struct colls *cs, const struct coll_spec *s);
int64_t coll_id(const struct coll *c);

/* ---- Extensions (compatible additions). ---- */

/* The traffic of a collective without running it (no world needed; spec
 * must pass coll_check): bytes and messages every rank sends in total,
 * intra-host ones included (what `--check` prints as a plan). Messages of
 * zero bytes are not messages. Cost: one pass over its messages. */
void coll_plan(const struct coll_spec *s, uint64_t *bytes, uint64_t *messages);
/* Dependent rounds of the algorithm (ring allreduce 2(n-1), halving-doubling
 * 2 log2 n, reduce_scatter/allgather n-1, tree 2 x depth, broadcast chain
 * n-1, alltoall and sendrecv 1); 0 when the spec fails coll_check. */
int coll_rounds(const struct coll_spec *s);
/* Of a running collective: when it started, and its ideal time (known
 * from the start). */
simtime_t coll_start_ps(const struct coll *c);
simtime_t coll_ideal_ps(const struct coll *c);

/* A run that stops (stop time, interrupt, deadlock) with collectives
 * still running: colls_write_unfinished writes their rows with end_ps
 * NULL (through the world's sim->res, when set; call with the other final
 * rows), and colls_free frees them without calling on_done, then cs (call
 * before the world goes). */
void colls_write_unfinished(struct colls *cs);
void colls_free(struct colls *cs);

#endif
