/*
 * mmu.c — shared-buffer admission, PFC thresholds and ECN marking (see mmu.h).
 *
 * Invariants: used_b = Σ ingress_b + Σ hdrm_b; shared_used_b =
 * Σ max(0, ingress_b − MMU_RESERVE_B); hdrm_b[c] ≤ hdrm_cap_b; nothing is
 * ever negative (unsigned counters checked before every subtraction).
 */
#include <stddef.h>
#include <stdlib.h>
#include "hash.h"
#include "log.h"
#include "mmu.h"
#include "packet.h"
#include "xalloc.h"

void mmu_init(struct mmu *m, uint64_t buffer_b, int n_ports, uint8_t lossless, uint64_t seed,
	      uint16_t pass_frame_b)
{
	*m = (struct mmu){ .buffer_b = buffer_b, .n_ports = n_ports, .lossless = lossless, .seed = seed,
			   .pass_frame_b = pass_frame_b };
	m->port = xcalloc_lines((size_t)(n_ports ? n_ports : 1), sizeof *m->port);
	for (int i = 0; i < n_ports; i++)
		m->port[i].pass_copy = &m->port[i].pass;
}

void mmu_free(struct mmu *m)
{
	free(m->port);
	m->port = NULL;
}

_Static_assert(offsetof(struct mmu_port, kmax_b) == 64,
	       "line 0 of mmu_port holds all the pass-through check and an idle ECN check read");
_Static_assert(offsetof(struct mmu, buffer_b) == 64,
	       "line 0 of mmu holds the shared pool and all mmu_passes_quick reads of the switch");

/* The least shared space left, up to cap_b, at which p's threshold is
 * above 0 (cap_b + 1: never). The threshold grows with the space left
 * (every step of mmu_threshold_at is monotone), so a bisection on
 * mmu_threshold_at itself finds the exact boundary. */
static uint64_t least_positive_free(const struct mmu_port *p, uint64_t cap_b)
{
	uint64_t lo = 0, hi = cap_b + 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (mmu_threshold_at(p, mid) > 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int mmu_finalize(struct mmu *m)
{
	/* Reserve for the two classes a port carries (data and control): the
	 * others are unused by our traffic and reserving for them would only
	 * shrink the shared space. */
	uint64_t hdrm = 0;
	for (int i = 0; i < m->n_ports; i++)
		hdrm += m->port[i].hdrm_cap_b;
	uint64_t fixed = mmu_fixed_b(m->n_ports, hdrm, m->lossless);
	if (fixed >= m->buffer_b)
		return -1;
	m->shared_cap_b = m->buffer_b - fixed;
	/* A larger α already lets a port use every shared byte: capped, its
	 * thresholds compare the same and stay below 2^62 (mmu_threshold). */
	double alpha_max = 0x1p62 / (double)m->shared_cap_b;
	for (int i = 0; i < m->n_ports; i++) {
		if (m->port[i].alpha > alpha_max)
			m->port[i].alpha = alpha_max;
		m->port[i].pass_free_b = least_positive_free(&m->port[i], m->shared_cap_b);
		if (m->port[i].pass_free_b > m->pass_free_max)
			m->pass_free_max = m->port[i].pass_free_b;
		/* The summaries start from an empty buffer (every bit then
		 * set, or none when a frame cannot fit in the reserve), and
		 * reach their copies (set by now) through the first flip. */
		for (int c = 0; c < MMU_CLASSES; c++)
			mmu_pass_sync(m, &m->port[i], c);
	}
	mmu_pool_sync(m);
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

bool mmu_ecn_draw(struct mmu *m, const struct mmu_port *p, uint64_t q_b)
{
	double prob = p->pmax * (double)(q_b - p->kmin_b) / (double)(p->kmax_b - p->kmin_b);
	uint64_t x = splitmix64(m->seed + ++m->draw);
	return (double)(x >> 11) * 0x1.0p-53 < prob;
}

void mmu_underflow(int in, int c, uint32_t size_b, uint32_t ingress_b, uint32_t hdrm_b)
{
	die_internal("MMU underflow: port %d class %d releases %u bytes, holds %u + %u", in, c,
		     size_b, ingress_b, hdrm_b);
}
