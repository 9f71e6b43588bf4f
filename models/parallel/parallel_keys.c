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
static const char *const v_parts[] = { "auto", "folder", "messages", NULL };

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
	{ "parts", KT_ENUM, "auto", .vocab = v_parts, .off = PAR(parts),
	  .help = "how the other ranks' parts of the results (database, hpcc_fct, captures) reach rank 0: "
		  "auto (folder when every rank is on rank 0's machine and sees the output's folder there, "
		  "else messages), folder (written "
		  "beside the output, which every rank must then see) or messages (written in each rank's "
		  "TMPDIR and sent to rank 0 when the run is over); the results are the same" },
};

const struct cfg_section parallel_section = {
	.name = "parallel", .help = "running one scenario on several MPI ranks",
	CFG_KEYS(parallel_keys), .size = sizeof(struct parallel_cfg),
};

/* The refusal of a method for a model needing every host on one rank. */
static int refuse_together(const struct config *cfg, const char *together, int method, char **err)
{
	*err = cfg_error_at(cfg, "parallel", "partition", 0, "%s needs every host on one rank, which "
			    "partition = %s does not give; use hosts (or auto, which then means hosts), "
			    "or give the job an endpoint_delay (then every rank runs it)",
			    together, partition_method_name(method));
	return -1;
}

/* auto spreads a mirrored model's hosts when its reaction delay is at
 * least this share of the cut links' delay (the windows then at most
 * 1 / AUTO_MIRROR_SHARE times as many as the links allow). On moe_1024
 * (1 us links, 2 ranks) the spread ran 1.3 times as fast as hosts with a
 * 500 ns delay and no faster with 200 ns (docs/parallel.md, "Training
 * jobs"). */
#define AUTO_MIRROR_SHARE 0.5

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
		return refuse_together(cfg, together, method, err);
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
		/* Spread: the model is mirrored, and the ranks synchronise at
		 * least every mirror_ps. auto keeps the hosts together instead
		 * when that would shorten the windows past AUTO_MIRROR_SHARE. */
		simtime_t la = out->cut_delay_ps;
		if (asked_auto && la != SIMTIME_NEVER && (double)mirror_ps < AUTO_MIRROR_SHARE * (double)la) {
			partition_free(out);
			if (partition_compute(t, PART_HOSTS, n_parts, out, &why) < 0)
				goto fail;
			out->mirror_ps = mirror_ps; /* said by --check */
		} else {
			out->mirrored = true;
			out->mirror_ps = mirror_ps;
			if (out->lookahead_ps != SIMTIME_NEVER && mirror_ps < out->lookahead_ps)
				out->lookahead_ps = mirror_ps;
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
