/*
 * run.c — the life of one run (see run.h).
 *
 * Every input error (topology, traffic, output path) is found before the
 * results database is opened, so a bad scenario writes nothing. What a
 * run writes, and how, is run_outputs.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "autoconfig.h"
#include "collective.h"
#include "config.h"
#include "observe.h"
#include "parallel.h"
#include "estimate.h"
#include "fabric.h"
#include "topology.h"
#include "invariants.h"
#include "job.h"
#include "log.h"
#include "nic.h"
#include "progress.h"
#include "results.h"
#include "run.h"
#include "run_internal.h"
#include "sim.h"
#include "traffic.h"
#include "units.h"
#include "watchdog.h"
#include "xalloc.h"

static void on_progress(struct sim *sim, void *ctx)
{
	struct progress_ctx *pc = ctx;
	bool estimated = false;
	double work = jobs_progress(pc->jobs, sim->now, &estimated);
	progress_update(&pc->p, sim->now, sim->events, pc->w->flows_done, pc->flows_expected, work, estimated);
}

/* No frame queued, on a link, owed as PFC or held by a NIC anywhere. */
static bool run_quiet(struct sim *sim, void *ctx)
{
	struct world *w = ctx;
	(void)sim;
	if (!fabric_quiet(&w->fab))
		return false;
	for (int e = 0; e < w->n_eps; e++)
		if (!nic_quiet(w->eps[e].nic))
			return false;
	return true;
}

static void fill_world(struct run_report *rep, const struct world *w)
{
	rep->hosts = w->fab.n_hosts;
	rep->switches = w->fab.n_nodes - w->fab.n_hosts;
	rep->links = w->fab.topo.n_links;
	rep->ports = w->fab.n_ports;
}

/* In reverse of the building order (fct.txt and the database are closed by
 * run_close). */
static void run_free(struct run *r)
{
	watchdog_free(&r->wd);
	par_free(r->par);
	sampler_free(r->sampler);
	tap_close(r->taps);   /* --check or an input error: nothing was opened */
	jobs_free(r->jobs);
	traffic_free(r->traffic);
	colls_free(r->colls);
	world_free(&r->w);   /* also after a failed world_build */
	sim_free(&r->sim);
	free(r);
}

