/*
 * job_timeline.c — the iteration's critical path and the workers' compute
 * spans (see job_timeline.h).
 *
 * The `iteration` row splits the critical path into:
 *   exposed_X_ps  communication of parallelism X on the path: time the
 *                 path waited on the network (a collective, or a send
 *                 between stages that a later stage waited for)
 *   compute_ps    the path's compute, up to the busiest stage's compute
 *   bubble_ps     the rest of the path's compute: other stages computing
 *                 while the busiest stage had nothing to do (the
 *                 pipeline's fill and drain)
 *   slow_ps       the path's compute beyond the plan: time the iteration
 *                 lost to stragglers (job_slow.h)
 * so compute + bubble + Σ exposed + slow = end − start. critical_gpu names
 * the GPU whose slow-down put the most slow time on the path (NULL when
 * slow_ps is 0); compute and bubble count planned times only. A stage's compute is the
 * sum over its program's compute steps of the longest any of its
 * data-parallel workers took for the step: its workers run the same
 * program, and where they differ (MoE experts sized by the tokens they
 * got) the one with the most tokens holds its EP group back at the next
 * all-to-all, so a hot expert's compute is compute on the path, not a
 * bubble. Without MoE the workers of a stage compute alike, and a stage's
 * compute is each worker's. On a free fabric a p-stage 1F1B pipeline of m
 * equal micro-batches has a path of (m + p − 1)(t_f + t_b) of compute and
 * a busiest stage computing m(t_f + t_b): bubble = (p − 1)(t_f + t_b) =
 * (p − 1)/m of the ideal.
 *
 * A compute span is a run of a worker's compute steps of one micro-batch
 * and direction (its forward or backward through the stage's layers);
 * the blocking collectives between the steps (TP, EP all-to-alls, ZeRO-3
 * gathers) lie inside the span (end − start − compute_ps). One row per span, written when the next span begins or
 * the worker finishes its program.
 */
#include <string.h>
#include "job_exec.h"
#include "job_timeline.h"
#include "log.h"
#include "nic.h"
#include "results.h"

/* Names of the span kinds: the direction of the compute op's block, and
 * the optimizer step (job_timeline_optimizer). */
enum { SPAN_OPT = 2 };
static const char *const span_kind[] = { [JOB_FWD] = "fwd", [JOB_BWD] = "bwd", [SPAN_OPT] = "optimizer" };

void job_path_reset(struct job_path *p, simtime_t start)
{
	memset(p, 0, sizeof *p);
	p->end = start;
}

void job_path_extend(struct job_path *p, int cat, simtime_t now)
{
	p->t[cat] += now - p->end;
	p->end = now;
}

void job_path_step(struct job_path *p, simtime_t plan_end, simtime_t now, int gpu)
{
	if (plan_end >= now || gpu < 0) {
		job_path_extend(p, JOB_PATH_COMPUTE, now);
		return;
	}
	if (plan_end > p->end)
		job_path_extend(p, JOB_PATH_COMPUTE, plan_end);
	simtime_t slow = now - p->end;
	job_path_extend(p, JOB_PATH_SLOW, now);
	int at = -1, least = 0;
	for (int i = 0; i < JOB_PATH_BLAME && at < 0; i++)
		if (p->blame_ps[i] && p->blame_gpu[i] == gpu)
			at = i;
	for (int i = 0; i < JOB_PATH_BLAME && at < 0; i++)
		if (!p->blame_ps[i])
			at = i;
		else if (p->blame_ps[i] < p->blame_ps[least])
			least = i;
	if (at < 0) { /* full: the smallest share gives way to a larger one */
		if (p->blame_ps[least] >= slow)
			return;
		at = least;
		p->blame_ps[at] = 0;
	}
	p->blame_gpu[at] = gpu;
	p->blame_ps[at] += slow;
}

void job_path_later(struct job_path *dst, const struct job_path *src)
{
	if (src->end > dst->end)
		*dst = *src;
}

/* A compute_span row of worker wk (mb < 0: none, the optimizer step). */
static void span_row(struct job *j, const struct job_worker *wk, int64_t mb, unsigned kind, simtime_t start,
		     simtime_t end, simtime_t compute)
{
	struct results *res = world_copied_rows(j->w);
	if (!res)
		return;
	if (!j->span_table)
		j->span_table = results_table(res, "compute_span", "job, iteration, stage, dp_index, gpu, micro_batch,"
					      " kind, start_ps, end_ps, compute_ps");
	if (!j->span_table)
		return;
	char name[48];
	int gpu = j->gpu[job_layout_rank_dp(&j->spec.layout, 0, wk->d, wk->stage)];
	results_row(res, j->span_table, "sliiststtt", j->spec.name, j->iter, wk->stage, wk->d,
		    world_gpu_name(j->w, gpu, name, sizeof name), (simtime_t)(mb < 0 ? -1 : mb),
		    kind < sizeof span_kind / sizeof *span_kind ? span_kind[kind] : NULL, start, end, compute);
}

static void span_write(struct job *j, struct job_worker *wk)
{
	struct job_span *sp = &wk->span;
	sp->open = false;
	span_row(j, wk, sp->mb, sp->kind, sp->start, sp->end, sp->compute);
}

void job_timeline_optimizer(struct job *j)
{
	simtime_t now = j->w->sim->now;
	/* Every worker steps at once, after the last reduction: compute
	 * continuing the chain that ended last. */
	job_path_step(&j->tail, j->opt_start + j->spec.t_opt, now, j->opt_slow_gpu);
	j->opt_ps = j->spec.t_opt;
	for (int i = 0; i < j->n_workers; i++)
		span_row(j, &j->wk[i], -1, SPAN_OPT, j->opt_start, now, now - j->opt_start);
}

