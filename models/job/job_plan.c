/*
 * job_plan.c — a job's resolved layout, sizes, compute times and checks
 * (job_spec_init, see job_plan.h). The stage programs are built in
 * job_prog.c, the per-iteration traffic totals in job_plan_totals.c.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "job_plan_internal.h"
#include "log.h"
#include "nic.h"
#include "workload.h"
#include "xalloc.h"

const char *const job_par_name[JOB_NPAR] = { "tp", "pp", "dp", "ep", "cp" };

/* Guards against plans too large to hold (ops per stage). */
#define JOB_MAX_OPS_PER_STAGE (64LL << 20)

const char *job_coll_alg(const struct job_spec *s, enum coll_op op)
{
	switch (op) {
	case COLL_ALLREDUCE: return s->cfg->allreduce;
	case COLL_ALLGATHER: return s->cfg->allgather;
	case COLL_REDUCE_SCATTER: return s->cfg->reduce_scatter;
	case COLL_BROADCAST: return s->cfg->broadcast;
	case COLL_ALLTOALL: return s->cfg->alltoall;
	case COLL_SENDRECV: return "ring";
	}
	return "ring";
}

int job_dp_group_ranks(const struct job_spec *s, const struct job_bucket *b, int t, int e, int *out)
{
	const struct job_layout *l = &s->layout;
	int n = 0;
	for (int c = 0; c < (b->expert ? 1 : s->cp); c++)
		n += job_layout_group(l, b->expert ? JOB_GROUP_EDP : JOB_GROUP_DP,
				      job_layout_rank(l, c * s->tp + t, e, 0, b->stage), out + n);
	return n;
}

/* Whether the job names a multicast algorithm. */
static bool mc_any(const struct job_cfg *j)
{
	const char *const alg[] = { j->allreduce, j->allgather, j->reduce_scatter, j->broadcast, j->alltoall };
	for (int i = 0; i < 5; i++)
		if (alg[i] && strcmp(alg[i], "multicast") == 0)
			return true;
	return false;
}

/* Parameters whose optimizer state one GPU updates: the largest stage's
 * per-tp-shard parameters (expert ones per EP rank), divided by the data-
 * parallel group for ZeRO >= 1 (the distributed optimizer). */
static double optimizer_params(const struct job_spec *s, struct wl_dp_item *items)
{
	double most = 0;
	for (int st = 0; st < s->pp; st++) {
		int n = wl_dp_items(s, st, items);
		double dense = 0, expert = 0;
		for (int i = 0; i < n; i++) {
			dense += (double)items[i].params;
			expert += (double)items[i].expert_params;
		}
		if (s->zero >= 1) {
			dense /= (double)s->dp * s->cp;
			expert /= s->edp;
		}
		if (dense + expert > most)
			most = dense + expert;
	}
	return most;
}

static int check(const struct config *cfg, const char *sec, const char *key, bool ok, char **err,
		 const char *fmt, long long a, long long b)
{
	if (ok)
		return 0;
	*err = cfg_error_at(cfg, sec, key, 0, fmt, a, b);
	return -1;
}

