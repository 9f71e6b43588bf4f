/*
 * fabric.h — the network part of rocesim, its one door for the parts that
 * build or drive it: nodes and ports, frames (packet.h), switches with
 * their MMU, routing and ECMP, multicast replication, and the [switch]
 * keys. Read-only questions about paths go through path.h.
 *
 * The fabric moves frames between ports. It knows nothing of what a NIC
 * does with them, nor of traffic or training: a host node is a port per
 * NIC and a receive hook that whoever attaches the NICs sets
 * (fabric_attach_host), and endpoint e is port e mod nics_per_host of host
 * e / nics_per_host.
 *
 * fabric_build turns the scenario's topology into live objects, registers
 * every element with the kernel in node order (nodes by id, then each
 * node's ports by index, so ids never depend on anything but the
 * scenario), builds routing, and sets up each switch's buffer.
 */
#ifndef ROCESIM_FABRIC_H
#define ROCESIM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "link_loss.h"
#include "packet.h"
#include "path.h"
#include "pkt_tel.h"
#include "pool.h"
#include "port.h"
#include "sim.h"
#include "switch.h"
#include "topology.h"
#include "failure.h"

struct config;
struct fail_model;
struct mcast_fabric;
struct results;
struct results_table;
struct mmu;
struct route_ep;
struct route_set;
struct route_table;

struct node {
	/* Line 0: what a frame landing at or leaving the node reads. */
	enum node_kind kind;
	uint32_t ecmp_seed;        /* per-switch seed of the ECMP hash */
	bool ecmp_packet;          /* [switch] ecmp = packet (spraying) */
	int n_ports;
	struct port *ports;        /* n_ports consecutive entries of fabric.ports */
	const uint16_t *set_of_grp; /* switches: rt's arrays, one load nearer (routing.h) */
	const struct route_set *sets;
	const uint16_t *rt_ports;
	struct mmu *mmu;           /* switches: the shared buffer (mmu.h) */
	union {
		/* Hosts: a frame arrived on port `in`, whose pull context (its
		 * NIC) is ctx (the NIC's receive). A frame landing at a switch
		 * runs its pipeline inline (switch_fwd.h), and a switch port
		 * runs its release when a frame leaves a queue. */
		void (*receive)(struct sim *sim, void *ctx, struct port *in, struct packet *pkt);
		/* Switches: each endpoint's group and port (rt->dst->eps). */
		const struct route_ep *ep_route;
	};
	/* Line 1. */
	const struct route_table *rt; /* switches: forwarding table */
	struct fabric *fab;
	struct sim_elem elem;      /* the node as scheduler (NIC, switch pipeline) */
	int id;
	int tier;
	uint32_t port_elem;        /* element id of port 0's elem; port i's are port_elem + 2i
				    * (elem) and + 2i + 1 (land), held or not */
	const char *name;          /* topo.nodes[id].name */
} __attribute__((aligned(64)));

/* What the fabric needs to know of the NICs that will sit at its hosts. */
struct fabric_params {
	uint8_t lossless;          /* classes PFC keeps lossless (bit c: class c) */
	uint32_t max_frame_b;      /* the largest data frame a NIC sends */
	simtime_t cnp_interval;    /* least spacing of the CNPs a receiving QP sends (cc.h), and a
				    * multicast entry upstream; 0: one for every mark */
	/* A partitioned run: called once the topology is read, before any port
	 * or buffer is made, it sets *mine[u] (NULL: every node) for the nodes
	 * this process simulates; 0, or -1 with *err. NULL: sequential. */
	int (*place)(void *ctx, const struct topo *t, const bool **mine, char **err);
	void *place_ctx;
};

struct mcast_tree;

struct fabric {
	struct sim *sim;
	const struct config *cfg;  /* for located errors */
	const struct switch_cfg *sw_cfg;
	struct fabric_params params;
	struct topo topo;
	struct node *nodes; int n_nodes;
	int n_hosts;               /* nodes [0, n_hosts) are hosts */
	int nics_per_host;         /* ports per host, >= 1 */
	struct port *ports; int n_ports;
	struct route_table *routes; /* [n_nodes] */
	struct pool pkt_pool;      /* struct packet */
	struct pkt_tel_pool tel;   /* frames' side records (pkt_tel.h); empty unless a
				    * controller reads ACKs */
	bool int_on;               /* switch egresses stamp telemetry (fabric_enable_int) */
	struct mcast_fabric *mcast; /* multicast trees (mcast_tree.h); NULL when none */
	struct results_table *pfc_pause; /* insert of pfc_pause rows (fabric_results_prepare) */
	struct fail_model *fail;   /* [failure]'s links and switches (failure.h); NULL: none */
	struct link_loss *loss;    /* [n_loss] lossy link directions; ports point into it */
	int n_loss;
	/* A partitioned run: a frame a port whose peer is another rank's sends
	 * (port_set_remote), to land there at arrive_at; the hook takes it
	 * (it returns it to the pool). NULL in a sequential run. */
	void (*ship)(void *ctx, struct port *p, struct packet *pkt, simtime_t arrive_at);
	void *ship_ctx;
	/* A partitioned run: a multicast tree was made during the run (with
	 * its members' QPNs set), for the other ranks' switches to make too
	 * (ship_ctx). NULL in a sequential run. */
	void (*tree_made)(void *ctx, const struct mcast_tree *t);
	/* A partitioned run: mine[u] says node u is this rank's (its rows are
	 * this rank's to write); NULL: every node is. */
	const bool *mine;
	/* held[i]: port i is built here: FABRIC_OWN, its node is this rank's;
	 * FABRIC_FAR, its peer is (a cut link is held at both ends: its frames
	 * land on the receiving rank's copy); 0, neither: never touched (its
	 * memory, taken page by page, is never used). NULL: every port is
	 * this process's own. */
	uint8_t *held;
	simtime_t switch_latency;  /* [topology] switch_latency, paid on arriving at a switch */
};

