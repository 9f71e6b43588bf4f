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
#include "chakra.h"
#include "collective.h"
#include "config.h"
#include "job.h"
#include "job_exec.h"
#include "job_place.h"
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

const char *job_alg_key(enum coll_op op)
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

/* Each use's op must have an algorithm for its group size. */
static int check_uses(const struct job_spec *s, const struct config *cfg, const char *sec,
		      const struct wl_alg_use *use, int k, char **err)
{
	for (int i = 0; i < k; i++) {
		const char *why = coll_check(use[i].op, job_coll_alg(s, use[i].op), use[i].n);
		if (why) {
			*err = cfg_error_at(cfg, sec, job_alg_key(use[i].op), 0, "%s %s over %d GPUs: %s",
					    coll_op_name(use[i].op), job_coll_alg(s, use[i].op), use[i].n, why);
			return -1;
		}
	}
	return 0;
}

/* Every (op, group size) the programs use must have its algorithm. */
static int check_algorithms(const struct job_spec *s, const struct config *cfg, const char *sec, char **err)
{
	struct wl_alg_use use[WL_ALG_USES];
	int k = 0;
	if (s->cfg->workload == JOB_WL_SIMAI)
		return check_uses(s, cfg, sec, use, wl_simai_uses(s, use), err);
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
	return check_uses(s, cfg, sec, use, k, err);
}

static void job_destroy(struct job *j)
{
	chakra_job_free(j);
	job_exec_free(j);
	job_slow_free(j);
	job_spec_free(&j->spec);
	if (j->rng)
		gsl_rng_free(j->rng);
	free(j->gpu);
	free(j->host);
	free(j->source);
}

/* Resolves job number index, of section inst, onto its hosts (placed by
 * place_jobs, in rank order; taken over); 0 or -1 with *err. */
static int job_create(struct world *w, struct colls *cs, const struct cfg_inst *inst, int index,
		      int *hosts, int n_hosts, struct job *j, char **err)
{
	const struct config *cfg = w->cfg;
	const struct job_cfg *c = inst->data;
	memset(j, 0, sizeof *j);
	j->w = w;
	j->colls = cs;
	j->index = index;
	j->source = xstrdup(inst->title);
	j->host = hosts;
	j->n_host = n_hosts;
	if (c->workload == JOB_WL_CHAKRA) {
		j->spec.name = inst->name;
		j->spec.cfg = c;
		j->fake_coll = coll_start_hook;
		const struct job_chakra_cfg *ct = inst->type_data;
		return chakra_job_create(w, j, c, ct->trace, hosts, n_hosts, err);
	}
	int n_gpus = n_hosts * w->gpus_per_host;
	int rc = job_spec_init(&j->spec, cfg, inst->name, c, n_gpus, err);
	if (rc == 0 && !coll_start_hook)
		rc = check_algorithms(&j->spec, cfg, j->source, err);
	if (rc < 0)
		return -1;
	j->gpu = xcalloc((size_t)j->spec.layout.n_ranks, sizeof *j->gpu);
	for (int r = 0; r < j->spec.layout.n_ranks; r++)
		j->gpu[r] = hosts[r / w->gpus_per_host] * w->gpus_per_host + r % w->gpus_per_host;
	j->spec.layout.gpu = j->gpu;
	j->fake_coll = coll_start_hook;
	return job_slow_setup(j, err);
}

/* The edge switch and pod of every host (job_place.h). */
static void place_fabric(const struct world *w, struct job_place_fabric *f, int *edge, int *pod)
{
	const struct topo *t = &w->fab.topo;
	f->n_hosts = t->n_hosts;
	f->edge = edge;
	f->pod = pod;
	for (int h = 0; h < t->n_hosts; h++) {
		int e = h;
		if (t->port_off[h + 1] > t->port_off[h] && t->nodes[t->ports[t->port_off[h]].peer].kind == NODE_SWITCH)
			e = t->ports[t->port_off[h]].peer;
		int p = e;
		if (e != h)
			for (int i = t->port_off[e]; i < t->port_off[e + 1]; i++) {
				int u = t->ports[i].peer;
				if (t->nodes[u].kind == NODE_SWITCH && t->nodes[u].tier > t->nodes[e].tier &&
				    (p == e || u < p))
					p = u;
			}
		edge[h] = e;
		pod[h] = p;
	}
}

/* Places every job: those with an explicit host list first, then the
 * others, each in declaration order (job_place.h). hosts[i], n_hosts[i]:
 * job i's hosts in rank order (an explicit list whole, as given). */
