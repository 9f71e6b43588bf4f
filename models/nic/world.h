/*
 * world.h — the fabric (fabric.h) with a NIC at every host port, NVLink
 * between the GPUs of a host, multicast groups, and the flow accounting
 * that decides when a run is finished.
 *
 * world_build builds the fabric, creates the NIC of each endpoint and
 * attaches it to its port (fabric_attach_host), then NVLink; world_free
 * undoes it. The rows of nodes, links and ports are written from here.
 * Traffic sources and workloads post messages through nic_post (nic.h)
 * or msg_send (msg.h) and report when they will post no more.
 *
 * Hosts ([topology] nics_per_host, gpus_per_host): a host has one port per
 * NIC (port i = NIC i) and its GPUs reach each other over NVLink
 * (nvlink.h). In results, GPUs follow the network nodes: GPU g is node
 * n_nodes + g, named "host3.gpu5", kind 'gpu', tier 0 (one per host when
 * hosts have a single GPU).
 */
#ifndef ROCESIM_WORLD_H
#define ROCESIM_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fabric.h"
#include "pool.h"
#include "sim.h"
#include "topology.h"

struct port;
struct flow;
struct nic;
struct results;
struct nvlink;

/* One NIC of a host: what packets are addressed to. Endpoint ids are
 * host id x nics_per_host + NIC index (so with one NIC per host an
 * endpoint id is the host's node id); NIC i sits behind the host's port i.
 * packet.src/dst, flow.src/dst and nic_post's src/dst are endpoint ids. */
struct endpoint {
	struct node *host;
	struct port *port;
	struct nic *nic;
};


struct world;
struct msg_late;

/* An observer of flow records (flow rows, FCT files, paths): called once
 * per record, when it ended (f->end >= 0), or when the run ends with it
 * unfinished (f->end < 0). */
typedef void (*world_flow_fn)(void *ctx, const struct world *w, const struct flow *f);
#define WORLD_MAX_SINKS 8

struct world {
	struct fabric fab;         /* the network the hosts sit on (fabric.h) */
	struct sim *sim;
	const struct config *cfg;
	/* Sections read while running (cached: cfg_get walks the sections). */
	const struct topo_cfg *topo_cfg;
	const struct nic_cfg *nic_cfg;
	struct pool flow_pool;     /* struct flow */
	uint64_t next_flow_id;     /* last id handed out */
	uint64_t flows_posted, flows_done;
	int sources_active;        /* sources that may still post messages */
	struct endpoint *eps; int n_eps; /* [n_hosts x nics_per_host] */
	int gpus_per_host;         /* [topology] gpus_per_host; GPU id = host x gpus_per_host + i */
	int n_gpus;                /* n_hosts x gpus_per_host */
	struct nvlink *nvlink;     /* owned by nvlink.c (NULL with one GPU per host) */
	struct mcast *mcast;       /* multicast groups (mcast.c); NULL when none */
	char *setup_err;           /* set by a builder step that found bad input (nic_create) */
	simtime_t base_rtt[2];     /* T of the NICs' QPs without and with the INT header
				    * (fabric_base_rtt), -1 until a QP needs it */
	/* Posts a message between hosts (host ids; the traffic sources use
	 * NIC 0 of each host): world_post_host unless a test replaces it. */
	struct flow *(*post)(struct world *w, int src, int dst, uint64_t size_b, const char *source, const char *parallelism);
	/* A finished message's record going back to the pool (flow_finish:
	 * no copy of its frames is left anywhere); NULL unless a partitioned
	 * run, whose other ranks keep copies of records, is told. */
	void (*flow_freed)(struct world *w, struct flow *f);
	/* A partitioned run is told of each message msg_send posted here
	 * between hosts (its ranks keep the records frames carry); NULL
	 * otherwise. */
	void (*msg_posted)(struct world *w, struct flow *f);
	/* Late messages (msg.h): the table of their on_recv, the element
	 * of each host that orders their deliveries, and, in a partitioned
	 * run, the hook that tells the other ranks of a delivery. */
	struct msg_late *late;
	void (*late_far)(struct world *w, uint64_t id, simtime_t t, uint64_t key);
	/* A partitioned run's rank other than 0 whose jobs and collectives
	 * copy rank 0's (late messages): they write no rows, rank 0's do. */
	bool mirror;
	/* What is told of every flow record at its end (world_flow_report). */
	struct world_sink { world_flow_fn fn; void *ctx; } sinks[WORLD_MAX_SINKS];
	int n_sinks;
	struct world_fail *fail_flows; /* data frames each failure lost, per flow
				    * (world_fail.c); NULL without failures */
};

/* Builds the fabric of cfg and its NICs into w (sim must be initialised).
 * Returns 0, or -1 with *err (malloc'd) for a topology, routing, buffer or
 * NIC error. */
