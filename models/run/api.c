/*
 * api.c — librocesim's C API (rocesim.h): a run (run.h) held open between
 * calls, driven by posts, clock moves and completions.
 *
 * A handle is a run opened with an attach hook that registers one element,
 * "api", where a [traffic] section's source would be (so its events tie
 * with the others' as that section's would) and counts the handle as a
 * source of work until it closes. A post is a record scheduled on that
 * element at its time; its event posts the message (msg_send between GPUs,
 * w->post between hosts: what [traffic] collective and flows do) or starts
 * the collective (coll_start, with [traffic] collective's chunking), and
 * the record lives on until the message's last byte arrives or the
 * collective's on_done, which queue a completion and ask the run loop to
 * look at its done hook after this event (sim_poll_soon).
 *
 * Invariants: h->n_pending = records in h->posts (posted, not complete);
 * every record not yet fired has exactly one event pending; the clock is
 * only moved by run_advance (events) and by rocesim_advance past the last
 * event (an idle fabric lets time pass).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autoconfig.h"
#include "cli.h"
#include "collective.h"
#include "config.h"
#include "job.h"
#include "log.h"
#include "nic.h"
#include "rocesim.h"
#include "run.h"
#include "sim.h"
#include "xalloc.h"

#define API_CHUNK_B (512u * 1024u) /* as [traffic] collective: [job] chunk's default */
#define API_CHANNELS 2             /* [job] channels' default */
#define API_SOURCE "api"           /* flow.source and collective rows of posted work */

struct api_post {
	struct api_post *prev, *next; /* the handle's pending list */
	struct rocesim *h;
	int kind;                     /* enum rocesim_kind */
	uint64_t tag;
	simtime_t at_ps;
	uint64_t size_b;
	int src, dst;                 /* message: endpoints (GPUs, or n_gpus + host) */
	struct coll_spec spec;        /* collective: spec.gpus = gpus */
	int *gpus;                    /* collective: [spec.n], freed once started */
	int64_t id;                   /* flow_id / collective_id once started, else -1 */
	struct api_post *then, *then_last; /* posts that start when this one completes, in order */
	struct api_post *then_next;   /* a chained post: the next of its predecessor's */
};

struct rocesim {
	struct config cfg;            /* the loaded scenario (the run reads it) */
	struct run *run;
	struct sim *sim;
	struct world *w;
	struct colls *colls;
	struct sim_elem elem;         /* "api": schedules the posts */
	struct api_post *posts;       /* pending: posted and not complete */
	int n_pending;
	struct rocesim_completion *q; /* completions not yet taken: a ring */
	size_t q_head, q_n, q_cap;
	uint64_t chunk_b;             /* collectives posted next */
	int channels;
	const char *verdict;          /* 'deadlock' / 'stalled' once the watchdog stopped the run */
	char *err;                    /* the last error's message */
	struct job_dp_plan *plans;    /* rocesim_job_dp_plan's answers, kept until close */
	int n_plans;
};

static __thread char *open_err;   /* the calling thread's last rocesim_open failure */

static int fail(struct rocesim *h, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct rocesim *h, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = NULL;
	if (vasprintf(&m, fmt, ap) < 0)
		m = NULL;
	va_end(ap);
	free(h->err);
	h->err = m;
	return rc;
}

/* ---- The run's side: the element, the events, the completions ---- */

static int api_attach(void *ctx, struct sim *sim, struct world *w, struct colls *cs, char **err)
{
	(void)err;
	struct rocesim *h = ctx;
	h->sim = sim;
	h->w = w;
	h->colls = cs;
	sim_elem_register(sim, &h->elem, "api");
	world_source_begin(w); /* the driver may post until it closes */
	return 0;
}

static void unlink_post(struct rocesim *h, struct api_post *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		h->posts = p->next;
	if (p->next)
		p->next->prev = p->prev;
	h->n_pending--;
}

static void fire(struct sim *sim, void *obj, uintptr_t arg);

