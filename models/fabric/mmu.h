/*
 * mmu.h — a switch's shared-buffer memory management unit: admission,
 * PFC thresholds and ECN marking.
 *
 * Model (after the Broadcom-style MMU of HPCC's ns-3 switch-mmu.cc, with
 * the dynamic threshold of Choudhury & Hahne; docs/protocol.md "PFC and the switch buffer"):
 *   - the buffer holds, per (ingress port, class), up to MMU_RESERVE_B of
 *     reserved space, then shared space, then (lossless classes only)
 *     headroom of hdrm_b[port] bytes;
 *   - the shared space is what the buffer has beyond every port's headroom
 *     and every (port, class)'s reserve; a (port, class) may use shared space
 *     while its shared bytes stay below T = α × (shared space − shared bytes
 *     in use), α from pfc_alpha at the port's rate;
 *   - lossless class: when its headroom is in use or its shared use reaches
 *     T the ingress asks its upstream to pause the class (XOFF); it resumes
 *     (XON) when the headroom is empty and shared use + MMU_RESUME_OFFSET_B
 *     ≤ T (or nothing shared is used). A frame that finds its headroom full
 *     is dropped and counted as a lossless drop: with `pfc_headroom = auto`
 *     that never happens (the headroom covers what is in flight after XOFF);
 *   - lossy classes (every class with pfc = off) never use headroom: a frame
 *     beyond the reserve is admitted while its egress queue is shorter than
 *     α × (free shared space) — the dynamic threshold — and tail-dropped
 *     otherwise;
 *   - ECN: RED on the egress queue's bytes when a frame leaves (HPCC marks
 *     at dequeue): probability 0 up to Kmin, rising linearly to Pmax at
 *     Kmax, 1 above; draws from a counter-based hash per switch.
 * State is O(ports × classes): no per-(ingress, egress) arrays.
 */
#ifndef ROCESIM_MMU_H
#define ROCESIM_MMU_H

#include <stdbool.h>
#include <stdint.h>

#define MMU_CLASSES 8
#define MMU_RESERVE_B 4096        /* per (ingress port, class): HPCC's ns-3 reserve of 4 KB */
#define MMU_RESUME_OFFSET_B 3072  /* XON hysteresis: HPCC's ns-3 resume_offset of 3 KB */

enum mmu_verdict { MMU_ADMIT, MMU_DROP_LOSSY, MMU_DROP_HEADROOM };

struct mmu_port {
	/* Line 0: what every frame arriving at or leaving through the port reads. */
	double alpha;                 /* pfc_alpha at this port's rate */
	uint8_t xoff;                 /* classes paused upstream (XOFF sent, no XON yet) */
	uint8_t hdrm_used;            /* bit c: hdrm_b[c] > 0 (hdrm_b is then read) */
	bool ecn;
	uint8_t pass;                 /* bit c: the ingress half of mmu_passes holds for
				       * every frame up to pass_frame_b (mmu_pass_sync) */
	uint32_t ingress_b[MMU_CLASSES]; /* reserved + shared bytes held, by arrival class */
	uint64_t pass_free_b;         /* the least shared space left at which the
				       * threshold is above 0 (mmu_finalize) */
	uint64_t kmin_b;              /* ECN thresholds at this port's rate (egress side) */
	/* Line 1. */
	uint64_t kmax_b;
	uint32_t hdrm_cap_b;          /* headroom per lossless class */
	uint32_t hdrm_b[MMU_CLASSES];    /* headroom bytes held */
	double pmax;
	uint8_t *pass_copy;           /* where `pass` is mirrored: the line a frame
				       * landing here reads anyway (the sending port's
				       * peer_pass); &pass when there is none */
} __attribute__((aligned(64)));

struct mmu {
	/* Line 0: admission and release of every frame. */
	uint64_t shared_cap_b;        /* buffer − all headroom − all reserves */
	uint64_t shared_used_b;       /* bytes held in shared space */
	uint64_t used_b;              /* every byte held (reserve + shared + headroom) */
	struct mmu_port *port;        /* [n_ports], cache-line aligned */
	uint8_t lossless;             /* bit c: class c is lossless (PFC) */
	uint8_t pass_ok;              /* bit c: the pool lets class c pass (mmu_pool_sync) */
	uint16_t pass_frame_b;        /* the largest frame the pass summaries vouch for */
	int n_ports;
	uint64_t draw;                /* ECN draw counter */
	uint64_t seed;                /* ECN draw seed */
	uint64_t pass_free_max;       /* the largest pass_free_b of the ports */
	/* Line 1. */
	uint64_t buffer_b;
	uint64_t lossless_drops;      /* frames dropped for want of headroom */
} __attribute__((aligned(64)));

