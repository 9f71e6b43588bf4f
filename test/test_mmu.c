/*
 * test_mmu.c — the shared-buffer MMU (models/fabric/mmu.c) against hand-computed
 * thresholds: reserve, dynamic threshold, headroom, XOFF/XON hysteresis,
 * lossy tail drop, RED marking probability and the auto headroom formula.
 */
#include <math.h>
#include <string.h>
#include "mmu.h"
#include "packet.h"
#include "testutil.h"

#define LOSSLESS 3

static const uint64_t empty; /* an egress queue holding nothing */

/* A 1 MB buffer, 4 ports with 10 KB headroom each, α = 1/8, class 3
 * lossless; port i's pass summary mirrored in copy[i] (NULL: in the port
 * only), each copy 0 as a port's line 0 starts. */
static void mk_copies(struct mmu *m, uint8_t *copy)
{
	mmu_init(m, 1000000, 4, 1u << LOSSLESS, 42, 1100);
	for (int i = 0; i < 4; i++) {
		m->port[i].alpha = 0.125;
		m->port[i].hdrm_cap_b = 10000;
		if (copy) {
			copy[i] = 0;
			m->port[i].pass_copy = &copy[i];
		}
	}
	CU_ASSERT_EQUAL_FATAL(mmu_finalize(m), 0);
}

static void mk(struct mmu *m) { mk_copies(m, NULL); }

static void test_shared_space(void)
{
	struct mmu m;
	mk(&m);
	/* 1 MB − 4 × 10 KB headroom − 4 ports × 2 classes × 4 KiB reserve */
	CU_ASSERT_EQUAL(m.shared_cap_b, 1000000 - 40000 - 8 * 4096);
	CU_ASSERT_EQUAL(mmu_threshold(&m, 0), (1000000 - 40000 - 8 * 4096) / 8);
	mmu_free(&m);
}

static void test_reserve_then_shared(void)
{
	struct mmu m;
	mk(&m);
	CU_ASSERT_EQUAL(mmu_admit(&m, 0, LOSSLESS, 4000, &empty), MMU_ADMIT);
	CU_ASSERT_EQUAL(m.shared_used_b, 0);            /* inside the 4096 B reserve */
	CU_ASSERT_EQUAL(mmu_admit(&m, 0, LOSSLESS, 1000, &empty), MMU_ADMIT);
	CU_ASSERT_EQUAL(m.shared_used_b, 5000 - 4096);  /* the part beyond the reserve */
	CU_ASSERT_EQUAL(mmu_shared_used(&m, 0, LOSSLESS), 904);
	mmu_release(&m, 0, LOSSLESS, 1000);
	mmu_release(&m, 0, LOSSLESS, 4000);
	CU_ASSERT_EQUAL(m.shared_used_b, 0);
	CU_ASSERT_EQUAL(m.used_b, 0);
	mmu_free(&m);
}

/* Fill one lossless (port, class) with 1000 B frames: the first frame that
 * would take its shared use past T = α × (shared − used) goes to headroom
 * and the class is paused (XOFF); further frames fill the headroom, and
 * past it they are dropped. XON needs the headroom empty and shared use
 * + 3 KB ≤ T. */
