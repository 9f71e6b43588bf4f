/*
 * job_plan_totals.c — the bytes and messages each parallelism moves in
 * one iteration of a job, found by walking its stage programs (see
 * job_plan.h): what `--check` prints and what the simulation must match.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "job_plan.h"
#include "log.h"
#include "nic.h"
#include "workload.h"
#include "xalloc.h"

bool job_coll_empty(enum coll_op op, int n, uint64_t size_b, const uint64_t *a2a)
{
	if (n < 2)
		return true;
	if (op != COLL_ALLTOALL || !a2a)
		return size_b == 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++)
			if (i != k && a2a[i * n + k])
				return false;
	return true;
}

/* coll_plan results of the distinct collectives of a plan (a plan repeats
 * the same few shapes thousands of times). A multicast collective's
 * messages depend on which of its ranks share a host (coll_mcast.c): its
 * entries also key on the group's host pattern (each rank's host numbered
 * by first appearance), NULL for the others. */
struct plan_cache {
	struct { enum coll_op op; int n; uint64_t size_b, bytes, messages; uint64_t *a2a; int *pat; } e[64];
	int n;
};

/* ranks: the group's job ranks (multicast algorithms), NULL = any ranks on
 * hosts of their own. */
static void add(struct job_plan_totals *t, struct plan_cache *pc, enum job_par par, uint64_t times,
		const struct job_spec *s, enum coll_op op, int n, uint64_t size_b, const uint64_t *a2a,
		const int *ranks)
{
	size_t nn = (size_t)n * (size_t)n;
	if (job_coll_empty(op, n, size_b, a2a))
		return; /* job_exec_coll.c starts nothing for these either */
	int *pat = NULL;
	if (ranks) {
		pat = xmalloc((size_t)n * sizeof *pat);
		for (int i = 0; i < n; i++) {
			pat[i] = i;
			for (int k = 0; k < i; k++)
				if (ranks[k] / s->gpus_per_host == ranks[i] / s->gpus_per_host) {
					pat[i] = pat[k];
					break;
				}
		}
	}
	int hit = -1;
	for (int i = 0; i < pc->n && hit < 0; i++)
		if (pc->e[i].op == op && pc->e[i].n == n && pc->e[i].size_b == size_b &&
		    (!a2a ? !pc->e[i].a2a : pc->e[i].a2a && !memcmp(a2a, pc->e[i].a2a, nn * sizeof *a2a)) &&
		    (!pat ? !pc->e[i].pat : pc->e[i].pat && !memcmp(pat, pc->e[i].pat, (size_t)n * sizeof *pat)))
			hit = i;
	if (hit < 0) {
		int *gpus = xmalloc((size_t)n * sizeof *gpus);
		for (int i = 0; i < n; i++)
			gpus[i] = ranks ? ranks[i] : i;
		struct coll_spec cs = { .op = op, .algorithm = job_coll_alg(s, op), .gpus = gpus, .n = n,
					.size_b = size_b, .a2a_b = a2a, .chunk_b = s->cfg->chunk_b,
					.channels = s->cfg->channels, .iteration = -1,
					.gpus_per_host = ranks ? s->gpus_per_host : 1 };
		hit = pc->n < 64 ? pc->n++ : 63;
		free(pc->e[hit].a2a);
		free(pc->e[hit].pat);
		pc->e[hit].op = op;
		pc->e[hit].n = n;
		pc->e[hit].size_b = size_b;
		pc->e[hit].a2a = a2a ? xmalloc(nn * sizeof *a2a) : NULL;
		if (a2a)
			memcpy(pc->e[hit].a2a, a2a, nn * sizeof *a2a);
		pc->e[hit].pat = pat;
		pat = NULL;
		coll_plan(&cs, &pc->e[hit].bytes, &pc->e[hit].messages);
		free(gpus);
	}
	free(pat);
	t->bytes[par] += times * pc->e[hit].bytes;
	t->messages[par] += times * pc->e[hit].messages;
}

/* Multicast plans walk the job's real groups (which ranks share a host
 * decides their messages); with one GPU per host every group is alike. */
static bool mc_groups(const struct job_spec *s, enum coll_op op)
{
	const char *alg = job_coll_alg(s, op);
	return s->gpus_per_host > 1 && alg && strcmp(alg, "multicast") == 0;
}