int world_build(struct world *w, struct sim *sim, const struct config *cfg, char **err);
/* The same with more data classes than [nic] priority (bit c: class c,
 * e.g. the jobs' priorities), all lossless when PFC is on. */
int world_build_classes(struct world *w, struct sim *sim, const struct config *cfg, uint8_t classes,
			char **err);
/* The same for one rank of a partitioned run: place (fabric_params)
 * says which nodes this process simulates; only their ports and buffers,
 * and the far ends of their cut links, are built (fabric.h). */
int world_build_placed(struct world *w, struct sim *sim, const struct config *cfg, uint8_t classes,
		       int (*place)(void *ctx, const struct topo *t, const bool **mine, char **err),
		       void *place_ctx, char **err);
void world_free(struct world *w);

/* The `failure_flow` rows (world_fail.c): from the fabric's lost-frame
 * hook, counted per (failure, flow); all no-ops without failures. */
void world_fail_attach(struct world *w);
int world_fail_prepare(struct world *w, struct results *res);
/* The `failure` and `failure_flow` rows, at the end of the run. */
void world_fail_write(struct world *w, struct results *res);
void world_fail_free(struct world *w);

/* The endpoint of NIC `nic` of host `host`, and the endpoint GPU `gpu` sends
 * through (GPU i of a host uses NIC i mod nics_per_host, docs/protocol.md "Addresses and names"). */
static inline int world_ep(const struct world *w, int host, int nic) { return host * w->fab.nics_per_host + nic; }
static inline int world_gpu_host(const struct world *w, int gpu) { return gpu / w->gpus_per_host; }
static inline int world_gpu_ep(const struct world *w, int gpu)
{
	return world_ep(w, gpu / w->gpus_per_host, (gpu % w->gpus_per_host) % w->fab.nics_per_host);
}
/* The node_id of GPU `gpu` in results: after every network node. */
static inline int world_gpu_node_id(const struct world *w, int gpu) { return w->fab.n_nodes + gpu; }
/* "host3.gpu5" into buf (at least 40 bytes); returns buf. */
char *world_gpu_name(const struct world *w, int gpu, char *buf, size_t size);
/* nic_post from NIC 0 of host src to NIC 0 of host dst (w->post's default). */
struct flow *world_post_host(struct world *w, int src, int dst, uint64_t size_b,
			     const char *source, const char *parallelism);

/* Host ids of a host-name list (key `key` of section), in list order; n = 0
 * or the single word "all" means every host, ascending. Unknown and
 * repeated names are located errors. Returns the count (>= 0) with *ids
 * malloc'd, or -1 with *err. */
int world_host_list(struct world *w, const char *section, const char *key,
		      char *const *names, size_t n, int **ids, char **err);

/* GPUs per host of a loaded scenario ([topology] gpus_per_host, at least 1). */
int world_cfg_gpus_per_host(const struct config *cfg);
/* Adds an observer of flow records, called in the order added. */
void world_add_flow_sink(struct world *w, world_flow_fn fn, void *ctx);
/* Where the models a partitioned run copies onto every rank (jobs,
 * collectives) write their rows: the results, but NULL on a mirror
 * (rank 0's copy writes them). */
static inline struct results *world_copied_rows(const struct world *w)
{
	return w->mirror ? NULL : w->sim->res;
}
/* Tells every observer of f (its end, or that the run ends without it). */
static inline void world_flow_report(const struct world *w, const struct flow *f)
{
	for (int i = 0; i < w->n_sinks; i++)
		w->sinks[i].fn(w->sinks[i].ctx, w, f);
}
/* Host id of a host name ("host3"), -1 when no such host. */
int world_host_id(const struct world *w, const char *name);
/* GPU id of a GPU name ("host3.gpu1": host id x gpus_per_host + index),
 * -1 when the fabric has no such GPU. */
int world_gpu_id(const struct world *w, const char *name);

/* A source that will post messages later (keeps the run going). */
static inline void world_source_begin(struct world *w) { w->sources_active++; }
static inline void world_source_end(struct world *w)
{
	w->sources_active--;
	sim_poll_soon(w->sim);
}
/* True when no source is active and every posted flow finished. */
bool world_done(struct sim *sim, void *w);

/* After a run that ran dry: every queue, link and buffer is empty and every
 * packet is back in the pool. Aborts naming the element otherwise (a packet
 * that vanished or a count that drifted is a bug, docs/architecture.md "Kernel contracts"). */
void world_check_drained(struct world *w);

/* Prepares the inserts of node, link, port_stats and pfc_pause (right
 * after results_open, so a database whose tables do not fit fails before
 * the run); 0 or -1. */
int world_results_prepare(struct world *w, struct results *res);
/* Writes node rows (network nodes, then GPUs) and link rows (after results_open). */
void world_write_topology(const struct world *w, struct results *res);
/* Writes port_stats for every port and unfinished flows (NIC and NVLink)
 * as rows with NULL ends. */
void world_write_final(struct world *w, struct results *res);

#endif
