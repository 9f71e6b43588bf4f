/*
 * par_run.c — a partitioned run's set-up (parallel.h): which rank owns each
 * node and element, the cut links made remote, the sources posting at this
 * rank's hosts only.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "config.h"
#include "fabric.h"
#include "log.h"
#include "nic.h"
#include "par_internal.h"
#include "sim.h"
#include "xalloc.h"

double par_wall(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

#ifdef HAVE_MPI

/* The run's partition, kept for w->post (which has no context argument:
 * one partitioned run per process). */
static struct par *the_par;

/* w->post of a partitioned run: the message is posted by the rank that
 * owns its source host; the others count its id, so ids stay the
 * sequential run's. */
static struct flow *par_post(struct world *w, int src, int dst, uint64_t size_b, const char *source,
			     const char *parallelism)
{
	struct par *p = the_par;
	if (p->node_owner[w->eps[world_ep(w, src, 0)].host->id] != p->me) {
		nic_post_elsewhere(w, world_ep(w, src, 0), world_ep(w, dst, 0), -1);
		return NULL;
	}
	struct flow *f = world_post_host(w, src, dst, size_b, source, parallelism);
	par_flow_posted(p, f);
	return f;
}

/* Drops the queued events of elements another rank owns: the seeds of
 * the models that run on the hosts' rank alone (partition = hosts). */
static void prune_foreign(struct par *p)
{
	struct evq *q = &p->sim->q;
	size_t n = evq_size(q), k = 0;
	struct event *keep = xmalloc((n ? n : 1) * sizeof *keep), e;
	while (evq_pop(q, &e)) {
		int o = p->elem_owner[e.key >> EVQ_SEQ_BITS];
		if (o < 0 || o == p->me)
			keep[k++] = e;
	}
	for (size_t i = 0; i < k; i++)
		evq_insert(q, &keep[i]);
	free(keep);
}

int par_attach(struct sim *sim, struct world *w, const struct config *cfg, const char *why,
	       const char *together, struct par **out, char **err)
{
	*out = NULL;
	if (par_size() <= 1)
		return 0;
	struct fabric *f = &w->fab;
	struct partition part = { 0 };
	if (!why && partition_scenario(cfg, &f->topo, par_size(), together, &part, err) < 0)
		return -1;
	if (!why && part.lookahead_ps <= 0) {
		partition_free(&part);
		*err = str_printf("%s: [parallel] partition %s cuts a link without propagation delay: the ranks "
				  "could never run ahead of each other; give [topology] links a delay, or choose a "
				  "partition that keeps such links whole", cfg->path ? cfg->path : "scenario",
				  partition_method_name(part.method));
		return -1;
	}
	struct par *p = xcalloc(1, sizeof *p);
	p->me = par_rank();
	p->n = par_size();
	p->sim = sim;
	p->w = w;
	p->comm = MPI_COMM_WORLD;
	p->why = why;
	p->solo = why != NULL;
	p->hosts_alone = !p->solo && together;
	p->hostless = p->hosts_alone && p->me != 0;
	p->lookahead = SIMTIME_NEVER;
	p->first_landing = SIMTIME_NEVER;
	p->out = xcalloc((size_t)p->n, sizeof *p->out);
	p->node_owner = xcalloc((size_t)f->n_nodes, sizeof *p->node_owner);
	p->elem_owner = xmalloc((size_t)sim->n_elems * sizeof *p->elem_owner);
	p->n_owned = sim->n_elems;
	for (uint32_t e = 0; e < sim->n_elems; e++)
		p->elem_owner[e] = -1;
	*out = p;
	if (p->solo) {
		snprintf(p->method, sizeof p->method, "none");
		return 0; /* node_owner all 0: rank 0 owns everything */
	}
	snprintf(p->method, sizeof p->method, "%s", partition_method_name(part.method));
	memcpy(p->node_owner, part.part_of_node, (size_t)f->n_nodes * sizeof *p->node_owner);
	partition_free(&part);
	for (int u = 0; u < f->n_nodes; u++)
		p->elem_owner[sim_elem_id(&f->nodes[u].elem)] = (int16_t)p->node_owner[u];
	for (int i = 0; i < f->n_ports; i++) {
		struct port *pt = &f->ports[i];
		int a = p->node_owner[pt->node->id], b = p->node_owner[pt->peer_node->id];
		p->elem_owner[sim_elem_id(&pt->elem)] = (int16_t)a;
		p->elem_owner[sim_elem_id(&pt->land)] = (int16_t)b; /* landings run at the peer */
		if (a != b) {
			if (pt->delay_ps < p->lookahead)
				p->lookahead = pt->delay_ps;
			if (pt < pt->peer)
				p->n_cut++;
			if (a == p->me)
				port_set_remote(pt);
		}
	}
	/* The hosts' models (jobs, collectives, sources) are rank 0's, as
	 * its hosts are: they run there alone. Link failures change every
	 * rank's links alike: each rank runs them (rank 0 counts their
	 * events), whatever the partition. */
	uint32_t fail_elem = f->fail ? sim_elem_id(&f->fail->elem) : UINT32_MAX;
	if (p->hosts_alone) {
		for (uint32_t e = 0; e < sim->n_elems; e++)
			if (p->elem_owner[e] < 0 && e != fail_elem)
				p->elem_owner[e] = 0;
		prune_foreign(p);
	}
	p->mine = xcalloc((size_t)f->n_nodes, sizeof *p->mine);
	for (int u = 0; u < f->n_nodes; u++)
		p->mine[u] = p->node_owner[u] == p->me;
	f->mine = p->mine;
	f->ship = par_ship;
	f->ship_ctx = p;
	f->tree_made = par_tree_made;
	w->post = par_post;
	the_par = p;
	return 0;
}

#else

int par_attach(struct sim *sim, struct world *w, const struct config *cfg, const char *why,
	       const char *together, struct par **out, char **err)
{
	(void)sim;
	(void)w;
	(void)cfg;
	(void)why;
	(void)together;
	(void)err;
	*out = NULL;
	return 0;
}

#endif

bool par_idle(const struct par *p) { return p && p->solo && p->me != 0; }
bool par_partitioned(const struct par *p) { return p && !p->solo; }
bool par_runs_hosts(const struct par *p) { return !p || !p->hostless; }
void par_share_records(struct par *p)
{
	if (p)
		p->share = true;
}

void par_free(struct par *p)
{
	if (!p)
		return;
	for (int r = 0; r < p->n; r++)
		free(p->out[r].b);
	free(p->out);
	free(p->send.b);
	free(p->recv.b);
	par_shadows_free(&p->sh);
	free(p->node_owner);
	free(p->mine);
	free(p->elem_owner);
	free(p);
}
