/*
 * workload_simai.c — `[job.NAME] workload = simai`: a SimAI/AICB workload
 * file (simai_parse.c) as the job's programs (job_plan.h), so the executor,
 * the timeline, `--check` plans and the results run unchanged.
 *
 * Layout from the header: tp = model_parallel_NPU_group, pp, ep, and
 * dp = all_gpus / (tp x pp); ranks in the rank_order (tp, ep, dp, pp
 * by default, innermost first, which is also how SimAI numbers its TP, EP,
 * DP and DP_EP groups). Every worker (a TP group) of every stage runs the
 * file's lines: the file is one rank's view and all ranks run it (SimAI
 * runs the same file on every GPU).
 *
 * One line, as SimAI's Workload::iterate_hybrid_parallel_Transformer_fwd_in_bckwd
 * runs it (times in ns, SimAI's Tick):
 *   forward    compute fwd_ns; its collective, blocking; then upd_ns
 *   backward   compute ig_ns; its collective, blocking; then upd_ns;
 *              compute wg_ns; its collective, NOT blocking (a gradient
 *              bucket of the DP or expert-DP group: GRAD)
 * A collective of type NONE, of size 0 or over a group of one GPU is no
 * collective and costs no update time (SimAI skips it the same way).
 * Forward and input-gradient collectives run over the TP group (JOP_TP),
 * or with _EP over the EP group (JOP_EP with a size: one collective per
 * tp index); weight-gradient ones over the DP group, or with _DP_EP over
 * the expert-DP group (a bucket with file_b). The update time after a
 * weight-gradient collective is not modelled (it only delays the end of
 * the iteration, by upd_ns, when the last one is the latest thing to end).
 *
 * Order. pp = 1: SimAI's own — every line's forward in file order, then
 * every line's backward in reverse order (AICB has already unrolled the
 * ga micro-batches into lines). pp > 1: the file's lines split into a
 * prologue, ga micro-batches (each starting at an `embedding_layer` line,
 * equally long) and an epilogue; each micro-batch's lines split into vpp
 * contiguous chunks (as equal as whole lines allow) that run as the model
 * chunks of Megatron's interleaved 1F1B (workload_pp.c; plain 1F1B when
 * vpp = 1), with a send of pp_comm bytes per rank (tp x pp_comm per
 * worker) to the next virtual stage after every forward chunk and to the
 * previous one after every backward chunk. The stage program is the
 * prologue's forwards, the 1F1B passes, the epilogue's forwards and
 * backwards, and the prologue's backwards. Every micro-batch thus sends
 * 2 (pp x vpp − 1) times per dp index and tp rank, the count SimAI's
 * analytical mode prices as 2 x vpp x ga per rank.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "job_plan_internal.h"
#include "lex.h"
#include "log.h"
#include "nic.h"
#include "workload.h"
#include "xalloc.h"

/* Ops the programs of all stages may hold together (guards memory). */
#define SIMAI_MAX_OPS (256LL << 20)

/* Group size of a phase's collective, 0 for none. */
static int group_n(const struct job_spec *s, const struct simai_comm *c)
{
	switch ((enum simai_group)c->group) {
	case SIMAI_TP: return s->tp;
	case SIMAI_DP: return s->dp;
	case SIMAI_EP: return s->ep;
	case SIMAI_DP_EP: return s->edp;
	case SIMAI_NONE: break;
	}
	return 0;
}

static bool runs(const struct job_spec *s, const struct simai_comm *c)
{
	return c->group != SIMAI_NONE && c->size_b && group_n(s, c) >= 2;
}

/* A blocking forward or input-gradient collective and the update time. */
static void blocking(const struct job_spec *s, struct job_prog *p, const struct simai_line *l,
		     const struct simai_comm *c)
{
	if (!runs(s, c))
		return;
	struct job_op *op = job_prog_add(p, c->group == SIMAI_EP ? JOP_EP : JOP_TP);
	op->coll = c->op;
	op->val = c->size_b;
	op->dir = p->block_dir;
	op->mb = p->block_mb;
	op->idx = -1;
	job_prog_compute(p, (simtime_t)l->upd_ns * 1000);
}

