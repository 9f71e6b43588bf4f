/*
 * partition_hosts.c — partition = hosts: every host on rank 0, the
 * switches spread so that the ranks' loads balance.
 *
 * For the models whose state spans hosts with no link between them: a
 * training job starts a collective when its last member arrives and a
 * finished step starts work on other hosts at the same instant; a
 * closed-loop source posts the next message when one ends somewhere.
 * Such zero-delay couplings cannot cross ranks in conservative windows,
 * but they need not: with every host (its NICs, GPUs, NVLink, queue pairs)
 * on one rank they stay inside it, and only frames cross ranks, on the
 * links between switches (or between a host and its switch), each with
 * its propagation delay as lookahead.
 *
 * Rank 0 has the hosts alone: they carry the NICs' work (queue pairs,
 * acknowledgements, congestion control), NVLink and the job, about as
 * much as every switch together (docs/parallel.md has the measured
 * events and busy seconds). The switches go to ranks 1 to n_parts - 1:
 * split by METIS on the graph of switches (partition_metis_grouped, hosts
 * left out), or, without METIS, dealt in id order.
 */
#include <stdbool.h>
#include <stdlib.h>
#include "partition.h"
#include "xalloc.h"

int partition_hosts(const struct topo *t, int n_parts, int *part, char **err)
{
	int n_switches = t->n_nodes - t->n_hosts;
	if (n_parts > n_switches + 1)
		return err_printf(err, "%d ranks but partition = hosts has one rank for the hosts and %d "
				  "switch%s to deal; use at most %d ranks", n_parts, n_switches,
				  n_switches == 1 ? "" : "es", n_switches + 1);
	for (int u = 0; u < t->n_nodes; u++)
		part[u] = u < t->n_hosts ? 0 : 1 + (u - t->n_hosts) % (n_parts - 1);
	if (n_parts <= 2 || !partition_have_metis)
		return 0;
	/* The switches alone, split by METIS; its ranks shifted up by one. */
	int *group = xmalloc((size_t)t->n_nodes * sizeof *group);
	for (int u = 0; u < t->n_nodes; u++)
		group[u] = u < t->n_hosts ? -1 : u - t->n_hosts;
	int rc = partition_metis_grouped(t, group, n_switches, 1, n_parts - 1, part, err);
	free(group);
	if (rc < 0)
		return -1;
	for (int u = t->n_hosts; u < t->n_nodes; u++)
		part[u]++;
	return 0;
}
