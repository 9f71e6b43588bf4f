/*
 * test_ecmp.c — the ECMP hash: uniform over next hops, and per-switch seeds
 * that prevent polarisation (the same seed on every tier makes a switch's
 * choice repeat its upstream neighbour's and leaves paths idle).
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include "host_fixture.h"
#include "ideal.h"
#include "rng.h"
#include "hash.h"
#include "route_path.h"
#include "switch_fwd.h"
#include "testutil.h"

/* Chi-square goodness of fit of hash % n over 10^4 random 5-tuples, for
 * the fan-outs a fat-tree uses; rejecting uniformity at p = 0.01. */
static void test_uniform_chi_square(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	gsl_rng_set(r, 7);
	const int fanouts[] = { 2, 3, 4, 8, 16 };
	for (size_t f = 0; f < sizeof fanouts / sizeof *fanouts; f++) {
		int n = fanouts[f];
		long count[16] = { 0 };
		const int samples = 10000;
		uint32_t seed = (uint32_t)rng_derive(1, RNG_ECMP_SEED, 17);
		for (int i = 0; i < samples; i++) {
			int src = (int)gsl_rng_uniform_int(r, 1024), dst = (int)gsl_rng_uniform_int(r, 1024);
			uint16_t sport = (uint16_t)(0xC000 | gsl_rng_uniform_int(r, 0x4000));
			count[ecmp_hash(seed, src, dst, sport, -1) % (uint32_t)n]++;
		}
		double expect = (double)samples / n, chi2 = 0;
		for (int b = 0; b < n; b++)
			chi2 += (count[b] - expect) * (count[b] - expect) / expect;
		double p = gsl_cdf_chisq_Q(chi2, n - 1);
		CU_ASSERT(p > 0.01);
		if (p <= 0.01)
			printf("fan-out %d: chi2 %.2f p %.4f\n", n, chi2, p);
	}
	gsl_rng_free(r);
}

/* Flows leaving one ToR through 2 aggs, each with 2 cores (fat-tree k=4):
 * with one seed everywhere the agg repeats the ToR's choice and only 2 of
 * the 4 core paths carry traffic; per-switch seeds use all 4 evenly. */
static int core_paths_used(uint32_t tor_seed, uint32_t agg_seed[2], long *min_count)
{
	long used[4] = { 0 };
	for (int i = 0; i < 4000; i++) {
		int src = i % 2, dst = 4 + i % 12;
		uint16_t sport = (uint16_t)(0xC000 + i);
		uint32_t a = ecmp_hash(tor_seed, src, dst, sport, -1) % 2;
		uint32_t c = ecmp_hash(agg_seed[a], src, dst, sport, -1) % 2;
		used[a * 2 + c]++;
	}
	int n = 0;
	*min_count = used[0];
	for (int k = 0; k < 4; k++) {
		n += used[k] > 0;
		if (used[k] < *min_count)
			*min_count = used[k];
	}
	return n;
}

static void test_polarisation(void)
{
	long min;
	uint32_t same[2] = { 99, 99 };
	CU_ASSERT_EQUAL(core_paths_used(99, same, &min), 2);
	uint32_t own[2] = { (uint32_t)rng_derive(1, RNG_ECMP_SEED, 8), (uint32_t)rng_derive(1, RNG_ECMP_SEED, 9) };
	CU_ASSERT_EQUAL(core_paths_used((uint32_t)rng_derive(1, RNG_ECMP_SEED, 0), own, &min), 4);
	CU_ASSERT(min > 4000 / 4 * 0.85);
}

static void test_seed_changes_choices(void)
{
	int differ = 0;
	for (int i = 0; i < 100; i++) {
		uint32_t s1 = (uint32_t)rng_derive(1, RNG_ECMP_SEED, 5), s2 = (uint32_t)rng_derive(2, RNG_ECMP_SEED, 5);
		differ += ecmp_hash(s1, 0, 9, (uint16_t)(0xC000 + i), -1) % 4 !=
			  ecmp_hash(s2, 0, 9, (uint16_t)(0xC000 + i), -1) % 4;
	}
	CU_ASSERT(differ > 50); /* expect 75 of 100 */
	CU_ASSERT_NOT_EQUAL(rng_derive(1, RNG_ECMP_SEED, 5), rng_derive(1, RNG_ECMP_SEED, 6));
}

static void test_spraying_varies_with_psn(void)
{
	int seen[4] = { 0 };
	for (int psn = 0; psn < 64; psn++)
		seen[ecmp_hash(3, 0, 9, 0xC001, psn) % 4] = 1;
	CU_ASSERT_EQUAL(seen[0] + seen[1] + seen[2] + seen[3], 4);
}

/* MurmurHash3_x86_32 against SMHasher's published values (a word is four
 * bytes, little-endian: "abcd" is 0x64636261). */