static void test_xoff_headroom_drop(void)
{
	struct mmu m;
	mk(&m);
	uint64_t S = m.shared_cap_b;
	int n = 0;
	while (!mmu_pause_check(&m, 0, LOSSLESS)) {
		CU_ASSERT_EQUAL_FATAL(mmu_admit(&m, 0, LOSSLESS, 1000, &empty), MMU_ADMIT);
		n++;
	}
	uint64_t u = mmu_shared_used(&m, 0, LOSSLESS);
	CU_ASSERT_EQUAL(m.port[0].hdrm_b[LOSSLESS], 1000);
	CU_ASSERT(u <= (S - u) / 8 && u + 1000 > (S - u) / 8); /* the next 1000 B would cross T */
	CU_ASSERT_EQUAL(u, (uint64_t)(n - 1) * 1000 - MMU_RESERVE_B);
	CU_ASSERT_FALSE(mmu_pause_check(&m, 0, LOSSLESS)); /* once */
	for (int i = 0; i < 9; i++)
		CU_ASSERT_EQUAL(mmu_admit(&m, 0, LOSSLESS, 1000, &empty), MMU_ADMIT);
	CU_ASSERT_EQUAL(m.port[0].hdrm_b[LOSSLESS], 10000);
	CU_ASSERT_EQUAL(mmu_admit(&m, 0, LOSSLESS, 1000, &empty), MMU_DROP_HEADROOM);
	CU_ASSERT_EQUAL(m.lossless_drops, 1);
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_FALSE(mmu_resume_check(&m, 0, LOSSLESS));
		mmu_release(&m, 0, LOSSLESS, 1000);
	}
	CU_ASSERT_EQUAL(m.port[0].hdrm_b[LOSSLESS], 0);
	int released = 10;
	while (!mmu_resume_check(&m, 0, LOSSLESS)) {
		mmu_release(&m, 0, LOSSLESS, 1000);
		released++;
	}
	u = mmu_shared_used(&m, 0, LOSSLESS);
	CU_ASSERT(u + MMU_RESUME_OFFSET_B <= mmu_threshold(&m, 0));
	CU_ASSERT(u + 1000 + MMU_RESUME_OFFSET_B > (S - u - 1000) / 8); /* one frame earlier was too soon */
	CU_ASSERT(released >= 13);
	for (int i = released; i < n + 9; i++)
		mmu_release(&m, 0, LOSSLESS, 1000);
	CU_ASSERT_EQUAL(m.used_b, 0);
	CU_ASSERT_EQUAL(m.shared_used_b, 0);
	mmu_free(&m);
}

/* Lossy class: tail drop once the egress queue passes α × free shared space. */
static void test_lossy_dynamic_threshold(void)
{
	struct mmu m;
	mk(&m);
	uint64_t q = 0;
	int admitted = 0;
	while (mmu_admit(&m, 1, 0, 1000, &q) == MMU_ADMIT) {
		q += 1000;
		admitted++;
	}
	uint64_t free_s = m.shared_cap_b - m.shared_used_b;
	CU_ASSERT(q >= (uint64_t)(0.125 * (double)free_s));              /* refused: not shorter than T */
	CU_ASSERT(q - 1000 < (uint64_t)(0.125 * (double)(free_s + 1000))); /* the last one was */
	CU_ASSERT_EQUAL(m.port[1].hdrm_b[0], 0);
	CU_ASSERT_FALSE(mmu_pause_check(&m, 1, 0)); /* lossy classes never pause */
	for (int i = 0; i < admitted; i++)
		mmu_release(&m, 1, 0, 1000);
	CU_ASSERT_EQUAL(m.used_b, 0);
	mmu_free(&m);
}

/* RED: 0 below Kmin, 1 above Kmax, Pmax × (q − Kmin)/(Kmax − Kmin) between. */
static void test_ecn_red(void)
{
	struct mmu m;
	mk(&m);
	m.port[2].ecn = true;
	m.port[2].kmin_b = 100000;
	m.port[2].kmax_b = 400000;
	m.port[2].pmax = 0.2;
	CU_ASSERT_FALSE(mmu_ecn_mark(&m, 2, 100000, PKT_F_ECT));
	CU_ASSERT_TRUE(mmu_ecn_mark(&m, 2, 400001, PKT_F_ECT));
	CU_ASSERT_FALSE(mmu_ecn_mark(&m, 2, 400001, 0)); /* not ECN-capable */
	int marks = 0, n = 200000;
	for (int i = 0; i < n; i++)
		marks += mmu_ecn_mark(&m, 2, 250000, PKT_F_ECT); /* midpoint: p = 0.1 */
	double p = (double)marks / n, sd = sqrt(0.1 * 0.9 / n);
	CU_ASSERT(fabs(p - 0.1) < 5 * sd);
	m.port[2].ecn = false;
	CU_ASSERT_FALSE(mmu_ecn_mark(&m, 2, 10000000, PKT_F_ECT));
	mmu_free(&m);
}

