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

/* w->msg_posted: a message a job posted here, which frames may carry. */
static void par_msg_posted(struct world *w, struct flow *f)
{
	(void)w;
	par_flow_posted(the_par, f);
}

/* w->late_far: every other rank delivers it too. */
static void par_late_far(struct world *w, uint64_t id, simtime_t t, uint64_t key)
{
	(void)w;
	par_send_late(the_par, id, t, key);
}

/* w->flow_freed of a partitioned run: the ranks forget their copies. */
static void par_freed(struct world *w, struct flow *f)
{
	(void)w;
	par_flow_forget(the_par, f);
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

int par_place(void *ctx, const struct topo *t, const bool **mine, char **err)
{
	struct par_plan *pl = ctx;
	*mine = NULL;
	if (par_size() <= 1 || pl->why)
		return 0;
	struct partition part = { 0 };
	if (partition_scenario(pl->cfg, t, par_size(), pl->together, pl->mirror_ps, &part, err) < 0)
		return -1;
	pl->mirrored = part.mirrored;
	if (part.lookahead_ps <= 0) {
		partition_free(&part);
		*err = str_printf("%s: [parallel] partition %s cuts a link without propagation delay: the ranks "
				  "could never run ahead of each other; give [topology] links a delay, or choose a "
				  "partition that keeps such links whole", pl->cfg->path ? pl->cfg->path : "scenario",
				  partition_method_name(part.method));
		return -1;
	}
	snprintf(pl->method, sizeof pl->method, "%s", partition_method_name(part.method));
	pl->n_cut = part.n_cut_links;
	pl->lookahead = part.lookahead_ps;
	pl->node_owner = xmalloc((size_t)t->n_nodes * sizeof *pl->node_owner);
	memcpy(pl->node_owner, part.part_of_node, (size_t)t->n_nodes * sizeof *pl->node_owner);
	partition_free(&part);
	pl->mine = xcalloc((size_t)t->n_nodes, sizeof *pl->mine);
	for (int u = 0; u < t->n_nodes; u++)
		pl->mine[u] = pl->node_owner[u] == par_rank();
	*mine = pl->mine;
	return 0;
}

void par_plan_free(struct par_plan *pl)
{
	free(pl->node_owner);
	free(pl->mine);
	pl->node_owner = NULL;
	pl->mine = NULL;
}

void par_attach(struct sim *sim, struct world *w, struct par_plan *pl, struct par **out)
{
	*out = NULL;
	if (par_size() <= 1)
		return;
	struct fabric *f = &w->fab;
	struct par *p = xcalloc(1, sizeof *p);
	p->me = par_rank();
	p->n = par_size();
	p->sim = sim;
	p->w = w;
	p->comm = MPI_COMM_WORLD;
	p->why = pl->why;
	p->solo = pl->why != NULL;
	p->mirrored = !p->solo && pl->mirrored;
	p->mirror_ps = pl->mirror_ps;
	p->hosts_alone = !p->solo && pl->together && !p->mirrored;
	p->hostless = p->hosts_alone && p->me != 0;
	p->lookahead = SIMTIME_NEVER;
	p->first_landing = SIMTIME_NEVER;
	p->out = xcalloc((size_t)p->n, sizeof *p->out);
	p->elem_owner = xmalloc((size_t)sim->n_elems * sizeof *p->elem_owner);
	p->n_owned = sim->n_elems;
	for (uint32_t e = 0; e < sim->n_elems; e++)
		p->elem_owner[e] = -1;
	*out = p;
	if (p->solo) {
		snprintf(p->method, sizeof p->method, "none");
		p->node_owner = xcalloc((size_t)f->n_nodes, sizeof *p->node_owner);
		return; /* node_owner all 0: rank 0 owns everything */
	}
	snprintf(p->method, sizeof p->method, "%s", pl->method);
	p->lookahead = pl->lookahead;
	p->n_cut = pl->n_cut;
	p->node_owner = pl->node_owner;
	p->mine = pl->mine;
	pl->node_owner = NULL;
	pl->mine = NULL;
	/* Every element's rank, from the topology: another rank's ports are
	 * not built here (fabric.h), but their elements are numbered. */
	const struct topo *t = &f->topo;
	for (int u = 0; u < f->n_nodes; u++) {
		const struct node *nd = &f->nodes[u];
		int a = p->node_owner[u];
		p->elem_owner[sim_elem_id(&nd->elem)] = (int16_t)a;
		for (int i = 0; i < nd->n_ports; i++) {
			int b = p->node_owner[t->ports[t->port_off[u] + i].peer];
			p->elem_owner[nd->port_elem + 2 * (uint32_t)i] = (int16_t)a;
			p->elem_owner[nd->port_elem + 2 * (uint32_t)i + 1] = (int16_t)b; /* landings run at the peer */
			if (a != b && a == p->me)
				port_set_remote(&nd->ports[i]);
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
	f->ship = par_ship;
	f->ship_ctx = p;
	f->tree_made = par_tree_made;
	w->post = par_post;
	w->flow_freed = par_freed;
	if (!p->hosts_alone)
		w->msg_posted = par_msg_posted;
	if (p->mirrored) { /* the jobs run on every rank (msg.h: late messages) */
		w->late_far = par_late_far;
		w->mirror = p->me != 0;
	}
	the_par = p;
}

#else

int par_place(void *plan, const struct topo *t, const bool **mine, char **err)
{
	(void)plan;
	(void)t;
	(void)err;
	*mine = NULL;
	return 0;
}

void par_plan_free(struct par_plan *plan) { (void)plan; }

void par_attach(struct sim *sim, struct world *w, struct par_plan *plan, struct par **out)
{
	(void)sim;
	(void)w;
	(void)plan;
	*out = NULL;
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
#ifdef HAVE_MPI
	par_shm_close(p);
#endif
	par_ship_close(p);
	for (int r = 0; r < p->n; r++)
		if (!p->out[r].in_slot)
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
