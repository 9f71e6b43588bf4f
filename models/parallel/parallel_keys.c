/*
 * parallel_keys.c — the [parallel] section: how a run under mpirun splits
 * the fabric across its ranks (partition*.c). A sequential run reads the
 * section but does not use it; `sim --check --ranks N` shows what it gives.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include "parallel.h"
#include "xalloc.h"

#define PAR(f) offsetof(struct parallel_cfg, f)

static const char *const v_trade[] = { "auto", "messages", NULL };

static const struct cfg_key parallel_keys[] = {
	{ "partition", KT_ENUM, "auto", .vocab_fn = partition_method_at, .off = PAR(partition),
	  .help = "how nodes are given to ranks: auto (the best balanced of the others), pod (fat-tree pods), "
		  "leaf (edge switches with their hosts), rail (hosts in blocks, rails spread), "
		  "metis (graph partitioner), round_robin, hosts (every host on rank 0, the switches spread: "
		  "what auto picks for a training job)" },
	{ "trade", KT_ENUM, "auto", .vocab = v_trade, .off = PAR(trade),
	  .help = "how the ranks trade each window's frames: auto (through memory they share when every rank "
		  "is on one machine, else as MPI messages) or messages (always MPI messages); "
		  "the results are the same" },
};

const struct cfg_section parallel_section = {
	.name = "parallel", .help = "running one scenario on several MPI ranks",
	CFG_KEYS(parallel_keys), .size = sizeof(struct parallel_cfg),
};

int partition_scenario(const struct config *cfg, const struct topo *t, int n_parts, const char *together,
		       struct partition *out, char **err)
{
	const struct parallel_cfg *pc = cfg_get(cfg, &parallel_section);
	int method = pc ? pc->partition : PART_AUTO;
	char *why = NULL;
	bool asked_auto = method == PART_AUTO;
	if (together && asked_auto)
		method = PART_HOSTS;
	if (together && method != PART_HOSTS) {
		*err = cfg_error_at(cfg, "parallel", "partition", 0, "%s needs every host on one rank, which "
				    "partition = %s does not give; use hosts (or auto, which then means hosts)",
				    together, partition_method_name(method));
		return -1;
	}
	if (partition_compute(t, method, n_parts, out, &why) == 0) {
		if (asked_auto)
			out->requested = PART_AUTO;
		return 0;
	}
	*err = cfg_error_at(cfg, "parallel", "partition", 0, "%s", why);
	free(why);
	return -1;
}