/* 100 Gb/s, 1 µs, no switch latency, 1024 B MTU: 2 × 12.5 KB in flight,
 * two maximal frames (1024 + 58 + 16 + 20 wire bytes) and the XOFF frame. */
static void test_auto_headroom(void)
{
	uint32_t max_frame = PKT_ROCE_OVERHEAD_B + PKT_RETH_B + 1024;
	CU_ASSERT_EQUAL(mmu_auto_headroom(100000000000ull, 1000000, 0, max_frame),
			25000 + 2 * (max_frame + 20) + 64 + 20);
	/* switch latency counts like propagation, both ways */
	CU_ASSERT_EQUAL(mmu_auto_headroom(100000000000ull, 1000000, 500000, max_frame),
			37500 + 2 * (max_frame + 20) + 84);
}

/* A random walk over buffer states: frames of 100..1099 B admitted and
 * released (last in, first out) on 4 ports and 2 classes, each step with
 * the XOFF and XON checks a switch makes. */
struct walk {
	uint64_t x;
	uint32_t held[4][2][64], n_held[4][2];
	int in, k, c;          /* the drawn frame: port, class index, class */
	uint32_t size;
};

static void walk_draw(struct walk *w)
{
	w->x = w->x * 6364136223846793005ull + 1442695040888963407ull;
	w->in = (int)(w->x >> 60) & 3;
	w->k = (int)(w->x >> 59) & 1;
	w->c = w->k ? LOSSLESS : 0;
	w->size = 100 + (uint32_t)(w->x >> 20) % 1000;
}

/* Admits the drawn frame or releases the last one held on its (port,
 * class), then checks XOFF and XON there. */
static void walk_apply(struct mmu *m, struct walk *w)
{
	uint32_t *held = w->held[w->in][w->k], *n = &w->n_held[w->in][w->k];
	if ((w->x >> 40) & 1 && *n < 64) {
		if (mmu_admit(m, w->in, w->c, w->size, &empty) == MMU_ADMIT)
			held[(*n)++] = w->size;
	} else if (*n) {
		mmu_release(m, w->in, w->c, held[--*n]);
	}
	mmu_pause_check(m, w->in, w->c);
	mmu_resume_check(m, w->in, w->c);
}

/* True when admitting, XOFF-checking and releasing a frame of size_b on
 * (in, c) — what a frame whose egress is idle goes through — leaves the
 * MMU exactly as it was, with the frame admitted and no XOFF. */
static bool pass_is_noop(struct mmu *m, int in, int c, uint32_t size_b)
{
	struct mmu before = *m;
	struct mmu_port pb = m->port[in];
	bool ok = mmu_admit(m, in, c, size_b, &empty) == MMU_ADMIT;
	ok = !mmu_pause_check(m, in, c) && ok;
	mmu_release(m, in, c, size_b);
	ok = !mmu_resume_check(m, in, c) && ok;
	return ok && memcmp(&pb, &m->port[in], sizeof pb) == 0 &&
	       m->shared_used_b == before.shared_used_b && m->used_b == before.used_b &&
	       m->lossless_drops == before.lossless_drops;
}

/* Port i's threshold is positive from f bytes of shared space left on:
 * f give T = 1 and a pass, f - 1 give T = 0 and none (mmu_passes). */
