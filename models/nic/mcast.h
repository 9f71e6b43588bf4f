/*
 * mcast.h — multicast groups: source-rooted trees through the fabric,
 * switch replication and reliable RC-style multicast in the manner of
 * Cepheus (Li et al., HPCA'24; docs/protocol.md "Multicast").
 *
 * The first half of this header is the contract collectives code against
 * (mcast_group_create / mcast_group_find / mcast_post); the second, a
 * group's address and members and the groups of [multicast], is for
 * traffic sources. The tree and the switches' entries are the fabric's
 * (mcast_tree_build, fabric.h), with the group's id.
 *
 * A group is rooted at one endpoint and reaches a set of member endpoints.
 * Its tree follows the unicast routes (the same equal-cost choice a packet
 * from the source to each member would make with the group's own UDP source
 * port), so it can be explained and different groups spread over different
 * equal-cost links. Each switch on the tree holds a group -> egress-port-set
 * entry; a data packet of the group is replicated once per member port.
 *
 * Reliable groups ([multicast] reliable = on): the sender uses one RC queue
 * pair; every member's NIC runs an ordinary RC responder; switches aggregate
 * ACKs on the way back (an aggregated ACK carries the minimum PSN acked by
 * the subtree), forward NAKs and CNPs, so the sender sees one feedback
 * stream. Unreliable groups (reliable = off): UD, no feedback.
 */
#ifndef ROCESIM_MCAST_H
#define ROCESIM_MCAST_H

#include <stdint.h>

struct world;
struct sim;

/* ---- The contract (collectives code against this). ---- */

struct mcast_group;   /* opaque; lives until world_free */
/* A group rooted at endpoint src_ep reaching endpoints dst_eps[0..n_dst) (distinct, != src_ep):
 * builds its source-rooted tree, installs the switch entries, assigns a group id and IPv4
 * multicast address, writes its multicast_group row (when results are on). name is copied.
 * NULL with *err (malloc'd) if the members are invalid. Reliability follows [multicast] reliable. */
struct mcast_group *mcast_group_create(struct world *w, const char *name, int src_ep,
				       const int *dst_eps, int n_dst, char **err);
/* A group already made for exactly this source and member set (collectives reuse groups
 * across iterations), else NULL. */
struct mcast_group *mcast_group_find(struct world *w, int src_ep, const int *dst_eps, int n_dst);
struct mcast_msg {
	uint64_t size_b;                       /* > 0 */
	const char *source, *parallelism, *job;/* static strings, kept by reference; job may be NULL */
	int64_t iteration, collective_id;      /* -1 when none */
	int src_gpu;                           /* -1 when not a GPU's traffic */
	const int *dst_gpus;                   /* [n_dst] GPU ids in member order, or NULL; copied */
	void (*on_recv)(struct sim *sim, void *ctx, int member); /* member's last byte arrived */
	void (*on_done)(struct sim *sim, void *ctx);             /* sender completion; may be NULL */
	void *ctx;
};
/* Posts one multicast message now (sim->now) on the group's sender QP. */
void mcast_post(struct world *w, struct mcast_group *g, const struct mcast_msg *m);

/* ---- Addresses, members, [multicast]. ---- */

/* The group's IPv4 multicast address (239.1.x.y, administratively scoped,
 * RFC 2365): what its frames carry as destination IP on fabric links; the
 * MAC is 01:00:5e + its low 23 bits (docs/protocol.md "Addresses and names"). */
uint32_t mcast_group_ip(const struct mcast_group *g);
/* Group id (from 0, creation order), name, members. */
int mcast_group_id(const struct mcast_group *g);
const char *mcast_group_name(const struct mcast_group *g);
int mcast_group_size(const struct mcast_group *g);
/* Member i's endpoint (members in the order the group was made with). */
int mcast_group_member(const struct mcast_group *g, int i);
/* The group of id gid (packets carry the id), NULL when none. */
struct mcast_group *mcast_group_by_id(const struct world *w, int gid);

/* The groups of [multicast] (made once, when a source first needs them). */
int mcast_cfg_groups(struct world *w, char **err);
/* The group named name, NULL when none. */
struct mcast_group *mcast_group_by_name(const struct world *w, const char *name);

/* Frees every group and its messages still live (world_free). Its queue
 * pairs go with their NICs, its tree and the switches' entries with the
 * fabric (fabric_free). */
void mcast_free(struct world *w);

#endif