int job_spec_init(struct job_spec *s, const struct config *cfg, const char *name, const struct job_cfg *j,
		  int n_gpus, char **err)
{
	char sec[160];
	snprintf(sec, sizeof sec, "job.%s", name);
	if (j->workload == JOB_WL_SIMAI)
		return wl_simai_spec_init(s, cfg, sec, name, j, n_gpus, err);
	memset(s, 0, sizeof *s);
	s->name = name;
	s->cfg = j;
	if (job_model_resolve(cfg, j, sec, &s->model, err) < 0)
		return -1;
	const struct job_model *m = &s->model;
	s->gpu = job_gpu_by_name(j->gpu);
	if (!s->gpu) /* gpu's vocabulary is the presets */
		die_internal("[%s] gpu '%s' is not a preset", sec, j->gpu);
	s->tp = j->tp, s->pp = j->pp, s->dp = j->dp, s->ep = j->ep;
	s->etp = j->etp ? j->etp : j->tp;
	s->edp = j->tp * j->dp / (s->etp * j->ep); /* the rules checked it divides */
	s->zero = j->zero;
	s->gpus_per_host = world_cfg_gpus_per_host(cfg);
	s->sp = j->sequence_parallel && j->tp > 1;
	s->b = j->micro_batch;
	s->cp = j->cp;
	long long need = (long long)j->tp * j->cp * j->pp * j->dp;
	if (check(cfg, sec, j->n_hosts ? "hosts" : "dp", need <= n_gpus, err, j->cp > 1
		  ? "the job needs tp x cp x pp x dp = %lld GPUs; its hosts have %lld"
		  : "the job needs tp x pp x dp = %lld GPUs; its hosts have %lld", need, n_gpus) ||
	    check(cfg, sec, "cp", m->seq_len % (2LL * j->cp) == 0 || j->cp == 1, err,
		  "seq_len (%lld) must be a multiple of 2 x cp (%lld): ring attention's load-balanced blocks",
		  (long long)m->seq_len, 2LL * j->cp) ||
	    check(cfg, sec, "cp", j->cp == 1 || (j->ep == 1 && j->zero < 3), err,
		  "context parallelism is modelled with ep = 1 and zero < 3 (ep = %lld, zero = %lld)", j->ep, j->zero) ||
	    /* An MoE block's expert steps are sized from the routing of a
	     * worker's whole sequence (workload_ep.c), not of 1/cp of it. */
	    check(cfg, sec, "cp", j->cp == 1 || m->experts == 1, err,
		  "context parallelism is modelled for dense models (cp = %lld, experts = %lld)", j->cp,
		  (long long)m->experts) ||
	    check(cfg, sec, "pp", m->layers % j->pp == 0, err,
		  "layers (%lld) must be a multiple of pp (%lld)", (long long)m->layers, j->pp) ||
	    check(cfg, sec, "tp", m->heads % j->tp == 0, err,
		  "heads (%lld) must be a multiple of tp (%lld)", (long long)m->heads, j->tp) ||
	    check(cfg, sec, "ep", j->ep == 1 || m->experts > 1, err,
		  "ep = %lld needs an MoE model (experts = %lld)", j->ep, (long long)m->experts) ||
	    check(cfg, sec, "ep", m->experts % j->ep == 0, err,
		  "experts (%lld) must be a multiple of ep (%lld)", (long long)m->experts, j->ep) ||
	    check(cfg, sec, "sequence_parallel", m->experts == 1 || j->tp == 1 || j->sequence_parallel, err,
		  "an MoE model (experts = %lld) with tp = %lld needs sequence_parallel = on, as Megatron-Core does",
		  (long long)m->experts, j->tp) ||
	    check(cfg, sec, "expert_tensor_parallel_size", s->etp == s->tp || m->experts > 1, err,
		  "expert_tensor_parallel_size = %lld needs an MoE model (experts = %lld)", s->etp,
		  (long long)m->experts) ||
	    check(cfg, sec, "expert_tensor_parallel_size", s->etp == s->tp || (!mc_any(j) && j->zero < 3), err,
		  "expert_tensor_parallel_size (%lld) other than tp (%lld) is modelled without multicast algorithms "
		  "and ZeRO-3", s->etp, j->tp) ||
	    check(cfg, sec, "zero", j->zero < 3 || (j->pp == 1 && j->ep == 1), err,
		  "zero = 3 needs pp = 1 and ep = 1 (here pp = %lld, ep = %lld): DeepSpeed's pipeline engine "
		  "refuses ZeRO-3, and ZeRO-3 gathers of expert parameters are not modelled; use zero = 1 or 2",
		  j->pp, j->ep))
		return -1;
	s->m = j->global_batch / ((long long)j->micro_batch * j->dp);
	s->vpp = j->virtual_pipeline_stages;
	if (s->vpp > 1 &&
	    (check(cfg, sec, "virtual_pipeline_stages", j->pp > 1, err,
		   "interleaving (%lld model chunks) needs pp > 1 (pp = %lld)", s->vpp, j->pp) ||
	     check(cfg, sec, "virtual_pipeline_stages", m->layers % ((long long)j->pp * s->vpp) == 0, err,
		   "layers (%lld) must be a multiple of pp x virtual_pipeline_stages (%lld)",
		   (long long)m->layers, (long long)j->pp * s->vpp) ||
	     check(cfg, sec, "global_batch", s->m % j->pp == 0, err,
		   "interleaved 1F1B needs the micro-batches per iteration (%lld) to be a multiple of pp (%lld)",
		   (long long)s->m, j->pp)))
		return -1;
	s->layers_per_stage = m->layers / j->pp;
	s->layers_per_chunk = s->layers_per_stage / s->vpp;
	/* Megatron pads the vocabulary to a multiple of
	 * make_vocab_size_divisible_by × tp so every tp rank holds equal rows. */
	s->vocab_given = m->vocab;
	{
		int64_t q = (int64_t)j->vocab_divisible_by * j->tp;
		s->model.vocab = (m->vocab + q - 1) / q * q;
	}
	long long ops = 2 * s->m * (s->layers_per_stage * 24 + 8 * s->vpp + 16) * (j->zero >= 2 ? 2 : 1);
	if (check(cfg, sec, "global_batch", ops <= JOB_MAX_OPS_PER_STAGE && s->b * m->seq_len * m->top_k < (1LL << 31),
		  err, "the plan is too large to simulate (%lld micro-batches of %lld sequences)",
		  (long long)s->m, (long long)s->b))
		return -1;
	/* A worker's GPU holds 1/cp of the sequence (context parallelism) and
	 * computes 1/(tp·cp) of every layer. */
	double shards = (double)s->tp * s->cp;
	s->act_b = (uint64_t)(s->b * m->seq_len / s->cp * m->hidden * 2);
	s->tokens = s->b * m->seq_len;
	s->t_attn_f = job_compute_ps(job_model_attn_flops(m, s->b) / shards, s->gpu, j->mfu);
	s->t_mlp_f = job_compute_ps(job_model_mlp_flops(m, s->b, false) / shards, s->gpu, j->mfu);
	s->t_moe_f = job_compute_ps(job_model_mlp_flops(m, s->b, true) / shards, s->gpu, j->mfu);
	/* Core attention: QKᵀ and AV, 2·b·s²·h FLOPs each (SC'21). */
	s->t_core_f = job_compute_ps(4.0 * (double)s->b * (double)m->seq_len * (double)m->seq_len *
				     (double)m->hidden / shards, s->gpu, j->mfu);
	/* Logits: a b·s × h by h × V_padded product. */
	s->t_head_f = job_compute_ps(2.0 * (double)s->tokens * (double)m->hidden * (double)m->vocab / shards,
				     s->gpu, j->mfu);
	s->ce_b = (uint64_t)(s->tokens / s->cp) * 4;
	/* Ring attention's block: K and V of s/cp tokens, h·kv_heads/heads wide, bf16, per tp shard. */
	s->kv_b = (uint64_t)(2 * s->b * (m->seq_len / s->cp) * (m->hidden * m->kv_heads / m->heads) * 2 / s->tp);
	if (m->tied && s->pp > 1)
		s->emb_b = (uint64_t)((m->vocab * m->hidden + s->tp - 1) / s->tp) * (uint64_t)j->grad_bytes;
	/* cp follows tp in the rank order (the rules): the layout's innermost
	 * dimension is a worker's tp × cp ranks, cp index outer. With folded
	 * experts (etp != tp) ep need not divide dp: the layout is then the
	 * dense one and moe_layout.c places the experts. */
	char *dims[JOB_NDIMS];
	size_t nd = 0;
	for (size_t i = 0; i < j->n_rank_order && nd < JOB_NDIMS; i++)
		if (strcmp(j->rank_order[i], "cp") != 0)
			dims[nd++] = j->rank_order[i];
	if (job_layout_init(&s->layout, s->tp * s->cp, s->pp, s->dp, s->etp == s->tp ? s->ep : 1, dims, nd) < 0)
		die_internal("[%s] rank_order is not a permutation of tp, ep, dp, pp", sec); /* the rules' */

	int *bucket_end;
	wl_dp_buckets(s, &bucket_end);
	struct wl_pp_slot *slots = xmalloc((size_t)(2 * s->m * s->vpp) * sizeof *slots);
	struct wl_dp_item *items = xmalloc((size_t)(s->layers_per_stage + 2) * sizeof *items);
	/* Adam with fp32 main parameters (Megatron's mixed precision): per
	 * parameter it reads the fp32 gradient, parameter, m and v (16 B) and
	 * writes the parameter, m, v and the bf16 copy (14 B); memory-bound. */
	s->t_opt = j->optimizer_step_set ? j->optimizer_step
		: (simtime_t)(optimizer_params(s, items) * 30.0 / s->gpu->mem_bw * 1e12 + 0.5);
	s->prog = xcalloc((size_t)s->pp, sizeof *s->prog);
	for (int st = 0; st < s->pp; st++)
		job_build_stage(s, st, bucket_end, slots, items);
	free(items);
	free(slots);
	free(bucket_end);
	return 0;
}

void job_spec_free(struct job_spec *s)
{
	for (int st = 0; s->prog && st < s->pp; st++)
		free(s->prog[st].op);
	free(s->prog);
	free(s->bucket);
	s->prog = NULL;
	s->bucket = NULL;
}