/* Frees nothing it did not allocate; port[] is caller-sized by mmu_init.
 * pass_frame_b: the largest frame the ports' pass summaries vouch for. */
void mmu_init(struct mmu *m, uint64_t buffer_b, int n_ports, uint8_t lossless, uint64_t seed,
	      uint16_t pass_frame_b);
void mmu_free(struct mmu *m);
/* After every port is configured (alpha, headroom): fixes the shared space.
 * Returns -1 when headroom and reserves leave no shared space. */
int mmu_finalize(struct mmu *m);
/* What mmu_finalize sets aside before the shared space: the reserves of
 * the two classes each of n_ports carries, and the headroom of every
 * lossless class (hdrm_sum_b: the ports' headroom caps summed). The buffer
 * must be larger. Known from the topology alone (switch_check_buffers). */
static inline uint64_t mmu_fixed_b(int n_ports, uint64_t hdrm_sum_b, uint8_t lossless)
{
	return (uint64_t)n_ports * 2 * MMU_RESERVE_B + hdrm_sum_b * (uint64_t)__builtin_popcount(lossless);
}

/* Shared bytes (beyond the reserve) held for (port, class). */
static inline uint32_t mmu_shared_used(const struct mmu *m, int port, int c)
{
	uint32_t b = m->port[port].ingress_b[c];
	return b > MMU_RESERVE_B ? b - MMU_RESERVE_B : 0;
}
/* The dynamic threshold of a port with free_b bytes of shared space left:
 * α × free_b. */
static inline uint64_t mmu_threshold_at(const struct mmu_port *p, uint64_t free_b)
{
	/* Through int64: the same values (byte counts are below 2^63 and
	 * mmu_finalize caps α so the product is too), one instruction each way
	 * instead of the unsigned conversion sequences. */
	return (uint64_t)(int64_t)(p->alpha * (double)(int64_t)free_b);
}
/* The dynamic threshold of a port now. */
static inline uint64_t mmu_threshold(const struct mmu *m, int port)
{
	return mmu_threshold_at(&m->port[port], m->shared_cap_b - m->shared_used_b);
}

/* Bit c of the pass summary p->pass: a frame of class c of at most
 * m->pass_frame_b bytes fits in p's reserve with no headroom in use and
 * no XOFF sent, the ingress half of mmu_passes. */
static inline bool mmu_pass_holds(const struct mmu *m, const struct mmu_port *p, int c)
{
	return !((p->hdrm_used | p->xoff) & (1u << c)) && p->ingress_b[c] + m->pass_frame_b <= MMU_RESERVE_B;
}
/* m->pass_ok, the pool's half of the pass-through test: every lossy
 * class, and the lossless ones while the shared space left gives every
 * port a threshold above 0. */
static inline uint8_t mmu_pool_passes(const struct mmu *m)
{
	return (uint8_t)(~m->lossless | (m->shared_cap_b - m->shared_used_b >= m->pass_free_max ? 0xff : 0));
}
/* Keeps bit c of p->pass after a change to (ingress_b[c], hdrm_used,
 * xoff). A bit that flips is copied to *pass_copy, so a frame landing at
 * the port finds the summary on the link line it reads anyway, and the
 * port's own line stays untouched while the bit holds (it changes only
 * when a queue builds or drains). */
static inline void mmu_pass_sync(const struct mmu *m, struct mmu_port *p, int c)
{
	uint8_t bit = (uint8_t)(1u << c);
	uint8_t on = mmu_pass_holds(m, p, c) ? bit : 0;
	if (__builtin_expect((p->pass & bit) != on, 0)) {
		p->pass ^= bit;
		*p->pass_copy = p->pass;
	}
}
/* mmu_pass_sync after a change that can only clear the bit (bytes
 * admitted, headroom taken, XOFF sent) or only set it (bytes released,
 * headroom drained, XON sent): a bit already as it must stay needs no
 * test. */
static inline void mmu_pass_sync_off(const struct mmu *m, struct mmu_port *p, int c)
{
	if (p->pass & (1u << c))
		mmu_pass_sync(m, p, c);
}
static inline void mmu_pass_sync_on(const struct mmu *m, struct mmu_port *p, int c)
{
	if (!(p->pass & (1u << c)))
		mmu_pass_sync(m, p, c);
}

