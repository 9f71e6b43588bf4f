/*
 * job_exec.c — executing the stage programs of a job (see job_exec.h).
 *
 * Each worker walks its stage's op list: a compute op is one timed event,
 * a blocking op waits for its collectives (or its rendezvous and then its
 * collectives), sends and gradient reductions are posted and left to run
 * beside the compute. Work per op is O(tp) plus the collectives it starts;
 * nothing here runs per packet.
 *
 * Invariants: a worker is either computing (one event pending), blocked
 * (in a join, a group or at a RECV) or finished; job->pending counts the
 * open non-blocking joins; an iteration ends only when every worker
 * finished and pending is 0.
 *
 * The joins, the collectives they start, the gradient reductions and the
 * waits on gathers are in job_exec_coll.c (job_exec_internal.h).
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job_exec_internal.h"
#include "log.h"
#include "results.h"
#include "workload.h"
#include "nic.h"
#include "xalloc.h"

/* ---- Blocking ops ---- */

static void worker_resume(struct job *j, struct job_join *jn)
{
	(void)j;
	struct job_worker *wk = jn->obj;
	wk->path = jn->path;
	wk->pc++;
	job_worker_run(wk);
}

static void group_resume(struct job *j, struct job_join *jn)
{
	(void)j;
	struct job_rdv *g = jn->obj;
	for (int i = 0; i < g->n; i++) {
		g->member[i]->path = jn->path;
		g->member[i]->pc++;
		job_worker_run(g->member[i]);
	}
}

static bool group_has_ref(const struct job *j, const struct job_rdv *g)
{
	for (int i = 0; i < g->n; i++)
		if (g->member[i] == &j->wk[0])
			return true;
	return false;
}

/* The EP group's all-to-alls, started when its last member arrived at op. */
static void group_start(struct job *j, struct job_rdv *g, const struct job_op *op, int stage)
{
	const struct job_spec *s = &j->spec;
	job_join_open(j, &g->join, false, group_has_ref(j, g), group_resume);
	if (op->val) { /* a workload file's collective: op->coll of val bytes per tp index */
		for (int t = 0; t < s->tp; t++) {
			for (int e = 0; e < s->ep; e++)
				j->tmp_gpus[e] = job_gpu_of(j, t, g->member[e]->d, stage);
			job_start_coll(j, &g->join, (enum coll_op)op->coll, "ep", j->tmp_gpus, s->ep, op->val, NULL);
		}
		job_join_close(j, &g->join);
		return;
	}
	for (int i = 0; i < wl_ep_unit_a2as(s); i++) {
		int x, et, t, d;
		wl_ep_unit_a2a(s, g->edp, i, &x, &et);
		for (int e = 0; e < s->ep; e++) {
			wl_ep_gpu(s, x, e, et, &t, &d);
			j->tmp_gpus[e] = job_gpu_of(j, t, d, stage);
		}
		wl_ep_shard(wl_ep_matrix(j->routing, op->idx, op->mb, x), s->ep, op->transpose, s->etp, et, j->tmp_mat);
		uint64_t sum = 0;
		for (int k = 0; k < s->ep * s->ep; k++)
			sum += j->tmp_mat[k];
		if (sum) /* size_b 0: the row shows the largest rank's bytes */
			job_start_coll(j, &g->join, COLL_ALLTOALL, "ep", j->tmp_gpus, s->ep, 0, j->tmp_mat);
	}
	job_join_close(j, &g->join);
}

/* ---- Sends and receives between stages ---- */

static void send_done(struct job *j, struct job_join *jn)
{
	struct job_worker *from = jn->obj;
	int to_stage = (from->stage + (jn->dir == JOB_FWD ? 1 : j->spec.pp - 1)) % j->spec.pp;
	struct job_worker *to = &j->wk[to_stage * j->spec.dp + from->d];
	to->got[jn->dir][jn->mb] = 1;
	if (to->at_recv) {
		const struct job_op *op = &j->spec.prog[to->stage].op[to->pc];
		if (op->dir == jn->dir && op->mb == jn->mb) {
			job_path_later(&to->path, &jn->path);
			to->at_recv = false;
			to->pc++;
			job_worker_run(to);
		}
	}
	job_iteration_check_end(j);
}