static void check_pass_edge(struct mmu *m, int i, uint64_t f)
{
	uint64_t used = m->shared_used_b;
	CU_ASSERT_EQUAL(m->port[i].pass_free_b, f);
	m->shared_used_b = m->shared_cap_b - (f - 1);
	CU_ASSERT_EQUAL(mmu_threshold(m, i), 0);
	CU_ASSERT_FALSE(mmu_passes(m, i, LOSSLESS, 10));
	m->shared_used_b = m->shared_cap_b - f;
	CU_ASSERT_EQUAL(mmu_threshold(m, i), 1);
	CU_ASSERT_TRUE(mmu_passes(m, i, LOSSLESS, 10));
	m->shared_used_b = used;
}

/* mmu_passes (the switch's pass-through shortcut) says yes only where the
 * full admit/XOFF/release sequence is a no-op: the reserve's edge, headroom
 * in use, XOFF sent, and a lossless threshold at 0; then over random
 * buffer states. */
static void test_pass_through(void)
{
	struct mmu m;
	mk(&m);
	CU_ASSERT_TRUE(mmu_passes(&m, 0, LOSSLESS, 1000));
	CU_ASSERT_TRUE(pass_is_noop(&m, 0, LOSSLESS, 1000));
	CU_ASSERT_EQUAL(mmu_admit(&m, 0, LOSSLESS, 3096, &empty), MMU_ADMIT);
	CU_ASSERT_TRUE(mmu_passes(&m, 0, LOSSLESS, 1000));   /* 4096: the reserve, exactly */
	CU_ASSERT_FALSE(mmu_passes(&m, 0, LOSSLESS, 1001));  /* one byte into shared space */
	m.port[0].xoff = 1u << LOSSLESS;
	CU_ASSERT_FALSE(mmu_passes(&m, 0, LOSSLESS, 10));
	CU_ASSERT_TRUE(mmu_passes(&m, 0, 0, 10));            /* another class */
	m.port[0].xoff = 0;
	m.port[1].hdrm_used = 1u << LOSSLESS;
	CU_ASSERT_FALSE(mmu_passes(&m, 1, LOSSLESS, 10));
	m.port[1].hdrm_used = 0;
	uint64_t used = m.shared_used_b;
	m.shared_used_b = m.shared_cap_b;                    /* no shared space left: T = 0 */
	CU_ASSERT_FALSE(mmu_passes(&m, 2, LOSSLESS, 10));
	CU_ASSERT_TRUE(mmu_passes(&m, 2, 0, 10));            /* lossy: no XOFF to send */
	CU_ASSERT_TRUE(pass_is_noop(&m, 2, 0, 10));
	m.shared_used_b = used;
	/* The edge of a positive threshold, which mmu_passes finds without
	 * floating point: with α = 1/8, 8 bytes of shared space left give
	 * T = 1 and 7 give 0; with α = 0.3, 4 and 3. */
	check_pass_edge(&m, 2, 8);
	m.port[3].alpha = 0.3;
	CU_ASSERT_EQUAL_FATAL(mmu_finalize(&m), 0);
	check_pass_edge(&m, 3, 4);
	mmu_release(&m, 0, LOSSLESS, 3096);

	/* Random states (struct walk): wherever mmu_passes says yes, the
	 * sequence is a no-op. */
	static struct walk w = { .x = 7 };
	int yes = 0, no = 0;
	for (int step = 0; step < 20000; step++) {
		walk_draw(&w);
		if (mmu_passes(&m, w.in, w.c, w.size)) {
			CU_ASSERT_TRUE_FATAL(pass_is_noop(&m, w.in, w.c, w.size));
			yes++;
		} else {
			no++;
		}
		walk_apply(&m, &w);
	}
	CU_ASSERT(yes > 1000 && no > 1000); /* both sides were exercised */
	mmu_free(&m);
}

/* The pass summary (mmu_pass_sync) over random states: each bit is what
 * the state says (a frame of pass_frame_b fits in the reserve, no headroom
 * in use, no XOFF), its copy follows it, and mmu_passes_quick never says
 * yes where mmu_passes says no. */