static void line_fwd(const struct job_spec *s, struct job_prog *p, const struct simai_line *l)
{
	job_prog_compute(p, (simtime_t)l->fwd_ns * 1000);
	blocking(s, p, l, &l->fwd);
}

/* bucket: the line's bucket when its weight-gradient collective runs. */
static void line_bwd(const struct job_spec *s, struct job_prog *p, const struct simai_line *l, int bucket)
{
	job_prog_compute(p, (simtime_t)l->ig_ns * 1000);
	blocking(s, p, l, &l->ig);
	job_prog_compute(p, (simtime_t)l->wg_ns * 1000);
	if (bucket >= 0) {
		struct job_op *op = job_prog_add(p, JOP_GRAD);
		op->idx = bucket;
		op->mb = 0;
	}
}

/* The micro-batches of a pipelined file: ga runs of L lines from `first`,
 * each starting at an embedding_layer line. */
struct mb_split {
	int first;             /* line index of the first micro-batch's embedding_layer */
	int len;               /* lines per micro-batch */
};

static int find_mbs(const struct simai_workload *w, struct mb_split *out)
{
	int first = -1, count = 0, len = 0;
	for (int i = 0; i < w->n; i++)
		if (strcmp(w->line[i].name, "embedding_layer") == 0) {
			if (count == 0)
				first = i;
			else if (count == 1)
				len = i - first;
			else if (i - first != count * len)
				return -1;
			count++;
		}
	if (count != w->ga)
		return -1;
	if (count == 1)
		len = w->n - first; /* the only micro-batch: the rest of the file */
	if (first + (long long)count * len > w->n)
		return -1;
	out->first = first;
	out->len = len;
	return 0;
}

/* Lines [a, b) of micro-batch mb's chunk c. */
static void chunk_lines(const struct job_spec *s, const struct mb_split *m, int64_t mb, int c, int *a, int *b)
{
	int base = m->first + (int)mb * m->len;
	*a = base + (int)((int64_t)c * m->len / s->vpp);
	*b = base + (int)((int64_t)(c + 1) * m->len / s->vpp);
}

static int fail_file(const struct config *cfg, const char *sec, char **err, const char *fmt, long long a,
		     long long b)
{
	*err = cfg_error_at(cfg, sec, "file", 0, fmt, a, b);
	return -1;
}

long long wl_simai_ranks(const char *file)
{
	char *text, *msg = NULL;
	size_t len;
	struct simai_workload w;
	if (lex_read_file(file, &text, &len, &msg) < 0) {
		free(msg);
		return -1;
	}
	int rc = simai_parse(file, text, len, &w, &msg);
	free(text);
	if (rc < 0) {
		free(msg);
		return -1;
	}
	long long n = w.all_gpus;
	simai_free(&w);
	return n;
}