static int place_jobs(struct world *w, const struct cfg_inst *const *inst, int n_jobs, int **hosts,
		      int *n_hosts, char **err)
{
	const struct config *cfg = w->cfg;
	int nh = w->fab.topo.n_hosts, gph = w->gpus_per_host;
	int *edge = xmalloc((size_t)(nh ? nh : 1) * sizeof *edge), *pod = xmalloc((size_t)(nh ? nh : 1) * sizeof *pod);
	int *owner = xmalloc((size_t)(nh ? nh : 1) * sizeof *owner);
	unsigned char *taken = xcalloc((size_t)(nh ? nh : 1), 1);
	struct job_place_fabric f;
	place_fabric(w, &f, edge, pod);
	int rc = 0;
	for (int pass = 0; pass < 2 && rc == 0; pass++)
		for (int i = 0; i < n_jobs && rc == 0; i++) {
			const struct job_cfg *c = inst[i]->data;
			bool expl = c->place_policy == JOB_PLACE_HOSTS;
			if (expl != (pass == 0))
				continue;
			int *pool, n_pool = world_host_list(w, inst[i]->title, "hosts", c->hosts, c->n_hosts, &pool, err);
			if (n_pool < 0) {
				rc = -1;
				break;
			}
			long long ranks = c->workload == JOB_WL_SIMAI ? wl_simai_ranks(c->file)
					  : c->workload == JOB_WL_CHAKRA
					  ? chakra_ranks(((const struct job_chakra_cfg *)inst[i]->type_data)->trace)
					  : (long long)c->tp * c->cp * c->pp * c->dp;
			int need = (int)((ranks + gph - 1) / gph);
			if (ranks < 0 || n_pool < need) { /* job_spec_init says why: the job does not fit its hosts, or its file */
				hosts[i] = pool;
				n_hosts[i] = n_pool;
				continue;
			}
			int *out = xmalloc((size_t)(expl ? n_pool : need) * sizeof *out), avail, clash;
			unsigned char *before = xmalloc((size_t)(nh ? nh : 1));
			memcpy(before, taken, (size_t)nh);
			gsl_rng *rng = rng_stream(w->sim->seed, RNG_PLACEMENT, (uint64_t)i);
			rc = job_place(&f, (enum job_place_policy)c->place_policy, pool, n_pool, need, c->busy, rng,
				       taken, out, &avail, &clash);
			gsl_rng_free(rng);
			if (rc < 0 && clash >= 0) {
				*err = cfg_error_at(cfg, inst[i]->title, "hosts", 0,
						    "host '%s' is %s [%s]; jobs on one fabric share no GPU",
						    w->fab.topo.nodes[clash].name,
						    taken[clash] == JOB_HOST_BUSY ? "held busy by the fragmented placement of"
						    : "already used by", inst[owner[clash]]->title);
			} else if (rc < 0) {
				*err = cfg_error_at(cfg, inst[i]->title, "placement", 0,
						    "the job needs %d host%s (tp x cp x pp x dp = %lld GPUs, %d per host); "
						    "%s %d %s free%s", need, need == 1 ? "" : "s", ranks, gph,
						    c->n_hosts ? "of its hosts" : "of the fabric's", avail,
						    avail == 1 ? "is" : "are",
						    c->place_policy == JOB_PLACE_FRAGMENTED ? " once busy ones are drawn"
						    : " (earlier jobs hold the others)");
			} else {
				for (int h = 0; h < nh; h++)
					if (taken[h] != before[h])
						owner[h] = i;
				if (expl) { /* the whole list: its first hosts run the ranks */
					memcpy(out, pool, (size_t)n_pool * sizeof *out);
					need = n_pool;
				}
				hosts[i] = out;
				n_hosts[i] = need;
				out = NULL;
			}
			free(out);
			free(before);
			free(pool);
		}
	free(edge);
	free(pod);
	free(owner);
	free(taken);
	return rc;
}

uint8_t jobs_classes(const struct config *cfg)
{
	uint8_t m = 0;
	for (const struct cfg_inst *i = cfg_next(cfg, &job_section, NULL); i; i = cfg_next(cfg, &job_section, i))
		m |= (uint8_t)(1u << ((const struct job_cfg *)i->data)->priority);
	return m;
}

simtime_t jobs_mirror_ps(const struct config *cfg)
{
	simtime_t least = 0;
	for (const struct cfg_inst *i = cfg_next(cfg, &job_section, NULL); i; i = cfg_next(cfg, &job_section, i)) {
		const struct job_cfg *jc = i->data;
		const char *alg[] = { jc->allreduce, jc->allgather, jc->reduce_scatter, jc->broadcast, jc->alltoall };
		for (size_t a = 0; a < sizeof alg / sizeof *alg; a++)
			if (coll_alg_multicast(alg[a]))
				return 0;
		if (jc->endpoint_delay <= 0)
			return 0;
		if (!least || jc->endpoint_delay < least)
			least = jc->endpoint_delay;
	}
	return least;
}

