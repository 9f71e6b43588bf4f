/*
 * topology.h — building the graph of a [topology] section.
 *
 * A topology is a plain description (nodes, links, port numbering) that
 * knows nothing of ports' queues or NICs; fabric.c turns it into live
 * objects. Builders are looked up by type in one registry (TOPO_KINDS in
 * models/topo/Makefile.inc; topology.c looks them up).
 *
 * Numbering (stable, used in results, taps and flows):
 *   - node ids: hosts first (host0..), then switches tier by tier from the
 *     bottom (tor/leaf/sw, then agg/spine, then core), each left to right;
 *   - tier: 0 host, 1 tor/leaf/sw, 2 agg/spine, 3 core;
 *   - a node's ports are numbered in the order its links appear in
 *     `links`; builders add each switch's down links before its up links,
 *     so a ToR's ports 0..n-1 face its hosts;
 *   - a link's end `a` is its lower end (the host, or the lower-tier switch);
 *   - every host has nics_per_host ports, port i being its NIC i (endpoint
 *     host x nics_per_host + i, world.h). rail_optimized wires NIC i to
 *     leaf i; the single-NIC builders (star, dumbbell, leaf_spine, fat_tree,
 *     ring, dragonfly) are multi-homed by topology_build: each host link is
 *     repeated once per NIC to the same switch, consecutively, so a ToR's
 *     down ports are (host order) x (NIC order) and still precede its up
 *     ports.
 * Limits: at most TOPO_MAX_PORTS ports per node (routing stores port
 * indices as uint16), TOPO_MAX_NODES nodes, link costs up to TOPO_MAX_COST
 * (routing's bucket queue has one bucket per cost).
 */
#ifndef ROCESIM_TOPOLOGY_H
#define ROCESIM_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>
#include "config.h"
#include "simtime.h"

enum node_kind { NODE_HOST, NODE_GPU, NODE_SWITCH, NODE_NVSWITCH };

#define TOPO_NAME_MAX 24
#define TOPO_MAX_PORTS 65535
#define TOPO_MAX_NODES (1 << 24)
#define TOPO_MAX_COST 16

struct topo_node {
	char name[TOPO_NAME_MAX];  /* "host3", "tor0", "agg5", "core1", "leaf2", "spine0", "sw1" */
	enum node_kind kind;
	int tier;
};

struct topo_link {
	int a, b;                  /* node ids */
	uint64_t rate_bps;
	simtime_t delay_ps;        /* propagation, one way */
	/* Routing cost, 1 .. TOPO_MAX_COST: switches forward on the paths of
	 * least total cost (routing.h). topo_add_link sets 1, so routing
	 * counts hops unless a builder says otherwise (a dragonfly's global
	 * links, topo_dragonfly.c). */
	int cost;
};

struct topo_port {
	int link;                  /* link id */
	int peer;                  /* node id at the other end */
	int peer_port;             /* port index at the other end */
};

struct topo {
	struct topo_node *nodes; int n_nodes;
	int n_hosts;               /* nodes [0, n_hosts) are hosts */
	/* Endpoints per host (topology_build sets it >= 1: host h's port i is
	 * endpoint h x nics_per_host + i). 0 in graphs built by hand: each host
	 * is then one endpoint, reached on any of its ports (routing.h). */
	int nics_per_host;
	struct topo_link *links; int n_links;
	/* Filled by topo_finalize: node u's ports are ports[port_off[u] .. port_off[u+1]). */
	int *port_off;
	struct topo_port *ports;
	int nodes_cap, links_cap;  /* allocated entries of nodes / links (builders) */
	int *hpcc_id;              /* type hpcc: HPCC ns-3 id of each node (hpcc_topology_parse); else NULL */
};

/* ---- [topology]: the keys every type shares (topology.c) ---- */

struct topo_cfg {
	int type;                      /* index in the registry (KT_TYPE) */
	uint64_t link_rate_bps;        /* required, but by types with their own rates (hpcc) */
	simtime_t link_delay;          /* idem */
	uint64_t host_link_rate_bps;   /* [link_rate] */
	simtime_t switch_latency;      /* [0] */
	int gpus_per_host;             /* [1] */
	int nics_per_host;             /* [1] */
	uint64_t nvlink_rate_bps;      /* [450GBps] */
	simtime_t nvlink_delay;        /* [200ns] */
	struct topo_derate *derate; size_t n_derate; /* repeated `derate = HOST[:NIC] RATE` (topology_derate.c) */
};
extern const struct cfg_section topo_section;