int wl_simai_spec_init(struct job_spec *s, const struct config *cfg, const char *sec, const char *name,
		       const struct job_cfg *j, int n_gpus, char **err)
{
	memset(s, 0, sizeof *s);
	s->name = name;
	s->cfg = j;
	char *text, *msg = NULL;
	size_t len;
	struct simai_workload w;
	if (lex_read_file(j->file, &text, &len, &msg) < 0 || (simai_parse(j->file, text, len, &w, &msg) < 0 &&
							     (free(text), 1))) {
		*err = cfg_error_at(cfg, sec, "file", 0, "%s", msg);
		free(msg);
		return -1;
	}
	free(text);
	/* A dense model of the layout's size: no MoE routing, no derived times. */
	s->model = (struct job_model){ .preset = "simai", .layers = 1, .hidden = 1, .ffn_hidden = 1, .heads = 1,
				       .kv_heads = 1, .seq_len = 1, .vocab = 1, .experts = 1, .top_k = 1,
				       .moe_every = 1 };
	s->gpu = job_gpu_by_name(j->gpu);
	s->tp = w.tp, s->pp = w.pp, s->ep = w.ep, s->etp = w.tp, s->cp = 1;
	s->dp = w.all_gpus / (w.tp * w.pp);
	s->edp = s->dp / s->ep;
	s->gpus_per_host = world_cfg_gpus_per_host(cfg);
	s->b = 1;
	int rc = 0;
	struct mb_split mbs = { 0, w.n };
	if (w.all_gpus > n_gpus) {
		rc = fail_file(cfg, sec, err, "the workload file's job needs all_gpus = %lld GPUs; its hosts have %lld",
			       w.all_gpus, n_gpus);
	} else if (w.pp > 1 && find_mbs(&w, &mbs) < 0) {
		rc = fail_file(cfg, sec, err, "with pp = %lld the file's ga = %lld micro-batches must be found: as many "
			       "equally spaced lines named embedding_layer", w.pp, w.ga);
	} else if (w.pp > 1 && w.vpp > mbs.len) {
		rc = fail_file(cfg, sec, err, "vpp = %lld model chunks need as many lines per micro-batch (%lld)",
			       w.vpp, mbs.len);
	} else if (w.pp > 1 && w.vpp > 1 && w.ga % w.pp != 0) {
		rc = fail_file(cfg, sec, err, "interleaved 1F1B (vpp > 1) needs ga (%lld) to be a multiple of pp (%lld)",
			       w.ga, w.pp);
	} else if ((long long)w.pp * (6LL * w.n + 6LL * w.ga * w.vpp) > SIMAI_MAX_OPS) {
		/* At most 6 ops per line and per pass, on every stage. */
		rc = fail_file(cfg, sec, err, "the plan is too large to hold (%lld stages of %lld layer lines)", w.pp,
			       w.n);
	}
	for (int i = 0; rc == 0 && i < w.n; i++) {
		const struct simai_line *l = &w.line[i];
		const char *bad = l->fwd.group == SIMAI_DP_EP ? "forward" : l->ig.group == SIMAI_DP_EP ? "input-gradient"
			: NULL;
		if (bad || l->wg.group == SIMAI_EP) {
			*err = cfg_error_at(cfg, sec, "file", 0, "%s:%d: layer %s: %s collectives are not supported "
					    "(forward and input-gradient ones run over TP or EP, weight-gradient ones "
					    "over DP or the expert-DP group)", j->file, l->line, l->name,
					    bad ? (strcmp(bad, "forward") ? "_DP_EP input-gradient" : "_DP_EP forward")
					    : "_EP weight-gradient");
			rc = -1;
		}
	}
	if (rc < 0) {
		simai_free(&w);
		return -1;
	}
	s->m = w.pp > 1 ? w.ga : 1;
	s->vpp = w.pp > 1 ? w.vpp : 1;
	s->layers_per_chunk = 1;
	s->layers_per_stage = s->vpp;
	s->act_b = w.pp_comm_b; /* wl_pp_send: tp x act_b per worker, act_b per rank */
	s->tokens = 1;
	char *dims[JOB_NDIMS];
	size_t nd = 0;
	for (size_t i = 0; i < j->n_rank_order && nd < JOB_NDIMS; i++)
		if (strcmp(j->rank_order[i], "cp") != 0)
			dims[nd++] = j->rank_order[i];
	if (job_layout_init(&s->layout, s->tp, s->pp, s->dp, s->ep, dims, nd) < 0)
		die_internal("[%s] rank_order is not a permutation of tp, ep, dp, pp", sec); /* the rules' */

	/* Buckets: one per weight-gradient collective that runs, per stage. */
	int *bucket_of = xmalloc((size_t)w.n * sizeof *bucket_of);
	int per_stage = 0;
	for (int i = 0; i < w.n; i++) {
		const struct simai_comm *c = &w.line[i].wg;
		bucket_of[i] = runs(s, c) ? per_stage++ : -1;
	}
	s->n_buckets = per_stage * s->pp;
	s->bucket = xcalloc((size_t)s->n_buckets + 1, sizeof *s->bucket);
	for (int st = 0; st < s->pp; st++)
		for (int i = 0; i < w.n; i++)
			if (bucket_of[i] >= 0) {
				struct job_bucket *b = &s->bucket[st * per_stage + bucket_of[i]];
				const struct simai_comm *c = &w.line[i].wg;
				b->stage = st;
				b->expert = c->group == SIMAI_DP_EP;
				b->file_b = c->size_b;
				b->file_op = c->op;
			}

	s->prog = xcalloc((size_t)s->pp, sizeof *s->prog);
	struct wl_pp_slot *slots = xmalloc((size_t)(2 * s->m * s->vpp) * sizeof *slots);
	/* Lines [0, pro) are the prologue and [epi, n) the epilogue (pp > 1);
	 * with pp = 1 every line is in [epi, n). */
	int pro = w.pp > 1 ? mbs.first : 0, epi = w.pp > 1 ? mbs.first + w.ga * mbs.len : 0;
	for (int st = 0; st < s->pp; st++) {
		struct job_prog *p = &s->prog[st];
		int base = st * per_stage;
#define BUCKET(i) (bucket_of[i] >= 0 ? base + bucket_of[i] : -1)
		job_prog_block(p, JOB_FWD, 0);
		for (int i = 0; i < pro; i++)
			line_fwd(s, p, &w.line[i]);
		if (w.pp > 1) {
			wl_pp_schedule_interleaved(s->pp, st, s->m, s->vpp, slots);
			for (int64_t k = 0; k < 2 * s->m * s->vpp; k++) {
				const struct wl_pp_slot *sl = &slots[k];
				int a, b;
				chunk_lines(s, &mbs, sl->mb, sl->chunk, &a, &b);
				job_prog_block(p, sl->dir, sl->mb);
				wl_pp_recv(s, p, st, sl->chunk, sl->dir, sl->mb);
				if (sl->dir == JOB_FWD)
					for (int i = a; i < b; i++)
						line_fwd(s, p, &w.line[i]);
				else
					for (int i = b - 1; i >= a; i--)
						line_bwd(s, p, &w.line[i], BUCKET(i));
				wl_pp_send(s, p, st, sl->chunk, sl->dir, sl->mb);
			}
		}
		job_prog_block(p, JOB_FWD, s->m - 1);
		for (int i = epi; i < w.n; i++)
			line_fwd(s, p, &w.line[i]);
		job_prog_block(p, JOB_BWD, s->m - 1);
		for (int i = w.n - 1; i >= epi; i--)
			line_bwd(s, p, &w.line[i], BUCKET(i));
		job_prog_block(p, JOB_BWD, 0);
		for (int i = pro - 1; i >= 0; i--)
			line_bwd(s, p, &w.line[i], BUCKET(i));
#undef BUCKET
	}
	free(slots);
	free(bucket_of);
	simai_free(&w);
	return 0;
}

int wl_simai_uses(const struct job_spec *s, struct wl_alg_use *use)
{
	int k = 0;
	for (int st = 0; st < s->pp; st++)
		for (int i = 0; i < s->prog[st].n; i++) {
			const struct job_op *op = &s->prog[st].op[i];
			struct wl_alg_use u;
			if (op->kind == JOP_TP || op->kind == JOP_EP) {
				u.op = (enum coll_op)op->coll;
				u.n = op->kind == JOP_TP ? s->tp : s->ep;
			} else if (op->kind == JOP_GRAD) {
				uint64_t size;
				wl_dp_reduce(s, &s->bucket[op->idx], &u.op, &size);
				u.n = wl_dp_group_size(s, &s->bucket[op->idx]);
			} else if (op->kind == JOP_SEND) {
				u.op = COLL_SENDRECV;
				u.n = 2;
			} else {
				continue;
			}
			bool seen = false;
			for (int x = 0; x < k && !seen; x++)
				seen = use[x].op == u.op && use[x].n == u.n;
			if (!seen && k < WL_ALG_USES) /* 5 ops x 4 group sizes at most */
				use[k++] = u;
		}
	return k;
}