static void complete(struct sim *sim, struct api_post *p)
{
	struct rocesim *h = p->h;
	if (h->q_n == h->q_cap) {
		size_t cap = h->q_cap ? 2 * h->q_cap : 64;
		struct rocesim_completion *q = xmalloc(cap * sizeof *q);
		for (size_t i = 0; i < h->q_n; i++)
			q[i] = h->q[(h->q_head + i) % h->q_cap];
		free(h->q);
		h->q = q;
		h->q_head = 0;
		h->q_cap = cap;
	}
	h->q[(h->q_head + h->q_n++) % h->q_cap] = (struct rocesim_completion){
		.tag = p->tag, .time_ps = sim->now, .posted_ps = p->at_ps, .bytes = p->size_b,
		.kind = p->kind, .id = p->id,
	};
	unlink_post(h, p);
	/* Chained posts start now, within this event, as a stream starts its
	 * next operation when the previous one ends (job_stream.c). */
	for (struct api_post *c = p->then, *n; c; c = n) {
		n = c->then_next;
		c->at_ps = sim->now;
		fire(sim, c, 0);
	}
	free(p->gpus);
	free(p);
	sim_poll_soon(sim); /* rocesim_next stops after this event */
}

static void msg_arrived(struct sim *sim, struct flow *f, void *ctx)
{
	(void)f;
	complete(sim, ctx);
}

static void coll_finished(struct sim *sim, struct coll *c, void *ctx)
{
	struct api_post *p = ctx;
	p->id = coll_id(c);
	complete(sim, p);
}

static void fire(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	struct api_post *p = obj;
	struct rocesim *h = p->h;
	struct world *w = h->w;
	if (p->kind == ROCESIM_COLL) {
		struct coll *c = coll_start(h->colls, &p->spec); /* copies the group */
		free(p->gpus);
		p->gpus = NULL;
		p->spec.gpus = NULL;
		(void)c; /* its id comes with on_done: the handle may be gone after a
			  * collective that completes at once */
		return;
	}
	struct flow *f;
	if (p->src < w->n_gpus) {
		struct msg m = { .src_gpu = p->src, .dst_gpu = p->dst, .size_b = p->size_b,
				 .source = API_SOURCE, .parallelism = "micro", .job = NULL, .iteration = -1,
				 .collective_id = -1, .on_recv = msg_arrived, .ctx = p };
		f = msg_send(w, &m);
	} else {
		f = w->post(w, p->src - w->n_gpus, p->dst - w->n_gpus, p->size_b, API_SOURCE, "micro");
		f->on_recv = msg_arrived;
		f->on_recv_ctx = p;
	}
	p->id = (int64_t)f->id;
}

/* The done hook of rocesim_next: a completion is waiting. */
static bool has_completion(struct sim *sim, void *ctx)
{
	(void)sim;
	return ((struct rocesim *)ctx)->q_n > 0;
}

/* Runs the loop to stop_at with the done hook given; the watchdog's
 * verdict becomes ROCESIM_E_STALLED. Returns the loop's enum sim_stop or
 * ROCESIM_E_STALLED. */
static int run_to(struct rocesim *h, simtime_t stop_at, bool (*done)(struct sim *, void *))
{
	h->sim->stop_at = stop_at;
	h->sim->done = done;
	h->sim->done_ctx = done == world_done ? (void *)h->w : (void *)h;
	int st = run_advance(h->run);
	h->sim->done = NULL;
	if ((h->verdict = run_verdict(h->run)))
		return fail(h, ROCESIM_E_STALLED, "the run stopped at %lld ps: %s (the watchdog found no progress; "
			    "see stderr, and the deadlock table after rocesim_close)",
			    (long long)h->sim->now, h->verdict);
	return st;
}

static int check_open(const struct rocesim *h)
{
	return h ? 0 : ROCESIM_E_ARG;
}

static int check_time(struct rocesim *h, int64_t t, const char *what)
{
	if (h->verdict)
		return fail(h, ROCESIM_E_STALLED, "the run was stopped (%s); only rocesim_close is left", h->verdict);
	if (t < h->sim->now)
		return fail(h, ROCESIM_E_PAST, "%s at %lld ps is in the past: now is %lld ps", what, (long long)t,
			    (long long)h->sim->now);
	if (t >= SIMTIME_NEVER)
		return fail(h, ROCESIM_E_ARG, "%s at %lld ps: expected a time below INT64_MAX", what, (long long)t);
	return 0;
}

/* The pending post tagged `tag` (the latest posted of them), or NULL. */
static struct api_post *pending_tag(const struct rocesim *h, uint64_t tag)
{
	for (struct api_post *p = h->posts; p; p = p->next)
		if (p->tag == tag)
			return p;
	return NULL;
}

