/*
 * api.c — librocesim's C API (rocesim.h): a run (run.h) held open between
 * calls, driven by posts, clock moves and completions.
 *
 * A handle is a run opened with an attach hook that registers one element,
 * "api", where a [traffic] section's source would be (so its events tie
 * with the others' as that section's would) and counts the handle as a
 * source of work until it closes. Posts are api_post.c's. This file opens
 * and closes the handle, moves the clock (rocesim_advance: the run loop to
 * a time; rocesim_next: to a time or until a completion is queued, which
 * the completion's sim_poll_soon makes the loop notice right after its
 * event) and hands out completions.
 *
 * Invariant: the clock is only moved by run_advance (events) and by
 * rocesim_advance past the last event (an idle fabric lets time pass).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api_internal.h"
#include "autoconfig.h"
#include "cli.h"
#include "log.h"
#include "nic.h"
#include "xalloc.h"

static __thread char *open_err;   /* the calling thread's last rocesim_open failure */

int api_fail(struct rocesim *h, int rc, const char *fmt, ...)
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

/* ---- The run's side: the element, the loop ---- */

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
		return api_fail(h, ROCESIM_E_STALLED, "the run stopped at %lld ps: %s (the watchdog found no progress; "
			    "see stderr, and the deadlock table after rocesim_close)",
			    (long long)h->sim->now, h->verdict);
	return st;
}

int api_check_open(const struct rocesim *h)
{
	return h ? 0 : ROCESIM_E_ARG;
}

int api_check_time(struct rocesim *h, int64_t t, const char *what)
{
	if (h->verdict)
		return api_fail(h, ROCESIM_E_STALLED, "the run was stopped (%s); only rocesim_close is left", h->verdict);
	if (t < h->sim->now)
		return api_fail(h, ROCESIM_E_PAST, "%s at %lld ps is in the past: now is %lld ps", what, (long long)t,
			    (long long)h->sim->now);
	if (t >= SIMTIME_NEVER)
		return api_fail(h, ROCESIM_E_ARG, "%s at %lld ps: expected a time below INT64_MAX", what, (long long)t);
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
		 * arrived; its flow row ends at its ACK, as in a batch run). Not
		 * when the scenario's own sources ([traffic], [job]) would still
		 * post: closing does not run them on ('stopped'). The run row
		 * ends at the later of that drain and the driver's clock. */
		simtime_t now = h->sim->now;
		world_source_end(h->w);
		if (h->w->sources_active == 0) {
			int st = world_done(h->sim, h->w) ? SIM_DONE : run_to(h, SIMTIME_NEVER, world_done);
			if (st == SIM_DONE || (st == SIM_RAN_DRY && world_done(h->sim, h->w)))
				stopped = SIM_DONE;
		}
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
	int gpu = world_gpu_id(w, name);
	if (gpu >= 0)
		return gpu;
	return api_fail(m, ROCESIM_E_NAME, "unknown GPU or host '%s' (GPUs are hostH.gpuI with I below "
		    "gpus_per_host = %d, hosts host0 .. host%d)", name, w->gpus_per_host, w->fab.n_hosts - 1);
}

int rocesim_advance(rocesim *h, int64_t until_ps)
{
	int rc;
	if ((rc = api_check_open(h)) || (rc = api_check_time(h, until_ps, "advancing")))
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
	if ((rc = api_check_open(h)) || !c)
		return ROCESIM_E_ARG;
	if (h->q_n)
		return rocesim_poll(h, c);
	if ((rc = api_check_time(h, limit_ps == INT64_MAX ? h->sim->now : limit_ps, "waiting until")))
		return rc;
	if (!h->n_pending)
		return api_fail(h, ROCESIM_E_IDLE, "nothing posted is pending (now %lld ps)", (long long)h->sim->now);
	int st = run_to(h, limit_ps == INT64_MAX ? SIMTIME_NEVER : limit_ps, has_completion);
	if (st < 0)
		return st;
	if (h->q_n)
		return rocesim_poll(h, c);
	if (st == SIM_STOP_TIME)
		return 0;
	return api_fail(h, ROCESIM_E_STALLED, "no event left at %lld ps with %d posted item%s unfinished",
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
		api_fail(h, rc, "%s", err);
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