/* One `derate` line: a host's link(s) running below the nominal rate. */
struct topo_derate {
	char *host;                    /* host name */
	int nic;                       /* its NIC (host port), -1: every one */
	uint64_t rate_bps;             /* > 0, at most the link's rate */
	int line;                      /* its line in the scenario */
};
extern const struct cfg_custom topo_derate_line;
/* Lowers the rates of the links the `derate` lines name (after the ports
 * are numbered, before the fabric is built); 0, or -1 with *err located
 * (unknown host, with a suggestion; no such NIC; a rate above the link's). */
int topo_apply_derate(const struct config *cfg, struct topo *t, char **err);

/* How a type gives a host several NICs ([topology] nics_per_host > 1). */
enum topo_nics {
	TOPO_NICS_SAME_SWITCH,     /* builder wires one link per host; topology_build
				    * repeats it per NIC to the same switch */
	TOPO_NICS_BUILDER,         /* builder wires nics_per_host links per host */
	TOPO_NICS_ONE,             /* only one NIC per host is supported */
};

/* A kind of topology: one file (topo_*.c) and one TOPO_KINDS += line in
 * models/topo/Makefile.inc. cfg names the type, its keys and its struct (own); build
 * adds nodes and links (and sets n_hosts) and reports impossible shapes;
 * topology_build checks the NICs before and finalizes after. The loader
 * has checked every key's range and the type's rules, and filled
 * host_link_rate with link_rate when not given. */
struct topo_kind {
	struct cfg_type cfg;
	int (*build)(const struct topo_cfg *c, const void *own, struct topo *t, char **err);
	enum topo_nics nics;
	/* The shared keys' link_rate and link_delay are not used: the type
	 * brings its own rates and delays (a file). */
	bool own_links;
	/* Optional: what the type's own keys built, in words, for the
	 * `fabric:` line (topology_describe), into buf. */
	void (*describe)(const void *own, const struct topo *t, char *buf, size_t n);
};

/* Builds the topology of the scenario's [topology] section. Returns 0, or
 * -1 with *err (malloc'd) for an impossible shape (fat_tree k odd,
 * oversubscription that does not give whole hosts, zero hosts, ...). */
int topology_build(const struct config *cfg, struct topo *t, char **err);
void topology_free(struct topo *t);
/* The [topology] section of a loaded scenario. */
const struct topo_cfg *topology_cfg(const struct config *cfg);
/* The kind named name, NULL when none. */
const struct topo_kind *topology_kind(const char *name);
/* Its name ("fat_tree"). */
const char *topology_type_name(const struct config *cfg);
/* Its kind, with the type's own keys in *own. */
const struct topo_kind *topology_kind_of(const struct config *cfg, const void **own);

/* ---- What was built (topology_describe.c) ---- */

/* The edge switches (those with a host link): how many, their host
 * ("down") and switch ("up") ports, and down:up capacity (0 without up
 * ports), each as the range over the switches. */
struct topo_edge {
	char name[TOPO_NAME_MAX];      /* their tier's name: "tor", "leaf", "sw" */
	int switches;
	int down_min, down_max, up_min, up_max;
	double ratio_min, ratio_max;
};
void topology_edge(const struct topo *t, struct topo_edge *e);
/* "fabric: fat_tree, 16 hosts x 8 NICs (400Gbps); 8 tor switches with 16
 * host and 2 switch ports each, oversubscription 8:1 (...)" into buf. */
void topology_describe(const struct config *cfg, const struct topo *t, char *buf, size_t n);
/* A shape the keys do not make obvious (several NICs per host all on one
 * oversubscribed switch): 1 with the warning in buf, else 0. */
int topology_surprise(const struct config *cfg, const struct topo *t, char *buf, size_t n);
/* Link rates at which rate-scaled defaults are shown (schema hook): the
 * host link rate and the link rate; 0 for a type with its own rates. */
