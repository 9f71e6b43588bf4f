/*
 * job_exec_coll.c — the collectives of a running job (see job_exec.h):
 * joins that wait for a set of collectives, starting collectives on a
 * GPU group or a communicator's stream, the gradient reductions posted by
 * the workers, and the waits workers block on (ZeRO-3 gathers, ZeRO-1/2
 * parameter gathers). The workers and iterations that drive them are in
 * job_exec.c.
 */
#include "config.h"
#include "job_exec_internal.h"
#include "workload.h"
#include "nic.h"

/* ---- Reference-worker accounting (comm_ps) ---- */

void job_stat_update(struct job *j)
{
	simtime_t now = j->w->sim->now;
	if (j->ref_comm > 0)
		j->comm_ps += now - j->stat_t;
	j->stat_t = now;
}

/* ---- Joins ---- */

void job_join_open(struct job *j, struct job_join *jn, bool async, bool ref,
		   void (*done)(struct job *, struct job_join *))
{
	jn->job = j;
	jn->left = 1; /* the guard, released by job_join_close */
	jn->async = async;
	jn->ref = ref;
	jn->done = done;
	if (async)
		j->pending++;
	if (ref) {
		job_stat_update(j);
		j->ref_comm++;
	}
}

static void join_release(struct job_join *jn)
{
	if (--jn->left)
		return;
	struct job *j = jn->job;
	if (jn->ref) {
		job_stat_update(j);
		j->ref_comm--;
	}
	if (jn->async)
		j->pending--;
	job_path_extend(&jn->path, jn->cat, j->w->sim->now);
	jn->done(j, jn);
}

/* The join's category on a critical path and the chain it continues
 * (job_timeline.h): whatever's end let it start. */
void job_join_chain(struct job_join *jn, int cat, const struct job_path *from)
{
	jn->cat = cat;
	jn->path = *from;
}

static void join_deferred(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	join_release(obj);
}

/* Releases the guard once every collective is started. A join that got
 * no collective (nothing to move) ends through an event at the same time,
 * so a worker never recurses through a chain of empty steps. */
void job_join_close(struct job *j, struct job_join *jn)
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

/* st: the communicator's stream the collective queues on (DP and EDP
 * groups), NULL to start it at once. */
void job_start_coll_on(struct job *j, struct job_join *jn, struct job_stream *st, enum coll_op op,
		       const char *par, const int *gpus, int n, uint64_t size_b, const uint64_t *a2a)
{
	struct coll_spec cs = {
		.op = op, .algorithm = job_coll_alg(&j->spec, op), .gpus = gpus, .n = n,
		.size_b = size_b, .a2a_b = a2a, .root = 0, .chunk_b = j->spec.cfg->chunk_b,
		.channels = j->spec.cfg->channels, .source = j->source, .parallelism = par,
		.job = j->spec.name, .iteration = j->iter, .on_done = on_coll_done, .ctx = jn,
		.prio_set = true, .prio = j->spec.cfg->priority, .recv_delay = j->spec.cfg->endpoint_delay,
	};
	if (job_coll_empty(op, n, size_b, a2a))
		return; /* nothing to move (a group of one, an empty matrix) */
	jn->left++;
	if (st)
		job_stream_post(st, &cs);
	else if (j->fake_coll)
		j->fake_coll(j->w->sim, &cs);
	else
		coll_start(j->colls, &cs);
}

void job_start_coll(struct job *j, struct job_join *jn, enum coll_op op, const char *par,
		    const int *gpus, int n, uint64_t size_b, const uint64_t *a2a)
{
	job_start_coll_on(j, jn, NULL, op, par, gpus, n, size_b, a2a);
}

int job_gpu_of(const struct job *j, int tp, int d, int stage)
{
	return j->gpu[job_layout_rank_dp(&j->spec.layout, tp, d, stage)];
}

/* The GPUs of TP rank t's gradient-reduction group for bucket bk, in group
 * order: its data-parallel group (job_layout_group), or for an expert
 * bucket the expert-DP group of expert-TP index t and EP index e
 * (moe_layout.c). Returns the group size. */