static void post_send(struct job *j, struct job_worker *wk, const struct job_op *op)
{
	const struct job_spec *s = &j->spec;
	int to_stage = (wk->stage + (op->dir == JOB_FWD ? 1 : s->pp - 1)) % s->pp; /* interleaved: wraps */
	struct job_join *jn = &wk->send[op->dir][op->mb];
	bool ref = wk == &j->wk[0] || (to_stage == 0 && wk->d == 0);
	job_join_open(j, jn, true, ref, send_done);
	job_join_chain(jn, JOB_PAR_PP, &wk->path);
	jn->obj = wk;
	jn->dir = op->dir;
	jn->mb = op->mb;
	for (int t = 0; t < job_width(s); t++) {
		int pair[2] = { job_gpu_of(j, t, wk->d, wk->stage), job_gpu_of(j, t, wk->d, to_stage) };
		job_start_coll(j, jn, COLL_SENDRECV, "pp", pair, 2,
			       coll_split(op->val, (uint64_t)job_width(s), (uint64_t)t), NULL);
	}
	job_join_close(j, jn);
}

/* ---- Ring attention steps (context parallelism) ---- */

static void cp_done(struct job *j, struct job_join *jn)
{
	(void)j;
	struct job_worker *wk = jn->obj;
	wk->cp_open = false;
	if (wk->at_cp_wait) { /* it waited: the step's chain goes on */
		wk->path = jn->path;
		wk->at_cp_wait = false;
		wk->pc++;
		job_worker_run(wk);
	}
}

/* Every cp rank sends op->val bytes to the next one of its ring, per tp
 * index; the worker computes on until its CP_WAIT. */
static void post_cp(struct job *j, struct job_worker *wk, const struct job_op *op)
{
	const struct job_spec *s = &j->spec;
	struct job_join *jn = &wk->cp_join;
	job_join_open(j, jn, false, wk == &j->wk[0], cp_done);
	job_join_chain(jn, JOB_PAR_CP, &wk->path);
	jn->obj = wk;
	wk->cp_open = true;
	for (int t = 0; t < s->tp; t++)
		for (int c = 0; c < s->cp; c++) {
			int pair[2] = { job_gpu_of(j, c * s->tp + t, wk->d, wk->stage),
					job_gpu_of(j, (c + 1) % s->cp * s->tp + t, wk->d, wk->stage) };
			job_start_coll(j, jn, COLL_SENDRECV, "cp", pair, 2, op->val, NULL);
		}
	job_join_close(j, jn);
}

/* ---- The worker ---- */

static void compute_done(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	struct job_worker *wk = obj;
	job_timeline_compute(wk->job, wk, &wk->job->spec.prog[wk->stage].op[wk->pc]);
	wk->pc++;
	job_worker_run(wk);
}

