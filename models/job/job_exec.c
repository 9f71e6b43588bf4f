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
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job_exec.h"
#include "log.h"
#include "results.h"
#include "workload.h"
#include "nic.h"
#include "xalloc.h"

static void worker_run(struct job_worker *wk);
static void iteration_check_end(struct job *j);

/* ---- Reference-worker accounting ---- */

static void stat_update(struct job *j)
{
	simtime_t now = j->w->sim->now, dt = now - j->stat_t;
	if (j->ref_computing)
		j->compute_ps += dt;
	if (j->ref_comm > 0) {
		j->comm_ps += dt;
		if (!j->ref_computing)
			j->exposed_ps += dt;
	}
	j->stat_t = now;
}

/* ---- Joins ---- */

static void join_open(struct job *j, struct job_join *jn, bool async, bool ref,
		      void (*done)(struct job *, struct job_join *))
{
	jn->job = j;
	jn->left = 1; /* the guard, released by join_close */
	jn->async = async;
	jn->ref = ref;
	jn->done = done;
	if (async)
		j->pending++;
	if (ref) {
		stat_update(j);
		j->ref_comm++;
	}
}

static void join_release(struct job_join *jn)
{
	if (--jn->left)
		return;
	struct job *j = jn->job;
	if (jn->ref) {
		stat_update(j);
		j->ref_comm--;
	}
	if (jn->async)
		j->pending--;
	jn->done(j, jn);
}

static void join_deferred(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	join_release(obj);
}

/* Releases the guard once every collective is started. A join that got
 * no collective (nothing to move) ends through an event at the same time,
 * so a worker never recurses through a chain of empty steps. */
static void join_close(struct job *j, struct job_join *jn)
{
	if (jn->left == 1)
		sched_at(j->w->sim, j->w->sim->now, &j->elem, join_deferred, jn, 0);
	else
		join_release(jn);
}

static void on_coll_done(struct sim *sim, struct coll *c, void *ctx)
{
	(void)sim; (void)c;
	join_release(ctx);
}

static void start_coll(struct job *j, struct job_join *jn, enum coll_op op, const char *par,
		       const int *gpus, int n, uint64_t size_b, const uint64_t *a2a)
{
	struct coll_spec cs = {
		.op = op, .algorithm = job_coll_alg(&j->spec, op), .gpus = gpus, .n = n,
		.size_b = size_b, .a2a_b = a2a, .root = 0, .chunk_b = j->spec.cfg->chunk_b,
		.channels = j->spec.cfg->channels, .source = j->source, .parallelism = par,
		.job = j->spec.name, .iteration = j->iter, .on_done = on_coll_done, .ctx = jn,
	};
	if (job_coll_empty(op, n, size_b, a2a))
		return; /* nothing to move (a group of one, an empty matrix) */
	jn->left++;
	if (j->fake_coll)
		j->fake_coll(j->w->sim, &cs);
	else
		coll_start(j->colls, &cs);
}

static int gpu_of(const struct job *j, int tp, int d, int stage)
{
	return j->gpu[job_layout_rank_dp(&j->spec.layout, tp, d, stage)];
}

/* The GPUs of TP rank t's gradient-reduction group for bucket bk, in group
 * order: its data-parallel group, or for an expert bucket the expert-DP
 * group of EP index e (job_layout_group). Returns the group size. */
static int dp_group_gpus(const struct job *j, const struct job_bucket *bk, int t, int e, int *out)
{
	int n = job_dp_group_ranks(&j->spec, bk, t, e, out);
	for (int i = 0; i < n; i++)
		out[i] = j->gpu[out[i]];
	return n;
}

/* ---- Blocking ops ---- */

static void worker_resume(struct job *j, struct job_join *jn)
{
	(void)j;
	struct job_worker *wk = jn->obj;
	wk->pc++;
	worker_run(wk);
}

static void group_resume(struct job *j, struct job_join *jn)
{
	(void)j;
	struct job_rdv *g = jn->obj;
	for (int i = 0; i < g->n; i++) {
		g->member[i]->pc++;
		worker_run(g->member[i]);
	}
}

static bool group_has_ref(const struct job *j, const struct job_rdv *g)
{
	for (int i = 0; i < g->n; i++)
		if (g->member[i] == &j->wk[0])
			return true;
	return false;
}

