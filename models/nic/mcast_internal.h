/*
 * mcast_internal.h — what the multicast files share with each other and
 * with the hooks in the NIC, queue pairs, switches and world (not part of
 * the collectives' API, which is mcast.h).
 *
 * Switch entry of a group at one switch: the ingress port toward the
 * source (`parent`) and one slot per egress port of the tree (`out`). A
 * slot whose peer is a member's NIC carries the member index: the last
 * switch rewrites destination endpoint and QP there (Cepheus, REFERENCE.md
 * "Multicast"). For feedback each slot keeps the first PSN its subtree has
 * not acknowledged (`una`); the entry forwards an ACK upstream only when
 * the minimum over its slots grows past what it last sent (`una`), so one
 * aggregated ACK carries the minimum PSN acknowledged by the subtree.
 */
#ifndef ROCESIM_MCAST_INTERNAL_H
#define ROCESIM_MCAST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "ideal.h"
#include "mcast.h"
#include "sim.h"
#include "world.h"

struct qp;
struct flow;
struct node;
struct port;
struct packet;
struct results;

#define MCAST_MAX_GROUPS 65535   /* packet.mgroup is 16 bits */
#define MCAST_UD_QPN 0xFFFFFFu  /* destination QP of multicast frames on fabric links (REFERENCE.md) */

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

struct mcast_group {
	int id;
	char *name;
	int src;                 /* source endpoint */
	int n_dst;
	int *dst;                /* [n_dst] member endpoints */
	uint32_t ip;             /* 239.1.x.y */
	uint16_t sport;          /* UDP source port of its frames (ECMP entropy of the tree) */
	bool reliable;
	bool row_written;
	int tree_links;          /* links of the tree, the source's own link included */
	struct qp *sq;           /* the sender's RC queue pair */
	struct qp **rq;          /* [n_dst] each member's responder */
	struct mcast_entry **ent;/* [n_nodes]: the entry at each switch of the tree, else NULL */
	struct ideal_hop (*fwd)[IDEAL_MAX_HOPS], (*rev)[IDEAL_MAX_HOPS]; /* [n_dst] tree paths */
	int *n_hops;             /* [n_dst] */
};

struct mcast {
	struct mcast_group **g;  /* [n] by id */
	int n, cap;
	bool cfg_done;           /* [multicast] groups made */
	struct mcast_xfer *live; /* messages whose sender has not completed */
};

/* The group of id gid (a packet's mgroup or a QP's: valid by construction). */
static inline struct mcast_group *mcast_of(const struct world *w, int gid)
{
	return w->mcast->g[gid];
}

/* ---- Hooks (one branch each in the unicast path). ---- */
/* qp.c: a group's sender built data packet p (flag and group; UD completion). */
void mcast_qp_sent(struct sim *sim, struct qp *q, struct packet *p);
/* qp.c: a group's message fully acknowledged (in place of flow_finish). */
void mcast_sender_finish(struct sim *sim, struct qp *q, struct flow *f);
/* qp.c: a member's responder accepted the last packet of a message in order. */
void mcast_member_received(struct sim *sim, struct qp *q, const struct packet *p);
/* nic.c: a member's responder sends feedback a: false when the group sends
 * none (UD), else a is marked as the group's. */
bool mcast_feedback_stamp(struct world *w, const struct qp *q, struct packet *a);
/* switch.c: a frame of a group reached a switch (mcast_switch.c). */
void mcast_switch_receive(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt);
/* world.c: multicast_group rows not yet written; rows of unfinished messages. */
void mcast_write_rows(const struct world *w, struct results *res);
void mcast_write_unfinished(struct world *w);
/* mcast.c: frees the messages still live (mcast_msg.c), before the groups. */
void mcast_msgs_free(struct world *w);

/* traffic_multicast.c: the groups of [multicast] (made once). */
int mcast_cfg_groups(struct world *w, char **err);
/* mcast.c: the group named name, NULL when none. */
struct mcast_group *mcast_group_by_name(const struct world *w, const char *name);

#endif