void job_worker_run(struct job_worker *wk)
{
	struct job *j = wk->job;
	const struct job_spec *s = &j->spec;
	const struct job_prog *p = &s->prog[wk->stage];
	while (wk->pc < p->n) {
		const struct job_op *op = &p->op[wk->pc];
		switch ((enum job_op_kind)op->kind) {
		case JOP_COMPUTE:
			/* In lock step: as slow as the worker's slowest GPU (job_slow.h). */
			wk->t0 = j->w->sim->now;
			wk->plan_ps = (simtime_t)(op->expert ? wl_ep_op_val(s, j->routing, op, wk->d, 0) : op->val);
			sched_in(j->w->sim, job_slow_time(wk->plan_ps, wk->slow_f), &j->elem, compute_done, wk, 0);
			return;
		case JOP_TP: /* one tp group per cp index */
			job_join_open(j, &wk->op_join, false, wk == &j->wk[0], worker_resume);
			job_join_chain(&wk->op_join, JOB_PAR_TP, &wk->path);
			wk->op_join.obj = wk;
			/* One TP group per cp index; an expert step: the worker's
			 * tp/etp expert-TP groups side by side. */
			for (int c = 0; c < s->cp; c++)
				for (int i = 0; i < (op->expert ? s->tp / s->etp : 1); i++) {
					int n = op->expert ? s->etp : s->tp;
					for (int t = 0; t < n; t++)
						j->tmp_gpus[t] = job_gpu_of(j, c * s->tp + i * n + t, wk->d, wk->stage);
					job_start_coll(j, &wk->op_join, op->coll, "tp", j->tmp_gpus, n,
						       op->expert ? wl_ep_op_val(s, j->routing, op, wk->d, i) : op->val, NULL);
				}
			job_join_close(j, &wk->op_join);
			return;
		case JOP_CP:
			post_cp(j, wk, op);
			break;
		case JOP_CP_WAIT:
			if (wk->cp_open) {
				wk->at_cp_wait = true;
				return;
			}
			break;
		case JOP_ZERO_AG:
			job_gather_arrive(j, wk, op);
			break;
		case JOP_AG_WAIT:
			if (job_wait_block(wk, &j->ag[j->ag_base[wk->stage] + op->idx]))
				return;
			break;
		case JOP_PARAM_WAIT: {
			const struct job_bucket *bk = &s->bucket[op->idx];
			int e = bk->expert && s->etp == s->tp ? wk->d % s->ep : 0; /* folded: one wait (job_start_gathers) */
			if (job_wait_block(wk, &j->param[op->idx * s->ep + e]))
				return;
			break;
		}
		case JOP_EP: {
			struct job_rdv *g = &j->ep_group[wk->stage * (s->dp / wl_ep_unit(s)) + wk->d / wl_ep_unit(s)];
			if (++g->arrived == g->n) {
				g->arrived = 0;
				job_join_chain(&g->join, JOB_PAR_EP, &wk->path);
				group_start(j, g, op, wk->stage);
			}
			return;
		}
		case JOP_RECV:
			if (!wk->got[op->dir][op->mb]) {
				wk->at_recv = true;
				return;
			}
			break;
		case JOP_SEND:
			post_send(j, wk, op);
			break;
		case JOP_GRAD:
			job_bucket_arrive(j, wk, op->idx, op->mb);
			break;
		case JOP_N:
			break;
		}
		wk->pc++;
	}
	if (wk->finished)
		return;
	wk->finished = true;
	job_timeline_flush(j, wk);
	job_path_later(&j->tail, &wk->path);
	j->workers_done++;
	job_embedding_arrive(j, wk);
	job_iteration_check_end(j);
}

/* ---- Iterations ---- */

static void iteration_start(struct sim *sim, void *obj, uintptr_t arg);

/* The current iteration's row (job_timeline.c), finished now or, when
 * not, unfinished with NULL end_ps (a run cut short). */
static void iteration_row(struct job *j, bool finished)
{
	job_stat_update(j);
	job_timeline_iteration(j, finished);
}

bool job_exec_write_unfinished(struct job *j)
{
	if (j->iter >= j->spec.cfg->iterations)
		return false;
	if (j->in_iteration)
		iteration_row(j, false);
	return true;
}

/* The optimizer step, once every gradient is reduced (before ZeRO-1/2's
 * parameter gathers): compute on every GPU at once, on the critical path
 * after the last reduction (j->tail), a compute span of its own kind on
 * every worker (job_timeline.c). */
static void optimizer_done(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	struct job *j = obj;
	j->stepping = false;
	job_timeline_optimizer(j);
	job_iteration_check_end(j);
}

