/*
 * sampler.c — the periodic queue, link and congestion-control samples of
 * [output] (see sampler.h for what a sample means and why the run is the
 * same with and without them).
 *
 * One event serves the three series: it fires at the earliest of their next
 * sample times and writes every series due then. Work per firing is
 * O(sampled ports) plus O(unfinished messages) for cc_sample; nothing runs
 * between firings, and nothing at all when every interval is 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "config.h"
#include "fabric.h"
#include "nic.h"
#include "observe.h"
#include "log.h"
#include "results.h"
#include "sampler.h"
#include "xalloc.h"

/* About 40 bytes a row in SQLite with its index (websearch_dcqcn.ini, 1 ms
 * at 1 us: 1.58 million sample rows, 62 MB): past this a database grows by
 * hundreds of megabytes, worth a warning before the run. */
#define SAMPLER_WARN_ROWS 10000000ull
#define SAMPLER_ROW_B 40

/* sel[i] = port i of w->fab.ports is in [output] sample_ports (all when absent). */
static int select_ports(const struct world *w, bool *sel, char **err)
{
	const struct output_cfg *o = cfg_get(w->cfg, &output_section);
	if (!o->n_sample_ports) {
		for (int i = 0; i < w->fab.n_ports; i++)
			sel[i] = true;
		return 0;
	}
	for (size_t i = 0; i < o->n_sample_ports; i++)
		if (observe_mark_ports(w, "output", "sample_ports", o->sample_ports[i], sel, err) < 0)
			return -1;
	return 0;
}

static void series_init(struct sampler_series *s, simtime_t every)
{
	s->every = every;
	s->next = every ? every : SIMTIME_NEVER;
}

int sampler_setup(struct world *w, struct sampler **out, char **err)
{
	*out = NULL;
	const struct output_cfg *o = cfg_get(w->cfg, &output_section);
	bool *sel = xcalloc(w->fab.n_ports ? (size_t)w->fab.n_ports : 1, sizeof *sel);
	if (select_ports(w, sel, err) < 0) {
		free(sel);
		return -1;
	}
	bool ports_on = o->queue_sample_interval || o->link_sample_interval;
	const struct cc_ops *cc = o->cc_sample_interval ? cc_lookup(w->nic_cfg->cc) : NULL;
	if (!ports_on && !cc) {
		free(sel);
		return 0;
	}
	struct sampler *s = xcalloc(1, sizeof *s);
	s->w = w;
	series_init(&s->queue, o->queue_sample_interval);
	series_init(&s->link, o->link_sample_interval);
	series_init(&s->cc, cc ? o->cc_sample_interval : 0);
	if (ports_on) {
		s->ports = xcalloc(w->fab.n_ports ? (size_t)w->fab.n_ports : 1, sizeof *s->ports);
		for (int i = 0; i < w->fab.n_ports; i++) {
			s->n_selected += sel[i];
			if (sel[i] && fabric_port_own(&w->fab, i)) /* a partitioned run: its own ports */
				s->ports[s->n_ports++] = &w->fab.ports[i];
		}
		s->tx_last = xcalloc(s->n_ports ? (size_t)s->n_ports : 1, sizeof *s->tx_last);
	}
	if (cc) {
		s->cc_ops = cc;
		s->cc_copy = xcalloc(1, cc->state_b);
	}
	free(sel);
	*out = s;
	return 0;
}

/* Things asked for that will not (all) be written, said once before the run. */
static void warn_samples(const struct world *w, const struct sampler *s)
{
	const struct config *cfg = w->cfg;
	const struct output_cfg *o = cfg_get(cfg, &output_section);
	if (o->cc_sample_interval && !cc_lookup(w->nic_cfg->cc))
		warnx_sim("[output] cc_sample_interval: [nic] cc = none keeps no rate, target or alpha; "
			  "no cc_sample rows are written");
	if (o->n_sample_ports && !o->queue_sample_interval && !o->link_sample_interval)
		warnx_sim("[output] sample_ports has no effect without queue_sample_interval or "
			  "link_sample_interval");
	if (o->flow_paths && w->fab.sw_cfg->ecmp == ECMP_PACKET)
		warnx_sim("[output] flow_paths with [switch] ecmp = packet: flow_path holds the path "
			  "of each flow's first packet; its other packets are sprayed over other paths");
	if (!s || w->sim->stop_at == SIMTIME_NEVER)
		return;
	double rows = 0;
	if (s->queue.every)
		rows += (double)s->n_selected * (double)w->sim->stop_at / (double)s->queue.every;
	if (s->link.every)
		rows += (double)s->n_selected * (double)w->sim->stop_at / (double)s->link.every;
	if (rows > (double)SAMPLER_WARN_ROWS)
		warnx_sim("[output] queue/link samples: up to %.3g rows (%d ports until stop = %.3g s), "
			  "about %.0f MB of database; raise the interval or narrow sample_ports",
			  rows, s->n_selected, (double)w->sim->stop_at * 1e-12, rows * SAMPLER_ROW_B / 1e6);
}

static void sampler_fire(struct sim *sim, void *obj, uintptr_t arg);

/* Whether no event is left, on any rank of a partitioned run. */
static bool queue_empty(struct sampler *s)
{
	bool empty = evq_empty(&s->w->sim->q);
	return s->all_empty ? s->all_empty(s->all_empty_ctx, empty) : empty;
}

