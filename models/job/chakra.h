/*
 * chakra.h — jobs read from Chakra execution traces (`[job.NAME] workload
 * = chakra`): one trace file per rank, a dependency graph of compute,
 * memory and communication nodes (docs/chakra.md).
 * Internal to models/job: job.c creates, starts, plans and frees such a
 * job through the chakra_job_* functions; the rest of the project sees
 * only job.h.
 *
 * The pieces:
 *   chakra_read.c  one file to a struct chakra_trace: the varint-framed
 *                  GlobalMetadata and Node messages decoded with
 *                  protobuf-c (chakra_et_def.proto), the attributes read,
 *                  dependencies resolved to node indexes and checked
 *                  acyclic; every error names the file, the node's index
 *                  and id, and its byte offset.
 *   chakra_load.c  the `trace` pattern to files, the ranks' traces to a
 *                  job: collectives matched across the ranks of their
 *                  process group, sends to receives, algorithms checked;
 *                  the --check plan and the estimate.
 *   chakra_exec.c  the executor: each rank's nodes run when their
 *                  dependencies are done, collectives when every member
 *                  reached them; the `iteration` rows.
 *
 * Invariants after loading: every dependency index is < the node's rank
 * node count and the graph of each rank is acyclic; every COLL node
 * belongs to exactly one group instance whose members have the same op
 * and size; every SEND node has exactly one RECV partner and back.
 */
#ifndef ROCESIM_CHAKRA_H
#define ROCESIM_CHAKRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "simtime.h"

struct job;
struct job_cfg;
struct jobs_estimate;
struct world;

/* What rocesim does with a node (chakra_read.c maps Chakra's NodeType). */
enum chakra_kind {
	CHAKRA_COMP,    /* COMP_NODE: duration_micros on the rank's compute stream */
	CHAKRA_COLL,    /* COMM_COLL_NODE: a collective of its process group */
	CHAKRA_SEND,    /* COMM_SEND_NODE: a message to comm_dst */
	CHAKRA_RECV,    /* COMM_RECV_NODE: waits for the message from comm_src */
	CHAKRA_MEM,     /* MEM_LOAD_NODE, MEM_STORE_NODE: duration_micros, off the compute stream */
	CHAKRA_OTHER,   /* METADATA, STORAGE, BATCH, CHECKPOINT, INVALID: duration_micros, like MEM */
	CHAKRA_NKIND
};
extern const char *const chakra_kind_name[CHAKRA_NKIND];

/* Collective ops of a COLL node: rocesim's enum coll_op, or a barrier (a
 * rendezvous that moves no byte). */
enum { CHAKRA_OP_BARRIER = 255 };

/* One node of a rank's trace. */
struct chakra_node {
	uint64_t id;            /* the trace's node id */
	simtime_t dur_ps;       /* duration_micros, ps */
	uint64_t size_b;        /* comm_size, bytes (COLL, SEND, RECV) */
	uint64_t offset;        /* byte offset of its length prefix in the file (errors) */
	uint32_t dep0, n_deps;  /* its dependencies: trace dep[dep0 .. dep0 + n_deps), node indexes */
	uint32_t kid0, n_kids;  /* nodes depending on it: trace kid[kid0 ..), node indexes */
	int32_t peer;           /* SEND: comm_dst; RECV: comm_src (ranks); -1 otherwise */
	int64_t tag;            /* SEND, RECV: comm_tag [0] */
	int32_t pg;             /* COLL: index into the trace's pg names, -1 without pg_name */
	uint8_t kind;           /* enum chakra_kind */
	uint8_t op;             /* COLL: enum coll_op or CHAKRA_OP_BARRIER */
	uint8_t comm_type;      /* COLL: Chakra's CollectiveCommType as written (messages) */
};

/* One rank's trace file, decoded. */
struct chakra_trace {
	char *path;             /* the file, for errors */
	struct chakra_node *node; size_t n;
	uint32_t *dep; size_t n_dep;   /* dependency lists of the nodes, concatenated */
	uint32_t *kid; size_t n_kid;   /* reverse lists (who depends on whom) */
	char **pg; size_t n_pg;        /* distinct pg_name values, first-seen order */
	size_t count[CHAKRA_NKIND];    /* nodes per kind */
	char *version;                 /* GlobalMetadata version ("" when none) */
};

/* Decodes a trace held in memory (data, len bytes) that came from path.
 * 0 with *t filled, or -1 with *err malloc'd, "PATH: node N (id I) at
 * byte B: WHAT" (or "PATH: byte B: ..." before a node is known), and *t
 * empty. Never reads outside data. */
int chakra_trace_parse(const char *path, const uint8_t *data, size_t len, struct chakra_trace *t, char **err);
/* Reads and decodes the file at path (chakra_trace_parse). */
int chakra_trace_read(const char *path, struct chakra_trace *t, char **err);
void chakra_trace_free(struct chakra_trace *t);

/* ---- The job (chakra_load.c, chakra_exec.c) ---- */

/* The ranks of a `trace` key: how many consecutive rank files from 0
 * exist (at most CHAKRA_MAX_RANKS), for placement; -1 when there is none
 * (chakra_job_create then says why). */
#define CHAKRA_MAX_RANKS (1 << 20)
int chakra_ranks(const char *trace);

/* Loads the traces of job j's `trace` key, places rank r on the r-th
 * GPU of the job's hosts (hosts, n_hosts), and checks the matching and
 * the algorithms. 0, or -1 with *err located at the section's key. */
int chakra_job_create(struct world *w, struct job *j, const struct job_cfg *c, const char *trace,
		      const int *hosts, int n_hosts, char **err);
/* Schedules the first iteration at the job's start. */
void chakra_job_start(struct job *j);
/* `plan:` lines per parallelism (as jobs_print_plan) and `chakra:` lines:
 * the nodes per kind, collectives and messages per op with their bytes. */
void chakra_job_print_plan(const struct job *j, FILE *out);
/* Adds the job's network bytes and a rough end time (jobs_estimate). */
void chakra_job_estimate(const struct job *j, struct jobs_estimate *e);
/* A run cut short: the row of the iteration in progress (end_ps NULL);
 * true when the job had iterations left. */
bool chakra_job_write_unfinished(struct job *j);
void chakra_job_free(struct job *j);

#endif
