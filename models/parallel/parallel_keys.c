/*
 * parallel_keys.c — the [parallel] section: how a run under mpirun splits
 * the fabric across its ranks (partition*.c). A sequential run reads the
 * section but does not use it; `sim --check --ranks N` shows what it gives.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include "parallel.h"
#include "units.h"
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

/* The refusal of a method for a model needing every host on one rank. */
static int refuse_together(const struct config *cfg, const char *together, int method, simtime_t mirror_ps,
			   simtime_t lookahead, char **err)
{
	if (!mirror_ps) {
		*err = cfg_error_at(cfg, "parallel", "partition", 0, "%s needs every host on one rank, which "
				    "partition = %s does not give; use hosts (or auto, which then means hosts), "
				    "or give the job an endpoint_delay of at least the cut links' delay",
				    together, partition_method_name(method));
		return -1;
	}
	char la[32], md[32];
	units_format_time(lookahead, la, sizeof la);
	units_format_time(mirror_ps, md, sizeof md);
	*err = cfg_error_at(cfg, "parallel", "partition", 0, "%s reacts %s after a piece arrives (endpoint_delay), "
			    "less than partition = %s's lookahead of %s (its shortest cut link): the ranks could "
			    "not run that far ahead; give endpoint_delay at least %s, or use hosts", together, md,
			    partition_method_name(method), la, la);
	return -1;
}

int partition_scenario(const struct config *cfg, const struct topo *t, int n_parts, const char *together,
		       simtime_t mirror_ps, struct partition *out, char **err)
{
	const struct parallel_cfg *pc = cfg_get(cfg, &parallel_section);
	int method = pc ? pc->partition : PART_AUTO;
	char *why = NULL;
	bool asked_auto = method == PART_AUTO;
	if (together && !mirror_ps && asked_auto)
		method = PART_HOSTS;
	if (together && !mirror_ps && method != PART_HOSTS)
		return refuse_together(cfg, together, method, 0, 0, err);
	int rc;
	if (together && mirror_ps && asked_auto) {
		/* A mirrored job: switches dealt in turn. A pipeline's stages
		 * hold consecutive hosts and work one after another; dealt in
		 * blocks (pod, leaf), each rank would hold whole stages and wait
		 * while the others' run (docs/parallel.md, "Training jobs").
		 * Too few switches to deal: hosts, as without the delay. */
		rc = partition_compute(t, PART_ROUND_ROBIN, n_parts, out, &why);
		if (rc < 0) {
			free(why);
			why = NULL;
			rc = partition_compute(t, PART_HOSTS, n_parts, out, &why);
		}
	} else {
		rc = partition_compute(t, method, n_parts, out, &why);
	}
	if (rc < 0)
		goto fail;
	if (together && out->method != PART_HOSTS) {
		/* Spread: the model is mirrored if its delay covers the
		 * lookahead; else auto means hosts, and a method asked for is
		 * refused. */
		simtime_t la = out->lookahead_ps;
		if (la <= mirror_ps || la == SIMTIME_NEVER) {
			out->mirrored = true;
			out->mirror_ps = mirror_ps;
		} else {
			int used = out->method;
			partition_free(out);
			if (!asked_auto)
				return refuse_together(cfg, together, used, mirror_ps, la, err);
			if (partition_compute(t, PART_HOSTS, n_parts, out, &why) < 0)
				goto fail;
		}
	}
	if (asked_auto)
		out->requested = PART_AUTO;
	return 0;
fail:
	*err = cfg_error_at(cfg, "parallel", "partition", 0, "%s", why);
	free(why);
	return -1;
}