static void schedule_next(struct sim *sim, struct sampler *s)
{
	simtime_t t = s->queue.next;
	if (s->link.next < t)
		t = s->link.next;
	if (s->cc.next < t)
		t = s->cc.next;
	if (t > sim->stop_at)      /* also SIMTIME_NEVER: nothing left to sample */
		return;
	sched_at(sim, t, &s->elem, sampler_fire, s, 0);
	s->pending = true;
	s->at = t;
}

void sampler_start(struct world *w, struct sampler *s, struct results *res)
{
	warn_samples(w, s);
	if (!s)
		return;
	s->res = res;
	sim_elem_register(w->sim, &s->elem, "sampler");
	if (s->queue.every)
		s->queue.t = results_table(res, "queue_sample", "node, port, t_ps, bytes");
	if (s->link.every)
		s->link.t = results_table(res, "link_sample", "node, port, t_ps, tx_bytes");
	if (s->cc.every)
		s->cc.t = results_table(res, "cc_sample",
					"flow_id, t_ps, rate_bps, target_bps, alpha, window_b, rtt_ps, util");
	for (int i = 0; i < s->n_ports; i++)
		s->tx_last[i] = s->ports[i]->tx_bytes;
	if (!queue_empty(s))  /* a run with nothing to do stays at t = 0 */
		schedule_next(w->sim, s);
}

static void sample_queues(struct sampler *s, simtime_t t)
{
	for (int i = 0; i < s->n_ports; i++) {
		const struct port *p = s->ports[i];
		results_row(s->res, s->queue.t, "situ", p->node->name, p->idx, t, p->queued_bytes);
	}
}

static void sample_links(struct sampler *s, simtime_t t)
{
	for (int i = 0; i < s->n_ports; i++) {
		const struct port *p = s->ports[i];
		results_row(s->res, s->link.t, "situ", p->node->name, p->idx, t, p->tx_bytes - s->tx_last[i]);
		s->tx_last[i] = p->tx_bytes;
	}
}

/* One row per requester QP, at its oldest unacknowledged message. The
 * controller may keep periodic updates lazily (cc.h): a copy of its state
 * is brought to t with on_timer, so the row is the state at t and the QP's
 * own state is not touched. */
static void sample_qp(void *ctx, const struct flow *f, const void *cc)
{
	struct sampler *s = ctx;
	simtime_t t = s->w->sim->now;
	memcpy(s->cc_copy, cc, s->cc_ops->state_b);
	s->cc_ops->on_timer(s->cc_copy, t);
	struct cc_sample out;
	s->cc_ops->sample(s->cc_copy, &out);
	/* What the controller does not keep (its `have` bits) is NULL: the
	 * integer columns go as signed values, negative for NULL ('t'), the
	 * real ones as NaN. */
	unsigned h = out.have;
	results_row(s->res, s->cc.t, "ututdttd", f->id, t, out.rate_bps,
		    h & CC_HAVE_TARGET ? (simtime_t)out.target_bps : (simtime_t)-1,
		    h & CC_HAVE_ALPHA ? out.alpha : NAN,
		    h & CC_HAVE_WINDOW ? (simtime_t)out.window_b : (simtime_t)-1,
		    h & CC_HAVE_RTT ? out.rtt_ps : (simtime_t)-1,
		    h & CC_HAVE_UTIL ? out.util : NAN);
}

static void sampler_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	struct sampler *s = obj;
	(void)arg;
	s->pending = false;
	/* Not an event of the network: run.events, and the loop's polls every
	 * SIM_POLL_EVERY events, stay those of the run without sampling. */
	sim_uncount_event(sim);
	/* Only this event was left: the run ran out of work (at most one
	 * interval ago, the one case where sampling moves the clock: a run
	 * whose done hook never fired, see sampler.h) and is not sampled. */
	if (queue_empty(s))
		return;
	simtime_t t = sim->now;
	if (s->queue.next == t) {
		sample_queues(s, t);
		s->queue.next += s->queue.every;
	}
	if (s->link.next == t) {
		sample_links(s, t);
		s->link.next += s->link.every;
	}
	if (s->cc.next == t) {
		nic_foreach_cc(s->w, sample_qp, s);
		s->cc.next += s->cc.every;
	}
	schedule_next(sim, s);
}

void sampler_stop(struct sampler *s)
{
	if (!s || s->stopped)
		return;
	s->stopped = true;
	if (!s->pending)
		return;
	/* Take the pending sample out of the queue, so the drain phase ends
	 * (and the clock stops) where it would without sampling. Events pop
	 * in (t, key) order and keys are unique, so reinserting the others
	 * keeps their order exactly. Once per run: O(n log n) in pending events. */
	struct evq *q = &s->w->sim->q;
	struct event *keep = xcalloc(evq_size(q) ? evq_size(q) : 1, sizeof *keep);
	size_t n = 0;
	struct event ev;
	while (evq_pop(q, &ev))
		if (ev.fn != sampler_fire || ev.obj != s)
			keep[n++] = ev;
	for (size_t i = 0; i < n; i++)
		evq_insert(q, &keep[i]);
	free(keep);
	s->pending = false;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	free(s->ports);
	free(s->tx_last);
	free(s->cc_copy);
	free(s);
}
