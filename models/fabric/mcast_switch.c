/*
 * mcast_switch.c — a switch on a group's tree: replication of data and
 * aggregation of the members' feedback (Cepheus, Li et al., HPCA'24;
 * docs/protocol.md "Multicast").
 *
 * Data: one frame in, one copy per egress slot of the group's entry. Each
 * copy is its own packet from the pool, admitted by the MMU against its
 * egress queue like a unicast frame and charged to the ingress port and
 * class (so PFC pauses the upstream when any branch backs up) — the
 * copy-per-port buffer model: a frame replicated k ways holds k × its
 * bytes of buffer until each copy leaves. Real switches keep one cell
 * referenced by k queues; this model over-counts replicated bytes, which
 * makes PFC and drops conservative (scenarios/README.md "Multicast"). A
 * copy refused by one egress is dropped on that branch only (go-back-N
 * recovers it). Copies made here count as packets sent, so a run still
 * balances sent = delivered + dropped. At a member's port the copy is
 * rewritten to that member's endpoint and QP and loses the multicast flag:
 * the member's NIC sees ordinary RC traffic.
 *
 * Feedback (reliable groups): ACKs raise their slot's unacknowledged PSN
 * and go upstream only when the entry's minimum grows, carrying that
 * minimum, so the sender sees one ACK stream. A NAK (PSN expected) raises
 * its slot and goes upstream carrying the entry's minimum: go-back-N then
 * restarts the group from the oldest PSN some member lacks, and members
 * that have the packets again discard them. CNPs go upstream, at most one
 * per entry per CNP interval of the controller (fabric_params: the
 * members' own limit), so the sender's rate follows the most congested
 * branch.
 */
#include "log.h"
#include "mcast_tree.h"
#include "mmu.h"
#include "switch_fwd.h"

/* Admission to out's queue, PFC toward in, then the queue (or a drop). */
static void forward(struct sim *sim, struct node *sw, struct port *in, struct port *out, struct packet *pkt)
{
	int c = pkt->prio;
	if (mmu_admit(sw->mmu, in->idx, c, pkt->frame_b, &out->q[c].bytes) != MMU_ADMIT) {
		switch_drop(sim, sw->fab, out, pkt);
		return;
	}
	pkt->in_port = (uint16_t)in->idx;
	if (mmu_pause_check(sw->mmu, in->idx, c))
		port_pfc_request(sim, in, c, true);
	port_enqueue(sim, out, pkt);
}

static void replicate(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt,
		      const struct mcast_tree *g, const struct mcast_entry *e)
{
	struct fabric *f = sw->fab;
	for (int k = 0; k < e->n_out; k++) {
		struct packet *c = pkt;
		if (k + 1 < e->n_out) {
			c = pool_get(&f->pkt_pool);
			*c = *pkt;
			sim->packets_sent++;
		}
		const struct mcast_out *o = &e->out[k];
		if (o->member >= 0) { /* last hop: the member's own address and QP */
			c->dst = g->dst[o->member];
			c->dqpn = g->dqpn[o->member];
			c->flags &= (uint8_t)~PKT_F_MCAST;
		}
		forward(sim, sw, in, &sw->ports[o->port], c);
	}
}

static uint32_t min_una(const struct mcast_entry *e)
{
	uint32_t m = e->out[0].una;
	for (int k = 1; k < e->n_out; k++)
		if (e->out[k].una < m)
			m = e->out[k].una;
	return m;
}

static void feedback(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt,
		     struct mcast_entry *e)
{
	struct fabric *f = sw->fab;
	struct port *up = &sw->ports[e->parent];
	if (pkt->type == PKT_CNP) {
		simtime_t iv = f->params.cnp_interval;
		if (iv && e->last_cnp >= 0 && sim->now - e->last_cnp < iv) {
			pool_put(&f->pkt_pool, pkt);
			return;
		}
		e->last_cnp = sim->now;
		forward(sim, sw, in, up, pkt);
		return;
	}
	int k = 0;
	while (k < e->n_out && e->out[k].port != in->idx)
		k++;
	SIM_ASSERT(sim, &sw->elem, k < e->n_out, "group %d feedback on port %d, not a branch", pkt->mgroup,
		   in->idx);
	/* ACK: PSNs through psn are in; NAK: psn is the first one missing. */
	uint32_t una = pkt->type == PKT_ACK ? pkt->psn + 1 : pkt->psn;
	if (una > e->out[k].una)
		e->out[k].una = una;
	uint32_t m = min_una(e);
	if (pkt->type == PKT_NAK) {
		pkt->psn = m;
		if (m > e->una)
			e->una = m;
		forward(sim, sw, in, up, pkt);
		return;
	}
	if (m <= e->una) { /* absorbed: another branch has not acknowledged as far */
		pool_put(&f->pkt_pool, pkt);
		return;
	}
	e->una = m;
	pkt->psn = m - 1;
	forward(sim, sw, in, up, pkt);
}

void mcast_switch_receive(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt)
{
	struct fabric *f = sw->fab;
	SIM_ASSERT(sim, &sw->elem, f->mcast && pkt->mgroup < f->mcast->n, "frame of unknown group %d",
		   pkt->mgroup);
	const struct mcast_tree *g = f->mcast->t[pkt->mgroup];
	struct mcast_entry *e = g->ent[sw->id];
	SIM_ASSERT(sim, &sw->elem, e, "frame of group %d off its tree", g->id);
	pkt->ttl--;
	if (pkt->type == PKT_DATA)
		replicate(sim, sw, in, pkt, g, e);
	else
		feedback(sim, sw, in, pkt, e);
}
