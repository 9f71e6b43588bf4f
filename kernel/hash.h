/*
 * hash.h — small, fast, well-mixed hashes used for seeding and ECMP.
 *
 * splitmix64 derives independent seeds (rng.c); murmur3_32 hashes ECMP
 * 5-tuples exactly as HPCC's ns-3 does (MurmurHash3 x86_32 with the switch's
 * seed), so polarisation and path spread are comparable with that simulator.
 */
#ifndef ROCESIM_HASH_H
#define ROCESIM_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint32_t murmur3_rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/* One block of MurmurHash3_x86_32: mixes word k into the state h. */
static inline uint32_t murmur3_step(uint32_t h, uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = murmur3_rotl32(k, 15) * 0x1b873593u;
	h ^= k;
	return murmur3_rotl32(h, 13) * 5u + 0xe6546b64u;
}

/* Its finalisation (the length already xored into h). */
static inline uint32_t murmur3_fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* MurmurHash3_x86_32 over n 32-bit words. */
static inline uint32_t murmur3_32(const uint32_t *w, size_t n, uint32_t seed)
{
	uint32_t h = seed;
	for (size_t i = 0; i < n; i++)
		h = murmur3_step(h, w[i]);
	return murmur3_fmix(h ^ (uint32_t)(n * 4));
}

#endif
