/*
 * mcast_msg.c — multicast messages: posting on the group's sender QP, the
 * per-member and sender completions, and their `flow` rows (see mcast.h).
 *
 * Rows (scenarios/README.md "Multicast"). A message of a group of n members
 * writes n + 1 flow rows, flow ids in this order:
 *   - the sender's row: dst = the group's name; end_ps when the sender saw
 *     its last PSN acknowledged by the aggregated ACK (every member has it;
 *     UD: when its last packet left the sender's NIC); recv_end_ps when the
 *     last member got its last byte; ideal = the slowest member's tree path
 *     alone, ACK return included (UD: the message's serialisation on the
 *     source's link).
 *   - one row per member: dst = the member; recv_end_ps = end_ps = when its
 *     last byte arrived in order (the receive completion; a member's own
 *     ACK is aggregated, the sender never sees it alone); ideal = the
 *     message alone over that member's tree path, without ACK return.
 * Every row carries the sender QP's number, UDP port and priority.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "flow.h"
#include "log.h"
#include "mcast_internal.h"
#include "nic.h"
#include "nic_internal.h"
#include "fabric.h"
#include "qp.h"
#include "results.h"
#include "world.h"
#include "xalloc.h"

/* One message of a group while its sender has not completed. */
struct mcast_xfer {
	struct mcast_xfer *next, *prev; /* struct mcast live list */
	struct mcast_group *g;
	struct flow *sf;               /* sender's record (on the sender QP) */
	struct flow **rf;              /* [n_dst] members' records, NULL once written */
	int left;                      /* members still to receive */
	bool sender_done;              /* UD: the sender completed before every member received */
	void (*on_recv)(struct sim *sim, void *ctx, int member);
	void (*on_done)(struct sim *sim, void *ctx);
	void *ctx;
};

void mcast_post(struct world *w, struct mcast_group *g, const struct mcast_msg *m)
{
	struct sim *sim = w->sim;
	SIM_ASSERT(sim, &sim->kernel, m->size_b > 0, "multicast message of 0 bytes to group %s", g->name);
	int mtu = w->nic_cfg->mtu;
	uint32_t n_pkts = ideal_packets(m->size_b, mtu);
	struct mcast_xfer *x = xcalloc(1, sizeof *x);
	x->g = g;
	x->on_recv = m->on_recv;
	x->on_done = m->on_done;
	x->ctx = m->ctx;
	x->left = g->n_dst;
	x->rf = xcalloc((size_t)g->n_dst, sizeof *x->rf);
	struct flow *sf = flow_new(w, g->src, g->src, m->size_b, m->source, m->parallelism);
	x->sf = sf;
	simtime_t slowest = 0;
	for (int i = 0; i < g->n_dst; i++) {
		struct flow *f = flow_new(w, g->src, g->dst[i], m->size_b, m->source, m->parallelism);
		f->qp = g->sq;
		f->n_pkts = n_pkts;
		const struct ideal_hop *fwd, *rev;
		int hops = mcast_tree_path(g->tree, i, &fwd, &rev);
		f->ideal = ideal_delivery_ps(fwd, hops, m->size_b, mtu);
		simtime_t whole = f->ideal + ideal_ack_ps(rev, hops);
		if (whole > slowest)
			slowest = whole;
		f->job = m->job;
		f->iteration = m->iteration;
		f->collective_id = m->collective_id;
		f->src_gpu = m->src_gpu;
		f->dst_gpu = m->dst_gpus ? m->dst_gpus[i] : -1;
		x->rf[i] = f;
	}
	sf->qp = g->sq;
	sf->n_pkts = n_pkts;
	if (!g->reliable) { /* UD completes when its last frame left the source's port */
		struct ideal_hop src_link = { w->eps[g->src].nic->line_bps, 0 };
		slowest = ideal_delivery_ps(&src_link, 1, m->size_b, mtu);
	}
	sf->ideal = slowest;
	sf->job = m->job;
	sf->iteration = m->iteration;
	sf->collective_id = m->collective_id;
	sf->src_gpu = m->src_gpu;
	sf->dst_name = g->name; /* its row: the sender to the group */
	sf->on_done_ctx = x; /* on_done stays NULL: qp_finished (mcast_qp_ops) completes it */
	struct mcast *mc = w->mcast;
	x->next = mc->live;
	if (mc->live)
		mc->live->prev = x;
	mc->live = x;
	qp_post(g->sq, sf);
	nic_qp_wake(sim, g->sq->nic, g->sq);
}

