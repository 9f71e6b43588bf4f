/*
 * traffic_poisson.c — background traffic: per host, Poisson arrivals of
 * flows whose sizes follow an empirical CDF, to uniformly chosen peers.
 *
 * Each participating host h runs an independent arrival process with rate
 *     λ_h = load × rate_h / (8 × mean size)      (data/README.md)
 * where rate_h is the rate of h's link (a host without one is refused),
 * so on average the host offers `load` of its link. Arrivals fall in
 * [start, stop); the first is one exponential gap after start.
 *
 * Determinism: host h draws from its own stream RNG_TRAFFIC /
 * traffic_stream_id(source index, h), in the fixed order size, destination,
 * next gap, so its flows do not depend on other hosts, on the `hosts` list
 * order, or on any other element. The source keeps ONE pending event: a
 * binary heap of participants keyed by (next arrival, host id) gives the
 * next time, and ties post in host-id order. Tuned for thousands of hosts:
 * O(log n) per flow, no allocation after setup.
 */
#include "traffic_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include "cdf.h"
#include "config.h"
#include "rng.h"
#include "units.h"
#include "nic.h"
#include "xalloc.h"

struct poisson_cfg {
	double load;                   /* (0, 1] required */
	char *cdf;                     /* [websearch]: built-in name or resolved path */
	char **hosts; size_t n_hosts;  /* [all]: n_hosts = 0 */
	simtime_t start;               /* [0] */
	simtime_t stop;                /* [SIMTIME_NEVER: until [simulation] stop] */
};

#define PO(f) offsetof(struct poisson_cfg, f)
/* HPCC traffic_gen's distributions, shipped in data/cdf/. */
static const char *const cdf_builtin[] = { "websearch", "hadoop", "alistorage2019", "googlerpc2008", NULL };

static const struct cfg_key keys[] = {
	{ "load", KT_NUMBER, .required = true, CFG_UNIT, .off = PO(load),
	  .help = "offered load as a fraction of host link rate" },
	{ "cdf", KT_DATA, "websearch", .vocab = cdf_builtin, .data_dir = "cdf", .data_ext = ".cdf",
	  .off = PO(cdf), .help = "flow-size distribution: built-in name or file" },
	{ "hosts", KT_LIST, .def_doc = "all", .off = PO(hosts), .off2 = PO(n_hosts), .help = "hosts taking part" },
	{ "start", KT_TIME, "0s", .off = PO(start), .help = "start time" },
	{ "stop", KT_TIME, .def_doc = "until [simulation] stop", CFG_POS, .off = PO(stop), .help = "last arrival" },
};

static int rules(struct cfg_check *c)
{
	const struct poisson_cfg *t = c->type_data;
	char w1[64];
	if (t->stop != SIMTIME_NEVER && t->stop <= t->start) {
		units_format_time(t->start, w1, sizeof w1);
		return cfg_fail(c, "stop", "a time after start (%s)", w1);
	}
	return 0;
}

struct poisson_src {
	struct traffic_src base;       /* first: the source is cast to it */
	struct cdf cdf;                /* flow sizes */
	simtime_t start, stop;         /* arrivals in [start, stop) */
	int n;                         /* participants */
	int *host;                     /* [n] host ids, as listed */
	gsl_rng **rng;                 /* [n] one stream per host */
	double *mean_gap_ps;           /* [n] 1/λ_h in picoseconds */
	simtime_t *next_t;             /* [n] next arrival of each participant */
	int *heap;                     /* participants with an arrival before stop */
	int heap_n;
};

static bool poisson_before(const struct poisson_src *p, int a, int b)
{
	return p->next_t[a] < p->next_t[b] ||
	       (p->next_t[a] == p->next_t[b] && p->host[a] < p->host[b]);
}

