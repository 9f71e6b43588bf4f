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
#include "job_slow.h"
#include "workload.h"
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

/* grad_reduce_dtype, in the order of JOB_GRAD_FP32, JOB_GRAD_BF16. */
static const char *const grad_dtypes[] = { "fp32", "bf16", NULL };
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
	{ "capacity_factor", KT_NUMBER, .def_doc = "none: dropless", CFG_POS, .off = JOB(capacity_factor),
	  .help = "MoE capacity factor (tokens beyond capacity are dropped)" },
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
	{ "grad_bytes", KT_INT, .def_doc = "from grad_reduce_dtype (4 for fp32, 2 for bf16)", CFG_IN(2, 4),
	  .off = JOB(grad_bytes), .help = "bytes per gradient element (2 or 4)" },
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
	{ "moe_skew_correlation", KT_NUMBER, "0", CFG_IN(0, 1), .off = JOB(moe_skew_correlation),
	  .help = "correlation of expert popularity from one iteration to the next" },
	{ "moe_pad_expert_input_to_capacity", KT_BOOL, "off", .off = JOB(moe_pad),
	  .help = "pad every expert's input to its capacity" },
	{ "moe_shared_expert_intermediate_size", KT_LLONG, "0", CFG_GE(0), .off = JOB(shared_expert_ffn),
	  .help = "FFN hidden size of the shared experts" },
	{ "expert_tensor_parallel_size", KT_INT, .def_doc = "tp", CFG_GE(1), .off = JOB(etp),
	  .help = "tensor parallelism of the experts (MoE parallel folding)" },
	{ "chunk", KT_SIZE, "512KiB", CFG_POS, .off = JOB(chunk_b), .help = "pipelining chunk" },
	{ "channels", KT_INT, "2", CFG_GE(1), .off = JOB(channels), .help = "parallel rings" },
	{ "start", KT_TIME, "0s", .off = JOB(start), .help = "start time" },
	{ "overlap_grad_reduce", KT_BOOL, .def_doc = "off (Megatron-LM); on with zero = 3 (DeepSpeed's overlap_comm)",
	  .off = JOB(overlap_grad_reduce), .help = "gradient reductions start during the backward pass" },
	{ "overlap_param_gather", KT_BOOL, "off", .off = JOB(overlap_param_gather),
	  .help = "zero 1, 2: the parameter all-gathers overlap the next forward" },
	{ "grad_reduce_dtype", KT_ENUM, .def_doc = "fp32 with zero 0, 1 (Megatron-LM); bf16 with zero 2, 3 (DeepSpeed)",
	  .vocab = grad_dtypes, .off = JOB(grad_reduce_dtype), .help = "element type of gradient reductions" },
	{ "dp_bucket", KT_LLONG, .def_doc = "max(4e7, 1e6 x group) with overlap_grad_reduce, else one bucket "
	  "(Megatron-Core); 5e8 with zero 2, 3 (DeepSpeed)", CFG_GE(1), .off = JOB(dp_bucket),
	  .help = "parameters per gradient bucket" },
	{ "zero3_prefetch", KT_LLONG, "50000000", CFG_GE(0), .off = JOB(zero3_prefetch),
	  .help = "zero 3: parameters gathered ahead of the layer computing (0: no prefetch)" },
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
	/* Stragglers (job_slow.c) */
	{ "slow", KT_CUSTOM, .def_doc = "none", .custom = &job_slow_line, .off = JOB(slow),
	  .help = "repeated: GPU FACTOR: that GPU's compute takes FACTOR (1 to 1000) times as long" },
	{ "slow_random", KT_CUSTOM, "off", .custom = &job_slow_random, .off = JOB(slow_sigma),
	  .help = "off or lognormal SIGMA: every GPU's compute slowed by exp(SIGMA |Z|), re-drawn each iteration" },
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
	/* Expert parallelism is carved out of data parallelism; with its own
	 * expert TP size the experts fold over the tp x dp GPUs of a stage
	 * (Megatron-Core's MoE parallel folding). */
	if (j->etp && j->etp != j->tp) {
		if (j->tp % j->etp != 0)
			return cfg_fail(c, "expert_tensor_parallel_size", "a divisor of tp (%d)", j->tp);
		if ((long long)j->tp * j->dp % ((long long)j->etp * j->ep) != 0)
			return cfg_fail(c, "ep", "a divisor of tp x dp / expert_tensor_parallel_size (%d x %d / %d)",
					j->tp, j->dp, j->etp);
	} else if (j->dp % j->ep != 0) {
		return cfg_fail(c, "ep", "a divisor of dp (%d): expert parallelism is carved out of data parallelism",
				j->dp);
	}
	if (j->moe_pad && !cfg_given(c, "capacity_factor"))
		return cfg_fail(c, "moe_pad_expert_input_to_capacity",
				"off when capacity_factor is unset (dropless): padding fills each expert up to its capacity");
	if (cfg_given(c, "grad_bytes") && j->grad_bytes != 2 && j->grad_bytes != 4)
		return cfg_fail(c, "grad_bytes", "2 (bf16) or 4 (fp32)");
	if (job_dp_rules(c, j) < 0)
		return -1;
	j->optimizer_step_set = cfg_given(c, "optimizer_step");
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
