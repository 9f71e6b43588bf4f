/*
 * job_dp_plan.c — what a data-parallel job's iteration is, for a driver
 * that runs the same job step by step outside rocesim (the library, api.c)
 * and must post the same collectives at the same times.
 *
 * Only programs that are "compute, then the gradient reductions, then the
 * optimizer step" qualify: tp = pp = cp = ep = 1, zero 0, no tied
 * embedding reduction, and no GRAD before the last COMPUTE (no
 * overlap_grad_reduce). Everything is read from the job's own plan (struct
 * job_spec, the program job_exec.c executes), not recomputed.
 */
#include <stdlib.h>
#include <string.h>
#include "job_exec_internal.h"
#include "job_plan.h"
#include "workload.h"
#include "xalloc.h"

int jobs_dp_plan(const struct jobs *js, const char *name, struct job_dp_plan *out, char **err)
{
	memset(out, 0, sizeof *out);
	const struct job *j = NULL;
	for (int i = 0; js && i < js->n; i++)
		if (strcmp(js->job[i].spec.name, name) == 0)
			j = &js->job[i];
	if (!j) {
		*err = str_printf("no [job.%s] in the scenario", name);
		return -1;
	}
	const struct job_spec *s = &j->spec;
	if (s->tp != 1 || s->pp != 1 || s->cp != 1 || s->ep != 1 || s->zero != 0 || s->emb_b ||
	    s->cfg->overlap_grad_reduce) {
		*err = str_printf("[job.%s] is not data-parallel only (needs tp = pp = ep = 1, zero = 0, "
				  "overlap_grad_reduce = off)", name);
		return -1;
	}
	const struct job_prog *p = &s->prog[0];
	bool reducing = false;
	for (int k = 0; k < p->n; k++) {
		const struct job_op *op = &p->op[k];
		if (op->kind == JOP_COMPUTE && !reducing) {
			out->compute_ps += (simtime_t)op->val;
		} else if (op->kind == JOP_GRAD) {
			reducing = true;
		} else {
			*err = str_printf("[job.%s]: its program has a step other than compute before the "
					  "gradient reductions (op %d of %d)", name, k, p->n);
			return -1;
		}
	}
	out->iterations = s->cfg->iterations;
	out->start_ps = s->cfg->start;
	out->optimizer_ps = s->t_opt;
	out->allreduce = job_coll_alg(s, COLL_ALLREDUCE);
	out->chunk_b = s->cfg->chunk_b;
	out->channels = s->cfg->channels;
	out->n_buckets = s->n_buckets;
	out->bucket_b = xcalloc((size_t)s->n_buckets + 1, sizeof *out->bucket_b);
	for (int b = 0; b < s->n_buckets; b++) {
		enum coll_op op;
		wl_dp_reduce(s, &s->bucket[b], &op, &out->bucket_b[b]);
		if (op != COLL_ALLREDUCE) {
			*err = str_printf("[job.%s]: bucket %d is reduced by %s, not allreduce", name, b,
					  coll_op_name(op));
			job_dp_plan_free(out);
			return -1;
		}
	}
	out->gpus = xcalloc((size_t)s->dp + 1, sizeof *out->gpus);
	out->n_gpus = job_dp_group_ranks(s, &s->bucket[0], 0, 0, out->gpus);
	for (int i = 0; i < out->n_gpus; i++)
		out->gpus[i] = j->gpu[out->gpus[i]];
	return 0;
}

void job_dp_plan_free(struct job_dp_plan *p)
{
	free(p->bucket_b);
	free(p->gpus);
	p->bucket_b = NULL;
	p->gpus = NULL;
}
