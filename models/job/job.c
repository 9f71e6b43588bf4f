/*
 * job.c — training jobs: setup from [job.NAME], --check plan lines,
 * teardown (see job.h). The engine is job_exec.c and job_exec_coll.c.
 *
 * Setup runs in two phases like traffic_setup: every job is resolved and
 * checked first (hosts, GPU counts, divisibility, algorithms), so a bad
 * section leaves nothing registered or scheduled; then each job is
 * registered as element "job.NAME" and its first iteration scheduled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "config.h"
#include "job.h"
#include "job_exec.h"
#include "job_slow.h"
#include "log.h"
#include "rng.h"
#include "workload.h"
#include "nic.h"
#include "xalloc.h"

static job_coll_start_fn coll_start_hook;

void jobs_set_coll_start(job_coll_start_fn fn)
{
	coll_start_hook = fn;
}

/* The algorithm key a collective op is configured by. */
static const char *alg_key(enum coll_op op)
{
	switch (op) {
	case COLL_ALLREDUCE: return "allreduce";
	case COLL_ALLGATHER: return "allgather";
	case COLL_REDUCE_SCATTER: return "reduce_scatter";
	case COLL_BROADCAST: return "broadcast";
	case COLL_ALLTOALL: return "alltoall";
	case COLL_SENDRECV: return "pp";
	}
	return "model";
}

/* Every (op, group size) the programs use must have its algorithm. */
static int check_algorithms(const struct job_spec *s, const struct config *cfg, const char *sec, char **err)
{
	struct { enum coll_op op; int n; } use[16];
	int k = 0;
#define USE(o, size) do { use[k].op = (o); use[k++].n = (size); } while (0)
	if (s->tp > 1 && s->sp) {
		USE(COLL_ALLGATHER, s->tp);
		USE(COLL_REDUCE_SCATTER, s->tp);
	} else if (s->tp > 1 && s->cfg->pp_scatter_gather && s->pp > 1) {
		USE(COLL_ALLGATHER, s->tp);
	}
	if (s->tp > 1) /* blocks without SP; the cross entropy's all-reduces */
		USE(COLL_ALLREDUCE, s->tp);
	if (s->pp > 1 || s->cp > 1)
		USE(COLL_SENDRECV, 2);
	if (s->emb_b)
		USE(COLL_ALLREDUCE, 2);
	if (s->ep > 1 && job_model_moe_layers(&s->model))
		USE(COLL_ALLTOALL, s->ep);
	if (s->etp > 1 && s->etp != s->tp && job_model_moe_layers(&s->model)) {
		USE(COLL_ALLGATHER, s->etp);
		USE(COLL_REDUCE_SCATTER, s->etp);
	}
	if (s->zero == 3 && s->dp > 1)
		USE(COLL_ALLGATHER, s->dp);
	for (int e = 0; e < 2; e++) {  /* dp, then edp reductions */
		int n = e ? s->edp : s->dp;
		if (n < 2)
			continue;
		USE(wl_zero_grad_op(s->zero), n);
		if (s->zero)
			USE(COLL_ALLGATHER, n);
	}
#undef USE
	for (int i = 0; i < k; i++) {
		const char *why = coll_check(use[i].op, job_coll_alg(s, use[i].op), use[i].n);
		if (why) {
			*err = cfg_error_at(cfg, sec, alg_key(use[i].op), 0, "%s %s over %d GPUs: %s",
					    coll_op_name(use[i].op), job_coll_alg(s, use[i].op), use[i].n, why);
			return -1;
		}
	}
	return 0;
}

static void job_destroy(struct job *j)
{
	job_exec_free(j);
	job_slow_free(j);
	job_spec_free(&j->spec);
	if (j->rng)
		gsl_rng_free(j->rng);
	free(j->gpu);
	free(j->source);
}

/* Resolves job number index, of section inst, onto the world's GPUs; 0
 * or -1 with *err. */
static int job_create(struct world *w, struct colls *cs, const struct cfg_inst *inst, int index,
		      struct job *j, char **err)
{
	const struct config *cfg = w->cfg;
	const struct job_cfg *c = inst->data;
	memset(j, 0, sizeof *j);
	j->w = w;
	j->colls = cs;
	j->index = index;
	j->source = xstrdup(inst->title);
	int *hosts;
	int n_hosts = world_host_list(w, j->source, "hosts", c->hosts, c->n_hosts, &hosts, err);
	if (n_hosts < 0)
		return -1;
	int n_gpus = n_hosts * w->gpus_per_host;
	int rc = job_spec_init(&j->spec, cfg, inst->name, c, n_gpus, err);
	if (rc == 0 && !coll_start_hook)
		rc = check_algorithms(&j->spec, cfg, j->source, err);
	if (rc < 0) {
		free(hosts);
		return -1;
	}
	j->gpu = xcalloc((size_t)j->spec.layout.n_ranks, sizeof *j->gpu);
	for (int r = 0; r < j->spec.layout.n_ranks; r++)
		j->gpu[r] = hosts[r / w->gpus_per_host] * w->gpus_per_host + r % w->gpus_per_host;
	free(hosts);
	j->spec.layout.gpu = j->gpu;
	j->fake_coll = coll_start_hook;
	return job_slow_setup(j, err);
}