/* Keeps m->pass_ok after a change of shared_used_b. */
static inline void mmu_pool_sync(struct mmu *m)
{
	m->pass_ok = mmu_pool_passes(m);
}

/* Admission's accounting: mmu_admit without the pass summary's update. */
static inline enum mmu_verdict mmu_admit_bytes(struct mmu *m, int in, int c, uint32_t size_b,
					      const uint64_t *egress_q_b)
{
	struct mmu_port *p = &m->port[in];
	uint32_t now_b = p->ingress_b[c];
	uint32_t new_b = now_b + size_b;
	bool lossless = m->lossless & (1u << c);
	uint64_t free_shared = m->shared_cap_b - m->shared_used_b;
	/* Shared bytes this frame would add beyond the reserve. */
	uint32_t add_shared = new_b <= MMU_RESERVE_B ? 0
			    : (now_b >= MMU_RESERVE_B ? size_b : new_b - MMU_RESERVE_B);
	if (add_shared == 0) {
		p->ingress_b[c] = new_b;
		m->used_b += size_b;
		return MMU_ADMIT;
	}
	uint64_t thresh = mmu_threshold(m, in);
	if (lossless) {
		/* HPCC's ns-3: into headroom when the (port, class) would pass its threshold. */
		if ((uint64_t)mmu_shared_used(m, in, c) + add_shared <= thresh && add_shared <= free_shared) {
			p->ingress_b[c] = new_b;
			m->shared_used_b += add_shared;
			m->used_b += size_b;
			mmu_pool_sync(m);
			return MMU_ADMIT;
		}
		if (p->hdrm_b[c] + size_b > p->hdrm_cap_b) {
			m->lossless_drops++;
			return MMU_DROP_HEADROOM;
		}
		p->hdrm_b[c] += size_b;
		p->hdrm_used |= (uint8_t)(1u << c);
		m->used_b += size_b;
		return MMU_ADMIT;
	}
	/* Lossy: the egress queue's dynamic threshold (Choudhury–Hahne): a
	 * frame is admitted while its queue is shorter than α × free space,
	 * so an empty queue always takes one. */
	if (add_shared > free_shared || *egress_q_b >= mmu_threshold(m, in))
		return MMU_DROP_LOSSY;
	p->ingress_b[c] = new_b;
	m->shared_used_b += add_shared;
	m->used_b += size_b;
	mmu_pool_sync(m);
	return MMU_ADMIT;
}
/* Admission of a frame of size_b arriving on `in`, class c, for an egress
 * queue that holds *egress_q_b bytes of class c (read only for a lossy
 * frame beyond the reserve: an idle egress port's queue line stays
 * untouched); accounts it when admitted. */
static inline enum mmu_verdict mmu_admit(struct mmu *m, int in, int c, uint32_t size_b,
					 const uint64_t *egress_q_b)
{
	enum mmu_verdict v = mmu_admit_bytes(m, in, c, size_b, egress_q_b);
	mmu_pass_sync_off(m, &m->port[in], c);
	return v;
}
/* A frame of class c arriving on `in` that leaves at once (its egress is
 * idle) is admitted, checked for XOFF and released: true when those three
 * leave every counter and flag as they were, so they can be skipped (the
 * specification mmu_passes_quick is held to, test_mmu). That
 * holds when it fits in the (port, class)'s reserve with no headroom in use
 * and no XOFF sent — admission is then certain, the release takes back
 * exactly what it added, the resume check has no XOFF to lift, and ECN
 * never marks an empty queue — unless the class is lossless and its
 * threshold has fallen to 0, when the XOFF check would fire (tested
 * without the floating-point threshold: mmu_threshold(m, in) > 0 exactly
 * when the shared space left is at least pass_free_b). */
static inline bool mmu_passes(const struct mmu *m, int in, int c, uint32_t size_b)
{
	const struct mmu_port *p = &m->port[in];
	uint8_t bit = (uint8_t)(1u << c);
	if ((p->hdrm_used | p->xoff) & bit || p->ingress_b[c] + size_b > MMU_RESERVE_B)
		return false;
	return !(m->lossless & bit) || m->shared_cap_b - m->shared_used_b >= p->pass_free_b;
}
/* The switch's pass-through test, from the pass summary of the ingress
 * (`pass`, its copy in the landing link's line) and the pool's (pass_ok),
 * without the port's line: true only where mmu_passes is. Where it says no
 * and mmu_passes yes (a reserve nearly full, a pool nearly empty), the
 * frame takes the admit/XOFF/release path, which then changes nothing:
 * same result, slower. One branch: both terms are usually true. */
