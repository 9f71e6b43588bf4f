/*
 * job_estimate.c — what a job will ask of the network and how long an
 * iteration should take, known before running (job.h): for `--check`'s
 * run-time and capture estimates and for the progress line's percentage.
 *
 * Network bytes: the plan's bytes of each parallelism (job_plan_totals,
 * the --check plan lines), times the share of them that leaves a host.
 * That share is read off the layout on the groups of rank 0 (every group
 * of a parallelism has the same shape under the placement's strides):
 *   tp, dp   ring collectives: each member sends to its successor in the
 *            group's order, equal bytes per edge, so the share is the
 *            fraction of ring edges joining two hosts;
 *   pp       sends between consecutive stages: the fraction of the pp-1
 *            stage boundaries of rank 0's pipeline joining two hosts;
 *   ep       all-to-all: the fraction of ordered pairs joining two hosts.
 * Other algorithms (trees, multicast) are counted as rings: an estimate.
 *
 * Iteration time: the slowest stage's compute (the sum of its program's
 * compute ops, m micro-batches) stretched by the 1F1B pipeline's fill and
 * drain, (m + pp - 1) / m (interleaved over v model chunks:
 * (v·m + pp - 1) / (v·m)), the optimizer step (both times the largest
 * `slow` factor and the mean `slow_random` one), plus the network bytes sent at the full rate of
 * every NIC the job uses (no overlap, no congestion): the order of
 * magnitude, refined by the first iteration's measured time at run time.
 */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include "chakra.h"
#include "job.h"
#include "job_exec.h"
#include "nic.h"
#include "xalloc.h"

/* Fraction of the consecutive pairs of r[0..n) (cyclic when ring) whose
 * GPUs are on different hosts. */
static double cross_share(const struct job *j, const int *r, int n, bool ring)
{
	int edges = ring ? n : n - 1, cross = 0, gph = j->w->gpus_per_host;
	if (edges <= 0)
		return 0;
	for (int i = 0; i < edges; i++)
		cross += j->gpu[r[i]] / gph != j->gpu[r[(i + 1) % n]] / gph;
	return (double)cross / edges;
}

static double pair_share(const struct job *j, const int *r, int n)
{
	int cross = 0, gph = j->w->gpus_per_host;
	if (n < 2)
		return 0;
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			cross += a != b && j->gpu[r[a]] / gph != j->gpu[r[b]] / gph;
	return (double)cross / ((double)n * (n - 1));
}

static void job_estimate(const struct job *j, struct jobs_estimate *e)
{
	if (j->ck) {
		chakra_job_estimate(j, e);
		return;
	}
	const struct job_spec *s = &j->spec;
	int *r = xmalloc((size_t)s->layout.n_ranks * sizeof *r);
	double share[JOB_NPAR];
	int n = job_layout_group(&s->layout, JOB_GROUP_TP, 0, r);
	share[JOB_PAR_TP] = cross_share(j, r, n, true);
	n = job_layout_group(&s->layout, JOB_GROUP_PP, 0, r);
	share[JOB_PAR_PP] = cross_share(j, r, n, false);
	n = job_layout_group(&s->layout, JOB_GROUP_DP, 0, r);
	share[JOB_PAR_DP] = cross_share(j, r, n, true);
	n = job_layout_group(&s->layout, JOB_GROUP_EP, 0, r);
	share[JOB_PAR_EP] = pair_share(j, r, n);
	free(r);

	struct job_plan_totals t;
	job_plan_totals(s, &t);
	double bytes = 0, messages = 0;
	for (int p = 0; p < JOB_NPAR; p++) {
		bytes += (double)t.bytes[p] * share[p];
		messages += (double)t.messages[p] * share[p];
	}
	double compute = 0;
	for (int st = 0; st < s->pp; st++) {
		double c = 0;
		for (int i = 0; i < s->prog[st].n; i++)
			if (s->prog[st].op[i].kind == JOP_COMPUTE)
				c += (double)s->prog[st].op[i].val;
		if (c > compute)
			compute = c;
	}
	/* Stragglers (job_slow.h): the largest fixed factor holds its stage
	 * and the optimizer back; random ones add their mean. */
	double slow = 1;
	for (int k = 0; j->slow_fixed && k < s->layout.n_ranks; k++)
		slow = j->slow_fixed[k] > slow ? j->slow_fixed[k] : slow;
	if (s->cfg->slow_sigma > 0)
		slow *= 2 * exp(s->cfg->slow_sigma * s->cfg->slow_sigma / 2) * gsl_cdf_ugaussian_P(s->cfg->slow_sigma);
	compute *= slow;
	double m = s->m > 0 ? (double)s->m : 1;
	/* NICs the job's hosts have (each GPU uses NIC gpu mod nics_per_host). */
	int nics = j->w->fab.nics_per_host < j->w->gpus_per_host ? j->w->fab.nics_per_host : j->w->gpus_per_host;
	double hosts = (double)(s->layout.n_ranks + j->w->gpus_per_host - 1) / j->w->gpus_per_host;
	const struct topo *tp = &j->w->fab.topo;   /* a NIC runs at its host link's rate */
	double nic_bps = (double)tp->links[tp->ports[tp->port_off[0]].link].rate_bps;
	double net_ps = nic_bps > 0 ? bytes * 8 / (hosts * nics * nic_bps) * 1e12 : 0;
	double vm = m * s->vpp;
	double iter_ps = compute * (vm + s->pp - 1) / vm + (double)s->t_opt * slow + net_ps;
	int iters = s->cfg->iterations;
	e->net_bytes += bytes * iters;
	e->net_messages += messages * iters;
	double end = (double)s->cfg->start + iter_ps * iters;
	if (end > e->end_ps)
		e->end_ps = end;
}

void jobs_estimate(const struct jobs *js, struct jobs_estimate *e)
{
	*e = (struct jobs_estimate){ 0 };
	for (int i = 0; js && i < js->n; i++)
		job_estimate(&js->job[i], e);
}

static double iteration_estimate(const struct job *j)
{
	struct jobs_estimate e = { 0 };
	job_estimate(j, &e);
	int iters = j->spec.cfg->iterations;
	return iters ? (e.end_ps - (double)j->spec.cfg->start) / iters : 0;
}

double jobs_progress(const struct jobs *js, simtime_t now, bool *estimated)
{
	double least = -1;
	*estimated = false;
	for (int i = 0; js && i < js->n; i++) {
		struct job *j = &js->job[i];
		int iters = j->spec.cfg->iterations;
		/* The last finished iteration's time, else the plan's estimate. */
		if (!j->est_iter_ps)
			j->est_iter_ps = iteration_estimate(j);
		double f = (double)j->iter;
		if (j->iter == 0)
			*estimated = true;   /* no iteration measured yet */
		if (j->in_iteration && j->est_iter_ps > 0) {
			double in = (double)(now - j->iter_start) / j->est_iter_ps;
			f += in < 0.99 ? in : 0.99;
		}
		f = iters ? f / iters : 1;
		if (least < 0 || f < least)
			least = f;
	}
	return least;
}
