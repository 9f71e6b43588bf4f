/*
 * chakra_exec.c — runs a Chakra-trace job (chakra.h, chakra_job.h): per
 * iteration, every rank's dependency graph once.
 *
 * A node is issued when all its dependencies (ctrl_deps and data_deps)
 * finished:
 *   COMP   runs duration_micros on its rank's compute stream, one node at
 *          a time, in the order they became ready (a GPU's kernels);
 *   MEM, and the other kinds (metadata, storage, ...): duration_micros
 *          (0 when absent), beside the compute stream;
 *   COLL   arrives at its collective (chakra_job.h); the collective starts
 *          when the last member arrived and finishes every member's node
 *          when its last byte arrived (collective.h); a barrier, a group
 *          of one or a size of 0 finish at once;
 *   SEND   starts its message (a sendrecv collective of two GPUs) at once
 *          and finishes when it has arrived;
 *   RECV   finishes when it is issued and its message has arrived.
 * The iteration ends when every node of every rank finished; the next one
 * starts then. The `iteration` row splits the critical path (the chain of
 * nodes, each issued when the last of what it waited for finished, that
 * ends last; job_timeline.h) into compute (COMP, MEM and other durations)
 * and exposed communication per parallelism tag; bubble_ps is 0 (a trace
 * has no notion of pipeline stage). comm_ps is rank 0's time with a
 * collective or message of its own in flight.
 *
 * Issuing goes through a work list rather than recursion, so a long chain
 * of zero-time nodes costs no stack; nothing is allocated while running.
 */
#include <string.h>
#include "chakra_job.h"
#include "collective.h"
#include "job_exec.h"
#include "log.h"
#include "nic.h"
#include "results.h"

static void drain(struct chakra_job *ck);

static void stat_update(struct chakra_job *ck)
{
	simtime_t now = ck->job->w->sim->now;
	if (ck->ref_comm > 0)
		ck->comm_ps += now - ck->stat_t;
	ck->stat_t = now;
}

static void ref_add(struct chakra_job *ck, int d)
{
	stat_update(ck);
	ck->ref_comm += d;
}

/* Node i of rank r finished now with its chain path[i]. */
static void node_finish(struct chakra_job *ck, struct chakra_rank *rk, uint32_t i)
{
	const struct chakra_node *n = &rk->tr.node[i];
	rk->state[i] = CHAKRA_DONE;
	rk->done++;
	ck->done++;
	job_path_later(&ck->tail, &rk->path[i]);
	for (uint32_t c = 0; c < n->n_kids; c++) {
		uint32_t k = rk->tr.kid[n->kid0 + c];
		job_path_later(&rk->path[k], &rk->path[i]);
		if (--rk->left[k] == 0)
			ck->work[ck->work_tail++] = (struct chakra_ready){ rk->rank, k };
	}
}

static void comp_start(struct chakra_job *ck, struct chakra_rank *rk, uint32_t i);

static void comp_done(struct sim *sim, void *obj, uintptr_t arg)
{
	struct chakra_rank *rk = obj;
	struct chakra_job *ck = rk->ck;
	uint32_t i = (uint32_t)arg;
	job_path_extend(&rk->path[i], JOB_PATH_COMPUTE, sim->now);
	node_finish(ck, rk, i);
	rk->busy = false;
	if (rk->cq_head < rk->cq_tail) {
		uint32_t k = rk->cq[rk->cq_head++];
		job_path_later(&rk->path[k], &rk->path[i]); /* it waited for the stream */
		comp_start(ck, rk, k);
	}
	drain(ck);
}

static void comp_start(struct chakra_job *ck, struct chakra_rank *rk, uint32_t i)
{
	rk->busy = true;
	sched_in(ck->job->w->sim, rk->tr.node[i].dur_ps, &ck->job->elem, comp_done, rk, i);
}

static void side_done(struct sim *sim, void *obj, uintptr_t arg)
{
	struct chakra_rank *rk = obj;
	job_path_extend(&rk->path[arg], JOB_PATH_COMPUTE, sim->now);
	node_finish(rk->ck, rk, (uint32_t)arg);
	drain(rk->ck);
}

/* ---- Collectives and messages ---- */

static void inst_finish(struct chakra_inst *in)
{
	struct chakra_group *g = in->g;
	struct chakra_job *ck = g->ck;
	if (g->ref)
		ref_add(ck, -1);
	job_path_extend(&in->path, in->par, ck->job->w->sim->now);
	for (int m = 0; m < g->n; m++) {
		struct chakra_rank *rk = &ck->rk[g->rank[m]];
		rk->path[in->node[m]] = in->path;
		node_finish(ck, rk, in->node[m]);
	}
	drain(ck);
}

