/*
 * job_model.c — model and GPU presets, parameter counts, FLOPs (see job_model.h).
 *
 * Dimensions of the presets: docs/protocol.md "Training jobs" (GPT-3,
 * Brown et al. 2020; LLaMA-2, Touvron et al. 2023; Mixtral, Jiang et al.
 * 2024; BERT, Devlin et al. 2019). GPU peaks: dense bf16 from the vendors'
 * data sheets, as docs/protocol.md "Training jobs" lists them.
 */
#include <math.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_model.h"
#include "log.h"

static const struct job_model presets[] = {
	{ .preset = "gpt3-175b", .layers = 96, .hidden = 12288, .ffn_hidden = 49152, .heads = 96,
	  .kv_heads = 96, .seq_len = 2048, .vocab = 50257, .experts = 1, .top_k = 1, .moe_every = 1,
	  .gated = false, .tied = true },
	{ .preset = "llama2-7b", .layers = 32, .hidden = 4096, .ffn_hidden = 11008, .heads = 32,
	  .kv_heads = 32, .seq_len = 4096, .vocab = 32000, .experts = 1, .top_k = 1, .moe_every = 1,
	  .gated = true, .tied = false },
	{ .preset = "llama2-70b", .layers = 80, .hidden = 8192, .ffn_hidden = 28672, .heads = 64,
	  .kv_heads = 8, .seq_len = 4096, .vocab = 32000, .experts = 1, .top_k = 1, .moe_every = 1,
	  .gated = true, .tied = false },
	{ .preset = "mixtral-8x7b", .layers = 32, .hidden = 4096, .ffn_hidden = 14336, .heads = 32,
	  .kv_heads = 8, .seq_len = 4096, .vocab = 32000, .experts = 8, .top_k = 2, .moe_every = 1,
	  .gated = true, .tied = false },
	{ .preset = "bert-large", .layers = 24, .hidden = 1024, .ffn_hidden = 4096, .heads = 16,
	  .kv_heads = 16, .seq_len = 512, .vocab = 30522, .experts = 1, .top_k = 1, .moe_every = 1,
	  .gated = false, .tied = true },
	/* custom: dimensions from the job; the rest are these defaults. */
	{ .preset = "custom", .experts = 1, .top_k = 0, .moe_every = 1, .gated = false, .tied = true },
};

static const struct job_gpu gpus[] = {
	{ "a100", 312e12, 2.039e12 },  /* A100 80GB SXM: HBM2e 2039 GB/s */
	{ "h100", 989e12, 3.35e12 },   /* H100 SXM: HBM3 3.35 TB/s */
	{ "h200", 989e12, 4.8e12 },    /* H200 SXM: HBM3e 4.8 TB/s */
};

const char *job_model_name_at(const void *arg, size_t i)
{
	(void)arg;
	return i < sizeof presets / sizeof *presets ? presets[i].preset : NULL;
}

const char *job_gpu_name_at(const void *arg, size_t i)
{
	(void)arg;
	return i < sizeof gpus / sizeof *gpus ? gpus[i].name : NULL;
}

const struct job_gpu *job_gpu_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++)
		if (strcmp(gpus[i].name, name) == 0)
			return &gpus[i];
	return NULL;
}

