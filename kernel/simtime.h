/*
 * simtime.h — simulated time.
 *
 * Time is a signed 64-bit count of picoseconds: 2^63 ps is about 106 days of
 * simulated time, far beyond any run, and integer arithmetic keeps runs
 * bit-reproducible. Never use floating point for time.
 */
#ifndef ROCESIM_SIMTIME_H
#define ROCESIM_SIMTIME_H

#include <stdint.h>

typedef int64_t simtime_t;

#define SIMTIME_PS ((simtime_t)1)
#define SIMTIME_NS ((simtime_t)1000)
#define SIMTIME_US ((simtime_t)1000000)
#define SIMTIME_MS ((simtime_t)1000000000)
#define SIMTIME_S ((simtime_t)1000000000000)
#define SIMTIME_NEVER INT64_MAX

/* Picoseconds to put size_b bytes on a link of rate_bps, rounded up
 * (128-bit: a 4 MB pause or message at 1 b/s granularity must not wrap). */
static inline simtime_t simtime_serialize(uint64_t size_b, uint64_t rate_bps)
{
	unsigned __int128 bits_ps = (unsigned __int128)size_b * 8u * 1000000000000ull;
	return (simtime_t)((bits_ps + rate_bps - 1) / rate_bps);
}

#endif