/* Node u's port i as the topology has it: its link and its peer. Code that
 * reasons about ports it may not hold (paths, trees, failures, base RTT)
 * reads this, not the ports. */
static inline const struct topo_port *fabric_tport(const struct fabric *f, int u, int i)
{
	return &f->topo.ports[f->topo.port_off[u] + i];
}
/* Leaving node u by port i, for ideal times: the link's rate, and its
 * delay plus the latency of the switch it reaches (0 at a host). */
static inline struct ideal_hop fabric_hop(const struct fabric *f, int u, int i)
{
	const struct topo_port *tp = fabric_tport(f, u, i);
	const struct topo_link *l = &f->topo.links[tp->link];
	return (struct ideal_hop){ .rate_bps = l->rate_bps,
				   .delay_ps = l->delay_ps + (f->topo.nodes[tp->peer].kind == NODE_SWITCH ?
							      f->switch_latency : 0) };
}

enum { FABRIC_FAR = 1, FABRIC_OWN = 2 };
/* Whether port i (of fabric.ports) is built in this process. */
static inline bool fabric_port_held(const struct fabric *f, int i)
{
	return !f->held || f->held[i];
}
/* Whether node u's port i is. */
static inline bool fabric_node_port_held(const struct fabric *f, int u, int i)
{
	return !f->held || f->held[f->topo.port_off[u] + i];
}
/* Whether port i is this process's own: its node is (its rows, samples
 * and captures are written here). */
static inline bool fabric_port_own(const struct fabric *f, int i)
{
	return !f->held || f->held[i] == FABRIC_OWN;
}
/* The node of port i (of fabric.ports): a binary search of the
 * topology's numbering, for reports. */
int fabric_port_node(const struct fabric *f, int i);
/* Whether port i is a host's (hosts are nodes [0, n_hosts), numbered first). */
static inline bool fabric_port_at_host(const struct fabric *f, int i)
{
	return i < f->topo.port_off[f->n_hosts];
}

/* Builds the fabric of cfg's [topology], [switch] and [failure] into f (sim must be
 * initialised). Returns 0, or -1 with *err (malloc'd) for a topology,
 * routing or buffer error; f is then freed. */
int fabric_build(struct fabric *f, struct sim *sim, const struct config *cfg,
		 const struct fabric_params *p, char **err);
void fabric_free(struct fabric *f);

/* Endpoint ep's host (its node id) and its port's index there. */
static inline int fabric_ep_host(const struct fabric *f, int ep) { return ep / f->nics_per_host; }
static inline int fabric_ep_nic(const struct fabric *f, int ep) { return ep % f->nics_per_host; }
/* The port of endpoint ep (port ep mod nics_per_host of its host). */
static inline struct port *fabric_ep_port(const struct fabric *f, int ep)
{
	return &f->nodes[fabric_ep_host(f, ep)].ports[fabric_ep_nic(f, ep)];
}
/* Whether endpoint ep's port is built in this process (fabric.h: a
 * partitioned run builds its own). */
static inline bool fabric_ep_held(const struct fabric *f, int ep)
{
	return fabric_node_port_held(f, fabric_ep_host(f, ep), fabric_ep_nic(f, ep));
}
/* Whether the link of topology port tp ends at endpoint ep's port. */
static inline bool fabric_tport_reaches_ep(const struct fabric *f, const struct topo_port *tp, int ep)
{
	return tp->peer == fabric_ep_host(f, ep) && tp->peer_port == fabric_ep_nic(f, ep);
}
/* An endpoint as users name it: its host, or its port ("host3:p1") with
 * several NICs per host; written into buf[n] (the port may be another
 * rank's, not built here: fabric.h). */
static inline const char *fabric_ep_name(const struct fabric *f, int ep, char *buf, size_t n)
{
	const char *host = f->nodes[fabric_ep_host(f, ep)].name;
	if (f->nics_per_host == 1)
		return host;
	snprintf(buf, n, "%s:p%d", host, fabric_ep_nic(f, ep));
	return buf;
}
/* Every switch egress stamps in-band telemetry on the data frames whose
 * side record asks for it (port_set_int); done once, when a controller
 * that needs telemetry is in use. */