int jobs_setup(struct world *w, struct colls *cs, struct jobs **out, char **err)
{
	*out = NULL;
	size_t n_jobs = cfg_count(w->cfg, &job_section);
	if (!n_jobs)
		return 0;
	const struct cfg_inst **inst = xcalloc(n_jobs, sizeof *inst);
	int **hosts = xcalloc(n_jobs, sizeof *hosts), *n_hosts = xcalloc(n_jobs, sizeof *n_hosts);
	for (size_t i = 0; i < n_jobs; i++)
		inst[i] = cfg_next(w->cfg, &job_section, i ? inst[i - 1] : NULL);
	struct jobs *js = NULL;
	if (place_jobs(w, inst, (int)n_jobs, hosts, n_hosts, err) < 0)
		goto fail;
	js = xcalloc(1, sizeof *js);
	js->job = xcalloc(n_jobs, sizeof *js->job);
	for (size_t i = 0; i < n_jobs; i++) {
		int rc = job_create(w, cs, inst[i], (int)i, hosts[i], n_hosts[i], &js->job[i], err);
		hosts[i] = NULL; /* the job's now */
		js->n++;
		if (rc < 0)
			goto fail;
	}
	free(inst);
	free(hosts);
	free(n_hosts);
	*out = js;
	for (int i = 0; i < js->n; i++)
		if (js->job[i].spec.cfg->endpoint_delay > 0)
			msg_late_enable(w); /* its pieces are late messages (msg.h) */
	for (int i = 0; i < js->n; i++) {
		struct job *j = &js->job[i];
		sim_elem_register(w->sim, &j->elem, j->source);
		j->rng = rng_stream(w->sim->seed, RNG_WORKLOAD, (uint64_t)i);
		if (j->ck) {
			chakra_job_start(j);
			continue;
		}
		job_exec_init(j);
		job_exec_start(j);
	}
	return 0;
fail:
	for (int k = 0; js && k < js->n; k++)
		job_destroy(&js->job[k]);
	if (js)
		free(js->job);
	free(js);
	for (size_t i = 0; i < n_jobs; i++)
		free(hosts[i]);
	free(inst);
	free(hosts);
	free(n_hosts);
	return -1;
}

void jobs_print_plan(const struct jobs *js, FILE *out)
{
	for (int i = 0; js && i < js->n; i++) {
		const struct job *j = &js->job[i];
		if (j->ck) {
			chakra_job_print_plan(j, out);
			continue;
		}
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
		if (j->ck)
			continue; /* its ranks are its trace files */
		int gph = w->gpus_per_host, ranks = j->spec.layout.n_ranks;
		/* An explicit list with hosts to spare, or a lone packed job that
		 * leaves most of the fabric idle: the hosts it could have had, in
		 * its rank order. Other policies take what the job needs. */
		const struct job_cfg *c = j->spec.cfg;
		bool lone_packed = js->n == 1 && c->place_policy == JOB_PLACE_PACKED && !c->n_hosts && !c->place_given;
		if (c->place_policy != JOB_PLACE_HOSTS && !lone_packed)
			continue;
		char *err = NULL;  /* none: place_jobs listed the same hosts */
		int *hosts, n_hosts = world_host_list(j->w, j->source, "hosts", c->hosts, c->n_hosts, &hosts, &err);
		free(err);
		if (n_hosts <= 0)
			continue;
		if (lone_packed) { /* its hosts first, then the idle ones in order */
			int n = j->n_host;
			memcpy(hosts, j->host, (size_t)n * sizeof *hosts);
			for (int k = 0; k < n_hosts; k++) {
				bool mine = false;
				for (int u = 0; u < j->n_host; u++)
					mine |= j->host[u] == k;
				if (!mine)
					hosts[n++] = k;
			}
		}
		int gpus = n_hosts * gph;
		if (ranks < gpus) {
			int used = (ranks + gph - 1) / gph;
			char on[96], idle[96];
			host_span(w, hosts, used, on, sizeof on);
			if (used < n_hosts)
				host_span(w, hosts + used, n_hosts - used, idle, sizeof idle);
			warnx_sim("[%s] uses %d of the %d GPUs of %s (tp x pp x dp = %d x %d x %d): its ranks run on "
				  "%s%s%s%s; set hosts, or a layout that fills them, to make this explicit",
				  j->source, ranks, gpus, c->n_hosts ? "its hosts" : "the fabric",
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
		if (!(j->ck ? chakra_job_write_unfinished(j) : job_exec_write_unfinished(j)))
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