int run_open(const struct config *cfg, const struct run_opts *o, struct run_report *rep, struct run **out,
	     char **err)
{
	*out = NULL;
	memset(rep, 0, sizeof *rep);
	if (run_check_memory(cfg, rep, err) < 0)
		return EXIT_INPUT;
	struct par_plan plan = { 0 };
	char coupled_buf[160];
	struct run *r = xcalloc(1, sizeof *r);
	r->cfg = cfg;
	r->o = *o;
	struct sim *sim = &r->sim;
	struct world *w = &r->w;
	const struct sim_cfg *sc = scenario_sim(cfg);
	sim_init(sim, sc->seed);
	sim->cfg = cfg;
	sim->stop_at = sc->stop;
	/* Under mpirun: the partition, before the world is built, so that a
	 * rank builds the ports and buffers of its own nodes only. */
	plan.cfg = cfg;
	plan.why = run_unpartitionable(o);
	plan.together = run_host_coupled(cfg, coupled_buf, sizeof coupled_buf);
	plan.mirror_ps = run_mirror_ps(cfg);
	if (world_build_placed(w, sim, cfg, jobs_classes(cfg), par_place, &plan, err) < 0)
		goto input_error;
	r->colls = colls_new(w);
	if (traffic_setup(w, r->colls, &r->traffic, err) < 0)
		goto input_error;
	/* A driver's element sits where a [traffic] section's would. */
	if (o->attach && o->attach(o->attach_ctx, sim, w, r->colls, err) < 0)
		goto input_error;
	if (jobs_setup(w, r->colls, &r->jobs, err) < 0 || tap_setup(w, o->pcap_dir, &r->taps, err) < 0 ||
	    sampler_setup(w, &r->sampler, err) < 0)
		goto input_error;
	fill_world(rep, w);
	rep->flows_expected = traffic_flows_expected(r->traffic);
	const char *par_why = plan.why, *coupled = plan.together;
	if (!coupled && (r->jobs || w->mcast))
		die_internal("a job or multicast group the configuration did not show (host_coupled)");
	par_attach(sim, w, &plan, &r->par);
	/* A frame a failure loses is counted against its message's id
	 * (world_fail.c), wherever it is lost. */
	if (w->fab.fail)
		par_share_records(r->par);
	if (o->check) {
		/* The partition a run on that many ranks (--ranks, or mpirun's)
		 * would use, refused (as an input error) before anything is
		 * printed. */
		int ranks = o->ranks > 0 ? o->ranks : par_size();
		struct partition part = { 0 };
		if (ranks > 1 && !par_why &&
		    partition_scenario(cfg, &w->fab.topo, ranks, coupled, plan.mirror_ps, &part, err) < 0)
			goto input_error;
		run_warn_choices(cfg, w, r->jobs, true);
		failure_print(&w->fab, stdout);
		jobs_print_plan(r->jobs, stdout);
		run_estimate_cost(cfg, w, r->jobs, o, false);
		if (ranks > 1 && par_why)
			printf("partition: %d ranks: rank 0 would simulate everything alone (%s cannot be "
			       "partitioned); the results are the sequential run's\n", ranks, par_why);
		else if (ranks > 1) {
			partition_describe(&part, &w->fab.topo, stdout);
			partition_free(&part);
		}
		run_free(r);
		return 0;
	}

	if (par_idle(r->par)) { /* rank 0 runs it all: nothing to write here */
		*out = r;
		return 0;
	}
	if (!o->no_results && run_outputs_open(r, rep, err) < 0)
		goto input_error;
	run_warn_choices(cfg, w, r->jobs, !o->driven); /* after every input error, so those stay one line */
	if (r->taps)
		run_estimate_cost(cfg, w, r->jobs, o, true);
	if (r->res) {
		run_outputs_guard(r);
		sim->res = r->res;
		rep->run_id = results_run_id(r->res);
		if (par_leader())
			world_write_topology(w, r->res);
	}
	if (r->sampler && par_partitioned(r->par)) {
		r->sampler->all_empty = run_all_empty;
		r->sampler->all_empty_ctx = r->par;
	}
	if (r->res)
		sampler_start(w, r->sampler, r->res);
	if (r->res && r->sampler && par_partitioned(r->par))
		par_tick(r->par, &r->sampler->pending, &r->sampler->at, &r->sampler->elem, false);

	sim->interrupt = o->interrupt;
	sim->done = world_done;
	sim->done_ctx = w;
	watchdog_start(&r->wd, w, sc->watchdog); /* last element registered */
	if (par_partitioned(r->par)) {
		r->wd.global = run_wd_sums;
		r->wd.global_graph = run_wd_graph;
		r->wd.global_ctx = r->par;
		par_tick(r->par, &r->wd.ticking, &r->wd.next_tick, &r->wd.elem, true);
	}
	r->pc = (struct progress_ctx){ .w = w, .flows_expected = rep->flows_expected, .jobs = r->jobs };
	progress_init(&r->pc.p, o->progress, sim->stop_at);
	if (o->progress) {
		sim->progress = on_progress;
		sim->progress_ctx = &r->pc;
	}
	r->t0 = wall_seconds();
	*out = r;
	return 0;
input_error:
	par_plan_free(&plan);
	run_free(r);
	return EXIT_INPUT;
}

struct sim *run_sim(struct run *r) { return &r->sim; }
struct world *run_world(struct run *r) { return &r->w; }
struct colls *run_colls(struct run *r) { return r->colls; }
const struct jobs *run_jobs(const struct run *r) { return r->jobs; }
const char *run_verdict(const struct run *r) { return watchdog_status(&r->wd); }

void run_watchdog_rearm(struct run *r)
{
	watchdog_rearm(&r->wd);
}

