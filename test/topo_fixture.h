/*
 * topo_fixture.h — a [topology] section filled by hand for the topology and
 * routing tests, so they do not depend on the config loader. Header-only.
 */
#ifndef ROCESIM_TOPO_FIXTURE_H
#define ROCESIM_TOPO_FIXTURE_H

#include <string.h>
#include "config.h"

#define RATE (100ull * 1000 * 1000 * 1000)
#define DELAY (1 * SIMTIME_US)

/* 100 Gb/s links of 1 us; host links at host_rate_bps (0: link rate). */
static inline struct config topo_cfg(enum cfg_topo_type type, uint64_t host_rate_bps)
{
	struct config c;
	memset(&c, 0, sizeof c);
	c.topology.type = type;
	c.topology.link_rate_bps = RATE;
	c.topology.host_link_rate_bps = host_rate_bps;
	c.topology.link_delay = DELAY;
	c.topology.oversubscription = 1;
	return c;
}

#endif