void job_timeline_compute(struct job *j, struct job_worker *wk, const struct job_op *op)
{
	simtime_t now = j->w->sim->now, start = wk->t0;
	struct job_span *sp = &wk->span;
	simtime_t *step = &j->step_ps[j->step_base[wk->stage] + wk->pc];
	job_path_step(&wk->path, start + wk->plan_ps, now, wk->slow_gpu);
	if (wk->plan_ps > *step) /* the plan's: a slow-down is slow_ps, not compute */
		*step = wk->plan_ps;
	if (sp->open && (sp->mb != op->mb || sp->kind != op->dir))
		span_write(j, wk);
	if (!sp->open) {
		sp->open = true;
		sp->mb = op->mb;
		sp->kind = op->dir;
		sp->start = start;
		sp->compute = 0;
	}
	sp->end = now;
	sp->compute += now - start;
}

void job_timeline_flush(struct job *j, struct job_worker *wk)
{
	if (wk->span.open)
		span_write(j, wk);
}

/* Whether wk is in a compute step (its next op is COMPUTE, scheduled). */
static bool computing(const struct job *j, const struct job_worker *wk)
{
	const struct job_prog *p = &j->spec.prog[wk->stage];
	return !wk->finished && wk->pc < p->n && p->op[wk->pc].kind == JOP_COMPUTE;
}

void job_timeline_iteration(struct job *j, bool finished)
{
	struct sim *sim = j->w->sim;
	struct job_path p = j->tail;
	simtime_t busiest = 0, exposed = 0, sum = 0;
	for (int i = 0; !finished && i < j->n_workers; i++) {
		/* Cut short: the longest chain so far, each worker's running
		 * compute step counted up to now; its spans so far are
		 * written. */
		struct job_worker *wk = &j->wk[i];
		struct job_path q = wk->path;
		if (computing(j, wk)) {
			simtime_t *step = &j->step_ps[j->step_base[wk->stage] + wk->pc];
			simtime_t ran = sim->now - wk->t0 < wk->plan_ps ? sim->now - wk->t0 : wk->plan_ps;
			job_path_step(&q, wk->t0 + wk->plan_ps, sim->now, wk->slow_gpu);
			if (ran > *step)
				*step = ran;
		}
		job_path_later(&p, &q);
		job_timeline_flush(j, wk);
	}
	if (!finished && j->stepping) {
		/* Cut short during the optimizer step: it runs on every worker. */
		struct job_path q = j->tail;
		job_path_step(&q, j->opt_start + j->spec.t_opt, sim->now, j->opt_slow_gpu);
		job_path_later(&p, &q);
		j->opt_ps = sim->now - j->opt_start < j->spec.t_opt ? sim->now - j->opt_start : j->spec.t_opt;
	}
	for (int st = 0; st < j->spec.pp; st++) {
		simtime_t c = j->opt_ps; /* every stage steps the optimizer */
		for (int k = j->step_base[st]; k < j->step_base[st + 1]; k++)
			c += j->step_ps[k];
		if (c > busiest)
			busiest = c;
	}
	for (int c = 0; c < JOB_PATH_N; c++)
		sum += p.t[c];
	for (int c = 0; c < JOB_NPAR; c++)
		exposed += p.t[c];
	int blamed = -1;
	for (int i = 0; i < JOB_PATH_BLAME; i++)
		if (p.blame_ps[i] && (blamed < 0 || p.blame_ps[i] > p.blame_ps[blamed]))
			blamed = i;
	char critical[48];
	if (blamed >= 0)
		world_gpu_name(j->w, p.blame_gpu[blamed], critical, sizeof critical);
	/* By construction (job_timeline.h): the path is contiguous from the
	 * iteration's start to its end (unfinished: to its last activity). */
	if ((finished && p.end != sim->now) || sum != p.end - j->iter_start)
		die_internal("job %s iteration %lld: critical path of %lld ps ending at %lld ps, iteration %lld..%lld ps",
			     j->spec.name, (long long)j->iter, (long long)sum, (long long)p.end,
			     (long long)j->iter_start, (long long)sim->now);
	simtime_t compute = p.t[JOB_PATH_COMPUTE] < busiest ? p.t[JOB_PATH_COMPUTE] : busiest;
	struct results *res = world_copied_rows(j->w);
	if (!res)
		return;
	if (!j->table)
		j->table = results_table(res, "iteration",
					 "job, iteration, start_ps, end_ps, compute_ps, comm_ps, exposed_comm_ps,"
					 " bubble_ps, exposed_tp_ps, exposed_pp_ps, exposed_dp_ps, exposed_ep_ps, exposed_cp_ps,"
					 " slow_ps, critical_gpu");
	/* One exposed_X_ps column per parallelism: a new one needs its
	 * column here and in analysis/schema.sql. */
	_Static_assert(JOB_NPAR == 5, "iteration row: one exposed_X_ps column per enum job_par");
	if (j->table)
		results_row(res, j->table, "sltttttttttttts", j->spec.name, j->iter, j->iter_start,
			    finished ? sim->now : (simtime_t)-1, compute, j->comm_ps, exposed,
			    p.t[JOB_PATH_COMPUTE] - compute, p.t[JOB_PAR_TP], p.t[JOB_PAR_PP], p.t[JOB_PAR_DP],
			    p.t[JOB_PAR_EP], p.t[JOB_PAR_CP], p.t[JOB_PATH_SLOW], blamed >= 0 ? critical : NULL);
}