void job_plan_totals(const struct job_spec *s, struct job_plan_totals *t)
{
	memset(t, 0, sizeof *t);
	struct plan_cache *pc = xcalloc(1, sizeof *pc);
	uint64_t dp = (uint64_t)s->dp, edp = (uint64_t)s->edp, cp = (uint64_t)s->cp;
	int width = job_width(s);
	size_t ep2 = (size_t)s->ep * (size_t)s->ep;
	uint64_t *mat = xcalloc(ep2, sizeof *mat), *shard = xcalloc(ep2, sizeof *shard);
	int *ranks = xmalloc((size_t)s->layout.n_ranks * sizeof *ranks);
	wl_ep_expected(s, mat);
	for (int st = 0; st < s->pp; st++) {
		const struct job_prog *p = &s->prog[st];
		for (int i = 0; i < p->n; i++) {
			const struct job_op *op = &p->op[i];
			switch ((enum job_op_kind)op->kind) {
			case JOP_TP:   /* each of the stage's dp workers: one tp group per cp index */
				if (op->expert && (s->etp != s->tp || !mc_groups(s, op->coll))) {
					/* tp/etp expert-TP groups per worker (moe_layout.c) */
					add(t, pc, JOB_PAR_TP, dp * (uint64_t)(s->tp / s->etp), s, op->coll, s->etp, op->val,
					    NULL, NULL);
					break;
				}
				if (!mc_groups(s, op->coll)) {
					add(t, pc, JOB_PAR_TP, dp * cp, s, op->coll, s->tp, op->val, NULL, NULL);
					break;
				}
				for (int d = 0; d < s->dp; d++)
					for (int c = 0; c < s->cp; c++) {
						for (int r = 0; r < s->tp; r++)
							ranks[r] = job_layout_rank_dp(&s->layout, c * s->tp + r, d, st);
						add(t, pc, JOB_PAR_TP, 1, s, op->coll, s->tp, op->val, NULL, ranks);
					}
				break;
			case JOP_SEND: /* each worker: tp x cp sendrecvs of 1/(tp x cp) of val */
				for (int r = 0; r < width; r++)
					add(t, pc, JOB_PAR_PP, dp, s, COLL_SENDRECV, 2,
					    coll_split(op->val, (uint64_t)width, (uint64_t)r), NULL, NULL);
				break;
			case JOP_CP:   /* each worker: per tp index, cp sendrecvs around the ring */
				add(t, pc, JOB_PAR_CP, dp * (uint64_t)s->tp * cp, s, COLL_SENDRECV, 2, op->val, NULL, NULL);
				break;
			case JOP_EP:   /* each of the stage's edp ep groups: etp all-to-alls */
				if (op->val) { /* a workload file's: one collective per tp index */
					add(t, pc, JOB_PAR_EP, edp * (uint64_t)s->tp, s, op->coll, s->ep, op->val, NULL,
					    NULL);
					break;
				}
				for (int r = 0; r < s->etp; r++) {
					wl_ep_shard(mat, s->ep, op->transpose, s->etp, r, shard);
					add(t, pc, JOB_PAR_EP, edp, s, COLL_ALLTOALL, s->ep, 0, shard, NULL);
				}
				break;
			case JOP_ZERO_AG: /* one dp group per tp index */
				if (!mc_groups(s, op->coll)) {
					add(t, pc, JOB_PAR_DP, (uint64_t)s->tp, s, op->coll, s->dp, op->val, NULL, NULL);
					break;
				}
				for (int r = 0; r < s->tp; r++) {
					for (int d = 0; d < s->dp; d++)
						ranks[d] = job_layout_rank_dp(&s->layout, r, d, st);
					add(t, pc, JOB_PAR_DP, 1, s, op->coll, s->dp, op->val, NULL, ranks);
				}
				break;
			case JOP_GRAD: {
				const struct job_bucket *b = &s->bucket[op->idx];
				enum coll_op cop;
				uint64_t size;
				uint64_t groups = b->expert ? (uint64_t)s->etp * (uint64_t)s->ep : (uint64_t)s->tp;
				wl_dp_reduce(s, b, &cop, &size);
				/* The parameter gather once per iteration, with the last micro-batch's reduction. */
				uint64_t g = op->mb == s->m - 1 ? wl_zero_gather_b(s, b) : 0;
				if (!mc_groups(s, cop) && (!g || !mc_groups(s, COLL_ALLGATHER))) {
					/* every group alike: with one GPU per host, or sizes only */
					add(t, pc, JOB_PAR_DP, groups, s, cop, wl_dp_group_size(s, b), size, NULL, NULL);
					if (g)
						add(t, pc, JOB_PAR_DP, groups, s, COLL_ALLGATHER, wl_dp_group_size(s, b), g,
						    NULL, NULL);
					break;
				}
				/* The groups job_exec_coll.c's dp_group_gpus builds: per ep index, per tp index. */
				for (int e = 0; e < (b->expert ? s->ep : 1); e++)
					for (int r = 0; r < s->tp; r++) {
						int n = job_dp_group_ranks(s, b, r, e, ranks);
						add(t, pc, JOB_PAR_DP, 1, s, cop, n, size, NULL, ranks);
						if (g)
							add(t, pc, JOB_PAR_DP, 1, s, COLL_ALLGATHER, n, g, NULL, ranks);
					}
				break;
			}
			case JOP_COMPUTE:
			case JOP_RECV:
			case JOP_AG_WAIT:
			case JOP_PARAM_WAIT:
			case JOP_CP_WAIT:
			case JOP_N:
				break;
			}
		}
	}
	if (s->emb_b && !mc_groups(s, COLL_ALLREDUCE))
		add(t, pc, JOB_PAR_DP, dp * (uint64_t)width, s, COLL_ALLREDUCE, 2, s->emb_b, NULL, NULL);
	for (int d = 0; s->emb_b && mc_groups(s, COLL_ALLREDUCE) && d < s->dp; d++)
		for (int r = 0; r < width; r++) { /* job_exec_coll.c's embedding pair */
			ranks[0] = job_layout_rank_dp(&s->layout, r, d, 0);
			ranks[1] = job_layout_rank_dp(&s->layout, r, d, s->pp - 1);
			add(t, pc, JOB_PAR_DP, 1, s, COLL_ALLREDUCE, 2, s->emb_b, NULL, ranks);
		}
	free(ranks);
	for (int i = 0; i < pc->n; i++) {
		free(pc->e[i].a2a);
		free(pc->e[i].pat);
	}
	free(pc);
	free(mat);
	free(shard);
}