static inline void fabric_enable_int(struct fabric *f)
{
	if (f->int_on)
		return;
	f->int_on = true;
	for (int i = 0; i < f->n_ports; i++)
		if (!fabric_port_at_host(f, i) && fabric_port_held(f, i))
			port_set_int(&f->ports[i], true);
}

/* Returns a frame to the pool, with its side record when it has one. */
static inline void fabric_pkt_put(struct fabric *f, struct packet *p)
{
	if (p->flags & PKT_F_TEL)
		pkt_tel_put(&f->tel, p->aux);
	pool_put(&f->pkt_pool, p);
}

/* Host ep's frames land through recv(ctx) (the NIC behind that port). */
void fabric_attach_host(struct fabric *f, int ep, port_pull_fn pull, void *pull_ctx,
			void (*recv)(struct sim *, void *, struct port *, struct packet *));

/* Bytes that still arrive at node u's port i after it sends XOFF
 * (`pfc_headroom = auto`, mmu.h), when the largest frame is max_frame_b:
 * what a switch ingress holds in reserve, and what a host's receive buffer
 * keeps free. From the topology: no port is read (f->topo and
 * f->switch_latency are all it needs). */
uint32_t fabric_headroom(const struct fabric *f, int u, int i, uint32_t max_frame_b);

/* Prepares the insert of the pfc_pause rows the ports write (right after
 * results_open, before any frame moves); 0, or -1 when the database's
 * table does not fit. */
int fabric_results_prepare(struct fabric *f, struct results *res);

/* After a run that ran dry: every queue, link and buffer is empty and every
 * packet is back in the pool. Aborts naming the element otherwise. */
void fabric_check_drained(struct fabric *f);
/* No frame queued, on a link or owed as PFC anywhere. */
bool fabric_quiet(const struct fabric *f);
/* Frames of the lossless class dropped by switches, and at how many. */
uint64_t fabric_lossless_drops(const struct fabric *f, int *switches);
/* Data packets queued or on links (conservation: sent = delivered +
 * dropped + these). */
uint64_t fabric_data_in_flight(const struct fabric *f);
/* Whether switch sw keeps class c of its ingress port `port` paused
 * (XOFF) because it holds that port's bytes. */
bool fabric_holds_pause(const struct node *sw, int port, int c);
/* Aborts (SIM_ASSERT, naming the element) when a switch buffer's counters
 * disagree with the frames its queues hold (debug builds: every watchdog
 * tick and the end of the run). */
void fabric_check_buffers(struct fabric *f);
/* Bytes the nodes, ports and buffers of topology t take (the memory
 * estimate at --check, before anything is built). */
uint64_t fabric_estimate_b(const struct topo *t);
/* Bytes its forwarding tables take (routing.h: per switch and destination
 * switch), the same way. */
uint64_t fabric_routing_estimate_b(const struct topo *t);
/* ---- Multicast trees (mcast_tree.c) ---- */

struct mcast_tree;
#define MCAST_MAX_GROUPS 65535   /* packet.mgroup is 16 bits */
/* The tree of a new group (its id: the number of trees before it) rooted
 * at endpoint src_ep and reaching dst_eps[0..n_dst) (distinct, valid,
 * != src_ep): the switches' entries are installed, its address and UDP
 * source port assigned. NULL with *err (malloc'd) when the fabric already
 * holds MCAST_MAX_GROUPS trees or a member cannot be reached within
 * IDEAL_MAX_HOPS links. */
struct mcast_tree *mcast_tree_build(struct fabric *f, int src_ep, const int *dst_eps, int n_dst, char **err);
/* The member's responder QP, which the last switch rewrites copies to. */
void mcast_tree_set_qpn(struct mcast_tree *t, int member, uint32_t qpn);
int mcast_tree_id(const struct mcast_tree *t);
/* The source endpoint, the members and member i's endpoint and QPN. */
int mcast_tree_src(const struct mcast_tree *t);
int mcast_tree_size(const struct mcast_tree *t);
int mcast_tree_member(const struct mcast_tree *t, int member);
uint32_t mcast_tree_qpn(const struct mcast_tree *t, int member);
uint32_t mcast_tree_ip(const struct mcast_tree *t);
uint16_t mcast_tree_sport(const struct mcast_tree *t);
/* Links of the tree, the source's own link included. */
int mcast_tree_links(const struct mcast_tree *t);
/* The tree path to a member: hops source -> member (fwd) and back (rev),
 * as ideal.h takes them; their count. */
int mcast_tree_path(const struct mcast_tree *t, int member, const struct ideal_hop **fwd,
		    const struct ideal_hop **rev);

/* "host", "gpu", "switch" or "nvswitch" (node.kind of the results). */
const char *fabric_kind_name(enum node_kind k);

#endif