/* A new pending record: scheduled at `at`, or, with after, started when
 * after completes. */
static struct api_post *post_new(struct rocesim *h, int kind, uint64_t size_b, int64_t at, uint64_t tag,
				 struct api_post *after)
{
	struct api_post *p = xcalloc(1, sizeof *p);
	*p = (struct api_post){ .h = h, .kind = kind, .tag = tag, .at_ps = at, .size_b = size_b, .id = -1 };
	p->next = h->posts;
	if (h->posts)
		h->posts->prev = p;
	h->posts = p;
	h->n_pending++;
	if (after) {
		if (after->then_last)
			after->then_last->then_next = p;
		else
			after->then = p;
		after->then_last = p;
		return p;
	}
	sched_at(h->sim, at, &h->elem, fire, p, 0);
	run_watchdog_rearm(h->run); /* it stops ticking on an empty queue */
	return p;
}

/* When a post starts: at a time (after_tag NULL) or after a pending post.
 * 0 with *after set (NULL: at at_ps), or an error. */
static int when(struct rocesim *h, const uint64_t *after_tag, int64_t at_ps, const char *what,
		struct api_post **after)
{
	*after = NULL;
	if (!after_tag)
		return check_time(h, at_ps, what);
	if (h->verdict)
		return fail(h, ROCESIM_E_STALLED, "the run was stopped (%s); only rocesim_close is left", h->verdict);
	if (!(*after = pending_tag(h, *after_tag)))
		return fail(h, ROCESIM_E_NAME, "%s after tag %llu: no pending post has that tag (a completed one's "
			    "successor is posted at its completion time)", what, (unsigned long long)*after_tag);
	return 0;
}

/* ---- The API ---- */

const char *rocesim_version(void)
{
	return PACKAGE_VERSION;
}

const char *rocesim_last_error(const rocesim *h)
{
	const char *m = h ? h->err : open_err;
	return m ? m : "no error";
}

static void free_overrides(struct cfg_override *ov, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ov[i].section);
		free(ov[i].key);
		free(ov[i].value);
	}
	free(ov);
}

rocesim *rocesim_open(const char *scenario, const char *const *sets, size_t n_sets, const char *output)
{
	free(open_err);
	open_err = NULL;
	if (!scenario) {
		open_err = xstrdup("rocesim_open: no scenario file given");
		return NULL;
	}
	struct cfg_override *ov = xcalloc(n_sets + 1, sizeof *ov);
	for (size_t i = 0; i < n_sets; i++) {
		if (!sets[i] || cli_split_set(sets[i], &ov[i]) != 0) {
			open_err = str_printf("override %zu '%s': expected SECTION.KEY=VALUE (as sim --set)", i + 1,
					      sets[i] ? sets[i] : "(null)");
			free_overrides(ov, i);
			return NULL;
		}
	}
	struct rocesim *h = xcalloc(1, sizeof *h);
	char *err = NULL;
	int rc = scenario_load(&h->cfg, scenario, ov, n_sets, &err);
	free_overrides(ov, n_sets);
	if (rc < 0) {
		open_err = err;
		free(h);
		return NULL;
	}
	h->chunk_b = API_CHUNK_B;
	h->channels = API_CHANNELS;
	struct run_opts o = { .scenario = scenario, .output = output, .no_results = !output, .driven = true,
			      .attach = api_attach, .attach_ctx = h };
	struct run_report rep;
	if (run_open(&h->cfg, &o, &rep, &h->run, &err) != 0 || !h->run) {
		open_err = err ? err : xstrdup("rocesim_open: the run could not be opened");
		run_report_free(&rep);
		config_free(&h->cfg);
		free(h);
		return NULL;
	}
	run_report_free(&rep);
	h->sim->stop_at = SIMTIME_NEVER; /* the driver moves the clock */
	h->sim->done = NULL;
	return h;
}