static inline bool mmu_passes_quick(const struct mmu *m, uint8_t pass, int c, uint32_t size_b)
{
	return ((pass & m->pass_ok) >> c & 1) & (size_b <= m->pass_frame_b);
}
/* The frame left the switch: releases its bytes. */
void mmu_underflow(int in, int c, uint32_t size_b, uint32_t ingress_b, uint32_t hdrm_b);
static inline void mmu_release(struct mmu *m, int in, int c, uint32_t size_b)
{
	struct mmu_port *p = &m->port[in];
	uint8_t bit = (uint8_t)(1u << c);
	/* Headroom drains first: it was filled last (HPCC's ns-3 order). */
	uint32_t from_hdrm = 0;
	if (p->hdrm_used & bit)
		from_hdrm = p->hdrm_b[c] < size_b ? p->hdrm_b[c] : size_b;
	uint32_t rest = size_b - from_hdrm;
	if (p->ingress_b[c] < rest || m->used_b < size_b)
		mmu_underflow(in, c, size_b, p->ingress_b[c], p->hdrm_b[c]);
	uint32_t shared_before = mmu_shared_used(m, in, c);
	if (from_hdrm && !(p->hdrm_b[c] -= from_hdrm))
		p->hdrm_used &= (uint8_t)~bit;
	p->ingress_b[c] -= rest;
	m->used_b -= size_b;
	if (shared_before) {
		m->shared_used_b -= shared_before - mmu_shared_used(m, in, c);
		mmu_pool_sync(m);
	}
	mmu_pass_sync_on(m, p, c);
}
/* True when (in, c) should send XOFF now / XON now (and records it). */
static inline bool mmu_pause_check(struct mmu *m, int in, int c)
{
	struct mmu_port *p = &m->port[in];
	uint8_t bit = (uint8_t)(1u << c);
	/* Computed whole and tested once (lossless data and lossy ACKs
	 * alternate unpredictably). */
	bool over = (p->hdrm_used & bit) | (mmu_shared_used(m, in, c) >= mmu_threshold(m, in));
	if (__builtin_expect(!(((m->lossless & ~p->xoff & bit) != 0) & over), 1))
		return false;
	p->xoff |= bit;
	mmu_pass_sync_off(m, p, c);
	return true;
}
static inline bool mmu_resume_check(struct mmu *m, int in, int c)
{
	struct mmu_port *p = &m->port[in];
	uint8_t bit = (uint8_t)(1u << c);
	if (!(p->xoff & bit) || (p->hdrm_used & bit))
		return false;
	uint32_t shared = mmu_shared_used(m, in, c);
	if (shared && (uint64_t)shared + MMU_RESUME_OFFSET_B > mmu_threshold(m, in))
		return false;
	p->xoff &= (uint8_t)~bit;
	mmu_pass_sync_on(m, p, c);
	return true;
}
/* RED decision for a frame leaving port `out` whose class queue holds q_b
 * bytes; ect: the frame is ECN-capable. The first test is one branch, not
 * three: data and ACK frames alternate unpredictably. */
bool mmu_ecn_draw(struct mmu *m, const struct mmu_port *p, uint64_t q_b);
static inline bool mmu_ecn_mark(struct mmu *m, int out, uint64_t q_b, unsigned ect)
{
	const struct mmu_port *p = &m->port[out];
	if (__builtin_expect(!((ect != 0) & p->ecn & (q_b > p->kmin_b)), 1))
		return false;
	if (q_b > p->kmax_b || p->kmax_b <= p->kmin_b)
		return true;
	return mmu_ecn_draw(m, p, q_b);
}

/* `pfc_headroom = auto`: what arrives after XOFF is decided — the frame
 * being sent when XOFF is queued, the XOFF frame itself, the link's round
 * trip at its rate (propagation and the peer's switch latency both ways)
 * and the frame the upstream is sending when XOFF lands. */
uint32_t mmu_auto_headroom(uint64_t rate_bps, int64_t delay_ps, int64_t latency_ps, uint32_t max_frame_b);

#endif