int run_advance(struct run *r)
{
	if (par_idle(r->par))
		return SIM_RAN_DRY;
	if (r->par && par_partitioned(r->par))
		return par_run(r->par);
	return port_run(&r->sim);
}

/* The drain after the work ended: events run to end + k x DRAIN_STEP_PS
 * until, at one of these instants, no frame is queued, on a link or owed
 * anywhere: instants of simulated time, so a partitioned run drains
 * exactly as the sequential one does. Returns SIM_DONE, or SIM_STOP_TIME
 * when [simulation] stop came first, or SIM_RAN_DRY when the events ran
 * out with frames left (world_check_drained then reports them). */
#define DRAIN_STEP_PS 1000000
static int run_drain(struct run *r)
{
	struct sim *sim = &r->sim;
	bool par = r->par && par_partitioned(r->par);
	simtime_t stop = sim->stop_at;
	sim->done = NULL;
	sim->progress = NULL;
	for (simtime_t t = sim->now;; t += DRAIN_STEP_PS) {
		if (t > stop)
			t = stop;
		if (par) {
			par_run_to(r->par, t);
		} else if (t > sim->now || !evq_empty(&sim->q)) {
			sim->stop_at = t;
			port_run(sim);
			sim->now = t;
		}
		bool quiet = run_quiet(sim, &r->w), empty = evq_empty(&sim->q);
		if (par) {
			quiet = par_all(r->par, quiet);
			empty = par_all(r->par, empty);
		}
		sim->stop_at = stop;
		if (quiet)
			return SIM_DONE;
		if (t >= stop)
			return SIM_STOP_TIME;
		if (empty)
			return SIM_RAN_DRY;
	}
}