void topo_scale_rates(const struct config *cfg, uint64_t rates[2]);

/* ---- HPCC ns-3's topology.txt (topo_hpcc.c) ----
 *   <nodes> <switches> <links>
 *   <switch id> ... (one line, <switches> ids)
 *   <a> <b> <rate> <delay> <error_rate>   (<links> lines)
 *   e.g. "0 320 100Gbps 1000ns 0.000000"; ids not listed as switches are hosts.
 * Naming: hosts first, keeping their relative HPCC id order (the smallest
 * host id is host0), then the switches as sw0.. in HPCC id order; every
 * switch is tier 1 (the file carries no tiers); topo->hpcc_id[u] is the
 * HPCC id of our node u. Rates and delays are HPCC's per link, parsed with
 * our units; error_rate must be 0. The parser reads memory (no NUL needed),
 * is safe on hostile input (fuzzed) and leaves t empty on failure. */
/* Parses topology.txt into t (zeroed first; nodes, links and hpcc_id
 * filled, ports numbered with topo_finalize, n_hosts set, nics_per_host 1).
 * Checks: counts, ids in [0, nodes), switch ids distinct, links between
 * two distinct nodes, every host on exactly one link (one NIC per host),
 * rate > 0, delay >= 0, error_rate 0, at least one host, nothing after
 * the last link but blank space. 0, or -1 with *err and t empty. */
int hpcc_topology_parse(const char *name, const char *text, size_t len, struct topo *t,
			char **err);


/* Helpers for builders. The add functions return the new id, or -1 when out
 * of memory, for a name longer than TOPO_NAME_MAX - 1, or a bad link
 * (unknown node, a == b). */
int topo_add_node(struct topo *t, const char *name, enum node_kind kind, int tier);
/* Adds "<prefix><index>" ("tor3"). */
int topo_add_named(struct topo *t, const char *prefix, int index, enum node_kind kind, int tier);
/* Adds "<prefix>0" .. "<prefix>(n-1)"; returns the first one's id, or -1. */
int topo_add_tier(struct topo *t, const char *prefix, int n, enum node_kind kind, int tier);
/* Adds the hosts host0 .. host(n-1), the first nodes, and sets n_hosts;
 * 0, or -1. */
int topo_add_hosts(struct topo *t, int n);
/* A link of routing cost 1 (a builder may raise links[id].cost). */
int topo_add_link(struct topo *t, int a, int b, uint64_t rate_bps, simtime_t delay_ps);
/* Links every host h to switch sw0 + h / per (per hosts under each switch,
 * in host order); 0, or -1. */
int topo_link_hosts(struct topo *t, int sw0, int per, uint64_t rate_bps, simtime_t delay_ps);
/* For builders: return -1 when an add fails. With names and ids valid that
 * is running out of memory, which topology_build reports for the builder
 * ("[topology] TYPE: out of memory building the topology"). */
#define TOPO_TRY(expr) do { if ((expr) < 0) return -1; } while (0)
/* Pre-sizes nodes and links when a builder knows the counts; 0 or -1. */
int topo_reserve(struct topo *t, int n_nodes, int n_links);
/* The same for counts computed from a type's keys, checked first: more
 * than TOPO_MAX_NODES nodes or INT32_MAX / 2 links sets *err "[topology]
 * KEYS: N nodes and M links; at most ..." (KEYS formatted from fmt, the
 * keys and values that give the counts) and returns -1; out of memory
 * returns -1 with *err left NULL, as TOPO_TRY. */
int topo_reserve_checked(struct topo *t, int64_t n_nodes, int64_t n_links, char **err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Numbers ports (port_off, ports). On allocation failure port_off stays NULL. */
void topo_finalize(struct topo *t);

static inline int topo_n_ports(const struct topo *t, int u) { return t->port_off[u + 1] - t->port_off[u]; }
/* Endpoints of the topology: n_hosts x nics_per_host (n_hosts when 0). */
static inline int topo_n_eps(const struct topo *t)
{
	return t->n_hosts * (t->nics_per_host > 1 ? t->nics_per_host : 1);
}
/* Node id by name, -1 if none. */
int topo_find(const struct topo *t, const char *name);

#endif
