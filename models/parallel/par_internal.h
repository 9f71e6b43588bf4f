/*
 * par_internal.h — what the files of a partitioned run share (parallel.h
 * says how such a run works).
 */
#ifndef ROCESIM_PAR_INTERNAL_H
#define ROCESIM_PAR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "autoconfig.h"
#include "idmap.h"
#include "parallel.h"
#include "simtime.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif

struct flow;
struct mcast_tree;
struct packet;
struct port;

/* Bytes to send to one rank (frames, in the order sent): in this rank's
 * shared slot for that rank while they fit (in_slot), else on the heap. */
struct par_buf {
	uint8_t *b;
	size_t n, cap;
	bool in_slot;
};

/* Per-rank figures of the run (run row, bench, docs/parallel.md). */
struct par_stats {
	uint64_t events;           /* events this rank ran and counted */
	uint64_t foreign;          /* events of another rank's elements (must stay 0) */
	uint64_t windows;          /* synchronisation windows */
	uint64_t frames_out;       /* frames sent to other ranks */
	uint64_t bytes_out;        /* their bytes in messages */
	uint64_t copies_made;      /* records of other ranks' messages copied here (par_shadow) */
	uint64_t copies_held;      /* ... still held when the run ends */
	uint64_t ports_built;      /* ports built here (fabric_port_held) */
	double busy_s;             /* wall time running events, and writing result rows at a boundary */
	double wait_s;             /* in the boundary's collective, not writing rows: waiting for the
				    * slowest rank */
	double trade_s;            /* in MPI_Alltoall(v): trading the frames as messages
				    * (through shared memory, they are written in place
				    * while busy and read in place while landing) */
	double land_s;             /* putting received frames on their links */
};

struct par {
	int me, n;                 /* this rank, ranks */
	bool solo;                 /* rank 0 simulates everything (why says which model) */
	const char *why;
	bool hosts_alone;          /* partition = hosts for a model that needs it: the
				    * elements of no node run on rank 0 alone */
	bool share;                /* ... and other ranks read message records (par_share_records) */
	bool mirrored;             /* the jobs run on every rank, their hosts spread
				    * (partition.mirrored; msg.h: late messages) */
	simtime_t mirror_ps;       /* ... their endpoint_delay */
	bool hostless;             /* hosts_alone and this rank is not 0: its work is
				    * never "done", it only carries frames to the end */
	bool ship;                 /* ranks r > 0 send rank 0 their files (par_ship.c) */
	char *ship_dir;            /* ... a rank r > 0's private folder for them */
	struct sim *sim;
	struct world *w;
	int *node_owner;           /* [n_nodes] */
	bool *mine;                /* [n_nodes]: node_owner == me (fabric.mine) */
	int16_t *elem_owner;       /* [n_owned]: rank of each element's node, -1: every
				    * rank's, -2: every rank's and not counted (par_tick) */
	uint32_t n_owned;          /* elements elem_owner covers */
	char method[32];           /* partition method used */
	int n_cut;                 /* links whose ends are on different ranks */
	simtime_t lookahead;       /* smallest propagation delay of a cut link */
	struct par_buf *out;       /* [n] frames for each rank */
	struct par_buf send, recv; /* the trade's buffers, kept from window to window */
	/* Ranks on one machine trade through memory they share (par_xfer.c):
	 * each rank has a segment of n x 2 slots, one per receiving rank and
	 * parity, that the receivers read in place. */
	struct par_shm {
		bool tried, on;            /* set up (par_run), and in use */
		size_t cap;                /* bytes of one slot */
		uint8_t **base;            /* [n]: each rank's segment, as mapped here */
		int parity;                /* the slots this window writes */
		bool staged;               /* this window's frames are all in them */
#ifdef HAVE_MPI
		MPI_Win win;
#endif
	} shm;
	simtime_t first_landing;   /* earliest landing of the frames in out (SIMTIME_NEVER: none) */
	struct idmap sh;           /* flow id -> the records of par_copies.c: the messages this
				    * rank posted, and its copies of others' (par_is_copy) */
	/* The models' pending ticks (par_tick: the watchdog, the sampler):
	 * window bounds. */
	struct par_tick_src {
		const bool *on;            /* a tick is pending */
		const simtime_t *t;        /* when */
		const struct sim_elem *elem; /* its element: the tick is its last event */
	} ticks[PAR_MAX_TICKS];
	int n_ticks;
	bool done;                 /* this rank's work is finished (world_done) */
	simtime_t done_t;          /* ... since this event */
	uint64_t done_key;
	struct par_stats st;
	uint64_t next_progress;    /* rank 0: events at the next progress line */
#ifdef HAVE_MPI
	MPI_Comm comm;
#endif
};

/* par_xfer.c: frames crossing ranks. The fabric's ship hook. */
void par_ship(void *ctx, struct port *p, struct packet *pkt, simtime_t arrive_at);
/* The fabric's tree_made hook: the tree goes to every other rank. */
void par_tree_made(void *ctx, const struct mcast_tree *t);
/* Trades the window's frames with every rank and lands them on the local
 * copies of their links; rc_known: the bytes each rank sends this one,
 * when the ranks already told (else they are traded first); none: they
 * told that no rank sends anything. */
void par_exchange(struct par *p, const int *rc_known, bool none);
/* After a trade: the buffers for the next window are empty (in the slots
 * of the next parity when trading through shared memory). */
void par_out_reset(struct par *p);
/* Shared-memory trades: par_shm_open maps the segments when every rank is
 * on this machine (else trades stay MPI messages), and frames are then
 * written straight into this rank's slots; par_stage, before the ranks
 * say where they stand, makes them visible; par_exchange_staged lands the
 * other ranks' slots, when every rank staged (each rank's counts at most
 * shm.cap: all ranks know it from the counts they told). */
void par_shm_open(struct par *p);
void par_shm_close(struct par *p);
void par_stage(struct par *p);
void par_exchange_staged(struct par *p, const int *rc);
/* par_xfer.c: a message's end for every other rank (they drop their
 * copies), a receiver's half for the sender's rank `to`, and a late
 * message's delivery (time and key) for every other rank. */
void par_send_end(struct par *p, uint64_t id);
void par_send_recv(struct par *p, int to, uint64_t id, simtime_t recv_end, uint64_t ecn_marked);
void par_send_late(struct par *p, uint64_t id, simtime_t t, uint64_t key);

/* par_copies.c: the message records (see there).
 * The local copy of flow id's record (made on first sight). */
struct flow *par_shadow(struct par *p, uint64_t id, uint64_t size_b, int32_t src, int32_t dst);
void par_shadows_free(struct idmap *sh);
/* Whether a record in p->sh is a copy of another rank's (else this rank
 * posted it). */
bool par_is_copy(const struct flow *f);
/* A message this rank posted: its frames coming back through another
 * rank's switches find the record itself. */
void par_flow_posted(struct par *p, struct flow *f);
/* A message this rank posted ended with no copy of its frames left
 * anywhere (w->flow_freed): its record leaves the table, and every other
 * rank is told to drop its copy. */
void par_flow_forget(struct par *p, const struct flow *f);
/* Landed here: message id ended (drop this rank's copy), or its
 * receiver's half for the record this rank posted. */
void par_copy_drop(struct par *p, uint64_t id);
void par_copy_received(struct par *p, uint64_t id, simtime_t recv_end, uint64_t ecn_marked);

double par_wall(void);

#endif