static void test_pass_summary(void)
{
	struct mmu m;
	uint8_t copy[4];
	mk_copies(&m, copy);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(copy[i], 0xff); /* an empty buffer passes every class */
	CU_ASSERT_EQUAL(m.pass_free_max, 8);    /* α = 1/8 */
	/* The reserve's edge for a 1100 B frame: 2996 held still pass, 2997 not. */
	CU_ASSERT_EQUAL(mmu_admit(&m, 0, LOSSLESS, 2996, &empty), MMU_ADMIT);
	CU_ASSERT_TRUE(mmu_passes_quick(&m, copy[0], LOSSLESS, 1100));
	CU_ASSERT_FALSE(mmu_passes_quick(&m, copy[0], LOSSLESS, 1101)); /* beyond what it vouches for */
	CU_ASSERT_TRUE(mmu_passes(&m, 0, LOSSLESS, 1100));
	CU_ASSERT_EQUAL(mmu_admit(&m, 0, LOSSLESS, 1, &empty), MMU_ADMIT);
	CU_ASSERT_EQUAL(copy[0], 0xff & ~(1u << LOSSLESS));
	CU_ASSERT_FALSE(mmu_passes_quick(&m, copy[0], LOSSLESS, 10));
	CU_ASSERT_TRUE(mmu_passes(&m, 0, LOSSLESS, 10)); /* the exact test still passes it */
	mmu_release(&m, 0, LOSSLESS, 2997);
	CU_ASSERT_EQUAL(copy[0], 0xff);

	static struct walk w = { .x = 11 };
	int quick = 0, exact_only = 0;
	for (int step = 0; step < 20000; step++) {
		walk_draw(&w);
		bool q = mmu_passes_quick(&m, copy[w.in], w.c, w.size), e = mmu_passes(&m, w.in, w.c, w.size);
		CU_ASSERT_FATAL(!q || e);
		quick += q;
		exact_only += e && !q;
		walk_apply(&m, &w);
		bool pool_ok = m.shared_cap_b - m.shared_used_b >= m.pass_free_max;
		CU_ASSERT_EQUAL_FATAL(m.pass_ok, (uint8_t)(pool_ok ? 0xff : ~(1u << LOSSLESS)));
		for (int i = 0; i < 4; i++) {
			CU_ASSERT_EQUAL_FATAL(copy[i], m.port[i].pass);
			for (int b = 0; b < 2; b++) {
				int cc = b ? LOSSLESS : 0;
				const struct mmu_port *p = &m.port[i];
				bool on = !((p->hdrm_used | p->xoff) & (1u << cc)) && p->ingress_b[cc] + 1100 <= MMU_RESERVE_B;
				CU_ASSERT_EQUAL_FATAL(!!(p->pass & (1u << cc)), on);
			}
		}
	}
	CU_ASSERT(quick > 1000 && exact_only > 100); /* both sides were exercised */
	mmu_free(&m);
}

static void test_too_small_buffer(void)
{
	struct mmu m;
	mmu_init(&m, 50000, 4, 1u << LOSSLESS, 1, 1100);
	for (int i = 0; i < 4; i++)
		m.port[i].hdrm_cap_b = 10000;
	CU_ASSERT_EQUAL(mmu_finalize(&m), -1);
	mmu_free(&m);
}

TEST_MAIN("mmu",
	  { "shared space", test_shared_space },
	  { "reserve then shared", test_reserve_then_shared },
	  { "XOFF, headroom, drop, XON", test_xoff_headroom_drop },
	  { "lossy dynamic threshold", test_lossy_dynamic_threshold },
	  { "ECN RED marking", test_ecn_red },
	  { "auto headroom", test_auto_headroom },
	  { "pass-through shortcut", test_pass_through },
	  { "pass summary", test_pass_summary },
	  { "buffer smaller than headroom", test_too_small_buffer })
