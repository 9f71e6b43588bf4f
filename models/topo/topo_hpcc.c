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
#include <stddef.h>
#include <stdlib.h>

#include "hpcc_format.h"
#include "topology.h"
#include "xalloc.h"

struct hpcc_topo_cfg {
	char *file;                /* resolved path */;
};

static const struct cfg_key keys[] = {
	{ "file", KT_PATH_IN, .required = true, .off = offsetof(struct hpcc_topo_cfg, file),
	  .help = "HPCC ns-3 topology.txt" },
};

/* The file gives every link its rate and delay. */
static const char *const not_required[] = { "link_rate", "link_delay", NULL };

static int build(const struct topo_cfg *c, const void *own, uint64_t host_rate_bps, struct topo *t, char **err)
{
	const struct hpcc_topo_cfg *o = own;
	(void)host_rate_bps;
	char *text, *msg = NULL;
	size_t len;
	if (!o->file)
		return err_printf(err, "[topology] file: type hpcc needs the path of an HPCC topology.txt");
	if (hpcc_file_read(o->file, &text, &len, &msg) < 0 ||
	    hpcc_topology_parse(o->file, text, len, t, &msg) < 0) {
		free(text);
		err_printf(err, "%s ([topology] file)", msg);
		free(msg);
		return -1;
	}
	free(text);
	return 0;
}

const struct topo_kind topo_hpcc = {
	.cfg = { .name = "hpcc", .help = "HPCC ns-3's topology.txt, with its links' rates and delays", CFG_KEYS(keys),
		 .size = sizeof(struct hpcc_topo_cfg),
		 .not_required = not_required },
	.build = build, .nics = TOPO_NICS_ONE, .own_links = true,
};
