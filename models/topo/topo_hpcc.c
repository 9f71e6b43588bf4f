/*
 * topo_hpcc.c — `[topology] type = hpcc`: the graph of an HPCC ns-3
 * topology.txt (`file`), with that file's per-link rates and delays.
 *
 * Naming (hpcc_format.h): hosts keep their relative HPCC id order as
 * host0.., switches follow as sw0.. in HPCC id order (all tier 1); the HPCC
 * id of node u stays in topo.hpcc_id[u]. The graph has no tiers, so
 * routing is shortest-path ECMP over it (routing.c runs a BFS per switch
 * that has hosts and needs no tiers). [topology] link_rate and link_delay
 * are not used by this type: every link has the file's values.
 */
#include <stdlib.h>

#include "hpcc_format.h"
#include "topology.h"
#include "xalloc.h"

int topo_build_hpcc(const struct cfg_topology *c, uint64_t host_rate_bps, struct topo *t, char **err)
{
	(void)host_rate_bps;
	char *text, *msg = NULL;
	size_t len;
	if (!c->file)
		return err_printf(err, "[topology] file: type hpcc needs the path of an HPCC topology.txt");
	if (hpcc_file_read(c->file, &text, &len, &msg) < 0 ||
	    hpcc_topology_parse(c->file, text, len, t, &msg) < 0) {
		free(text);
		err_printf(err, "%s ([topology] file)", msg);
		free(msg);
		return -1;
	}
	free(text);
	return 0;
}