int job_model_resolve(const struct config *cfg, const struct job_cfg *j, const char *section,
		      struct job_model *m, char **err)
{
	const struct job_model *p = NULL;
	for (size_t i = 0; i < sizeof presets / sizeof *presets && !p; i++)
		if (strcmp(presets[i].preset, j->model) == 0)
			p = &presets[i];
	if (!p) /* model's vocabulary is the presets */
		die_internal("[%s] model '%s' is not a preset", section, j->model);
	*m = *p;
#define OVERRIDE(f) do { if (j->f) m->f = j->f; } while (0)
	OVERRIDE(layers); OVERRIDE(hidden); OVERRIDE(ffn_hidden); OVERRIDE(heads); OVERRIDE(kv_heads);
	OVERRIDE(seq_len); OVERRIDE(vocab); OVERRIDE(experts); OVERRIDE(top_k); OVERRIDE(moe_every);
#undef OVERRIDE
	m->shared_ffn = j->shared_expert_ffn;
	/* A preset with full multi-head attention keeps it when heads change. */
	if (j->heads && !j->kv_heads && p->kv_heads == p->heads)
		m->kv_heads = m->heads;
	if (strcmp(p->preset, "custom") == 0) {
		static const char *const need[] = { "heads", "vocab" };
		const int64_t have[] = { m->heads, m->vocab };
		for (int i = 0; i < 2; i++)
			if (!have[i]) {
				*err = cfg_error_at(cfg, section, "model", 0,
						    "model custom needs the key %s (with layers, hidden, seq_len)",
						    need[i]);
				return -1;
			}
		if (!m->ffn_hidden)
			m->ffn_hidden = 4 * m->hidden;
		if (!m->kv_heads)
			m->kv_heads = m->heads;
		if (!m->top_k)
			m->top_k = m->experts > 1 ? 2 : 1;
	}
	if (m->hidden % m->heads) {
		*err = cfg_error_at(cfg, section, j->hidden ? "hidden" : "heads", 0,
				    "hidden (%lld) must be a multiple of heads (%lld)",
				    (long long)m->hidden, (long long)m->heads);
		return -1;
	}
	if (m->kv_heads > m->heads || m->heads % m->kv_heads) {
		*err = cfg_error_at(cfg, section, "kv_heads", 0, "kv_heads (%lld) must divide heads (%lld)",
				    (long long)m->kv_heads, (long long)m->heads);
		return -1;
	}
	if (m->top_k > m->experts) {
		*err = cfg_error_at(cfg, section, "top_k", 0, "top_k (%lld) must not exceed experts (%lld)",
				    (long long)m->top_k, (long long)m->experts);
		return -1;
	}
	return 0;
}

bool job_model_is_moe(const struct job_model *m, int64_t layer)
{
	return m->experts > 1 && layer % m->moe_every == m->moe_every - 1;
}

int64_t job_model_moe_layers(const struct job_model *m)
{
	return m->experts > 1 ? m->layers / m->moe_every : 0;
}

int64_t job_model_attn_params(const struct job_model *m)
{
	int64_t kv_dim = m->hidden / m->heads * m->kv_heads;
	return 2 * m->hidden * m->hidden + 2 * m->hidden * kv_dim;
}

int64_t job_model_ffn_params(const struct job_model *m)
{
	return (m->gated ? 3 : 2) * m->hidden * m->ffn_hidden;
}

int64_t job_model_router_params(const struct job_model *m)
{
	return m->experts > 1 ? m->hidden * m->experts : 0;
}

int64_t job_model_shared_params(const struct job_model *m)
{
	return m->experts > 1 ? (m->gated ? 3 : 2) * m->hidden * m->shared_ffn : 0;
}

int64_t job_model_layer_params(const struct job_model *m, int64_t layer)
{
	if (job_model_is_moe(m, layer))
		return job_model_attn_params(m) + job_model_router_params(m) + job_model_shared_params(m) +
		       m->experts * job_model_ffn_params(m);
	return job_model_attn_params(m) + job_model_ffn_params(m);
}

int64_t job_model_embedding_params(const struct job_model *m)
{
	return (m->tied ? 1 : 2) * m->vocab * m->hidden;
}

int64_t job_model_params(const struct job_model *m)
{
	int64_t p = job_model_embedding_params(m);
	for (int64_t l = 0; l < m->layers; l++)
		p += job_model_layer_params(m, l);
	return p;
}

double job_model_attn_flops(const struct job_model *m, int64_t b)
{
	double tokens = (double)b * (double)m->seq_len;
	return 2.0 * tokens * (double)job_model_attn_params(m) +
	       4.0 * (double)b * (double)m->seq_len * (double)m->seq_len * (double)m->hidden;
}

double job_model_mlp_flops(const struct job_model *m, int64_t b, bool moe)
{
	double tokens = (double)b * (double)m->seq_len;
	double active = moe ? (double)m->top_k * (double)job_model_ffn_params(m) + (double)job_model_router_params(m)
			    : (double)job_model_ffn_params(m);
	return 2.0 * tokens * active;
}

double job_model_expert_flops(const struct job_model *m, int64_t b, double copies)
{
	double tokens = (double)b * (double)m->seq_len;
	return 2.0 * (copies * (double)job_model_ffn_params(m) + tokens * (double)job_model_router_params(m));
}

simtime_t job_compute_ps(double flops, const struct job_gpu *g, double mfu)
{
	return (simtime_t)llround(flops / (g->peak_flops * mfu) * 1e12);
}
