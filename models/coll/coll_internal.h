/*
 * coll_internal.h — what the collective engine (collective.c) shares with
 * the algorithm families (coll_ring.c, coll_hd.c, coll_tree.c,
 * coll_direct.c, coll_mcast.c). Not for callers of collective.h.
 *
 * A collective is `pipes` independent pipelines (a channel, or a channel x
 * tree for the double binary tree) over n ranks. Each (pipe, rank) has the
 * algorithm's send counters (struct coll_pr) and `spr` receive counters
 * (struct coll_slot), one per stream of pieces it receives (ring: from its
 * predecessor; tree: from each child and from the parent; halving-doubling:
 * one per step). A sender addresses a piece to the receiver's slot; the
 * engine counts its arrival and calls the algorithm's progress(pipe, rank),
 * which posts whatever the counts now allow. Pieces are never tracked one
 * by one: state is O(pipes x ranks x spr) plus the messages in flight.
 */
#ifndef ROCESIM_COLL_INTERNAL_H
#define ROCESIM_COLL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "collective.h"
#include "log.h"
#include "simtime.h"

struct coll_slot {
	struct coll *c;
	uint32_t pr;                /* pipe x n + rank of the receiver */
	uint32_t count;             /* pieces received */
};

struct coll_pr {
	uint32_t sent[2];           /* pieces posted per send stream */
	uint32_t aux;               /* the algorithm's cursor (halving-doubling: steps opened) */
};

struct coll_algo {
	const char *name;           /* registry name, as in the config */
	enum coll_op op;
	/* NULL when a group of n ranks suits it, else what is accepted. */
	const char *(*check)(int n);
	/* Sets c->pipes, c->spr and the algorithm's constants (c->a, freed with c). */
	void (*layout)(struct coll *c);
	/* Posts every piece of (pipe, rank) that its receive counts now allow. */
	void (*progress)(struct coll *c, int pipe, int rank);
	/* Dependent rounds (coll_rounds). */
	int (*rounds)(const struct coll *c);
	/* Frees what c->a points to (c->a itself is freed by the engine); may be NULL. */
	void (*free_a)(void *a);
};

/* The registry (coll_families.c, generated from COLL_FAMILIES in
 * models/coll/Makefile.inc): each algorithm file's NULL-terminated list of
 * entries, in that order, NULL-terminated. An op's first entry is its
 * default, and the order is the order names are listed in (the keys'
 * vocabularies). */
extern const struct coll_algo *const *const coll_families[];

struct coll_virtual;

/* A pass over a collective's pieces: the real one posts messages on the
 * world (collective.c, coll_mcast.c); the virtual one times them on an
 * idle fabric without posting anything (coll_virtual.c). The engine and
 * the algorithms are the same for both; only these differ. */
struct coll_pass {
	/* One piece of size_b bytes (0: it arrives at once) from rank src to
	 * rank dst's slot s. */
	void (*send)(struct coll *c, int src, int dst, struct coll_slot *s, uint64_t size_b);
	/* One network copy of a multicast piece from rank src to each of the
	 * ranks dst[0..n_dst), one landing rank per other host (coll_mcast.c). */
	void (*mcast)(struct coll *c, int src, const int *dst, int n_dst, int pipe, int slot,
		      uint64_t size_b);
};
extern const struct coll_pass coll_real_pass, coll_virtual_pass;

/* The collectives of a run: ids and the ones running. */
struct colls {
	struct world *w;
	int64_t next_id;            /* last collective id handed out */
	struct coll *live;          /* started and not finished, newest first */
};

struct coll {
	struct world *w;            /* NULL when only planning */
	struct colls *cs;           /* NULL when only planning */
	const struct coll_algo *algo;
	enum coll_op op;
	int n, channels;
	uint64_t size_b, chunk_b;
	int *gpus;                  /* [n], owned */
	uint64_t *a2a;              /* [n x n], owned; NULL unless alltoall */
	int root;
	int plan_gph;               /* plans without a world: GPU g is on host g / plan_gph */
	const char *source, *parallelism, *job;
	int64_t iteration;
	int prio;                   /* class of its unicast messages; -1: [nic] priority */
	simtime_t recv_delay;       /* its messages' (msg.h): a piece is seen this long
				     * after it arrived */
	coll_done_fn on_done;
	void *ctx;
	int64_t id;
	/* Layout. */
	int pipes, spr;
	void *a;                    /* algorithm constants, one malloc'd block */
	struct coll_pr *pr;         /* [pipes x n] */
	struct coll_slot *slots;    /* [pipes x n x spr] */
	/* Engine. */
	const struct coll_pass *pass; /* the pass running: real or virtual */
	uint64_t pending;           /* pieces posted and not yet received */
	struct coll_slot **work;    /* zero-byte pieces received now (real pass), LIFO */
	size_t n_work, cap_work;
	struct coll_virtual *v;     /* the virtual pass's state */
	uint64_t messages, bytes;   /* non-empty pieces posted by this pass */
	uint64_t plan_messages;     /* messages of the virtual pass (checked at the end) */
	uint64_t mcasts, plan_mcasts; /* multicast pieces of this pass, and of the virtual one */
	simtime_t start, end, ideal;
	struct coll *live_prev, *live_next; /* collectives running (collective.c's list) */
};