static int dp_group_gpus(const struct job *j, const struct job_bucket *bk, int t, int e, int *out)
{
	if (bk->expert) { /* t is the expert-TP index (moe_layout.c) */
		for (int x = 0; x < j->spec.edp; x++) {
			int tt, d;
			wl_ep_gpu(&j->spec, x, e, t, &tt, &d);
			out[x] = job_gpu_of(j, tt, d, bk->stage);
		}
		return j->spec.edp;
	}
	int n = job_dp_group_ranks(&j->spec, bk, t, e, out); /* dp x cp ranks */
	for (int i = 0; i < n; i++)
		out[i] = j->gpu[out[i]];
	return n;
}

/* The stream of the DP group (e < 0) or EDP group of EP index e of tp
 * index t in stage st: each is its own NCCL communicator. */
static struct job_stream *stream_of(struct job *j, int st, int t, int e)
{
	const struct job_spec *s = &j->spec;
	return &j->stream[(st * s->tp + t) * (s->ep + 1) + e + 1];
}

/* ---- Gradient reductions ---- */

static void async_done(struct job *j, struct job_join *jn)
{
	job_path_later(&j->tail, &jn->path);
	job_iteration_check_end(j);
}

void job_bucket_arrive(struct job *j, struct job_worker *wk, int b, int mb)
{
	const struct job_spec *s = &j->spec;
	const struct job_bucket *bk = &s->bucket[b];
	/* Folded experts (etp != tp): a worker holds GPUs of several expert-DP
	 * groups, so an expert bucket waits for every worker of the stage;
	 * otherwise for the workers that hold the group (dp of them, whose
	 * dp x cp ranks reduce together with context parallelism). */
	bool fold = bk->expert && s->etp != s->tp;
	int e = bk->expert && !fold ? wk->d % s->ep : 0;
	int slot = (b * s->ep + e) * j->grad_m + (j->grad_m > 1 ? mb : 0);
	int n = fold ? s->dp : bk->expert ? s->edp : s->dp;
	if (++j->bucket_arrived[slot] < n)
		return;
	j->bucket_arrived[slot] = 0;
	enum coll_op op;
	uint64_t size;
	wl_dp_reduce(s, bk, &op, &size);
	struct job_join *jn = &j->bucket_join[slot];
	job_join_open(j, jn, true, bk->stage == 0 && e == 0, async_done);
	job_join_chain(jn, JOB_PAR_DP, &wk->path);
	/* One stream per group: an expert group's is its (expert-TP, EP) index's. */
	for (int ee = e; ee < (fold ? s->ep : e + 1); ee++)
		for (int t = 0; t < (bk->expert ? s->etp : s->tp); t++) {
			int m = dp_group_gpus(j, bk, t, ee, j->tmp_gpus);
			job_start_coll_on(j, jn, stream_of(j, bk->stage, t, bk->expert ? ee : -1), op, "dp", j->tmp_gpus, m,
					  size, NULL);
		}
	job_join_close(j, jn);
}

void job_embedding_arrive(struct job *j, struct job_worker *wk)
{
	const struct job_spec *s = &j->spec;
	if (!s->emb_b || (wk->stage != 0 && wk->stage != s->pp - 1) || ++j->emb_arrived[wk->d] < 2)
		return;
	j->emb_arrived[wk->d] = 0;
	struct job_join *jn = &j->emb_join[wk->d];
	job_join_open(j, jn, true, wk->d == 0, async_done);
	job_join_chain(jn, JOB_PAR_DP, &wk->path);
	for (int t = 0; t < job_width(s); t++) {
		int pair[2] = { job_gpu_of(j, t, wk->d, 0), job_gpu_of(j, t, wk->d, s->pp - 1) };
		job_start_coll(j, jn, COLL_ALLREDUCE, "dp", pair, 2, s->emb_b, NULL);
	}
	job_join_close(j, jn);
}

/* ---- Waits (ZeRO-3 gathers, overlapped parameter gathers) ---- */