static void poisson_sift_down(struct poisson_src *p, int i)
{
	int *h = p->heap;
	for (;;) {
		int l = 2 * i + 1, m = i;
		if (l < p->heap_n && poisson_before(p, h[l], h[m]))
			m = l;
		if (l + 1 < p->heap_n && poisson_before(p, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		int t = h[i]; h[i] = h[m]; h[m] = t;
		i = m;
	}
}

static void poisson_sift_up(struct poisson_src *p, int i)
{
	int *h = p->heap;
	while (i > 0) {
		int up = (i - 1) / 2;
		if (!poisson_before(p, h[i], h[up]))
			return;
		int t = h[i]; h[i] = h[up]; h[up] = t;
		i = up;
	}
}

/* Draws participant i's next arrival after `from`; false when it would fall
 * at or after stop (the process is over). The gap is compared as a double
 * first so a huge draw cannot overflow simulated time. */
static bool poisson_advance(struct poisson_src *p, int i, simtime_t from)
{
	double gap = gsl_ran_exponential(p->rng[i], p->mean_gap_ps[i]);
	if (from >= p->stop || gap >= (double)(p->stop - from))
		return false;
	simtime_t t = from + (simtime_t)llround(gap);
	if (t >= p->stop)
		return false;
	p->next_t[i] = t;
	return true;
}

static void poisson_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	struct poisson_src *p = obj;
	struct world *w = p->base.w;
	while (p->heap_n > 0 && p->next_t[p->heap[0]] <= sim->now) {
		int i = p->heap[0];
		gsl_rng *r = p->rng[i];
		uint64_t size_b = (uint64_t)cdf_sample(&p->cdf, r);
		/* Uniform among the n-1 other participants: draw an index that
		 * skips i's own slot. */
		int j = (int)gsl_rng_uniform_int(r, (unsigned long)(p->n - 1));
		if (j >= i)
			j++;
		w->post(w, p->host[i], p->host[j], size_b, p->base.source, "bg");
		if (poisson_advance(p, i, sim->now)) {
			poisson_sift_down(p, 0);
		} else {
			p->heap[0] = p->heap[--p->heap_n];
			poisson_sift_down(p, 0);
		}
	}
	if (p->heap_n > 0)
		sched_at(sim, p->next_t[p->heap[0]], &p->base.elem, poisson_fire, p, 0);
	else
		world_source_end(w);
}

static void poisson_start(struct traffic_src *base)
{
	struct poisson_src *p = (struct poisson_src *)base;
	p->heap_n = 0;
	for (int i = 0; i < p->n; i++) {
		if (poisson_advance(p, i, p->start)) {
			p->heap[p->heap_n++] = i;
			poisson_sift_up(p, p->heap_n - 1);
		}
	}
	if (p->heap_n > 0)
		sched_at(base->w->sim, p->next_t[p->heap[0]], &base->elem, poisson_fire, p, 0);
	else
		world_source_end(base->w);
}

static void poisson_destroy(struct traffic_src *base)
{
	struct poisson_src *p = (struct poisson_src *)base;
	if (p->rng)
		for (int i = 0; i < p->n; i++)
			if (p->rng[i])
				gsl_rng_free(p->rng[i]);
	cdf_free(&p->cdf);
	free(p->host);
	free(p->rng);
	free(p->mean_gap_ps);
	free(p->next_t);
	free(p->heap);
	free(p);
}

static const struct traffic_src_ops poisson_ops = {
	.start = poisson_start,
	.destroy = poisson_destroy,
};

/* Rate of host h's link: the topology's (HPCC topology files give every
 * link its own rate); 0 when h has no link. */
static uint64_t poisson_host_rate(const struct world *w, int h)
{
	const struct topo *t = &w->fab.topo;
	if (t->port_off && t->ports && t->links && topo_n_ports(t, h) > 0)
		return t->links[t->ports[t->port_off[h]].link].rate_bps;
	return 0;
}

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	const struct poisson_cfg *ct = own;
	const struct config *cfg = w->cfg;
	simtime_t stop = ct->stop != SIMTIME_NEVER ? ct->stop : w->sim->stop_at;
	if (stop == SIMTIME_NEVER) {
		*err = cfg_error_at(cfg, section, "type", 0,
				    "poisson traffic needs a stop time ([%s] stop or [simulation] stop)",
				    section);
		return NULL;
	}
	struct poisson_src *p = xcalloc(1, sizeof *p);
	p->base.ops = &poisson_ops;
	p->base.unbounded = true;
	p->start = ct->start;
	p->stop = stop;

	const char *cdf_name = ct->cdf ? ct->cdf : "websearch";
	char *path = cfg_find_data(cfg, &keys[1], cdf_name);
	if (!path) {
		*err = cfg_error_at(cfg, section, "cdf", 0,
				    "no such flow-size CDF (a built-in name: websearch, hadoop, "
				    "alistorage2019, googlerpc2008; or a readable file)");
		goto fail;
	}
	char *cdf_err = NULL;
	int rc = cdf_load(&p->cdf, path, &cdf_err);
	free(path);
	if (rc < 0) {
		*err = cfg_error_at(cfg, section, "cdf", 0, "%s", cdf_err ? cdf_err : "cannot load");
		free(cdf_err);
		goto fail;
	}
	if (!(p->cdf.mean > 0)) {
		*err = cfg_error_at(cfg, section, "cdf", 0, "the flow-size distribution has mean 0");
		goto fail;
	}

	p->n = traffic_participants(w, ct->hosts, ct->n_hosts, section, "poisson traffic", &p->host, err);
	if (p->n < 0) {
		p->n = 0;
		goto fail;
	}
	size_t n = (size_t)p->n;
	p->rng = xcalloc(n, sizeof *p->rng);
	p->mean_gap_ps = xcalloc(n, sizeof *p->mean_gap_ps);
	p->next_t = xcalloc(n, sizeof *p->next_t);
	p->heap = xcalloc(n, sizeof *p->heap);
	for (int i = 0; i < p->n; i++) {
		uint64_t rate_bps = poisson_host_rate(w, p->host[i]);
		if (rate_bps == 0) {
			*err = cfg_error_at(cfg, section, "type", 0,
					    "host %d has no link rate to load", p->host[i]);
			goto fail;
		}
		/* 1/λ = 8 × mean / (load × rate) seconds; in ps. */
		p->mean_gap_ps[i] = 8.0 * p->cdf.mean * (double)SIMTIME_S /
				    (ct->load * (double)rate_bps);
		p->rng[i] = rng_stream(w->sim->seed, RNG_TRAFFIC, traffic_stream_id(index, p->host[i]));
	}
	return &p->base;
fail:
	poisson_destroy(&p->base);
	return NULL;
}

const struct traffic_kind traffic_poisson = {
	.cfg = { .name = "poisson", .help = "per host, Poisson arrivals of flows with sizes from a CDF",
		 CFG_KEYS(keys), .size = sizeof(struct poisson_cfg), .rules = rules },
	.create = create,
};