int rocesim_close(rocesim *h, const char **status)
{
	if (status)
		*status = "failed";
	if (!h)
		return ROCESIM_E_ARG;
	int stopped = SIM_STOP_TIME;
	if (!h->n_pending && !h->verdict) {
		/* Nothing the driver waits for: let the senders see their last
		 * ACKs (a message is complete for the driver when its last byte
		 * arrived; its flow row ends at its ACK, as in a batch run) and
		 * the scenario's own work finish. The run row ends at the later
		 * of that and the driver's clock. */
		simtime_t now = h->sim->now;
		world_source_end(h->w);
		int st = world_done(h->sim, h->w) ? SIM_DONE : run_to(h, SIMTIME_NEVER, world_done);
		if (st == SIM_DONE || (st == SIM_RAN_DRY && world_done(h->sim, h->w)))
			stopped = SIM_DONE;
		if (h->sim->now < now)
			h->sim->now = now;
	}
	h->sim->stop_at = SIMTIME_NEVER;
	struct run_report rep;
	char *err = NULL;
	memset(&rep, 0, sizeof rep);
	int rc = run_close(h->run, stopped, &rep, &err);
	if (status)
		*status = rep.status ? rep.status : "failed";
	/* run_close freed the run and its world: the records still pending
	 * have no event left to fire them. */
	for (struct api_post *p = h->posts, *n; p; p = n) {
		n = p->next;
		free(p->gpus);
		free(p);
	}
	for (int i = 0; i < h->n_plans; i++)
		job_dp_plan_free(&h->plans[i]);
	free(h->plans);
	run_report_free(&rep);
	config_free(&h->cfg);
	free(h->q);
	free(h->err);
	free(h);
	if (err) {
		fprintf(stderr, "rocesim: %s\n", err);
		free(err);
	}
	return rc == EXIT_STALLED ? ROCESIM_E_STALLED : rc ? ROCESIM_E_IO : ROCESIM_OK;
}

int64_t rocesim_now(const rocesim *h)
{
	return h ? h->sim->now : ROCESIM_E_ARG;
}

int rocesim_n_gpus(const rocesim *h)
{
	return h ? h->w->n_gpus : ROCESIM_E_ARG;
}

int rocesim_n_hosts(const rocesim *h)
{
	return h ? h->w->fab.n_hosts : ROCESIM_E_ARG;
}

int rocesim_pending(const rocesim *h)
{
	return h ? h->n_pending : ROCESIM_E_ARG;
}

int rocesim_endpoint(const rocesim *h, const char *name)
{
	if (!h || !name)
		return ROCESIM_E_ARG;
	struct rocesim *m = (struct rocesim *)h; /* the error message is the handle's state */
	const struct world *w = h->w;
	int host = world_host_id(w, name);
	if (host >= 0)
		return w->n_gpus + host;
	const char *dot = strrchr(name, '.');
	if (dot && strncmp(dot, ".gpu", 4) == 0 && dot[4] >= '0' && dot[4] <= '9') {
		char *end;
		long i = strtol(dot + 4, &end, 10);
		char hn[256];
		size_t len = (size_t)(dot - name);
		if (!*end && i < w->gpus_per_host && len < sizeof hn) {
			memcpy(hn, name, len);
			hn[len] = 0;
			host = world_host_id(w, hn);
			if (host >= 0)
				return host * w->gpus_per_host + (int)i;
		}
	}
	return fail(m, ROCESIM_E_NAME, "unknown GPU or host '%s' (GPUs are hostH.gpuI with I below "
		    "gpus_per_host = %d, hosts host0 .. host%d)", name, w->gpus_per_host, w->fab.n_hosts - 1);
}

static int post_msg(rocesim *h, const uint64_t *after_tag, int src, int dst, uint64_t bytes, int64_t at_ps,
		    uint64_t tag)
{
	int rc;
	struct api_post *after;
	if ((rc = check_open(h)) || (rc = when(h, after_tag, at_ps, "a message posted", &after)))
		return rc;
	int n_gpus = h->w->n_gpus, n_ep = n_gpus + h->w->fab.n_hosts;
	if (src < 0 || src >= n_ep || dst < 0 || dst >= n_ep)
		return fail(h, ROCESIM_E_NAME, "no endpoint %d: expected 0 .. %d (rocesim_endpoint)",
			    src < 0 || src >= n_ep ? src : dst, n_ep - 1);
	if ((src < n_gpus) != (dst < n_gpus))
		return fail(h, ROCESIM_E_ARG, "a message from a %s to a %s: expected two GPUs or two hosts",
			    src < n_gpus ? "GPU" : "host", dst < n_gpus ? "GPU" : "host");
	if (src == dst)
		return fail(h, ROCESIM_E_ARG, "a message from endpoint %d to itself", src);
	if (bytes == 0)
		return fail(h, ROCESIM_E_ARG, "a message of 0 bytes: expected at least 1");
	struct api_post *p = post_new(h, ROCESIM_MSG, bytes, at_ps, tag, after);
	p->src = src;
	p->dst = dst;
	return ROCESIM_OK;
}

