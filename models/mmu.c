/*
 * mmu.c — shared-buffer admission, PFC thresholds and ECN marking (see mmu.h).
 *
 * Invariants: used_b = Σ ingress_b + Σ hdrm_b; shared_used_b =
 * Σ max(0, ingress_b − MMU_RESERVE_B); hdrm_b[c] ≤ hdrm_cap_b; nothing is
 * ever negative (unsigned counters checked before every subtraction).
 */
#include <stdlib.h>
#include "hash.h"
#include "log.h"
#include "mmu.h"
#include "packet.h"
#include "xalloc.h"

void mmu_init(struct mmu *m, uint64_t buffer_b, int n_ports, uint8_t lossless, uint64_t seed)
{
	*m = (struct mmu){ .buffer_b = buffer_b, .n_ports = n_ports, .lossless = lossless, .seed = seed };
	m->port = xcalloc((size_t)(n_ports ? n_ports : 1), sizeof *m->port);
}

void mmu_free(struct mmu *m)
{
	free(m->port);
	m->port = NULL;
}

int mmu_finalize(struct mmu *m)
{
	int classes = __builtin_popcount(m->lossless);
	/* Reserve for the two classes a port carries (data and control): the
	 * others are unused by our traffic and reserving for them would only
	 * shrink the shared space. */
	uint64_t fixed = (uint64_t)m->n_ports * 2 * MMU_RESERVE_B;
	for (int i = 0; i < m->n_ports; i++)
		fixed += (uint64_t)m->port[i].hdrm_cap_b * (uint64_t)classes;
	if (fixed >= m->buffer_b)
		return -1;
	m->shared_cap_b = m->buffer_b - fixed;
	return 0;
}

uint32_t mmu_auto_headroom(uint64_t rate_bps, int64_t delay_ps, int64_t latency_ps, uint32_t max_frame_b)
{
	/* bytes on a link of rate r during t ps: r × t / 8e12, rounded up */
	unsigned __int128 rtt_b = (unsigned __int128)rate_bps * (uint64_t)(2 * (delay_ps + latency_ps));
	uint64_t wire_b = (uint64_t)((rtt_b + 7999999999999ull) / 8000000000000ull);
	uint64_t frame = max_frame_b + PKT_WIRE_EXTRA_B;
	return (uint32_t)(wire_b + 2 * frame + PKT_PFC_FRAME_B + PKT_WIRE_EXTRA_B);
}

enum mmu_verdict mmu_admit(struct mmu *m, int in, int c, uint32_t size_b, uint64_t egress_q_b)
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
			return MMU_ADMIT;
		}
		if (p->hdrm_b[c] + size_b > p->hdrm_cap_b) {
			m->lossless_drops++;
			return MMU_DROP_HEADROOM;
		}
		p->hdrm_b[c] += size_b;
		m->used_b += size_b;
		return MMU_ADMIT;
	}
	/* Lossy: the egress queue's dynamic threshold (Choudhury–Hahne): a
	 * frame is admitted while its queue is shorter than α × free space,
	 * so an empty queue always takes one. */
	if (add_shared > free_shared || egress_q_b >= (uint64_t)(p->alpha * (double)free_shared))
		return MMU_DROP_LOSSY;
	p->ingress_b[c] = new_b;
	m->shared_used_b += add_shared;
	m->used_b += size_b;
	return MMU_ADMIT;
}

void mmu_release(struct mmu *m, int in, int c, uint32_t size_b)
{
	struct mmu_port *p = &m->port[in];
	/* Headroom drains first: it was filled last (HPCC's ns-3 order). */
	uint32_t from_hdrm = p->hdrm_b[c] < size_b ? p->hdrm_b[c] : size_b;
	uint32_t rest = size_b - from_hdrm;
	if (p->ingress_b[c] < rest || m->used_b < size_b)
		die_internal("MMU underflow: port %d class %d releases %u bytes, holds %u + %u", in, c,
			     size_b, p->ingress_b[c], p->hdrm_b[c]);
	uint32_t shared_before = mmu_shared_used(m, in, c);
	p->hdrm_b[c] -= from_hdrm;
	p->ingress_b[c] -= rest;
	m->shared_used_b -= shared_before - mmu_shared_used(m, in, c);
	m->used_b -= size_b;
}

bool mmu_pause_check(struct mmu *m, int in, int c)
{
	struct mmu_port *p = &m->port[in];
	uint8_t bit = (uint8_t)(1u << c);
	if (!(m->lossless & bit) || (p->xoff & bit))
		return false;
	if (p->hdrm_b[c] == 0 && mmu_shared_used(m, in, c) < mmu_threshold(m, in))
		return false;
	p->xoff |= bit;
	return true;
}

bool mmu_resume_check(struct mmu *m, int in, int c)
{
	struct mmu_port *p = &m->port[in];
	uint8_t bit = (uint8_t)(1u << c);
	if (!(p->xoff & bit) || p->hdrm_b[c])
		return false;
	uint32_t shared = mmu_shared_used(m, in, c);
	if (shared && (uint64_t)shared + MMU_RESUME_OFFSET_B > mmu_threshold(m, in))
		return false;
	p->xoff &= (uint8_t)~bit;
	return true;
}

bool mmu_ecn_mark(struct mmu *m, int out, uint64_t q_b)
{
	const struct mmu_port *p = &m->port[out];
	if (!p->ecn || q_b <= p->kmin_b)
		return false;
	if (q_b > p->kmax_b || p->kmax_b <= p->kmin_b)
		return true;
	double prob = p->pmax * (double)(q_b - p->kmin_b) / (double)(p->kmax_b - p->kmin_b);
	uint64_t x = splitmix64(m->seed + ++m->draw);
	return (double)(x >> 11) * 0x1.0p-53 < prob;
}
