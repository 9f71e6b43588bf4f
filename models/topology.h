/*
 * topology.h — building the graph of a [topology] section.
 *
 * A topology is a plain description (nodes, links, port numbering) that
 * knows nothing of ports' queues or NICs; world.c turns it into live
 * objects. Builders are looked up by type in one registry (topology.c).
 *
 * Numbering (stable, used in results, taps and flows):
 *   - node ids: hosts first (host0..), then switches tier by tier from the
 *     bottom (tor/leaf/sw, then agg/spine, then core), each left to right;
 *   - tier: 0 host, 1 tor/leaf/sw, 2 agg/spine, 3 core;
 *   - a node's ports are numbered in the order its links appear in
 *     `links`; builders add each switch's down links before its up links,
 *     so a ToR's ports 0..n-1 face its hosts.
 */
#ifndef ROCESIM_TOPOLOGY_H
#define ROCESIM_TOPOLOGY_H

#include <stdint.h>
#include "config.h"
#include "simtime.h"

enum node_kind { NODE_HOST, NODE_GPU, NODE_SWITCH, NODE_NVSWITCH };

#define TOPO_NAME_MAX 24

struct topo_node {
	char name[TOPO_NAME_MAX];  /* "host3", "tor0", "agg5", "core1", "leaf2", "spine0", "sw1" */
	enum node_kind kind;
	int tier;
};

struct topo_link {
	int a, b;                  /* node ids */
	uint64_t rate_bps;
	simtime_t delay_ps;        /* propagation, one way */
};

struct topo_port {
	int link;                  /* link id */
	int peer;                  /* node id at the other end */
	int peer_port;             /* port index at the other end */
};

struct topo {
	struct topo_node *nodes; int n_nodes;
	int n_hosts;               /* nodes [0, n_hosts) are hosts */
	struct topo_link *links; int n_links;
	/* Filled by topo_finalize: node u's ports are ports[port_off[u] .. port_off[u+1]). */
	int *port_off;
	struct topo_port *ports;
};

/* Builds the topology the section describes. Returns 0, or -1 with *err
 * (malloc'd) for an impossible shape (fat_tree k odd, oversubscription that
 * does not give whole hosts, zero hosts, ...). */
int topology_build(const struct config *cfg, struct topo *t, char **err);
void topology_free(struct topo *t);

/* Helpers for builders. */
int topo_add_node(struct topo *t, const char *name, enum node_kind kind, int tier);
int topo_add_link(struct topo *t, int a, int b, uint64_t rate_bps, simtime_t delay_ps);
void topo_finalize(struct topo *t);
static inline int topo_n_ports(const struct topo *t, int u) { return t->port_off[u + 1] - t->port_off[u]; }
/* Node id by name, -1 if none. */
int topo_find(const struct topo *t, const char *name);

#endif