static void test_murmur3_known_answers(void)
{
	const uint32_t zero = 0, aaaa = 0x61616161u, abcd = 0x64636261u;
	CU_ASSERT_EQUAL(murmur3_32(NULL, 0, 0), 0u);
	CU_ASSERT_EQUAL(murmur3_32(NULL, 0, 1), 0x514E28B7u);
	CU_ASSERT_EQUAL(murmur3_32(NULL, 0, 0xffffffffu), 0x81F16F39u);
	CU_ASSERT_EQUAL(murmur3_32(&zero, 1, 0), 0x2362F9DEu);
	CU_ASSERT_EQUAL(murmur3_32(&aaaa, 1, 0x9747b28cu), 0x5A97808Au);
	CU_ASSERT_EQUAL(murmur3_32(&abcd, 1, 0x9747b28cu), 0xF0478627u);
}

/* The switch's hash, written out word by word, is MurmurHash3 of (source
 * IP, destination IP, UDP source port | 4791 << 16 [, PSN]) (docs/protocol.md "ECMP"). */
static void test_hash_is_murmur3_of_the_tuple(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	gsl_rng_set(r, 11);
	for (int i = 0; i < 1000; i++) {
		uint32_t seed = (uint32_t)gsl_rng_get(r);
		int src = (int)gsl_rng_uniform_int(r, 70000), dst = (int)gsl_rng_uniform_int(r, 70000);
		uint16_t sport = (uint16_t)gsl_rng_uniform_int(r, 65536);
		int64_t psn = (int64_t)gsl_rng_uniform_int(r, 1u << 24);
		uint32_t w[4] = { host_ip(src), host_ip(dst), sport | (uint32_t)ROCE_UDP_PORT << 16, (uint32_t)psn };
		CU_ASSERT_EQUAL_FATAL(ecmp_hash(seed, src, dst, sport, -1), murmur3_32(w, 3, seed));
		CU_ASSERT_EQUAL_FATAL(ecmp_hash(seed, src, dst, sport, psn), murmur3_32(w, 4, seed));
	}
	gsl_rng_free(r);
}

#define FAT_TREE_K4 "[topology]\ntype = fat_tree\nk = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"

/* A coded path (route_path.h), taken hop by hop as a frame takes it, is
 * the switches' own choice (route_port) at every hop of a k=4 fat-tree,
 * for every host pair and 64 source ports, and is never 0 on the way: it
 * ends at the destination's port after as many switches as switch_path
 * counts links less one. With `ecmp = packet`, or a switch port numbered
 * 64 or above on the path, there is no code. */
static void test_route_path_is_the_switches_choice(void)
{
	struct bed b;
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, FAT_TREE_K4), 0);
	struct world *w = &b.w;
	int hops_seen[ROUTE_PATH_HOPS + 1] = { 0 };
	for (int src = 0; src < w->n_eps; src++)
		for (int dst = 0; dst < w->n_eps; dst++) {
			if (src == dst)
				continue;
			for (int k = 0; k < 64; k++) {
				uint16_t sport = (uint16_t)(0xC000 + 97 * k + src);
				uint32_t code = route_path_code(&w->fab, src, dst, sport);
				CU_ASSERT_FATAL(code >> 31 == 1);
				const struct port *p = w->eps[src].port;
				int n = 0;
				while (p->peer->node->kind == NODE_SWITCH) {
					const struct node *sw = p->peer->node;
					CU_ASSERT_FATAL(code != 0);
					int i = route_path_take(&code);
					CU_ASSERT_EQUAL_FATAL(i, route_port(sw, src, dst, sport, -1));
					p = &sw->ports[i];
					n++;
				}
				CU_ASSERT_PTR_EQUAL(p->peer, w->eps[dst].port);
				struct ideal_hop h[IDEAL_MAX_HOPS];
				CU_ASSERT_EQUAL(switch_path(&w->fab, src, dst, sport, h), n + 1);
				CU_ASSERT_FATAL(n <= ROUTE_PATH_HOPS);
				hops_seen[n]++;
			}
		}
	/* Same edge switch, same pod, across the core. */
	CU_ASSERT(hops_seen[1] > 0 && hops_seen[3] > 0 && hops_seen[5] > 0);
	bed_close(&b);
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, FAT_TREE_K4 "[switch]\necmp = packet\n"), 0);
	CU_ASSERT_EQUAL(route_path_code(&b.w.fab, 0, 15, 0xC000), 0);
	bed_close(&b);
	CU_ASSERT_EQUAL_FATAL(bed_open(&b, "[topology]\ntype = star\nhosts = 70\nlink_rate = 100Gbps\nlink_delay = 1us\n"), 0);
	CU_ASSERT_EQUAL(route_path_code(&b.w.fab, 0, 63, 0xC000) >> 31, 1);
	CU_ASSERT_EQUAL(route_path_code(&b.w.fab, 0, 64, 0xC000), 0);
	bed_close(&b);
}

TEST_MAIN("ecmp",
	  { "a coded path is the switches' choice", test_route_path_is_the_switches_choice },
	  { "MurmurHash3 known answers", test_murmur3_known_answers },
	  { "the hash is MurmurHash3 of the tuple", test_hash_is_murmur3_of_the_tuple },
	  { "hash is uniform (chi-square, 1e4 tuples, p = 0.01)", test_uniform_chi_square },
	  { "per-switch seeds avoid polarisation", test_polarisation },
	  { "another seed changes choices", test_seed_changes_choices },
	  { "packet spraying varies with PSN", test_spraying_varies_with_psn })