int jobs_setup(struct world *w, struct colls *cs, struct jobs **out, char **err)
{
	*out = NULL;
	size_t n_jobs = cfg_count(w->cfg, &job_section);
	if (!n_jobs)
		return 0;
	struct jobs *js = xcalloc(1, sizeof *js);
	js->job = xcalloc(n_jobs, sizeof *js->job);
	const struct cfg_inst *inst = NULL;
	for (size_t i = 0; i < n_jobs; i++) {
		inst = cfg_next(w->cfg, &job_section, inst);
		if (job_create(w, cs, inst, (int)i, &js->job[i], err) < 0) {
			for (size_t k = 0; k <= i; k++)
				job_destroy(&js->job[k]);
			free(js->job);
			free(js);
			return -1;
		}
		js->n++;
	}
	*out = js;
	for (int i = 0; i < js->n; i++) {
		struct job *j = &js->job[i];
		sim_elem_register(w->sim, &j->elem, j->source);
		j->rng = rng_stream(w->sim->seed, RNG_WORKLOAD, (uint64_t)i);
		job_exec_init(j);
		job_exec_start(j);
	}
	return 0;
}

void jobs_print_plan(const struct jobs *js, FILE *out)
{
	for (int i = 0; js && i < js->n; i++) {
		const struct job *j = &js->job[i];
		struct job_plan_totals t;
		job_plan_totals(&j->spec, &t);
		for (int p = 0; p < JOB_NPAR; p++)
			if (p != JOB_PAR_CP || j->spec.cp > 1) /* the cp line for context-parallel jobs only */
				fprintf(out, "plan: job=%s parallelism=%s bytes=%llu messages=%llu%s\n", j->spec.name,
					job_par_name[p], (unsigned long long)t.bytes[p],
					(unsigned long long)t.messages[p],
					p == JOB_PAR_EP && t.bytes[p] && j->spec.cfg->moe_skew > 0
					? " (expected: moe_skew > 0 re-draws the routing every iteration)" : "");
	}
}

/* "host0..host7" for a run of consecutive hosts, else "host0, host5 and 3
 * more", into buf. */
static void host_span(const struct world *w, const int *host, int n, char *buf, size_t len)
{
	bool consecutive = true;
	for (int i = 1; i < n; i++)
		consecutive = consecutive && host[i] == host[i - 1] + 1;
	const char *first = w->fab.topo.nodes[host[0]].name, *last = w->fab.topo.nodes[host[n - 1]].name;
	if (n == 1)
		snprintf(buf, len, "%s", first);
	else if (consecutive)
		snprintf(buf, len, "%s..%s", first, last);
	else if (n == 2)
		snprintf(buf, len, "%s and %s", first, last);
	else
		snprintf(buf, len, "%s, %s and %d more", first, w->fab.topo.nodes[host[1]].name, n - 2);
}

void jobs_warn_layout(const struct jobs *js)
{
	for (int i = 0; js && i < js->n; i++) {
		const struct job *j = &js->job[i];
		const struct world *w = j->w;
		int gph = w->gpus_per_host, ranks = j->spec.layout.n_ranks;
		/* The job's hosts, in its rank order: those listed, or every host. */
		char *err = NULL;  /* none: job_create listed the same hosts */
		int *hosts, n_hosts = world_host_list(j->w, j->source, "hosts", j->spec.cfg->hosts,
						      j->spec.cfg->n_hosts, &hosts, &err);
		free(err);
		if (n_hosts <= 0)
			continue;
		int gpus = n_hosts * gph;
		if (ranks < gpus) {
			int used = (ranks + gph - 1) / gph;
			char on[96], idle[96];
			host_span(w, hosts, used, on, sizeof on);
			if (used < n_hosts)
				host_span(w, hosts + used, n_hosts - used, idle, sizeof idle);
			warnx_sim("[%s] uses %d of the %d GPUs of %s (tp x pp x dp = %d x %d x %d): its ranks run on "
				  "%s%s%s%s; set hosts, or a layout that fills them, to make this explicit",
				  j->source, ranks, gpus, j->spec.cfg->n_hosts ? "its hosts" : "the fabric",
				  j->spec.tp, j->spec.pp, j->spec.dp, on,
				  ranks % gph ? " (the last one partly)" : "",
				  used < n_hosts ? ", idle: " : "", used < n_hosts ? idle : "");
		}
		free(hosts);
	}
}

int jobs_write_unfinished(const struct jobs *js, char *buf, size_t len)
{
	int n = 0;
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; js && i < js->n; i++) {
		struct job *j = &js->job[i];
		if (!job_exec_write_unfinished(j))
			continue;
		if (at < len) {
			int w = snprintf(buf + at, len - at, "%sjob '%s' finished %lld of %d iterations",
					 n ? ", " : "", j->spec.name, (long long)j->iter,
					 j->spec.cfg->iterations);
			at += w > 0 ? (size_t)w : 0;
		}
		n++;
	}
	return n;
}

void jobs_free(struct jobs *js)
{
	if (!js)
		return;
	for (int i = 0; i < js->n; i++)
		job_destroy(&js->job[i]);
	free(js->job);
	free(js);
}