static void sender_release(struct world *w, struct mcast_xfer *x);

/* UD: the sender's NIC counts a packet done when its last bit left. */
static void ud_sent(struct sim *sim, void *obj, uintptr_t psn)
{
	struct packet a = { .type = PKT_ACK, .psn = (uint32_t)psn };
	qp_on_ack(sim, obj, &a);
}

/* A frame of group mgroup: routed by the group's tree, not a path code. */
static void mark_mcast(struct packet *p, int mgroup)
{
	p->flags |= PKT_F_MCAST;
	p->mgroup = (uint16_t)mgroup;
	p->route = 0;
}

static void qp_sent(struct sim *sim, struct qp *q, struct packet *p)
{
	struct world *w = nic_world(q->nic);
	struct mcast_group *g = mcast_of(w, q->mgroup);
	mark_mcast(p, q->mgroup);
	if (!g->reliable)
		sched_at(sim, sim->now + port_ser_ps(w->eps[g->src].port, p->frame_b + PKT_WIRE_EXTRA_B),
			 q->elem, ud_sent, q, p->psn);
}

static bool qp_feedback(const struct qp *q, struct packet *a)
{
	if (!mcast_of(nic_world(q->nic), q->mgroup)->reliable)
		return false; /* UD: members send no ACK, NAK or CNP */
	mark_mcast(a, q->mgroup);
	return true;
}

static void qp_received(struct sim *sim, struct qp *q, const struct packet *p)
{
	struct world *w = nic_world(q->nic);
	struct mcast_xfer *x = p->flow->on_done_ctx;
	int mi = q->mmember;
	struct flow *f = x->rf[mi];
	SIM_ASSERT(sim, q->elem, f, "group %s member %d received a message twice", x->g->name, mi);
	x->rf[mi] = NULL;
	flow_received(sim, f);
	bool last = --x->left == 0;
	if (last)
		x->sf->recv_end = sim->now;
	if (x->on_recv)
		x->on_recv(sim, x->ctx, mi);
	flow_finish(sim, w, f);
	if (last && x->sender_done)
		sender_release(w, x);
}

static void xfer_unlink_free(struct mcast *mc, struct mcast_xfer *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		mc->live = x->next;
	if (x->next)
		x->next->prev = x->prev;
	free(x->rf);
	free(x);
}

/* The sender's row and record once both the sender and every member are done. */
static void sender_release(struct world *w, struct mcast_xfer *x)
{
	struct flow *f = x->sf;
	world_flow_report(w, x->sf);
	xfer_unlink_free(w->mcast, x);
	pool_put(&w->flow_pool, f);
}

static void qp_finished(struct sim *sim, struct qp *q, struct flow *f)
{
	struct world *w = nic_world(q->nic);
	struct mcast_xfer *x = f->on_done_ctx;
	flow_ended(sim, w, f);
	if (x->on_done)
		x->on_done(sim, x->ctx);
	/* UD completes on sending: members' packets still in flight point to
	 * this record, so it lives until the last of them arrived. */
	if (x->left > 0)
		x->sender_done = true;
	else
		sender_release(w, x);
}

/* The hooks of a group's queue pairs (qp.h): the sender's and the members'. */
const struct qp_ops mcast_qp_ops = {
	.sent = qp_sent, .finished = qp_finished, .received = qp_received, .feedback = qp_feedback,
};

void mcast_write_unfinished(struct world *w)
{
	for (struct mcast_xfer *x = w->mcast ? w->mcast->live : NULL; x; x = x->next) {
		world_flow_report(w, x->sf);
		for (int i = 0; i < x->g->n_dst; i++)
			if (x->rf[i])
				world_flow_report(w, x->rf[i]);
	}
}

void mcast_msgs_free(struct world *w)
{
	while (w->mcast->live)
		xfer_unlink_free(w->mcast, w->mcast->live);
}
