/*
 * mcast_internal.h — what the multicast files of the NIC part share with
 * each other and with the hooks in the NIC, queue pairs and world (not
 * part of the collectives' API, which is mcast.h). The tree and the
 * switches' entries are the fabric's (fabric/mcast_tree.h).
 */
#ifndef ROCESIM_MCAST_INTERNAL_H
#define ROCESIM_MCAST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "fabric.h"
#include "mcast.h"
#include "sim.h"
#include "world.h"

struct qp;
struct results;

#define MCAST_UD_QPN 0xFFFFFFu  /* destination QP of multicast frames on fabric links (docs/protocol.md "Multicast") */

struct mcast_group {
	int id;                  /* its tree's (mcast_tree_id): what its frames carry */
	struct mcast_tree *tree; /* the fabric's side: tree, switch entries, paths */
	char *name;
	int src;                 /* source endpoint */
	int n_dst;
	int *dst;                /* [n_dst] member endpoints */
	bool reliable;
	bool row_written;
	struct qp *sq;           /* the sender's RC queue pair */
	struct qp **rq;          /* [n_dst] each member's responder */
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

/* The hooks of a group's queue pairs (mcast_msg.c; qp.h: one branch each
 * in the unicast path). */
extern const struct qp_ops mcast_qp_ops;
/* world.c: multicast_group rows not yet written; rows of unfinished messages. */
void mcast_write_rows(const struct world *w, struct results *res);
void mcast_write_unfinished(struct world *w);
/* mcast.c: frees the messages still live (mcast_msg.c), before the groups. */
void mcast_msgs_free(struct world *w);

#endif
