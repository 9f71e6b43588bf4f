/*
 * parallel_keys.c — the [parallel] section: how a run under mpirun splits
 * the fabric across its ranks (partition*.c). A sequential run reads the
 * section but does not use it; `sim --check --ranks N` shows what it gives.
 */
#include <stddef.h>
#include <stdlib.h>
#include "parallel.h"
#include "xalloc.h"

#define PAR(f) offsetof(struct parallel_cfg, f)

static const struct cfg_key parallel_keys[] = {
	{ "partition", KT_ENUM, "auto", .vocab_fn = partition_method_at, .off = PAR(partition),
	  .help = "how nodes are given to ranks: auto (the best balanced of the others), pod (fat-tree pods), "
		  "leaf (edge switches with their hosts), rail (hosts in blocks, rails spread), "
		  "metis (graph partitioner), round_robin" },
};

const struct cfg_section parallel_section = {
	.name = "parallel", .help = "running one scenario on several MPI ranks",
	CFG_KEYS(parallel_keys), .size = sizeof(struct parallel_cfg),
};

int partition_scenario(const struct config *cfg, const struct topo *t, int n_parts, struct partition *out,
		       char **err)
{
	const struct parallel_cfg *pc = cfg_get(cfg, &parallel_section);
	int method = pc ? pc->partition : PART_AUTO;
	char *why = NULL;
	if (partition_compute(t, method, n_parts, out, &why) == 0)
		return 0;
	*err = cfg_error_at(cfg, "parallel", "partition", 0, "%s", why);
	free(why);
	return -1;
}
