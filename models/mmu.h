/*
 * mmu.h — a switch's shared-buffer memory management unit: admission,
 * PFC thresholds and ECN marking.
 *
 * Model (after the Broadcom-style MMU of HPCC's ns-3 switch-mmu.cc, with
 * the dynamic threshold of Choudhury & Hahne; REFERENCE.md "PFC"):
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
	double alpha;                 /* pfc_alpha at this port's rate */
	uint32_t hdrm_cap_b;          /* headroom per lossless class */
	uint64_t kmin_b, kmax_b;      /* ECN thresholds at this port's rate */
	double pmax;
	bool ecn;
	uint32_t ingress_b[MMU_CLASSES]; /* reserved + shared bytes held, by arrival class */
	uint32_t hdrm_b[MMU_CLASSES];    /* headroom bytes held */
	uint8_t xoff;                 /* classes paused upstream (XOFF sent, no XON yet) */
};

struct mmu {
	uint64_t buffer_b;
	uint64_t shared_cap_b;        /* buffer − all headroom − all reserves */
	uint64_t shared_used_b;       /* bytes held in shared space */
	uint64_t used_b;              /* every byte held (reserve + shared + headroom) */
	uint8_t lossless;             /* bit c: class c is lossless (PFC) */
	uint64_t draw;                /* ECN draw counter */
	uint64_t seed;                /* ECN draw seed */
	int n_ports;
	struct mmu_port *port;        /* [n_ports] */
	uint64_t lossless_drops;      /* frames dropped for want of headroom */
};

/* Frees nothing it did not allocate; port[] is caller-sized by mmu_init. */
void mmu_init(struct mmu *m, uint64_t buffer_b, int n_ports, uint8_t lossless, uint64_t seed);
void mmu_free(struct mmu *m);
/* After every port is configured (alpha, headroom): fixes the shared space.
 * Returns -1 when headroom and reserves leave no shared space. */
int mmu_finalize(struct mmu *m);

/* Shared bytes (beyond the reserve) held for (port, class). */
static inline uint32_t mmu_shared_used(const struct mmu *m, int port, int c)
{
	uint32_t b = m->port[port].ingress_b[c];
	return b > MMU_RESERVE_B ? b - MMU_RESERVE_B : 0;
}
/* The dynamic threshold of a port: α × (shared space left). */
static inline uint64_t mmu_threshold(const struct mmu *m, int port)
{
	return (uint64_t)(m->port[port].alpha * (double)(m->shared_cap_b - m->shared_used_b));
}

/* Admission of a frame of size_b arriving on `in`, class c, for an egress
 * queue that holds egress_q_b bytes of class c; accounts it when admitted. */
enum mmu_verdict mmu_admit(struct mmu *m, int in, int c, uint32_t size_b, uint64_t egress_q_b);
/* The frame left the switch: releases its bytes. */
void mmu_release(struct mmu *m, int in, int c, uint32_t size_b);
/* True when (in, c) should send XOFF now / XON now (and records it). */
bool mmu_pause_check(struct mmu *m, int in, int c);
bool mmu_resume_check(struct mmu *m, int in, int c);
/* RED decision for a frame leaving port `out` whose class queue holds q_b bytes. */
bool mmu_ecn_mark(struct mmu *m, int out, uint64_t q_b);

/* `pfc_headroom = auto`: what arrives after XOFF is decided — the frame
 * being sent when XOFF is queued, the XOFF frame itself, the link's round
 * trip at its rate (propagation and the peer's switch latency both ways)
 * and the frame the upstream is sending when XOFF lands. */
uint32_t mmu_auto_headroom(uint64_t rate_bps, int64_t delay_ps, int64_t latency_ps, uint32_t max_frame_b);

#endif
