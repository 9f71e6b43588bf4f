/*
 * switch_fwd.h — the per-frame pipeline of a switch (switch.h), inline so
 * that a port landing a frame (port.c) runs it without a call per stage:
 * route and ECMP, buffer admission and XOFF on arrival, buffer release, XON
 * and ECN marking when the frame leaves its queue.
 *
 * The ECMP hash is MurmurHash3_x86_32 of (source IP, destination IP, UDP
 * source port | 4791 << 16 [, PSN]) with the switch's seed (hash.h),
 * written out word by word.
 */
#ifndef ROCESIM_SWITCH_FWD_H
#define ROCESIM_SWITCH_FWD_H

#include "hash.h"
#include "log.h"
#include "mmu.h"
#include "path.h"
#include "port.h"
#include "route_path.h"
#include "routing.h"
#include "switch.h"
#include "fabric.h"
#include "failure.h"

/* The ECMP hash a switch with this seed computes for a packet (psn < 0:
 * flow mode, the 5-tuple only; else packet spraying, the PSN too). */
static inline uint32_t ecmp_hash(uint32_t seed, int src, int dst, uint16_t sport, int64_t psn)
{
	uint32_t h = murmur3_step(seed, host_ip(src));
	h = murmur3_step(h, host_ip(dst));
	h = murmur3_step(h, (uint32_t)sport | ((uint32_t)ROCE_UDP_PORT << 16));
	if (psn < 0)
		return murmur3_fmix(h ^ 12u);
	return murmur3_fmix(murmur3_step(h, (uint32_t)psn) ^ 16u);
}

/* The egress port index a switch chooses for a packet (routing + ECMP). */
static inline int route_port(const struct node *sw, int src, int dst, uint16_t sport, int64_t psn)
{
	const struct route_ep *ep = &sw->ep_route[dst];
	struct route_set rs = sw->sets[sw->set_of_grp[ep->grp]];
	uint32_t n = rs.n;
	if (n <= 1) /* n == 0 after failures: ROUTE_UNREACHABLE; the local marker: dst's own port */
		return rs.off == ROUTE_LOCAL ? ep->port : rs.port0;
	uint32_t h = ecmp_hash(sw->ecmp_seed, src, dst, sport, psn);
	/* A mask where the fan-out is a power of two (fat-trees): the same
	 * choice as the modulo, without a division per frame. */
	return sw->rt_ports[rs.off + ((n & (n - 1)) == 0 ? h & (n - 1) : h % n)];
}

/* Drops a frame the buffer refused (switch.c). */
void switch_drop(struct sim *sim, struct fabric *f, struct port *out, struct packet *pkt);
/* PFC frames (consumed by the port) and multicast frames (mcast_switch.c). */
void switch_receive_special(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt);

/* A frame arrived on port `in` of sw, whose pass summary is `pass`
 * (mmu_pass_sync: the copy on the line of the link it came by). */
static inline void switch_forward(struct sim *sim, struct node *sw, int in, uint8_t pass, struct packet *pkt)
{
	int i;
	if (pkt->route) { /* its QP's path, as route_port would choose it */
		i = route_path_take(&pkt->route);
		SIM_DEBUG_ASSERT(sim, &sw->elem, !sw->ecmp_packet && PKT_TTL0 - pkt->ttl < ROUTE_PATH_HOPS &&
				 i == route_port(sw, pkt->src, pkt->dst, pkt->sport, -1),
				 "route (left) %#x: port %d at hop %d is not the switch's choice", pkt->route,
				 i, PKT_TTL0 - pkt->ttl);
		SIM_DEBUG_ASSERT(sim, &sw->elem, pkt->type != PKT_PFC && !(pkt->flags & PKT_F_MCAST),
				 "a PFC or multicast frame carries route %#x", pkt->route);
	} else {
		/* PFC and multicast frames carry no path code (packet.h), so
		 * frames with one skip this test. */
		if (__builtin_expect(pkt->type == PKT_PFC || (pkt->flags & PKT_F_MCAST), 0)) {
			switch_receive_special(sim, sw, &sw->ports[in], pkt);
			return;
		}
		int64_t psn = (sw->ecmp_packet && pkt->type == PKT_DATA) ? (int64_t)pkt->psn : -1;
		i = route_port(sw, pkt->src, pkt->dst, pkt->sport, psn);
		if (__builtin_expect(i >= sw->n_ports, 0)) { /* no route left (failure.h) */
			failure_unreachable(sim, sw, pkt);
			return;
		}
	}
	struct port *out = &sw->ports[i];
	pkt->ttl--;
	int c = pkt->prio;
	pkt->in_port = (uint16_t)in;
	if (port_idle_for(sim, out, c) && mmu_passes_quick(sw->mmu, pass, c, pkt->frame_b)) {
		SIM_DEBUG_ASSERT(sim, &sw->elem, mmu_passes(sw->mmu, in, c, pkt->frame_b),
				 "port %d class %d: pass summary %#x vouches for a frame the buffer would hold",
				 in, c, pass);
		port_pass(sim, out, pkt);
		return;
	}
	enum mmu_verdict v = mmu_admit(sw->mmu, in, c, pkt->frame_b, &out->q[c].bytes);
	if (__builtin_expect(v != MMU_ADMIT, 0)) {
		switch_drop(sim, sw->fab, out, pkt);
		return;
	}
	if (mmu_pause_check(sw->mmu, in, c))
		port_pfc_request(sim, &sw->ports[in], c, true);
	port_enqueue(sim, out, pkt);
}

/* A frame (not PFC) left a queue of `out`, which holds q_b bytes of its
 * class after it: release its buffer, resume the ingress when it falls
 * below the threshold, mark ECN. */
static inline void switch_release(struct node *sw, struct port *out, struct packet *pkt, uint64_t q_b)
{
	struct mmu *m = sw->mmu;
	int c = pkt->prio;
	mmu_release(m, pkt->in_port, c, pkt->frame_b);
	if (m->port[pkt->in_port].xoff && mmu_resume_check(m, pkt->in_port, c)) {
		/* Leaving by the port it came in (routing turned it back after
		 * a failure): that port starts this frame now, the resume after. */
		if (pkt->in_port == out->idx)
			port_pfc_owe(sw->fab->sim, out, c, false);
		else
			port_pfc_request(sw->fab->sim, &sw->ports[pkt->in_port], c, false);
	}
	if (mmu_ecn_mark(m, out->idx, q_b, pkt->flags & PKT_F_ECT)) {
		if (!(pkt->flags & PKT_F_CE))
			out->ecn_marked++;
		pkt->flags |= PKT_F_CE;
	}
}

#endif