static void optimizer_start(struct job *j)
{
	j->stepping = j->stepped = true;
	j->opt_start = j->w->sim->now;
	sched_in(j->w->sim, job_slow_time(j->spec.t_opt, j->opt_slow_f), &j->elem, optimizer_done, j, 0);
}

void job_iteration_check_end(struct job *j)
{
	if (j->workers_done < j->n_workers || j->pending > 0 || j->stepping)
		return;
	if (j->spec.t_opt > 0 && !j->stepped) {
		optimizer_start(j); /* its end calls back here */
		return;
	}
	if ((j->spec.zero == 1 || j->spec.zero == 2) && !j->spec.cfg->overlap_param_gather && !j->gathering) {
		job_start_gathers(j, false); /* its end calls back here */
		return;
	}
	struct sim *sim = j->w->sim;
	iteration_row(j, true);
	j->est_iter_ps = (double)(sim->now - j->iter_start); /* the progress line's next guess */
	/* Mark the iteration over before anything else can re-enter. */
	j->workers_done = -1;
	j->in_iteration = false;
	if (++j->iter < j->spec.cfg->iterations)
		sched_at(sim, sim->now, &j->elem, iteration_start, j, 0);
	else
		world_source_end(j->w);
}

static void iteration_start(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)arg;
	struct job *j = obj;
	const struct job_spec *s = &j->spec;
	j->iter_start = j->stat_t = sim->now;
	j->comm_ps = 0;
	j->workers_done = 0;
	j->gathering = false;
	j->in_iteration = true;
	j->stepped = false;
	j->opt_ps = 0;
	/* Before the overlapped parameter gathers below: they chain from it. */
	job_path_reset(&j->tail, sim->now);
	if (j->routing)
		wl_ep_routing_draw(j->routing, s, j->rng);
	job_slow_iteration(j);
	for (int i = 0; i < j->ag_base[s->pp]; i++)
		j->ag[i] = (struct job_wait){ .join = { .job = j } };
	for (int i = 0; j->param && i < s->n_buckets * s->ep; i++)
		j->param[i] = (struct job_wait){ .join = { .job = j } };
	memset(j->step_ps, 0, (size_t)j->step_base[s->pp] * sizeof *j->step_ps);
	if (s->cfg->overlap_param_gather)
		job_start_gathers(j, true);
	for (int i = 0; i < j->n_workers; i++) {
		struct job_worker *wk = &j->wk[i];
		wk->pc = 0;
		wk->next_wait = NULL;
		wk->finished = wk->at_recv = wk->at_cp_wait = wk->cp_open = false;
		job_path_reset(&wk->path, sim->now);
		wk->span.open = false;
		memset(wk->got[0], 0, (size_t)(s->m * s->vpp));
		memset(wk->got[1], 0, (size_t)(s->m * s->vpp));
	}
	for (int i = 0; i < j->n_workers; i++)
		job_worker_run(&j->wk[i]);
}

void job_exec_start(struct job *j)
{
	world_source_begin(j->w);
	sched_at(j->w->sim, j->spec.cfg->start, &j->elem, iteration_start, j, 0);
}

static void group_init(struct job *j, struct job_rdv *g, int n)
{
	g->n = n;
	g->member = xcalloc((size_t)n, sizeof *g->member);
	g->join.obj = g;
	g->join.job = j;
}

