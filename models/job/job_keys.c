/*
 * job_keys.c — the [job.NAME] section: the model (a preset of
 * job_model.c, dimensions overriding it), the parallelism layout, the
 * GPUs, and the collective algorithms (the collective registry's names,
 * collective.h), with the rules between them that need no fabric.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "collective.h"
#include "job.h"
#include "job_model.h"
#include "xalloc.h"

#define JOB(f) offsetof(struct job_cfg, f)
#define MODEL_DIM(n, what) \
	{ #n, KT_LLONG, .def_doc = "from the preset", CFG_GE(1), .off = JOB(n), .help = what }

/* An algorithm key: named after its op, its vocabulary the op's
 * algorithms in the registry; unset, the op's first (job_rules). */
static const enum coll_op op_allreduce = COLL_ALLREDUCE, op_allgather = COLL_ALLGATHER,
	op_reduce_scatter = COLL_REDUCE_SCATTER, op_broadcast = COLL_BROADCAST,
	op_alltoall = COLL_ALLTOALL;
#define ALG(n, def, what) \
	{ #n, KT_WORD, .def_doc = "the first algorithm of the op in the registry (" def ")", \
	  .vocab_fn = coll_alg_name_at, .vocab_arg = &op_##n, .off = JOB(n), .help = what }

static const char *const v_recompute[] = { "none", "selective", "full", NULL };

static const struct cfg_key job_keys[] = {
	{ "model", KT_WORD, .required = true, .vocab_fn = job_model_name_at, .off = JOB(model),
	  .help = "model preset or custom" },
	MODEL_DIM(layers, "transformer layers"),
	MODEL_DIM(hidden, "hidden size"),
	MODEL_DIM(ffn_hidden, "feed-forward hidden size"),
	MODEL_DIM(heads, "attention heads"),
	MODEL_DIM(kv_heads, "key/value heads"),
	MODEL_DIM(seq_len, "sequence length"),
	MODEL_DIM(vocab, "vocabulary size"),
	MODEL_DIM(experts, "experts per MoE layer"),
	MODEL_DIM(top_k, "experts per token"),
	MODEL_DIM(moe_every, "an MoE layer every n layers"),
	{ "capacity_factor", KT_NUMBER, "1.0", CFG_POS, .off = JOB(capacity_factor),
	  .help = "MoE capacity factor" },
	{ "micro_batch", KT_INT, "1", CFG_GE(1), .off = JOB(micro_batch), .help = "micro-batch size" },
	{ "global_batch", KT_LLONG, .required = true, CFG_GE(1), .off = JOB(global_batch),
	  .help = "global batch size" },
	{ "tp", KT_INT, "1", CFG_GE(1), .off = JOB(tp), .help = "tensor parallelism" },
	{ "pp", KT_INT, "1", CFG_GE(1), .off = JOB(pp), .help = "pipeline parallelism" },
	{ "dp", KT_INT, "1", CFG_GE(1), .off = JOB(dp), .help = "data parallelism" },
	{ "ep", KT_INT, "1", CFG_GE(1), .off = JOB(ep), .help = "expert parallelism (divides dp)" },
	{ "zero", KT_INT, "0", CFG_IN(0, 3), .off = JOB(zero), .help = "ZeRO stage" },
	{ "sequence_parallel", KT_BOOL, "off", .off = JOB(sequence_parallel),
	  .help = "Megatron sequence parallelism" },
	{ "iterations", KT_INT, "1", CFG_GE(1), .off = JOB(iterations), .help = "training iterations" },
	{ "gpu", KT_WORD, "h100", .vocab_fn = job_gpu_name_at, .off = JOB(gpu), .help = "GPU preset" },
	{ "mfu", KT_NUMBER, "0.5", CFG_UNIT, .off = JOB(mfu), .help = "model FLOPs utilisation" },
	{ "grad_bytes", KT_INT, "2", CFG_IN(2, 4), .off = JOB(grad_bytes),
	  .help = "bytes per gradient element (2 or 4)" },
	{ "hosts", KT_LIST, .def_doc = "all", .off = JOB(hosts), .off2 = JOB(n_hosts),
	  .help = "hosts the job runs on" },
	{ "placement", KT_LIST, "tp,ep,dp,pp", .off = JOB(placement), .off2 = JOB(n_placement),
	  .help = "rank order, innermost first" },
	ALG(allreduce, "ring", "all-reduce algorithm"),
	ALG(allgather, "ring", "all-gather algorithm"),
	ALG(reduce_scatter, "ring", "reduce-scatter algorithm"),
	ALG(broadcast, "ring", "broadcast algorithm"),
	ALG(alltoall, "direct", "all-to-all algorithm"),
	{ "moe_skew", KT_NUMBER, "0", CFG_GE(0), .off = JOB(moe_skew),
	  .help = "Zipf exponent of expert popularity" },
	{ "chunk", KT_SIZE, "512KiB", CFG_POS, .off = JOB(chunk_b), .help = "pipelining chunk" },
	{ "channels", KT_INT, "2", CFG_GE(1), .off = JOB(channels), .help = "parallel rings" },
	{ "start", KT_TIME, "0s", .off = JOB(start), .help = "start time" },
	{ "virtual_pipeline_stages", KT_INT, "1", CFG_GE(1), .off = JOB(virtual_pipeline_stages),
	  .help = "model chunks per pipeline stage (interleaved 1F1B when > 1)" },
	{ "recompute", KT_ENUM, "none", .vocab = v_recompute, .off = JOB(recompute),
	  .help = "activation recompute: none, selective (core attention) or full (every layer)" },
	{ "pp_scatter_gather", KT_BOOL, "off", .off = JOB(pp_scatter_gather),
	  .help = "without sequence parallelism, send 1/tp of a pipeline tensor per TP rank and all-gather it" },
	{ "vocab_divisible_by", KT_INT, "128", CFG_GE(1), .off = JOB(vocab_divisible_by),
	  .help = "the vocabulary is padded to a multiple of this x tp" },
	{ "optimizer_step", KT_TIME, .def_doc = "derived: 30 B per optimizer-state parameter at the GPU's memory bandwidth",
	  .off = JOB(optimizer_step), .help = "duration of the optimizer step after the gradient reduction" },
	{ "cp", KT_INT, "1", CFG_GE(1), .off = JOB(cp),
	  .help = "context parallelism: the sequence split over cp GPUs, ring attention" },
};

static int job_rules(struct cfg_check *c)
{
	struct job_cfg *j = c->data;
	static const char *const custom_needs[] = { "layers", "hidden", "seq_len" };
	if (strcmp(j->model, "custom") == 0)
		for (int i = 0; i < 3; i++)
			if (!cfg_given(c, custom_needs[i]))
				return cfg_fail_missing(c, custom_needs[i], " for model custom");
	if (j->dp % j->ep != 0)
		return cfg_fail(c, "ep", "a divisor of dp (%d): expert parallelism is carved out of data parallelism",
				j->dp);
	j->optimizer_step_set = cfg_given(c, "optimizer_step");
	if (j->grad_bytes != 2 && j->grad_bytes != 4)
		return cfg_fail(c, "grad_bytes", "2 (bf16) or 4 (fp32)");
	/* cp may be left out; when listed it must follow tp (Megatron's
	 * tp-cp-ep-dp-pp: the layout folds tp and cp into one inner dimension). */
	static const char *const dims[] = { "tp", "ep", "dp", "pp", "cp" };
	bool has_cp = false;
	for (size_t i = 0; i < j->n_placement; i++)
		has_cp |= strcmp(j->placement[i], "cp") == 0;
	bool ok = j->n_placement == (has_cp ? 5u : 4u);
	for (int d = 0; d < (has_cp ? 5 : 4) && ok; d++) {
		int seen = 0;
		for (size_t i = 0; i < j->n_placement; i++)
			seen += strcmp(j->placement[i], dims[d]) == 0;
		ok = seen == 1;
	}
	for (size_t i = 0; ok && has_cp && i < j->n_placement; i++)
		if (strcmp(j->placement[i], "cp") == 0)
			ok = i > 0 && strcmp(j->placement[i - 1], "tp") == 0;
	if (!ok)
		return cfg_fail(c, "placement", "a permutation of tp, ep, dp, pp, with cp (optional) right after tp");
	long long per_step = (long long)j->micro_batch * j->dp;
	if (j->global_batch % per_step != 0)
		return cfg_fail(c, "global_batch", "a multiple of micro_batch x dp (%lld)", per_step);
	/* The algorithm keys (ALG, found by their vocabulary): unset, the
	 * op's first algorithm in the registry; a multicast one needs
	 * [multicast] enabled and reliable. */
	for (size_t k = 0; k < sizeof job_keys / sizeof *job_keys; k++) {
		const struct cfg_key *key = &job_keys[k];
		if (key->vocab_fn != coll_alg_name_at)
			continue;
		char **alg = CFG_FIELD(j, key->off, char *);
		if (!*alg)
			*alg = xstrdup(coll_alg_name_at(key->vocab_arg, 0));
		if (coll_rule_multicast(c, key->name, *alg) < 0)
			return -1;
	}
	return 0;
}

const struct cfg_section job_section = {
	.name = "job", .named = true, .help = "a training job: model, parallelism, GPUs, collectives",
	CFG_KEYS(job_keys), .size = sizeof(struct job_cfg), .rules = job_rules,
};
