/*
 * chakra_job.h — the state of a Chakra-trace job, shared by chakra_load.c
 * (which builds it from the traces) and chakra_exec.c (which runs it),
 * and nothing else (see chakra.h).
 *
 * Matching, fixed at load: a collective of process group g is the k-th
 * COMM_COLL node with g's pg_name in each member's file, in file order
 * (members: every rank whose file names g; without pg_name, every rank of
 * the job); a message is the k-th COMM_SEND node of rank s to rank d with
 * tag t in s's file and the k-th COMM_RECV node from s with tag t in d's.
 *
 * Run-time invariants (per iteration): left[i] counts node i's
 * dependencies not done; a node is issued once, when left reaches 0, and
 * finishes once; path[i] is the chain that led to it (job_timeline.h),
 * ending when it was issued, and after it finished the chain through it.
 */
#ifndef ROCESIM_CHAKRA_JOB_H
#define ROCESIM_CHAKRA_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include "chakra.h"
#include "job_timeline.h"

struct chakra_job;
struct chakra_group;

/* One collective: the k-th of its group. */
struct chakra_inst {
	struct chakra_group *g;     /* its group */
	uint32_t *node;             /* [g->n]: its node on each member's trace */
	uint64_t size_b;            /* comm_size */
	uint8_t op;                 /* enum coll_op or CHAKRA_OP_BARRIER */
	uint8_t par;                /* enum job_par: the flow.parallelism tag */
	int arrived;                /* members that reached it this iteration */
	struct job_path path;       /* the later of the members' chains, then its own */
};

/* A process group: the ranks whose traces name it. */
struct chakra_group {
	struct chakra_job *ck;      /* its job */
	char *name;                 /* pg_name; "" for the job's every rank (no pg_name) */
	int n;                      /* members */
	int *rank;                  /* [n] ascending */
	int *gpu;                   /* [n] their GPUs */
	bool ref;                   /* rank 0 is a member (comm_ps) */
	uint32_t n_inst;
	struct chakra_inst *inst;   /* [n_inst] in file order */
};

/* One message: a SEND node and its RECV node. */
struct chakra_msg {
	struct chakra_job *ck;      /* its job */
	int src, dst;               /* ranks */
	uint32_t send, recv;        /* their nodes on src's and dst's traces */
	uint64_t size_b;            /* the send's comm_size */
	int gpu[2];                 /* src's and dst's GPUs */
	bool arrived;               /* delivered this iteration */
	struct job_path path;       /* the send's chain through the transfer */
};

/* One rank: its trace and run-time state. */
struct chakra_rank {
	struct chakra_job *ck;
	int rank, gpu;
	struct chakra_trace tr;
	uint32_t *link;             /* [n] COLL: instance index in its group; SEND, RECV: message index */
	int32_t *group;             /* [n] COLL: group index; -1 otherwise */
	uint32_t *left;             /* [n] dependencies not done */
	uint8_t *state;             /* [n] CHAKRA_WAITING, _ISSUED, _DONE */
	struct job_path *path;      /* [n] */
	uint32_t *cq;               /* [n] COMP nodes waiting for the compute stream (FIFO) */
	size_t cq_head, cq_tail;
	bool busy;                  /* a COMP node is running */
	size_t done;                /* nodes finished this iteration */
};
enum { CHAKRA_WAITING, CHAKRA_ISSUED, CHAKRA_DONE };

/* A ready node waiting to be issued (the work list). */
struct chakra_ready { int32_t r; uint32_t i; };

struct chakra_job {
	struct job *job;
	int n_ranks;
	struct chakra_rank *rk;     /* [n_ranks] */
	int n_groups;
	struct chakra_group *grp;
	size_t n_msgs;
	struct chakra_msg *msg;
	size_t total, done;         /* nodes of all ranks; finished this iteration */
	struct chakra_ready *work;  /* [total]: each node enters once per iteration */
	size_t work_head, work_tail;
	bool draining;              /* inside chakra_drain (no re-entry) */
	int ref_comm;               /* rank 0's communication in flight */
	simtime_t stat_t, comm_ps;  /* comm_ps: rank 0's time with communication in flight */
	struct job_path tail;       /* the latest-ending chain: the critical path at the end */
	struct results_table *table;
	int iterations;             /* [job] iterations */
	uint64_t chunk_b;           /* [job] chunk */
	int channels;               /* [job] channels */
	const char *alg[6];         /* [enum coll_op]: the job's algorithm keys */
};

#endif
