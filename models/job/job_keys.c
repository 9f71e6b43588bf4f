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
#include "job_place.h"
#include "nic.h"
#include "units.h"
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

/* Keys a workload file decides: with workload = simai, giving one is an
 * error rather than silently ignored. */
static const char *const simai_owned[] = {
	"model", "layers", "hidden", "ffn_hidden", "heads", "kv_heads", "seq_len", "vocab", "experts", "top_k",
	"moe_every", "capacity_factor", "micro_batch", "global_batch", "tp", "pp", "dp", "ep", "zero",
	"sequence_parallel", "virtual_pipeline_stages", "recompute", "pp_scatter_gather", "cp",
	"expert_tensor_parallel_size", "moe_skew", "overlap_grad_reduce", "overlap_param_gather",
	"grad_reduce_dtype", "dp_bucket", "zero3_prefetch", "grad_bytes", "optimizer_step",
	"moe_pad_expert_input_to_capacity", "moe_shared_expert_intermediate_size", "moe_skew_correlation",
	"vocab_divisible_by", "gpu", "mfu",
};

/* Fills the collective algorithm keys left unset (job_rules). */
static int job_alg_rules(struct cfg_check *c, struct job_cfg *j);

static const struct cfg_key job_keys[] = {
	{ "workload", KT_TYPE, "megatron", .off = JOB(workload),
	  .help = "where the job's work comes from: its model and layout (megatron), a SimAI/AICB workload file "
		  "(simai) or per-rank execution traces (chakra)" },
	{ "file", KT_PATH_IN, .def_doc = "none (required with workload = simai)", .off = JOB(file),
	  .help = "workload = simai: the SimAI/AICB workload file" },
	{ "model", KT_WORD, .def_doc = "none (required with workload = megatron)", .vocab_fn = job_model_name_at,
	  .off = JOB(model), .help = "model preset or custom" },
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
	{ "global_batch", KT_LLONG, .def_doc = "none (required with workload = megatron)", CFG_GE(1),
	  .off = JOB(global_batch),
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
	/* Placement and priority (job_place.c; docs/protocol.md "Training jobs"). */
	{ "placement", KT_LIST, .def_doc = "packed, or hosts when hosts is given",
	  .off = JOB(placement), .off2 = JOB(n_placement),
	  .help = "packed, spread, random, fragmented or hosts (the hosts the job gets among those "
		  "earlier jobs left); a list of tp, ep, dp, pp is read as rank_order" },
	{ "busy", KT_NUMBER, "0.5", CFG_IN(0, 1), .off = JOB(busy),
	  .help = "placement fragmented: fraction of the free hosts occupied by jobs not simulated (other policies ignore it)" },
	{ "rank_order", KT_LIST, "tp,ep,dp,pp", .off = JOB(rank_order), .off2 = JOB(n_rank_order),
	  .help = "rank order, innermost first" },
	/* Unset, the rules take [nic] priority (whose default this is). */
	{ "priority", KT_INT, "3", CFG_IN(0, 7), .off = JOB(priority),
	  .help = "traffic class of the job's RoCE data, lossless with PFC (unset: [nic] priority)" },
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
	{ "endpoint_delay", KT_TIME, "0s", CFG_GE(0), .off = JOB(endpoint_delay),
	  .help = "time from a collective's piece reaching its GPU to the collective seeing it (NCCL's proxy "
		  "and kernel noticing the completion), on every piece; above 0 it lets mpirun "
		  "spread the job's hosts over ranks (windows no longer than it)" },
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

/* Whether every word of the list names a rank dimension (a rank order
 * as `placement` took before the policies). */
static bool is_rank_order(char *const *v, size_t n)
{
	static const char *const dims[] = { "tp", "ep", "dp", "pp", "cp" };
	for (size_t i = 0; i < n; i++) {
		bool dim = false;
		for (int d = 0; d < 5; d++)
			dim |= strcmp(v[i], dims[d]) == 0;
		if (!dim)
			return false;
	}
	return n > 0;
}

/* placement: one policy word, or (as before policies) a rank order, which
 * then stands for rank_order; the hosts policy needs hosts; priority
 * unset is [nic] priority. busy is read by fragmented only (and accepted
 * with the others, so that --set placement=packed can compare a scenario
 * that sets it). */
static int placement_rules(struct cfg_check *c, struct job_cfg *j)
{
	if (!cfg_given(c, "priority"))
		j->priority = nic_cfg_of(c->cfg)->priority;
	j->place_policy = j->n_hosts ? JOB_PLACE_HOSTS : JOB_PLACE_PACKED;
	j->order_from_placement = false;
	j->place_given = j->n_placement > 0;
	if (j->n_placement && is_rank_order(j->placement, j->n_placement)) {
		if (cfg_given(c, "rank_order"))
			return cfg_fail(c, "placement", "a policy (packed, spread, random, fragmented or hosts) "
					"when rank_order is given");
		/* The list moves to rank_order; placement is then unset (so the
		 * resolved text reads back the same). */
		units_list_free(j->rank_order, j->n_rank_order);
		j->rank_order = j->placement, j->n_rank_order = j->n_placement;
		j->placement = NULL, j->n_placement = 0;
		j->order_from_placement = true;
		j->place_given = false;
	} else if (j->n_placement) {
		int p = -1;
		for (int k = 0; k < JOB_PLACE_N; k++)
			if (j->n_placement == 1 && strcmp(j->placement[0], job_place_names[k]) == 0)
				p = k;
		if (p < 0) {
			char hint[80];
			return cfg_fail(c, "placement", "one of packed, spread, random, fragmented, hosts, or a rank "
					"order (a permutation of tp, ep, dp, pp)%s",
					cfg_did_you_mean(j->placement[0], "packed, spread, random, fragmented, hosts",
							 hint, sizeof hint));
		}
		j->place_policy = p;
		if (p == JOB_PLACE_HOSTS && !j->n_hosts)
			return cfg_fail_missing(c, "hosts", " for placement = hosts");
	}
	return 0;
}

/* workload = chakra: the trace gives the ranks and their work, so the
 * model's and the layout's keys have no meaning; the job's collectives
 * still take its algorithm, chunk and channels keys. */
static int chakra_rules(struct cfg_check *c, struct job_cfg *j)
{
	static const char *const allowed[] = { "workload", "iterations", "hosts", "placement", "busy", "priority",
					       "start", "chunk", "channels", "endpoint_delay", "allreduce", "allgather",
					       "reduce_scatter", "broadcast", "alltoall" };
	for (size_t k = 0; k < sizeof job_keys / sizeof *job_keys; k++) {
		bool ok = false;
		for (size_t a = 0; a < sizeof allowed / sizeof *allowed; a++)
			ok |= strcmp(job_keys[k].name, allowed[a]) == 0;
		if (!ok && cfg_given(c, job_keys[k].name))
			return cfg_fail(c, job_keys[k].name, "unset with workload = chakra: the trace gives the ranks "
					"and their work (the keys that apply: trace, iterations, hosts, placement, busy, "
					"priority, start, chunk, channels, endpoint_delay and the algorithm keys)");
	}
	if (placement_rules(c, j) < 0)
		return -1;
	if (j->order_from_placement)
		return cfg_fail(c, "placement", "a policy (packed, spread, random, fragmented or hosts): "
				"the trace gives the ranks, so there is no rank order");
	return job_alg_rules(c, j);
}

/* rank_order: a permutation of tp, ep, dp, pp, cp optional. */
static int rank_order_rules(struct cfg_check *c, struct job_cfg *j)
{
	/* cp may be left out; when listed it must follow tp (Megatron's
	 * tp-cp-ep-dp-pp: the layout folds tp and cp into one inner dimension). */
	static const char *const dims[] = { "tp", "ep", "dp", "pp", "cp" };
	bool has_cp = false;
	for (size_t i = 0; i < j->n_rank_order; i++)
		has_cp |= strcmp(j->rank_order[i], "cp") == 0;
	bool ok = j->n_rank_order == (has_cp ? 5u : 4u);
	for (int d = 0; d < (has_cp ? 5 : 4) && ok; d++) {
		int seen = 0;
		for (size_t i = 0; i < j->n_rank_order; i++)
			seen += strcmp(j->rank_order[i], dims[d]) == 0;
		ok = seen == 1;
	}
	for (size_t i = 0; ok && has_cp && i < j->n_rank_order; i++)
		if (strcmp(j->rank_order[i], "cp") == 0)
			ok = i > 0 && strcmp(j->rank_order[i - 1], "tp") == 0;
	if (!ok)
		return cfg_fail(c, j->order_from_placement ? "placement" : "rank_order",
				"a permutation of tp, ep, dp, pp, with cp (optional) right after tp");
	return 0;
}

static int job_rules(struct cfg_check *c)
{
	struct job_cfg *j = c->data;
	static const char *const custom_needs[] = { "layers", "hidden", "seq_len" };
	if (j->workload == JOB_WL_CHAKRA)
		return chakra_rules(c, j);
	if (j->workload == JOB_WL_SIMAI) {
		if (!cfg_given(c, "file"))
			return cfg_fail_missing(c, "file", " for workload simai");
		for (size_t i = 0; i < sizeof simai_owned / sizeof *simai_owned; i++)
			if (cfg_given(c, simai_owned[i]))
				return cfg_fail(c, simai_owned[i], "unset with workload = simai: the workload file "
						"sets the model, the layout, the schedule and the compute times");
		if (placement_rules(c, j) < 0 || rank_order_rules(c, j) < 0)
			return -1;
		return job_alg_rules(c, j);
	}
	if (cfg_given(c, "file"))
		return cfg_fail(c, "file", "unset with workload = megatron (a file is read with workload = simai)");
	if (!cfg_given(c, "model"))
		return cfg_fail_missing(c, "model", "");
	if (!cfg_given(c, "global_batch"))
		return cfg_fail_missing(c, "global_batch", "");
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
	if (placement_rules(c, j) < 0)
		return -1;
	if (rank_order_rules(c, j) < 0)
		return -1;
	long long per_step = (long long)j->micro_batch * j->dp;
	if (j->global_batch % per_step != 0)
		return cfg_fail(c, "global_batch", "a multiple of micro_batch x dp (%lld)", per_step);
	return job_alg_rules(c, j);
}

static int job_alg_rules(struct cfg_check *c, struct job_cfg *j)
{
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

/* The workloads, in the order of enum job_workload: the section's types. */
static const struct cfg_type job_type_megatron = {
	.name = "megatron", .help = "a model trained with a Megatron-LM/DeepSpeed layout (the keys above)",
};
/* The file gives the model, the layout and the compute times (job_rules
 * refuses the keys it decides). */
static const char *const simai_not_required[] = { "model", "global_batch", NULL };
static const struct cfg_type job_type_simai = {
	.name = "simai", .help = "a SimAI/AICB workload file (the file key)", .not_required = simai_not_required,
};
extern const struct cfg_type job_type_chakra;   /* chakra_keys.c */

static const struct cfg_type *job_type_at(size_t i)
{
	static const struct cfg_type *const types[] = { &job_type_megatron, &job_type_simai, &job_type_chakra };
	return i < sizeof types / sizeof *types ? types[i] : NULL;
}

const struct cfg_section job_section = {
	.name = "job", .named = true, .help = "a training job: model, parallelism, GPUs, collectives",
	CFG_KEYS(job_keys), .size = sizeof(struct job_cfg), .type_at = job_type_at, .rules = job_rules,
};