/* The group's collectives, started when its last member arrived at op. */
static void group_start(struct job *j, struct job_rdv *g, const struct job_op *op, int stage)
{
	const struct job_spec *s = &j->spec;
	join_open(j, &g->join, false, group_has_ref(j, g), group_resume);
	for (int t = 0; t < s->tp; t++) {
		for (int i = 0; i < g->n; i++)
			j->tmp_gpus[i] = gpu_of(j, t, g->member[i]->d, stage);
		if (op->kind == JOP_EP) {
			const uint64_t *mat = wl_ep_matrix(j->routing, op->idx, op->mb, g->edp);
			wl_ep_shard(mat, s->ep, op->transpose, s->tp, t, j->tmp_mat);
			uint64_t sum = 0;
			for (int i = 0; i < s->ep * s->ep; i++)
				sum += j->tmp_mat[i];
			if (sum) /* size_b 0: the row shows the largest rank's bytes */
				start_coll(j, &g->join, COLL_ALLTOALL, "ep", j->tmp_gpus, g->n, 0, j->tmp_mat);
		} else {
			start_coll(j, &g->join, op->coll, "dp", j->tmp_gpus, g->n, op->val, NULL);
		}
	}
	join_close(j, &g->join);
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
			to->at_recv = false;
			to->pc++;
			worker_run(to);
		}
	}
	iteration_check_end(j);
}

static void post_send(struct job *j, struct job_worker *wk, const struct job_op *op)
{
	const struct job_spec *s = &j->spec;
	int to_stage = (wk->stage + (op->dir == JOB_FWD ? 1 : s->pp - 1)) % s->pp; /* interleaved: wraps */
	struct job_join *jn = &wk->send[op->dir][op->mb];
	bool ref = wk == &j->wk[0] || (to_stage == 0 && wk->d == 0);
	join_open(j, jn, true, ref, send_done);
	jn->obj = wk;
	jn->dir = op->dir;
	jn->mb = op->mb;
	for (int t = 0; t < job_width(s); t++) {
		int pair[2] = { gpu_of(j, t, wk->d, wk->stage), gpu_of(j, t, wk->d, to_stage) };
		start_coll(j, jn, COLL_SENDRECV, "pp", pair, 2,
			   coll_split(op->val, (uint64_t)job_width(s), (uint64_t)t), NULL);
	}
	join_close(j, jn);
}

/* ---- Ring attention steps (context parallelism) ---- */

static void cp_done(struct job *j, struct job_join *jn)
{
	(void)j;
	struct job_worker *wk = jn->obj;
	wk->cp_open = false;
	if (wk->at_cp_wait) {
		wk->at_cp_wait = false;
		wk->pc++;
		worker_run(wk);
	}
}

/* Every cp rank sends op->val bytes to the next one of its ring, per tp
 * index; the worker computes on until its CP_WAIT. */
static void post_cp(struct job *j, struct job_worker *wk, const struct job_op *op)
{
	const struct job_spec *s = &j->spec;
	struct job_join *jn = &wk->cp_join;
	join_open(j, jn, false, wk == &j->wk[0], cp_done);
	jn->obj = wk;
	wk->cp_open = true;
	for (int t = 0; t < s->tp; t++)
		for (int c = 0; c < s->cp; c++) {
			int pair[2] = { gpu_of(j, c * s->tp + t, wk->d, wk->stage),
					gpu_of(j, (c + 1) % s->cp * s->tp + t, wk->d, wk->stage) };
			start_coll(j, jn, COLL_SENDRECV, "cp", pair, 2, op->val, NULL);
		}
	join_close(j, jn);
}

/* ---- Gradient reductions ---- */

static void async_done(struct job *j, struct job_join *jn)
{
	(void)jn;
	iteration_check_end(j);
}

static void bucket_arrive(struct job *j, struct job_worker *wk, int b)
{
	const struct job_spec *s = &j->spec;
	const struct job_bucket *bk = &s->bucket[b];
	int e = bk->expert ? wk->d % s->ep : 0;
	int slot = b * s->ep + e, n = bk->expert ? s->edp : s->dp; /* workers that hold the group */
	if (++j->bucket_arrived[slot] < n)
		return;
	j->bucket_arrived[slot] = 0;
	enum coll_op op;
	uint64_t size;
	wl_dp_reduce(s, bk, &op, &size);
	struct job_join *jn = &j->bucket_join[slot];
	join_open(j, jn, true, bk->stage == 0 && e == 0, async_done);
	for (int t = 0; t < s->tp; t++) {
		int m = dp_group_gpus(j, bk, t, e, j->tmp_gpus);
		start_coll(j, jn, op, "dp", j->tmp_gpus, m, size, NULL);
	}
	join_close(j, jn);
}

