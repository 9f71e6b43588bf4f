/*
 * parallel.h — the parallel part's public header: one scenario run on
 * several MPI ranks, each simulating its partition of the fabric, with
 * results identical to the sequential run's (docs/parallel.md).
 *
 * How a partitioned run works:
 *   - every rank reads the scenario and numbers the whole world alike (so
 *     ids, element keys and random streams are those of the sequential
 *     run); the partition, made from the topology before the rest is
 *     built (par_place), gives it its nodes: it builds their ports and
 *     buffers and its copies of its cut links' far ends, nothing of the
 *     others' (fabric.h), and only events of its own elements run there;
 *   - elements that belong to no node (traffic sources, the watchdog) run
 *     on every rank alike; a source posts a message only at the hosts its
 *     rank owns, and counts the others' ids;
 *   - a frame sent on a link whose far end is another rank's travels as a
 *     message stamped with its landing time and lands there through that
 *     rank's copy of the link (port_inject), with the same event key;
 *   - conservative windows: no frame sent in [T, T + L) lands before
 *     T + L, L the smallest propagation delay of a cut link, so each rank
 *     runs a window alone, then the ranks trade frames;
 *   - the end (all work done, [simulation] stop, a signal, the watchdog's
 *     verdict) is decided together at window boundaries, at exactly the
 *     event the sequential run ends on;
 *   - ranks write their rows into part databases beside the output (or
 *     send them to rank 0 when they do not share its folder, par_ship.c),
 *     which rank 0 merges into the one database before publishing it.
 * Models whose state spans hosts without a link between them (training
 * jobs, collectives, closed-loop sources, multicast) run where every host
 * is: partition = hosts puts them all on rank 0, the switches on the
 * others. Link and switch failures run on every rank alike (each rank
 * changes its own ports' links; a frame carries its link's failure count,
 * par_xfer.c), and their rows are summed over the ranks (par_merge.c).
 * hpcc_fct: each rank writes its part, merged by rank 0 (run.c). The
 * library's driver runs on rank 0 alone, the other ranks idle: the
 * results are still the sequential run's, and the run row says why
 * (par_attach).
 */
#ifndef ROCESIM_PARALLEL_H
#define ROCESIM_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "config.h"
#include "simtime.h"

struct results;
struct sim;
struct topo;
struct sim_elem;
struct world;

/* ---- the MPI environment (par_env.c) ---- */

/* Called first by main: under mpirun with more than one rank, initialises
 * MPI (a build with MPI) or fails with a message saying how to get one
 * (-1, *err set; exit status 2). Without mpirun, or with one rank, does
 * nothing: the program is the sequential one. */
int par_init(int *argc, char ***argv, char **err);
/* This process's rank and the number of ranks (0 and 1 when sequential). */
int par_rank(void);
int par_size(void);
/* Called last by main with its exit status: the ranks agree on the worst
 * one, which is returned (every rank exits with it); MPI is finalised. */
int par_finalize(int rc);
/* Rank 0 or a sequential run: the process that prints and writes the
 * published database. */
static inline bool par_leader(void) { return par_rank() == 0; }

/* ---- one partitioned run (par_run.c, par_loop.c) ---- */

struct par;

/* What a run on par_size() ranks decides before its world is built
 * (par_place), for par_attach. The caller sets cfg, why and together:
 * why names a model that cannot be partitioned (then rank 0 simulates
 * everything and the others only wait; the run row and --check say why),
 * together a model that needs every host on one rank (a job: the
 * partition is hosts, and the models of no node run on rank 0 only). */
struct par_plan {
	const struct config *cfg;
	const char *why, *together;
	simtime_t mirror_ps;       /* together's delay, when it can be mirrored (partition_scenario) */
	bool mirrored;             /* set by par_place: it is */
	int *node_owner;           /* [n_nodes]: each node's rank */
	bool *mine;                /* [n_nodes]: this rank's nodes */
	char method[32];
	int n_cut;
	simtime_t lookahead;
};
/* world_build_placed's place for a run under mpirun (plan: a struct
 * par_plan): the partition of topology t by the scenario's [parallel]
 * partition, and this rank's nodes in *mine, so that only their ports and
 * buffers are built. *mine stays NULL in a sequential run and when one
 * rank runs alone (why). -1 with *err (located) when the partition cannot
 * be made: more ranks than the method has groups, a cut link without
 * delay. */