int rocesim_post_msg(rocesim *h, int src, int dst, uint64_t bytes, int64_t at_ps, uint64_t tag)
{
	return post_msg(h, NULL, src, dst, bytes, at_ps, tag);
}

int rocesim_post_msg_after(rocesim *h, uint64_t after_tag, int src, int dst, uint64_t bytes, uint64_t tag)
{
	return post_msg(h, &after_tag, src, dst, bytes, -1, tag);
}

static int post_coll(rocesim *h, const uint64_t *after_tag, const char *op, const char *algorithm,
		     const int *gpus, size_t n, uint64_t bytes, int64_t at_ps, uint64_t tag)
{
	int rc;
	struct api_post *after;
	if ((rc = check_open(h)) || (rc = when(h, after_tag, at_ps, "a collective posted", &after)))
		return rc;
	int o = op ? coll_op_by_name(op) : -1;
	if (o < 0) {
		char list[256] = "";
		for (size_t i = 0; coll_op_name_at(NULL, i); i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
				 coll_op_name_at(NULL, i));
		return fail(h, ROCESIM_E_ARG, "unknown collective op '%s': expected one of %s", op ? op : "(null)",
			    list);
	}
	enum coll_op eop = (enum coll_op)o;
	const char *alg = algorithm ? algorithm : coll_alg_name_at(&eop, 0);
	/* The registry's own string, so the spec never points into the caller's. */
	const char *known = NULL;
	for (size_t i = 0; coll_alg_name_at(&eop, i); i++)
		if (strcmp(coll_alg_name_at(&eop, i), alg) == 0)
			known = coll_alg_name_at(&eop, i);
	if (!known) {
		char list[256];
		coll_alg_list(eop, list, sizeof list);
		return fail(h, ROCESIM_E_ARG, "unknown algorithm '%s' for %s: expected %s", alg, op, list);
	}
	if (n < 2 || !gpus)
		return fail(h, ROCESIM_E_ARG, "a %s over %zu GPU%s: expected at least 2", op, n, n == 1 ? "" : "s");
	if (n > (size_t)h->w->n_gpus)
		return fail(h, ROCESIM_E_ARG, "a %s over %zu GPUs: the fabric has %d", op, n, h->w->n_gpus);
	const char *why = coll_check(eop, known, (int)n);
	if (why)
		return fail(h, ROCESIM_E_ARG, "%s %s over %zu GPUs: expected %s", op, known, n, why);
	if (strcmp(known, "multicast") == 0) {
		const struct mcast_cfg *mc = mcast_cfg_of(&h->cfg);
		if (!mc->enabled || !mc->reliable)
			return fail(h, ROCESIM_E_ARG, "algorithm multicast needs [multicast] enabled = on and "
				    "reliable = on");
	}
	for (size_t i = 0; i < n; i++) {
		if (gpus[i] < 0 || gpus[i] >= h->w->n_gpus)
			return fail(h, ROCESIM_E_NAME, "rank %zu: no GPU %d (expected 0 .. %d)", i, gpus[i],
				    h->w->n_gpus - 1);
		for (size_t j = 0; j < i; j++)
			if (gpus[j] == gpus[i])
				return fail(h, ROCESIM_E_ARG, "GPU %d is rank %zu and rank %zu", gpus[i], j, i);
	}
	if (bytes == 0)
		return fail(h, ROCESIM_E_ARG, "a collective of 0 bytes: expected at least 1");
	struct api_post *p = post_new(h, ROCESIM_COLL, bytes, at_ps, tag, after);
	p->gpus = xmalloc(n * sizeof *p->gpus);
	memcpy(p->gpus, gpus, n * sizeof *p->gpus);
	p->spec = (struct coll_spec){
		.op = eop, .algorithm = known, .gpus = p->gpus, .n = (int)n, .size_b = bytes, .root = 0,
		.chunk_b = h->chunk_b, .channels = h->channels, .source = API_SOURCE, .parallelism = "micro",
		.job = NULL, .iteration = -1, .on_done = coll_finished, .ctx = p,
	};
	return ROCESIM_OK;
}

