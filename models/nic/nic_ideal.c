/*
 * nic_ideal.c — what a message would take alone on the idle fabric (the
 * `ideal` of a flow row and of the collectives' virtual pass), and the
 * per-flow memory of the NIC models for the run's estimate.
 */
#include "cc.h"
#include "path.h"
#include "nic.h"
#include "nic_internal.h"
#include "qp.h"
#include "world.h"

simtime_t nic_flow_ideal(const struct world *w, const struct flow *f, uint16_t sport)
{
	struct ideal_hop fwd[IDEAL_MAX_HOPS], rev[IDEAL_MAX_HOPS];
	int nf = switch_path(&w->fab, f->src, f->dst, sport, fwd);
	int nr = switch_path(&w->fab, f->dst, f->src, sport, rev);
	if (nf < 0 || nr < 0)
		return 0;
	return ideal_delivery_ps(fwd, nf, f->size_b, w->nic_cfg->mtu) + ideal_ack_ps(rev, nr);
}

void nic_ideal_msg(const struct world *w, int src_ep, int dst_ep, uint64_t size_b, struct nic_ideal *out)
{
	int mtu = w->nic_cfg->mtu;
	struct ideal_hop h[IDEAL_MAX_HOPS];
	int nh = switch_path(&w->fab, src_ep, dst_ep, 0xC000, h);
	*out = (struct nic_ideal){ 0 };
	if (nh <= 0)
		return;
	uint32_t np = ideal_packets(size_b, mtu);
	out->delivery_ps = ideal_delivery_ps(h, nh, size_b, mtu);
	out->send_ps = simtime_serialize(ideal_packet_wire_b(size_b, mtu, 0, np), h[0].rate_bps);
	if (np >= 2)
		out->send_ps += simtime_serialize(ideal_packet_wire_b(size_b, mtu, np - 1, np), h[0].rate_bps);
	if (np >= 3)
		out->send_ps += (simtime_t)(np - 2) *
				simtime_serialize(ideal_packet_wire_b(size_b, mtu, 1, np), h[0].rate_bps);
	uint32_t every = (uint32_t)(w->nic_cfg->ack_every > 0 ? w->nic_cfg->ack_every : 1);
	out->acks_ps = (simtime_t)((np + every - 1) / every) *
		       simtime_serialize(PKT_ACK_FRAME_B + PKT_WIRE_EXTRA_B, w->eps[dst_ep].nic->line_bps);
}

void nic_flow_estimate(const struct config *cfg, struct nic_flow_b *out)
{
	const struct nic_cfg *c = nic_cfg_of(cfg);
	const struct cc_ops *cc = cc_lookup(c->cc);
	*out = (struct nic_flow_b){ .records_b = sizeof(struct flow) + 2 * sizeof(struct qp), .allocs = 3 };
	if (cc) {
		out->records_b += cc->state_b;
		out->allocs++;
		if (cc->on_ack)
			out->frame_extra_b = sizeof(struct pkt_tel);
	}
	if (c->loss_recovery == LR_SR) { /* the send-time ring: 64 PSNs */
		out->records_b += 64 * sizeof(simtime_t);
		out->allocs++;
	}
}