int par_place(void *plan, const struct topo *t, const bool **mine, char **err);
/* After the world, the traffic and the jobs are built (run.c): *out is
 * NULL for a sequential run, else the partitioned run of plan (nodes
 * owned, cut links made remote, sources told which hosts are this
 * rank's); it takes the plan's arrays. */
void par_attach(struct sim *sim, struct world *w, struct par_plan *plan, struct par **out);
/* Frees what a plan holds when par_attach did not take it (an input error
 * between the two). */
void par_plan_free(struct par_plan *plan);
/* This rank runs the models of hosts (jobs, collectives, sources): rank
 * 0, or every rank when the sources run alike everywhere. */
bool par_runs_hosts(const struct par *p);
/* Ranks without the hosts read message records too (a capture writes a
 * data frame's message size, a failure counts the frames it loses per
 * message): under partition = hosts, frames then carry a copy of their
 * record. */
void par_share_records(struct par *p);
void par_free(struct par *p);
/* This rank simulates nothing (a model could not be partitioned and this
 * is not rank 0). */
bool par_idle(const struct par *p);
/* The ranks share the work (not rank 0 alone). */
bool par_partitioned(const struct par *p);
/* A model ticks at *t while *on, as element elem (registered after
 * par_attach, run by every rank alike): each tick bounds a window, so that
 * it runs on every rank at the same point, alone, and may call the ranks'
 * collectives (par_sum_all, par_all, par_gather_ints): the watchdog reads
 * the ranks' sums and their parts of the wait-for graph, a sampler asks
 * whether anything is left anywhere. counted: its events are the run's
 * (run.events), else not (a sampler's). At most PAR_MAX_TICKS models. */
#define PAR_MAX_TICKS 2
void par_tick(struct par *p, const bool *on, const simtime_t *t, const struct sim_elem *elem, bool counted);
/* v[0..n) summed over the ranks, in place (every rank calls it). */
void par_sum_all(struct par *p, uint64_t *v, int n);
/* Every rank's part[0..n) in rank order, into *all (malloc'd, *n_all ints). */
void par_gather_ints(struct par *p, const int *part, int n, int **all, int *n_all);
/* Runs windows until the work is done, [simulation] stop passes, a
 * signal arrives or the watchdog ends the run; returns enum sim_stop as
 * sim_run does, with the ranks agreeing. */
int par_run(struct par *p);
/* Runs every event at or before t (the drain after the work's end). */
void par_run_to(struct par *p, simtime_t t);
/* Ranks agreeing: the sum of a count, and whether every rank says yes. */
uint64_t par_sum(struct par *p, uint64_t v);
bool par_all(struct par *p, bool v);

/* ---- results (par_merge.c) ---- */

/* The part database rank r > 0 writes beside the output (malloc'd). */
char *par_part_path(const char *output, int rank);
/* Before the results are finished (every rank): the received halves of
 * the messages that crossed ranks, into par_flow_recv. 0 or -1. */
int par_merge_received(struct par *p, struct results *res);
/* The run row's columns (ranks, partition, each rank's events) and the
 * run_rank rows: every rank's figures, written by rank 0. */
void par_write_run(struct par *p, struct results *res);
/* After rank r > 0 published its part (every rank calls it): rank 0
 * copies every part's rows into res, folds par_flow_recv into the flow
 * rows and deletes the parts. 0, or -1 reported. */
int par_merge_parts(struct par *p, struct results *res, const char *output);

/* ---- the ranks' files reaching rank 0 (par_ship.c) ----
 * Every function but par_part_here and par_captures_here is called by
 * every rank of a partitioned run (never by an idle one). */

/* Before any output is opened (fct: the fct.txt path, or NULL): rank 0
 * removes what sits where the others' parts of output and fct will be (an
 * old run's: a part found at the merge is this run's); then whether the
 * ranks send rank 0 their files ([parallel] parts; auto: unless
 * par_all_share_folder(output)), and, on ranks r > 0, the private folder
 * in $TMPDIR they write them in. 0, or -1 with *err (this rank's). */
int par_ship_open(struct par *p, const char *output, const char *fct, char **err);
/* Where this rank writes its part of base (malloc'd): par_part_path
 * beside base, or `what` in its private folder. */