static inline struct coll_pr *coll_pr_of(struct coll *c, int pipe, int rank)
{
	return &c->pr[(size_t)pipe * (size_t)c->n + (size_t)rank];
}
static inline struct coll_slot *coll_slot_of(struct coll *c, int pipe, int rank, int slot)
{
	return &c->slots[((size_t)pipe * (size_t)c->n + (size_t)rank) * (size_t)c->spr + (size_t)slot];
}
static inline uint32_t coll_count(struct coll *c, int pipe, int rank, int slot)
{
	return coll_slot_of(c, pipe, rank, slot)->count;
}
/* Pieces a stream of at most max_b bytes is cut into: ceil(max_b / chunk), at least 1. */
static inline uint32_t coll_pieces(uint64_t max_b, uint64_t chunk_b)
{
	uint64_t m = (max_b + chunk_b - 1) / chunk_b;
	if (m > UINT32_MAX / 4) /* piece counters are 32-bit: refuse rather than wrap */
		die_input("a collective stream of %llu bytes in %llu-byte chunks makes more than %u pieces: "
			  "raise chunk", (unsigned long long)max_b, (unsigned long long)chunk_b,
			  UINT32_MAX / 4);
	return m ? (uint32_t)m : 1;
}
static inline uint64_t coll_ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* A pipe's share of the buffer as the ring-shaped algorithms cut it
 * (coll_ring.c, coll_mcast.c): the channel's bytes bc = split(size,
 * channels, pipe), and the m pieces a stream of ceil(bc / n) bytes (one
 * segment), or of the whole bc (whole), is cut into. */
struct coll_share { uint64_t bc; uint32_t m; };
static inline struct coll_share coll_share_of(const struct coll *c, int pipe, bool whole)
{
	uint64_t bc = coll_split(c->size_b, (uint64_t)c->channels, (uint64_t)pipe);
	return (struct coll_share){ bc, coll_pieces(whole ? bc : coll_ceil_div(bc, (uint64_t)c->n), c->chunk_b) };
}

/* Posts one piece of size_b bytes (0 allowed: it "arrives" at once) from
 * src to dst rank, addressed to dst's receive slot `slot` of `pipe`. */
void coll_send(struct coll *c, int pipe, int src, int dst, int slot, uint64_t size_b);

/* Posts rank r's pieces of the ring steps 0..steps-1 of `pipe` (share p)
 * that its receive count (slot 0) now allows: piece k of step s+1 once
 * piece k of step s arrived from r-1, step 0 at once; segments as
 * coll_ring.c's ring of c->op (coll_mcast.c's allreduce: its reduce-scatter
 * half). */
void coll_ring_post(struct coll *c, int pipe, int r, const struct coll_share *p, uint32_t steps);

/* ---- Multicast delivery (coll_mcast.c, with two engine hooks) ----
 * coll_mcast_piece posts one piece of size_b bytes from rank src to slot
 * `slot` of every other rank of `pipe` (each receiver counts one
 * arrival): NVLink to the source host's GPUs, one network copy per other
 * host (a multicast group, or plain RC when one host is left) landing on
 * one rank of that host (the first whose GPU uses the source's NIC index,
 * else its first rank), which relays it over NVLink to the host's other
 * ranks (coll_mcast_relay, called when the landing copy arrived, before it
 * is counted). */
void coll_mcast_piece(struct coll *c, int pipe, int src, int slot, uint64_t size_b);
void coll_mcast_relay(struct coll *c, struct coll_slot *landing, uint64_t size_b);
/* Engine (collective.c): the real pass's arrival of a piece at slot s now. */
void coll_recv(struct coll *c, struct coll_slot *s);
/* coll_mcast.c: the real pass's multicast piece (a group, or plain RC to
 * one other host). */
void coll_mcast_post(struct coll *c, int src, const int *dst, int n_dst, int pipe, int slot,
		     uint64_t size_b);

/* Engine internals shared by the real pass (collective.c) and the virtual
 * pass (coll_virtual.c): counters back to zero; a piece counted at slot s
 * (the algorithm's progress runs); every (pipe, rank) started; the virtual
 * pass itself, returning its last arrival (relative to the start; timing =
 * false: order only, for plans). */
void coll_reset(struct coll *c);
void coll_arrived(struct coll *c, struct coll_slot *s);
void coll_start_all(struct coll *c);
simtime_t coll_virtual_run(struct coll *c, bool timing);

#endif