int rocesim_post_coll(rocesim *h, const char *op, const char *algorithm, const int *gpus, size_t n,
		      uint64_t bytes, int64_t at_ps, uint64_t tag)
{
	return post_coll(h, NULL, op, algorithm, gpus, n, bytes, at_ps, tag);
}

int rocesim_post_coll_after(rocesim *h, uint64_t after_tag, const char *op, const char *algorithm,
			    const int *gpus, size_t n, uint64_t bytes, uint64_t tag)
{
	return post_coll(h, &after_tag, op, algorithm, gpus, n, bytes, -1, tag);
}

int rocesim_coll_options(rocesim *h, uint64_t chunk_bytes, int channels)
{
	if (!h)
		return ROCESIM_E_ARG;
	if (chunk_bytes == 0 || channels < 1)
		return fail(h, ROCESIM_E_ARG, "chunk %llu B and %d channels: expected a chunk > 0 and channels >= 1",
			    (unsigned long long)chunk_bytes, channels);
	h->chunk_b = chunk_bytes;
	h->channels = channels;
	return ROCESIM_OK;
}

int rocesim_advance(rocesim *h, int64_t until_ps)
{
	int rc;
	if ((rc = check_open(h)) || (rc = check_time(h, until_ps, "advancing")))
		return rc;
	int st = run_to(h, until_ps, NULL);
	if (st < 0)
		return st;
	h->sim->now = until_ps; /* ran dry before it: an idle fabric lets time pass */
	return ROCESIM_OK;
}

int rocesim_poll(rocesim *h, struct rocesim_completion *c)
{
	if (!h || !c)
		return ROCESIM_E_ARG;
	if (!h->q_n)
		return 0;
	*c = h->q[h->q_head];
	h->q_head = (h->q_head + 1) % h->q_cap;
	h->q_n--;
	return 1;
}

int rocesim_next(rocesim *h, int64_t limit_ps, struct rocesim_completion *c)
{
	int rc;
	if ((rc = check_open(h)) || !c)
		return ROCESIM_E_ARG;
	if (h->q_n)
		return rocesim_poll(h, c);
	if ((rc = check_time(h, limit_ps == INT64_MAX ? h->sim->now : limit_ps, "waiting until")))
		return rc;
	if (!h->n_pending)
		return fail(h, ROCESIM_E_IDLE, "nothing posted is pending (now %lld ps)", (long long)h->sim->now);
	int st = run_to(h, limit_ps == INT64_MAX ? SIMTIME_NEVER : limit_ps, has_completion);
	if (st < 0)
		return st;
	if (h->q_n)
		return rocesim_poll(h, c);
	if (st == SIM_STOP_TIME)
		return 0;
	return fail(h, ROCESIM_E_STALLED, "no event left at %lld ps with %d posted item%s unfinished",
		    (long long)h->sim->now, h->n_pending, h->n_pending == 1 ? "" : "s");
}

int rocesim_job_dp_plan(rocesim *h, const char *job, struct rocesim_dp_plan *out)
{
	if (!h || !job || !out)
		return ROCESIM_E_ARG;
	struct job_dp_plan p;
	char *err = NULL;
	if (jobs_dp_plan(run_jobs(h->run), job, &p, &err) < 0) {
		int rc = strncmp(err, "no [job.", 8) == 0 ? ROCESIM_E_NAME : ROCESIM_E_ARG;
		fail(h, rc, "%s", err);
		free(err);
		return rc;
	}
	h->plans = xrealloc(h->plans, (size_t)(h->n_plans + 1) * sizeof *h->plans);
	h->plans[h->n_plans++] = p;
	*out = (struct rocesim_dp_plan){
		.iterations = p.iterations, .start_ps = p.start_ps, .compute_ps = p.compute_ps,
		.optimizer_ps = p.optimizer_ps, .n_buckets = p.n_buckets, .bucket_bytes = p.bucket_b,
		.n_gpus = p.n_gpus, .gpus = p.gpus, .algorithm = p.allreduce, .chunk_bytes = p.chunk_b,
		.channels = p.channels,
	};
	return ROCESIM_OK;
}