static void embedding_arrive(struct job *j, struct job_worker *wk)
{
	const struct job_spec *s = &j->spec;
	if (!s->emb_b || (wk->stage != 0 && wk->stage != s->pp - 1) || ++j->emb_arrived[wk->d] < 2)
		return;
	j->emb_arrived[wk->d] = 0;
	struct job_join *jn = &j->emb_join[wk->d];
	join_open(j, jn, true, wk->d == 0, async_done);
	for (int t = 0; t < job_width(s); t++) {
		int pair[2] = { gpu_of(j, t, wk->d, 0), gpu_of(j, t, wk->d, s->pp - 1) };
		start_coll(j, jn, COLL_ALLREDUCE, "dp", pair, 2, s->emb_b, NULL);
	}
	join_close(j, jn);
}

/* ZeRO-1/2: every bucket's updated parameters, gathered after the optimizer. */
static void start_gathers(struct job *j)
{
	const struct job_spec *s = &j->spec;
	j->gathering = true;
	join_open(j, &j->gather_join, true, true, async_done);
	for (int b = 0; b < s->n_buckets; b++) {
		const struct job_bucket *bk = &s->bucket[b];
		uint64_t size = wl_zero_gather_b(s, bk);
		for (int e = 0; size && e < (bk->expert ? s->ep : 1); e++)
			for (int t = 0; t < s->tp; t++) {
				int m = dp_group_gpus(j, bk, t, e, j->tmp_gpus);
				start_coll(j, &j->gather_join, COLL_ALLGATHER, "dp", j->tmp_gpus, m, size, NULL);
			}
	}
	join_close(j, &j->gather_join);
}

/* ---- The worker ---- */

static void compute_done(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	struct job_worker *wk = obj;
	if (wk == &wk->job->wk[0]) {
		stat_update(wk->job);
		wk->job->ref_computing = false;
	}
	wk->pc++;
	worker_run(wk);
}