static void wait_done(struct job *j, struct job_join *jn)
{
	struct job_wait *w = jn->obj;
	struct job_worker *wk = w->waiters;
	w->done = true;
	w->waiters = NULL;
	/* Its end let the waiters go on (a worker that came after it ended
	 * never blocked and keeps its own, later chain); an overlapped gather
	 * nobody waited for may be the iteration's last activity. */
	job_path_later(&j->tail, &jn->path);
	while (wk) {
		struct job_worker *next = wk->next_wait;
		wk->next_wait = NULL;
		wk->path = jn->path;
		wk->pc++;
		job_worker_run(wk);
		wk = next;
	}
	job_iteration_check_end(j);
}

static void wait_open(struct job *j, struct job_wait *w, bool ref)
{
	job_join_open(j, &w->join, true, ref, wait_done);
	w->join.obj = w;
}

/* Whether wk must block on w (then it is woken by wait_done). */
bool job_wait_block(struct job_worker *wk, struct job_wait *w)
{
	if (w->done)
		return false;
	wk->next_wait = w->waiters;
	w->waiters = wk;
	return true;
}

/* ZeRO-3: a gather starts when every dp worker of the stage arrived at it. */
void job_gather_arrive(struct job *j, struct job_worker *wk, const struct job_op *op)
{
	const struct job_spec *s = &j->spec;
	struct job_wait *w = &j->ag[j->ag_base[wk->stage] + op->idx];
	if (++w->arrived < s->dp)
		return;
	wait_open(j, w, wk->stage == 0);
	/* The last worker to arrive let it start: its chain continues. */
	job_join_chain(&w->join, JOB_PAR_DP, &wk->path);
	for (int t = 0; t < s->tp; t++) {
		for (int d = 0; d < s->dp; d++)
			j->tmp_gpus[d] = job_gpu_of(j, t, d, wk->stage);
		job_start_coll_on(j, &w->join, stream_of(j, wk->stage, t, -1), op->coll, "dp", j->tmp_gpus, s->dp, op->val,
				  NULL);
	}
	job_join_close(j, &w->join);
}

/* ZeRO-1/2: every bucket's updated parameters, gathered after the
 * optimizer: at the iteration's end, or with overlap_param_gather at the
 * next one's start, in forward order (a stage's buckets last to first),
 * each bucket waited for by the first forward that uses it. Either way
 * their chains begin where j->tail ends: the end of everything before (at
 * an iteration's start, the empty chain of iteration_start). */
void job_start_gathers(struct job *j, bool overlap)
{
	const struct job_spec *s = &j->spec;
	if (!overlap) {
		j->gathering = true;
		job_join_open(j, &j->gather_join, true, true, async_done);
		job_join_chain(&j->gather_join, JOB_PAR_DP, &j->tail);
	}
	for (int b = s->n_buckets - 1; b >= 0; b--) {
		const struct job_bucket *bk = &s->bucket[b];
		uint64_t size = wl_zero_gather_b(s, bk);
		/* Folded experts: a worker holds GPUs of every EP index's groups,
		 * so one wait holds the bucket's gathers of all of them. */
		bool fold = bk->expert && s->etp != s->tp;
		for (int e = 0; size && e < (bk->expert ? s->ep : 1); e++) {
			struct job_join *jn = &j->gather_join;
			if (overlap) {
				struct job_wait *w = &j->param[b * s->ep + (fold ? 0 : e)];
				if (!fold || e == 0) {
					wait_open(j, w, bk->stage == 0 && e == 0);
					job_join_chain(&w->join, JOB_PAR_DP, &j->tail);
				}
				jn = &w->join;
			}
			for (int t = 0; t < (bk->expert ? s->etp : s->tp); t++) {
				int m = dp_group_gpus(j, bk, t, e, j->tmp_gpus);
				job_start_coll_on(j, jn, stream_of(j, bk->stage, t, bk->expert ? e : -1), COLL_ALLGATHER, "dp",
						  j->tmp_gpus, m, size, NULL);
			}
			if (overlap && (!fold || e == s->ep - 1))
				job_join_close(j, jn);
		}
	}
	if (!overlap)
		job_join_close(j, &j->gather_join);
}