static void inst_done(struct sim *sim, struct coll *c, void *ctx)
{
	(void)sim; (void)c;
	inst_finish(ctx);
}

static void inst_empty_done(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	inst_finish(obj);
}

/* The last member arrived: the collective starts now. */
static void inst_start(struct chakra_job *ck, struct chakra_inst *in)
{
	struct chakra_group *g = in->g;
	struct job *j = ck->job;
	if (g->ref)
		ref_add(ck, 1);
	if (in->op == CHAKRA_OP_BARRIER || g->n < 2 || in->size_b == 0) {
		sched_at(j->w->sim, j->w->sim->now, &j->elem, inst_empty_done, in, 0);
		return;
	}
	struct coll_spec cs = {
		.op = (enum coll_op)in->op, .algorithm = ck->alg[in->op], .gpus = g->gpu, .n = g->n,
		.size_b = in->size_b, .chunk_b = ck->chunk_b, .channels = ck->channels, .source = j->source,
		.parallelism = job_par_name[in->par], .job = j->spec.name, .iteration = j->iter,
		.on_done = inst_done, .ctx = in, .recv_delay = j->spec.cfg->endpoint_delay,
	};
	if (j->fake_coll)
		j->fake_coll(j->w->sim, &cs);
	else
		coll_start(j->colls, &cs);
}

static void msg_finish(struct chakra_msg *mg)
{
	struct chakra_job *ck = mg->ck;
	if (mg->src == 0 || mg->dst == 0)
		ref_add(ck, -1);
	job_path_extend(&mg->path, JOB_PAR_PP, ck->job->w->sim->now);
	mg->arrived = true;
	struct chakra_rank *s = &ck->rk[mg->src], *d = &ck->rk[mg->dst];
	s->path[mg->send] = mg->path;
	node_finish(ck, s, mg->send);
	if (d->state[mg->recv] == CHAKRA_ISSUED) { /* the receiver waited for it */
		job_path_later(&d->path[mg->recv], &mg->path);
		node_finish(ck, d, mg->recv);
	}
	drain(ck);
}

static void msg_done(struct sim *sim, struct coll *c, void *ctx)
{
	(void)sim; (void)c;
	msg_finish(ctx);
}

static void msg_empty_done(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	msg_finish(obj);
}

static void msg_start(struct chakra_job *ck, struct chakra_msg *mg, const struct job_path *from)
{
	struct job *j = ck->job;
	mg->path = *from;
	if (mg->src == 0 || mg->dst == 0)
		ref_add(ck, 1);
	if (mg->size_b == 0) {
		sched_at(j->w->sim, j->w->sim->now, &j->elem, msg_empty_done, mg, 0);
		return;
	}
	struct coll_spec cs = {
		.op = COLL_SENDRECV, .gpus = mg->gpu, .n = 2, .size_b = mg->size_b, .chunk_b = ck->chunk_b,
		.channels = ck->channels, .source = j->source, .parallelism = job_par_name[JOB_PAR_PP],
		.job = j->spec.name, .iteration = j->iter, .on_done = msg_done, .ctx = mg,
		.recv_delay = j->spec.cfg->endpoint_delay,
	};
	if (j->fake_coll)
		j->fake_coll(j->w->sim, &cs);
	else
		coll_start(j->colls, &cs);
}

/* ---- Issuing, iterations ---- */

static void issue(struct chakra_job *ck, struct chakra_rank *rk, uint32_t i)
{
	const struct chakra_node *n = &rk->tr.node[i];
	struct sim *sim = ck->job->w->sim;
	rk->state[i] = CHAKRA_ISSUED;
	switch ((enum chakra_kind)n->kind) {
	case CHAKRA_COMP:
		if (rk->busy)
			rk->cq[rk->cq_tail++] = i;
		else
			comp_start(ck, rk, i);
		return;
	case CHAKRA_COLL: {
		struct chakra_inst *in = &ck->grp[rk->group[i]].inst[rk->link[i]];
		job_path_later(&in->path, &rk->path[i]);
		if (++in->arrived == in->g->n)
			inst_start(ck, in);
		return;
	}
	case CHAKRA_SEND:
		msg_start(ck, &ck->msg[rk->link[i]], &rk->path[i]);
		return;
	case CHAKRA_RECV: {
		const struct chakra_msg *mg = &ck->msg[rk->link[i]];
		if (mg->arrived) {
			job_path_later(&rk->path[i], &mg->path);
			node_finish(ck, rk, i);
		}
		return;
	}
	case CHAKRA_MEM:
	case CHAKRA_OTHER:
	case CHAKRA_NKIND:
		break;
	}
	if (n->dur_ps > 0)
		sched_in(sim, n->dur_ps, &ck->job->elem, side_done, rk, i);
	else
		node_finish(ck, rk, i);
}

