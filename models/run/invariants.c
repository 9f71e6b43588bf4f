/*
 * invariants.c — accounting identities of a live fabric (see invariants.h).
 *
 * The walks are the fabric's (fabric_check_buffers, fabric_data_in_flight);
 * this file states the identities over them. Run once per watchdog period
 * in debug builds and once per run otherwise, never per packet.
 */
#include "invariants.h"
#include "log.h"
#include "fabric.h"
#include "nic.h"

bool inv_conservation_checkable(const struct world *w)
{
	return w->nic_cfg->rx_rate_off;
}

void inv_check(struct world *w)
{
	struct sim *sim = w->sim;
	fabric_check_buffers(&w->fab);
	/* A partitioned run's counts are each rank's share: run.c checks
	 * their sums at the end (parallel.h). */
	if (inv_conservation_checkable(w) && !w->fab.mine) {
		uint64_t in_net = fabric_data_in_flight(&w->fab);
		SIM_ASSERT(sim, &sim->kernel, sim->packets_sent == sim->packets_delivered + sim->packets_dropped + in_net,
			   "packet conservation: sent %llu != delivered %llu + dropped %llu + in the network %llu",
			   (unsigned long long)sim->packets_sent, (unsigned long long)sim->packets_delivered,
			   (unsigned long long)sim->packets_dropped, (unsigned long long)in_net);
	}
}