char *par_part_here(const struct par *p, const char *base, const char *what);
/* The folder this rank captures its ports into instead of the output's
 * (malloc'd), or NULL: the output's. */
char *par_captures_here(const struct par *p);
/* Once the ranks r > 0 closed their part of base (written at
 * par_part_here(p, base, what)): rank 0 receives each at par_part_path(
 * base, r), when they were sent. base NULL: none. 0, or -1 on rank 0
 * (reported) when one could not be written. */
int par_ship_part(struct par *p, const char *base, const char *what);
/* Once the captures are closed: rank 0 receives the ranks' captures into
 * its capture folder dir, when they were sent. 0, or -1 (reported). */
int par_ship_captures(struct par *p, const char *dir);
/* Removes a rank's private folder and what is left in it (par_free). */
void par_ship_close(struct par *p);
/* Files sent to rank 0 by the others, on the world's ranks (a run's
 * parts, a sweep's points, sweep_ranks.c): each pair of ranks sends and
 * receives in the same order. par_send_file sends the file at path
 * (missing or unreadable: none; a warning) and removes it; par_recv_file
 * writes rank from's into path: 1 when it sent none, 0, or -1 (reported,
 * nothing left at path). par_send_folder sends every file of dir, then
 * removes them and dir; par_recv_folder writes rank from's into dir, made
 * when missing: 0 or -1 (reported). */
void par_send_file(const char *path);
int par_recv_file(int from, const char *path);
void par_send_folder(const char *dir);
int par_recv_folder(int from, const char *dir);
/* Work dealt by rank 0 as the ranks ask (par_deal.c). A rank r > 0:
 * par_deal_ask(false) asks for the next item and returns its index, or -1
 * when there is none (then it asks no more); par_deal_ask(true) says it
 * stops asking before that (returns -1). Rank 0: par_deal_serve answers
 * the asks waiting, without blocking, each with next(ctx, asking rank)
 * (an index, or -1: none), and returns how many ranks it answered -1 or
 * heard say bye: rank 0 is done when that has added up to the other
 * ranks. */
int par_deal_ask(bool bye);
int par_deal_serve(int (*next)(void *ctx, int rank), void *ctx);
/* Every rank, on every rank: whether they all run on rank 0's machine
 * and see there the folder of path that rank 0 sees (the same device and
 * inode of it, or of its nearest existing ancestor). */
bool par_all_share_folder(const char *path);
/* A new private folder in $TMPDIR (else /tmp) for a rank's parts
 * (malloc'd), or NULL with *err. */
char *par_private_folder(char **err);
/* The first rank's error (lowest rank; mine NULL: this rank has none),
 * on every rank, malloc'd, "rank N: " before another rank's; NULL when
 * no rank has one. */
char *par_first_error(struct par *p, const char *mine);

/* ---- Partitioning (partition*.c, docs/parallel.md "Partitioning") ----
 *
 * A partition gives every node of a topology (a host with its NICs and
 * GPUs, or a switch) to one of n_parts ranks. It is a pure function of the
 * topology graph, the method and n_parts: no name, no seed and no clock
 * enters it, so every rank of a run computes the same one. Every rank gets
 * at least one node. A link whose two ends are on different ranks is cut:
 * its frames cross as messages, and the smallest propagation delay of a
 * cut link is the lookahead of the conservative synchronisation.
 */

/* The methods, in the order of the `[parallel] partition` vocabulary. */
enum partition_method {
	PART_AUTO,          /* the best of the others (partition.c) */
	PART_POD,           /* components left when the top tier is removed */
	PART_LEAF,          /* each edge switch with its hosts */
	PART_RAIL,          /* hosts in blocks; switches spread over them */
	PART_METIS,         /* METIS k-way on the node graph (when built with METIS) */
	PART_ROUND_ROBIN,   /* switches (with their hosts) dealt in turn */
	PART_HOSTS,         /* every host on rank 0, the switches spread (for jobs) */
	PART_N_METHODS
};

