/*
 * job_model.h — model and GPU presets of [job.NAME], parameter counts and
 * compute times from FLOPs.
 *
 * A model is a stack of identical transformer layers (every moe_every-th
 * one a mixture-of-experts layer) plus a vocabulary embedding. Parameter
 * counts are computed from the dimensions (docs/protocol.md "Training
 * jobs"), not copied from papers:
 *   attention   2h² + 2h·(h·kv_heads/heads)     Q and O full, K and V shrunk by GQA
 *   FFN         3h·f (gated: LLaMA, Mixtral) or 2h·f (GPT, BERT)
 *   MoE layer   experts × FFN + h·experts (router) + shared-expert FFN
 *               (moe_shared_expert_intermediate_size: a dense FFN of that
 *               hidden size every token runs, Megatron-Core's shared experts)
 *   embedding   vocab·h, twice when input and output embeddings are untied
 * Biases and layer norms (O(h) per layer) are left out: < 0.01% of Ψ.
 * This gives GPT-3 174.6e9, LLaMA-2 7B 6.74e9, 70B 68.98e9, Mixtral 46.7e9.
 *
 * Compute: forward FLOPs of one layer for one micro-batch of T = b·s
 * tokens are 2·T·(attention params) + 4·b·s²·h (the QKᵀ and AV products,
 * Narayanan et al. SC'21) for the attention block, and 2·T·(active FFN
 * params: one FFN, or top_k experts' FFNs plus the router) for the MLP
 * block (an MoE block's expert part at run time follows the token copies
 * the experts got: job_model_expert_flops, workload_ep.c); backward is twice forward (training ≈ 6 × params × tokens,
 * forward one third). A tensor-parallel shard does 1/tp of it. Time =
 * FLOPs / (peak bf16 × mfu). The logits' FLOPs are the plan's
 * (job_plan.c, on the last stage); the embedding lookup costs nothing.
 */
#ifndef ROCESIM_JOB_MODEL_H
#define ROCESIM_JOB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "simtime.h"

struct config;
struct job_cfg;

struct job_model {
	const char *preset;           /* "gpt3-175b", ..., "custom" */
	int64_t layers, hidden, ffn_hidden, heads, kv_heads, seq_len, vocab;
	int64_t experts;              /* 1 = dense */
	int64_t top_k;                /* experts per token (1 when dense) */
	int64_t moe_every;            /* layer l is MoE when experts > 1 and l % moe_every == moe_every - 1 */
	bool gated;                   /* SwiGLU FFN: three matrices */
	bool tied;                    /* input and output embeddings shared (GPT, BERT) */
	int64_t shared_ffn;           /* MoE layers: hidden size of the shared experts' FFN (0 = none) */
};

struct job_gpu {
	const char *name;
	double peak_flops;            /* dense bf16 FLOP/s (docs/protocol.md "Training jobs") */
	double mem_bw;                /* memory bandwidth, B/s (the optimizer step's speed) */
};

/* The preset of j->model with every dimension the job gives overriding
 * it; "custom" needs layers, hidden, seq_len (checked by the rules), heads
 * and vocab. Returns 0, or -1 with a located *err. */
int job_model_resolve(const struct config *cfg, const struct job_cfg *j, const char *section,
		      struct job_model *m, char **err);
const struct job_gpu *job_gpu_by_name(const char *name);
/* The presets' names (the vocabularies of [job] model and gpu), NULL past
 * the last; arg unused. */
const char *job_model_name_at(const void *arg, size_t i);
const char *job_gpu_name_at(const void *arg, size_t i);

bool job_model_is_moe(const struct job_model *m, int64_t layer);
int64_t job_model_moe_layers(const struct job_model *m);
int64_t job_model_attn_params(const struct job_model *m);   /* per layer, incl. router of MoE layers: no */
int64_t job_model_ffn_params(const struct job_model *m);    /* one FFN (one expert) */
int64_t job_model_router_params(const struct job_model *m); /* h × experts (0 when dense) */
/* The shared experts' FFN of an MoE layer (0 when none). */
int64_t job_model_shared_params(const struct job_model *m);
/* Parameters of layer l (all experts counted). */
int64_t job_model_layer_params(const struct job_model *m, int64_t layer);
/* Embedding parameters: vocab·h, ×2 when untied. */
int64_t job_model_embedding_params(const struct job_model *m);
int64_t job_model_params(const struct job_model *m);

/* Forward FLOPs of one layer's attention block / MLP block for one
 * micro-batch of b sequences (whole layer, before the TP split). */
double job_model_attn_flops(const struct job_model *m, int64_t b);
double job_model_mlp_flops(const struct job_model *m, int64_t b, bool moe);
/* Forward FLOPs of an MoE block's routed experts and router when the
 * experts process `copies` token copies of a micro-batch of b sequences
 * (balanced dropless: copies = top_k·b·s, job_model_mlp_flops(m, b, true)). */
double job_model_expert_flops(const struct job_model *m, int64_t b, double copies);
/* FLOPs → picoseconds on one GPU at mfu (rounded to the nearest ps). */
simtime_t job_compute_ps(double flops, const struct job_gpu *g, double mfu);

#endif