static void worker_run(struct job_worker *wk)
{
	struct job *j = wk->job;
	const struct job_spec *s = &j->spec;
	const struct job_prog *p = &s->prog[wk->stage];
	while (wk->pc < p->n) {
		const struct job_op *op = &p->op[wk->pc];
		switch ((enum job_op_kind)op->kind) {
		case JOP_COMPUTE:
			if (wk == &j->wk[0]) {
				stat_update(j);
				j->ref_computing = true;
			}
			sched_in(j->w->sim, (simtime_t)op->val, &j->elem, compute_done, wk, 0);
			return;
		case JOP_TP: /* one tp group per cp index */
			join_open(j, &wk->op_join, false, wk == &j->wk[0], worker_resume);
			wk->op_join.obj = wk;
			for (int c = 0; c < s->cp; c++) {
				for (int t = 0; t < s->tp; t++)
					j->tmp_gpus[t] = gpu_of(j, c * s->tp + t, wk->d, wk->stage);
				start_coll(j, &wk->op_join, op->coll, "tp", j->tmp_gpus, s->tp, op->val, NULL);
			}
			join_close(j, &wk->op_join);
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
		case JOP_EP:
		case JOP_ZERO_AG: {
			struct job_rdv *g = op->kind == JOP_EP
				? &j->ep_group[wk->stage * s->edp + wk->d / s->ep] : &j->dp_group[wk->stage];
			if (++g->arrived == g->n) {
				g->arrived = 0;
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
			bucket_arrive(j, wk, op->idx);
			break;
		case JOP_N:
			break;
		}
		wk->pc++;
	}
	if (wk->finished)
		return;
	wk->finished = true;
	j->workers_done++;
	embedding_arrive(j, wk);
	iteration_check_end(j);
}

/* ---- Iterations ---- */

static void iteration_start(struct sim *sim, void *obj, uintptr_t arg);

/* The optimizer step, once every gradient is reduced (before ZeRO-1/2's
 * parameter gathers): compute on every GPU, the reference worker's too. */
static void optimizer_done(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	struct job *j = obj;
	stat_update(j);
	j->ref_computing = false;
	j->stepping = false;
	iteration_check_end(j);
}

static void optimizer_start(struct job *j)
{
	stat_update(j);
	j->ref_computing = true;
	j->stepping = j->stepped = true;
	sched_in(j->w->sim, j->spec.t_opt, &j->elem, optimizer_done, j, 0);
}

static void iteration_check_end(struct job *j)
{
	if (j->workers_done < j->n_workers || j->pending > 0 || j->stepping)
		return;
	if (j->spec.t_opt > 0 && !j->stepped) {
		optimizer_start(j); /* its end calls back here */
		return;
	}
	if ((j->spec.zero == 1 || j->spec.zero == 2) && !j->gathering) {
		start_gathers(j); /* its end calls back here */
		return;
	}
	struct sim *sim = j->w->sim;
	stat_update(j);
	if (sim->res) {
		if (!j->table)
			j->table = results_table(sim->res, "iteration",
						 "job, iteration, start_ps, end_ps, compute_ps, comm_ps, exposed_comm_ps");
		if (j->table)
			results_row(sim->res, j->table, "slttttt", j->spec.name, j->iter, j->iter_start, sim->now,
				    j->compute_ps, j->comm_ps, j->exposed_ps);
	}
	/* Mark the iteration over before anything else can re-enter. */
	j->workers_done = -1;
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
	j->compute_ps = j->comm_ps = j->exposed_ps = 0;
	j->workers_done = 0;
	j->gathering = false;
	j->stepped = false;
	if (j->routing)
		wl_ep_routing_draw(j->routing, s, j->rng);
	for (int i = 0; i < j->n_workers; i++) {
		struct job_worker *wk = &j->wk[i];
		wk->pc = 0;
		wk->finished = wk->at_recv = wk->at_cp_wait = wk->cp_open = false;
		memset(wk->got[0], 0, (size_t)(s->m * s->vpp));
		memset(wk->got[1], 0, (size_t)(s->m * s->vpp));
	}
	for (int i = 0; i < j->n_workers; i++)
		worker_run(&j->wk[i]);
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
	j->ep_group = xcalloc((size_t)(s->pp * s->edp), sizeof *j->ep_group);
	for (int st = 0; st < s->pp; st++)
		for (int e = 0; e < s->edp; e++) {
			struct job_rdv *g = &j->ep_group[st * s->edp + e];
			group_init(j, g, s->ep);
			g->edp = e;
			for (int i = 0; i < s->ep; i++)
				g->member[i] = &j->wk[st * s->dp + e * s->ep + i];
		}
	j->dp_group = xcalloc((size_t)s->pp, sizeof *j->dp_group);
	for (int st = 0; st < s->pp; st++) {
		group_init(j, &j->dp_group[st], s->dp);
		j->dp_group[st].edp = -1;
		for (int d = 0; d < s->dp; d++)
			j->dp_group[st].member[d] = &j->wk[st * s->dp + d];
	}
	j->bucket_arrived = xcalloc((size_t)(s->n_buckets * s->ep) + 1, sizeof *j->bucket_arrived);
	j->bucket_join = xcalloc((size_t)(s->n_buckets * s->ep) + 1, sizeof *j->bucket_join);
	j->emb_arrived = xcalloc((size_t)s->dp, sizeof *j->emb_arrived);
	j->emb_join = xcalloc((size_t)s->dp, sizeof *j->emb_join);
	int most = s->tp > s->dp * s->cp ? s->tp : s->dp * s->cp;
	j->tmp_gpus = xcalloc((size_t)(most > 2 ? most : 2), sizeof *j->tmp_gpus);
	j->tmp_mat = xcalloc((size_t)(s->ep * s->ep), sizeof *j->tmp_mat);
	if (job_model_moe_layers(&s->model) && s->ep > 1)
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
	for (int i = 0; j->ep_group && i < j->spec.pp * j->spec.edp; i++)
		free(j->ep_group[i].member);
	free(j->ep_group);
	for (int i = 0; j->dp_group && i < j->spec.pp; i++)
		free(j->dp_group[i].member);
	free(j->dp_group);
	free(j->bucket_arrived);
	free(j->bucket_join);
	free(j->emb_arrived);
	free(j->emb_join);
	free(j->tmp_gpus);
	free(j->tmp_mat);
	wl_ep_routing_free(j->routing);
}