void job_exec_init(struct job *j)
{
	const struct job_spec *s = &j->spec;
	j->n_workers = s->pp * s->dp;
	j->wk = xcalloc((size_t)j->n_workers, sizeof *j->wk);
	for (int st = 0; st < s->pp; st++)
		for (int d = 0; d < s->dp; d++) {
			struct job_worker *wk = &j->wk[st * s->dp + d];
			wk->job = j;
			wk->stage = st;
			wk->d = d;
			for (int dir = 0; dir < 2; dir++) {
				wk->got[dir] = xcalloc((size_t)(s->m * s->vpp), 1);
				wk->send[dir] = xcalloc((size_t)(s->m * s->vpp), sizeof *wk->send[dir]);
			}
		}
	/* EP rendezvous: runs of wl_ep_unit workers (ep of them unless the
	 * experts fold, moe_layout.c); edp holds the run's index. */
	int unit = wl_ep_unit(s), units = s->dp / unit;
	j->ep_group = xcalloc((size_t)(s->pp * units), sizeof *j->ep_group);
	for (int st = 0; st < s->pp; st++)
		for (int u = 0; u < units; u++) {
			struct job_rdv *g = &j->ep_group[st * units + u];
			group_init(j, g, unit);
			g->edp = u;
			for (int i = 0; i < unit; i++)
				g->member[i] = &j->wk[st * s->dp + u * unit + i];
		}
	j->grad_m = s->zero >= 2 ? (int)s->m : 1;
	size_t slots = (size_t)s->n_buckets * (size_t)s->ep * (size_t)j->grad_m + 1;
	j->bucket_arrived = xcalloc(slots, sizeof *j->bucket_arrived);
	j->bucket_join = xcalloc(slots, sizeof *j->bucket_join);
	if (s->cfg->overlap_param_gather)
		j->param = xcalloc((size_t)(s->n_buckets * s->ep) + 1, sizeof *j->param);
	j->ag_base = xcalloc((size_t)s->pp + 1, sizeof *j->ag_base);
	for (int st = 0; st < s->pp; st++)
		j->ag_base[st + 1] = j->ag_base[st] + s->prog[st].n_slots;
	j->ag = xcalloc((size_t)j->ag_base[s->pp] + 1, sizeof *j->ag);
	j->step_base = xcalloc((size_t)s->pp + 1, sizeof *j->step_base);
	for (int st = 0; st < s->pp; st++)
		j->step_base[st + 1] = j->step_base[st] + s->prog[st].n;
	j->step_ps = xcalloc((size_t)j->step_base[s->pp] + 1, sizeof *j->step_ps);
	j->n_streams = s->pp * s->tp * (s->ep + 1);
	j->stream = xcalloc((size_t)j->n_streams, sizeof *j->stream);
	for (int i = 0; i < j->n_streams; i++)
		j->stream[i].job = j;
	j->emb_arrived = xcalloc((size_t)s->dp, sizeof *j->emb_arrived);
	j->emb_join = xcalloc((size_t)s->dp, sizeof *j->emb_join);
	int most = s->tp > s->dp * s->cp ? s->tp : s->dp * s->cp;
	most = most > s->ep ? most : s->ep;
	most = most > s->edp ? most : s->edp;
	j->tmp_gpus = xcalloc((size_t)(most > 2 ? most : 2), sizeof *j->tmp_gpus);
	j->tmp_mat = xcalloc((size_t)(s->ep * s->ep), sizeof *j->tmp_mat);
	if (job_model_moe_layers(&s->model))
		j->routing = wl_ep_routing_new(s);
}

void job_exec_free(struct job *j)
{
	for (int i = 0; j->wk && i < j->n_workers; i++)
		for (int dir = 0; dir < 2; dir++) {
			free(j->wk[i].got[dir]);
			free(j->wk[i].send[dir]);
		}
	free(j->wk);
	for (int i = 0; j->ep_group && i < j->spec.pp * (j->spec.dp / wl_ep_unit(&j->spec)); i++)
		free(j->ep_group[i].member);
	free(j->ep_group);
	for (int i = 0; j->stream && i < j->n_streams; i++)
		job_stream_clear(&j->stream[i]);
	free(j->stream);
	free(j->param);
	free(j->ag);
	free(j->ag_base);
	free(j->step_ps);
	free(j->step_base);
	free(j->bucket_arrived);
	free(j->bucket_join);
	free(j->emb_arrived);
	free(j->emb_join);
	free(j->tmp_gpus);
	free(j->tmp_mat);
	wl_ep_routing_free(j->routing);
}