static void write_row(struct chakra_job *ck, bool finished)
{
	struct job *j = ck->job;
	struct sim *sim = j->w->sim;
	stat_update(ck);
	const struct job_path *p = &ck->tail;
	simtime_t exposed = 0, sum = p->t[JOB_PATH_COMPUTE];
	for (int k = 0; k < JOB_NPAR; k++)
		exposed += p->t[k];
	sum += exposed;
	/* The chain is contiguous from the iteration's start (chakra_job.h). */
	if ((finished && p->end != sim->now) || sum != p->end - j->iter_start)
		die_internal("job %s iteration %lld: critical path of %lld ps ending at %lld ps, iteration %lld..%lld ps",
			     j->spec.name, (long long)j->iter, (long long)sum, (long long)p->end,
			     (long long)j->iter_start, (long long)sim->now);
	struct results *res = world_copied_rows(j->w);
	if (!res)
		return;
	if (!ck->table)
		ck->table = results_table(res, "iteration",
					  "job, iteration, start_ps, end_ps, compute_ps, comm_ps, exposed_comm_ps,"
					  " bubble_ps, exposed_tp_ps, exposed_pp_ps, exposed_dp_ps, exposed_ep_ps, exposed_cp_ps");
	if (ck->table)
		results_row(res, ck->table, "slttttttttttt", j->spec.name, j->iter, j->iter_start,
			    finished ? sim->now : (simtime_t)-1, p->t[JOB_PATH_COMPUTE], ck->comm_ps, exposed,
			    (simtime_t)0, p->t[JOB_PAR_TP], p->t[JOB_PAR_PP], p->t[JOB_PAR_DP], p->t[JOB_PAR_EP],
			    p->t[JOB_PAR_CP]);
}

static void iteration_start(struct sim *sim, void *obj, uintptr_t arg);

/* Issues what is ready; ends the iteration when every node finished. */
static void drain(struct chakra_job *ck)
{
	if (ck->draining)
		return;
	ck->draining = true;
	while (ck->work_head < ck->work_tail) {
		struct chakra_ready w = ck->work[ck->work_head++];
		issue(ck, &ck->rk[w.r], w.i);
	}
	ck->draining = false;
	struct job *j = ck->job;
	if (j->in_iteration && ck->done == ck->total) {
		write_row(ck, true);
		j->in_iteration = false;
		j->est_iter_ps = (double)(j->w->sim->now - j->iter_start);
		j->iter++;
		if (j->iter < ck->iterations)
			sched_at(j->w->sim, j->w->sim->now, &j->elem, iteration_start, ck, 0);
		else
			world_source_end(j->w);
	}
}

static void iteration_start(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)arg;
	struct chakra_job *ck = obj;
	struct job *j = ck->job;
	simtime_t now = sim->now;
	j->iter_start = now;
	j->in_iteration = true;
	ck->done = 0;
	ck->work_head = ck->work_tail = 0;
	ck->comm_ps = 0;
	ck->ref_comm = 0;
	ck->stat_t = now;
	job_path_reset(&ck->tail, now);
	for (int g = 0; g < ck->n_groups; g++)
		for (uint32_t k = 0; k < ck->grp[g].n_inst; k++) {
			ck->grp[g].inst[k].arrived = 0;
			job_path_reset(&ck->grp[g].inst[k].path, now);
		}
	for (size_t m = 0; m < ck->n_msgs; m++)
		ck->msg[m].arrived = false;
	for (int r = 0; r < ck->n_ranks; r++) {
		struct chakra_rank *rk = &ck->rk[r];
		rk->busy = false;
		rk->cq_head = rk->cq_tail = 0;
		rk->done = 0;
		for (size_t i = 0; i < rk->tr.n; i++) {
			rk->left[i] = rk->tr.node[i].n_deps;
			rk->state[i] = CHAKRA_WAITING;
			job_path_reset(&rk->path[i], now);
			if (!rk->left[i])
				ck->work[ck->work_tail++] = (struct chakra_ready){ r, (uint32_t)i };
		}
	}
	drain(ck);
}

void chakra_job_start(struct job *j)
{
	if (j->ck->iterations <= 0)
		return;
	world_source_begin(j->w); /* the run is not done before the last iteration */
	sched_at(j->w->sim, j->spec.cfg->start, &j->elem, iteration_start, j->ck, 0);
}

bool chakra_job_write_unfinished(struct job *j)
{
	struct chakra_job *ck = j->ck;
	if (j->iter >= ck->iterations)
		return false;
	if (j->in_iteration)
		write_row(ck, false);
	return true;
}