struct partition {
	int n_parts;               /* ranks, >= 1 */
	int requested;             /* the method asked for (PART_AUTO included) */
	int method;                /* the method used (never PART_AUTO) */
	int n_nodes;               /* entries of part_of_node (the topology's n_nodes) */
	int *part_of_node;         /* [n_nodes]: the rank owning each node */
	int n_groups;              /* pods, leaf groups or hosts the method dealt; 0 for
				    * metis and round_robin */
	int n_links;               /* links of the topology */
	int n_cut_links;           /* links whose two ends are on different ranks */
	simtime_t lookahead_ps;    /* the synchronisation's window: cut_delay_ps, or a
				    * mirrored model's shorter mirror_ps (partition_scenario) */
	simtime_t cut_delay_ps;    /* least propagation delay of a cut link;
				    * SIMTIME_NEVER when no link is cut */
	uint64_t cut_rate_bps;     /* summed rate of the cut links (one direction) */
	uint64_t total_rate_bps;   /* summed rate of every link (one direction) */
	/* Per rank [n_parts]: its nodes, hosts, switches, ports (the load
	 * proxy: about one event per frame and port) and cut links (a cut
	 * link counts at both its ranks). */
	uint64_t *nodes_of_part, *hosts_of_part, *switches_of_part, *ports_of_part, *cut_of_part;
	/* partition_scenario: the model that ties hosts together (a job)
	 * runs as a copy on every rank, its reactions delayed by mirror_ps
	 * (msg.h: late messages), which bounds the lookahead. mirror_ps
	 * without mirrored: auto found it too short and chose hosts. */
	bool mirrored;
	simtime_t mirror_ps;
};

/* Partitions t (ports numbered) across n_parts ranks by method. 0 with
 * *out filled (partition_free), or -1 with *err (malloc'd, unlocated: the
 * caller says where the method came from) and *out empty: more ranks than
 * the method has groups to deal, a method the graph does not fit (pod on a
 * fabric without pods), metis in a build without METIS. */
int partition_compute(const struct topo *t, int method, int n_parts, struct partition *out, char **err);
void partition_free(struct partition *p);
/* --check's report: the method, per rank its nodes, hosts, switches,
 * ports and cut links, the cut links and the lookahead, and the share of
 * uniform host-to-host traffic that must cross ranks. */
void partition_describe(const struct partition *p, const struct topo *t, FILE *to);
/* Name of a method ("pod"); word i of the vocabulary, NULL past the last
 * (the key's vocab_fn). */
const char *partition_method_name(int method);
const char *partition_method_at(const void *arg, size_t i);

/* [parallel] (parallel_keys.c) */
struct parallel_cfg {
	int partition;             /* enum partition_method [auto] */
	int trade;                 /* enum par_trade [auto] */
	int parts;                 /* enum par_parts [auto] */
};
/* How the ranks trade a window's frames: auto, through memory they share
 * when every rank is on one machine (else as messages); messages, always
 * as MPI messages. The results are the same either way. */
enum par_trade { PAR_TRADE_AUTO, PAR_TRADE_MESSAGES };
/* Where ranks r > 0 leave their part of the database, of fct.txt and
 * their captures for rank 0 (par_ship.c): auto, folder when every rank is
 * on rank 0's machine and sees the output's folder there (else messages);
 * folder, beside the output; messages, sent to rank 0 once the run is
 * over. */
enum par_parts { PAR_PARTS_AUTO, PAR_PARTS_FOLDER, PAR_PARTS_MESSAGES };
extern const struct cfg_section parallel_section;
/* partition_compute with the scenario's [parallel] partition; an error is
 * located at that key ("x.ini:7: [parallel] partition = 'pod': ..." or
 * "x.ini: [parallel] partition (default): ..."). together, when not NULL,
 * names a model that needs every host on one rank (a training job): auto
 * then means hosts, and any other method is refused, unless mirror_ps > 0:
 * the model reacts that late to what reaches its hosts (a job's
 * endpoint_delay), so any partition may spread its hosts (out->mirrored),
 * the ranks synchronising every min(cut_delay_ps, mirror_ps). auto then
 * means round_robin when mirror_ps is at least half its cut links' delay
 * (shorter windows cost more than spreading the hosts saves), else hosts. */
int partition_scenario(const struct config *cfg, const struct topo *t, int n_parts, const char *together,
		       simtime_t mirror_ps, struct partition *out, char **err);

/* ---- a sweep's ranks (par_env.c) ---- */

/* v[0..n) combined over the ranks in place (every rank calls it): the sum,
 * or the largest value when max. A rank waiting for the others sleeps
 * rather than spins: a sweep's ranks wait here while the others' points
 * still run on the same cores. Nothing when sequential. */
void par_combine(int64_t *v, size_t n, bool max);

#endif
