/*
 * mcast_tree.h — the fabric's side of a multicast group: its source-rooted
 * tree and the entry each switch on it holds (internal to models/fabric/;
 * other parts see the API in fabric.h). A group's tree and its NIC side
 * (the sender's and members' queue pairs, nic/mcast.c) share the group id
 * that frames carry (packet.mgroup).
 *
 * Switch entry of a group at one switch: the ingress port toward the
 * source (`parent`) and one slot per egress port of the tree (`out`). A
 * slot whose peer is a member's NIC carries the member index: the last
 * switch rewrites destination endpoint and QP there (Cepheus,
 * docs/protocol.md "Multicast"). For feedback each slot keeps the first
 * PSN its subtree has not acknowledged (`una`); the entry forwards an ACK
 * upstream only when the minimum over its slots grows past what it last
 * sent (`una`), so one aggregated ACK carries the minimum PSN acknowledged
 * by the subtree.
 */
#ifndef ROCESIM_MCAST_TREE_H
#define ROCESIM_MCAST_TREE_H

#include <stdint.h>
#include "fabric.h"
#include "path.h"

struct mcast_out {
	uint16_t port;           /* egress port index at this switch */
	int32_t member;          /* member index when the peer is that member's NIC, else -1 */
	uint32_t una;            /* first PSN this subtree has not acknowledged */
};

struct mcast_entry {
	uint16_t parent;         /* port toward the source */
	uint16_t n_out;
	uint32_t una;            /* first PSN not yet acknowledged upstream by this switch */
	simtime_t last_cnp;      /* last CNP forwarded upstream (-1: none) */
	struct mcast_out out[];  /* [n_out], in the order branches were added */
};

struct mcast_tree {
	int id;                  /* from 0, creation order */
	int src;                 /* source endpoint */
	int n_dst;
	int *dst;                /* [n_dst] member endpoints */
	uint32_t *dqpn;          /* [n_dst] each member's responder QP (mcast_tree_set_qpn) */
	uint32_t ip;             /* 239.1.x.y */
	uint16_t sport;          /* UDP source port of its frames (ECMP entropy of the tree) */
	int tree_links;          /* links of the tree, the source's own link included */
	struct mcast_entry **ent;/* [n_nodes]: the entry at each switch of the tree, else NULL */
	struct ideal_hop (*fwd)[IDEAL_MAX_HOPS], (*rev)[IDEAL_MAX_HOPS]; /* [n_dst] tree paths */
	int *n_hops;             /* [n_dst] */
};

struct mcast_fabric {
	struct mcast_tree **t;   /* [n] by id */
	int n, cap;
};

/* Frees every tree and its switches' entries (fabric_free). */
void mcast_fabric_free(struct fabric *f);
/* switch.c: a frame of a group reached a switch (mcast_switch.c). */
void mcast_switch_receive(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt);

#endif