int run_close(struct run *r, int stopped, struct run_report *rep, char **err)
{
	struct sim *sim = &r->sim;
	struct world *w = &r->w;
	struct results *res = r->res;
	int rc = 0;
	simtime_t end = sim->now;
	sampler_stop(r->sampler); /* samples end with the run's work, before the drain */
	watchdog_stop(&r->wd);
	if (par_idle(r->par)) {
		run_free(r);
		return 0;
	}
	if (stopped == SIM_DONE) {
		/* Every message is complete; let the last control frames (ACKs of
		 * duplicates, PFC resumes) land so the fabric is empty, without
		 * counting that tail as simulated time of the run. */
		stopped = run_drain(r);
		if (stopped == SIM_RAN_DRY)
			stopped = SIM_DONE;
	}
	bool par = r->par && par_partitioned(r->par);
	rep->wall_s = wall_seconds() - r->t0;
	progress_end(&r->pc.p);
	/* Once per run, in every build: finished means nothing left anywhere. */
	if (stopped == SIM_RAN_DRY || stopped == SIM_DONE)
		world_check_drained(w);
	/* Conservation, once per run in every build (invariants.h): what was
	 * sent and neither delivered nor dropped is still in the network. */
#ifdef SIM_DEBUG
	inv_check(w);
#endif
	rep->packets_in_network = fabric_data_in_flight(&w->fab);
	if (par) { /* the ranks' sums (every rank: world_done reads them below) */
		rep->packets_in_network = par_sum(r->par, rep->packets_in_network);
		sim->packets_sent = par_sum(r->par, sim->packets_sent);
		sim->packets_delivered = par_sum(r->par, sim->packets_delivered);
		sim->packets_dropped = par_sum(r->par, sim->packets_dropped);
		sim->events = par_sum(r->par, sim->events);
		w->flows_done = par_sum(r->par, w->flows_done);
		w->flows_posted = par_sum(r->par, w->flows_posted);
	}
	if (inv_conservation_checkable(w) &&
	    sim->packets_sent != sim->packets_delivered + sim->packets_dropped + rep->packets_in_network)
		warnx_sim("packet conservation broken (a bug): sent %llu, delivered %llu, dropped %llu, "
			  "in the network %llu", (unsigned long long)sim->packets_sent,
			  (unsigned long long)sim->packets_delivered, (unsigned long long)sim->packets_dropped,
			  (unsigned long long)rep->packets_in_network);
	for (int i = 0; i < w->fab.n_ports; i++)
		if (fabric_port_held(&w->fab, i))
			port_pfc_close(sim, &w->fab.ports[i]);
	bool shipped = run_outputs_close_captures(r); /* after the drain: the last control frames are in */
	run_warn_lossless_drops(w);
	sim->now = end;

	/* The hosts' models ran on rank 0 alone under partition = hosts. */
	bool hosts_here = par_runs_hosts(r->par);
	if (hosts_here)
		colls_write_unfinished(r->colls);
	char unfinished_jobs[256] = "";
	int jobs_left = hosts_here ? jobs_write_unfinished(r->jobs, unfinished_jobs, sizeof unfinished_jobs) : 0;
	if (res)
		world_write_final(w, res);
	const char *wd_status = stopped == SIM_INTERRUPTED ? NULL : watchdog_status(&r->wd);
	if (wd_status) {
		if (par_leader())
			watchdog_report(&r->wd, stderr);
		if (res && par_leader()) /* the cycles are the whole fabric's on every rank */
			watchdog_write(&r->wd, res);
		rc = EXIT_STALLED;
	}
	/* Cut short by [simulation] stop (or a driver's close) with work left:
	 * say so, in the run row and on stderr, rather than 'complete'. */
	bool cut_short = stopped == SIM_STOP_TIME && !wd_status && !world_done(sim, w);
	if (cut_short && !r->o.driven)
		run_warn_stopped(w, sim->now, unfinished_jobs);
	/* Nothing left to happen and a job still waiting (a trace whose
	 * ranks wait on each other, chakra.h): it can never finish. */
	bool stuck = (stopped == SIM_RAN_DRY || stopped == SIM_DONE) && !wd_status && jobs_left > 0;
	if (stuck) {
		warnx_sim("nothing is left to happen but a job is waiting: %s (run.status 'stalled'; "
			  "unfinished rows have end_ps NULL)", unfinished_jobs);
		rc = EXIT_STALLED;
	}
	rep->status = stopped == SIM_INTERRUPTED ? "interrupted" : wd_status ? wd_status
		    : cut_short ? "stopped" : stuck ? "stalled" : "complete";
	rep->sim_end_ps = sim->now;
	rep->events = sim->events;
	rep->packet_hops = port_tx_packets_sum(w->fab.ports, w->fab.n_ports, w->fab.held);
	if (par)
		rep->packet_hops = par_sum(r->par, rep->packet_hops);
	rep->pkt_peak = w->fab.pkt_pool.peak;
	rep->pkt_bytes = w->fab.pkt_pool.obj_size;
	rep->packets_sent = sim->packets_sent;
	rep->packets_delivered = sim->packets_delivered;
	rep->packets_dropped = sim->packets_dropped;
	rep->flows_done = w->flows_done;
	rep->flows_posted = w->flows_posted;
	struct run_summary sum = { .wall_s = rep->wall_s, .sim_end_ps = sim->now, .events = sim->events,
				   .packets_sent = sim->packets_sent,
				   .packets_delivered = sim->packets_delivered,
				   .packets_dropped = sim->packets_dropped };
	if (r->par && res) {
		if (par_merge_received(r->par, res) < 0)
			rc = EXIT_INTERNAL;
		par_write_run(r->par, res);
	}
	if (run_outputs_finish(r, res, rep, &sum, shipped, err) < 0)
		rc = EXIT_INTERNAL;
	run_free(r);
	return rc;
}

int run_scenario(const struct config *cfg, const struct run_opts *o, struct run_report *rep, char **err)
{
	struct run *r;
	int rc = run_open(cfg, o, rep, &r, err);
	if (rc || !r)
		return rc;
	return run_close(r, run_advance(r), rep, err);
}

void run_report_free(struct run_report *rep)
{
	free(rep->output);
	rep->output = NULL;
}
