/*
 * failure.c — link and switch failures and routing's reconvergence (see
 * failure.h).
 *
 * The schedule is fixed before the run: the scenario's `link` and
 * `switch` lines, then, per link in link order, the random failures of
 * its class drawn from the link's own stream (exponential times between
 * failures with mean mtbf, exponential repairs with mean mttr, failures
 * starting before the horizon), so adding a link class or a scheduled
 * line never moves another link's draws. Each failure costs four events:
 * down, up, and routing's reaction to each `detection` later, all on the
 * model's own element, so equal times break in schedule order.
 *
 * Routing's reaction recomputes every switch's table over the links it
 * knows to be up (routing_build_masked): a few milliseconds for a k = 16
 * fat-tree, paid per failure event, never per frame. Queue pairs carry no
 * path code in a fabric with failures (route_path.c), so every frame
 * follows the tables of the moment.
 */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "fabric.h"
#include "failure.h"
#include "log.h"
#include "results.h"
#include "rng.h"
#include "routing.h"
#include "units.h"
#include "xalloc.h"

static const char *const kind_names[] = { [FAIL_LINK] = "link", [FAIL_SWITCH] = "switch" };

/* "NAME (did you mean 'X'?)" for an unknown node. */
static char *unknown_node(const struct fabric *f, const char *key, int line, const char *name)
{
	size_t cap = 1, len = 0;
	for (int u = 0; u < f->n_nodes; u++)
		cap += strlen(f->nodes[u].name) + 2;
	char *list = xmalloc(cap);
	list[0] = '\0';
	for (int u = 0; u < f->n_nodes; u++)
		len += (size_t)sprintf(list + len, "%s%s", u ? ", " : "", f->nodes[u].name);
	char mean[96];
	char *e = cfg_error_at(f->cfg, "failure", key, line, "unknown node '%s'%s", name,
			       cfg_did_you_mean(name, list, mean, sizeof mean));
	free(list);
	return e;
}

/* The link of a `link` line: the port of a toward b (the given ports, or
 * the lowest-numbered port of a whose peer is b). Returns the link id, or
 * -1 with *err. */
static int find_link(const struct fabric *f, const struct fail_line *l, int *pa, int *na, int *nb, char **err)
{
	const struct topo *t = &f->topo;
	int a = topo_find(t, l->a), b = topo_find(t, l->b);
	if (a < 0 || b < 0) {
		*err = unknown_node(f, "link", l->line, a < 0 ? l->a : l->b);
		return -1;
	}
	if (a == b) {
		*err = cfg_error_at(f->cfg, "failure", "link", l->line, "both ends are '%s'; expected two "
				    "adjacent nodes", l->a);
		return -1;
	}
	const struct node *nd = &f->nodes[a];
	if (l->port_a >= nd->n_ports || (l->port_b >= 0 && l->port_b >= f->nodes[b].n_ports)) {
		*err = cfg_error_at(f->cfg, "failure", "link", l->line, "%s has %d ports and %s %d; "
				    "expected a port number below that", l->a, nd->n_ports, l->b,
				    f->nodes[b].n_ports);
		return -1;
	}
	for (int i = 0; i < nd->n_ports; i++) {
		const struct topo_port *p = fabric_tport(f, a, i);
		if (p->peer != b || (l->port_a >= 0 && i != l->port_a) || (l->port_b >= 0 && p->peer_port != l->port_b))
			continue;
		*pa = i;
		*na = a;
		*nb = b;
		return p->link;
	}
	*err = cfg_error_at(f->cfg, "failure", "link", l->line, "%s and %s are not linked%s; expected "
			    "two adjacent nodes", l->a, l->b, l->port_a >= 0 || l->port_b >= 0 ?
			    " at those ports" : "");
	return -1;
}

static void add_failure(struct fail_model *fm, struct failure fl, int *cap)
{
	if (fm->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		fm->v = xrealloc(fm->v, (size_t)*cap * sizeof *fm->v);
	}
	fm->v[fm->n++] = fl;
}

static struct failure link_failure(const struct fabric *f, int link, simtime_t down, simtime_t up, bool random)
{
	const struct topo *t = &f->topo;
	const struct topo_link *lk = &t->links[link];
	int pa = -1;
	for (int i = 0; i < f->nodes[lk->a].n_ports; i++)
		if (fabric_tport(f, lk->a, i)->link == link)
			pa = i;
	return (struct failure){ .kind = FAIL_LINK, .random = random, .node_a = lk->a, .port_a = pa,
				 .node_b = lk->b, .port_b = fabric_tport(f, lk->a, pa)->peer_port, .link = link,
				 .down_ps = down, .up_ps = up };
}

/* Random failures of each link whose class has an mtbf, over [0, horizon). */
static void draw_random(struct fabric *f, const struct failure_cfg *c, simtime_t horizon, int *cap)
{
	struct fail_model *fm = f->fail;
	const struct topo *t = &f->topo;
	for (int l = 0; l < t->n_links; l++) {
		int cls = t->links[l].a < t->n_hosts || t->links[l].b < t->n_hosts ? FAIL_HOST_LINKS
										       : FAIL_FABRIC_LINKS;
		if (!c->mtbf_ps[cls])
			continue;
		gsl_rng *r = rng_stream(f->sim->seed, RNG_FAILURE, (uint64_t)l);
		double at = 0;
		for (;;) {
			at += gsl_ran_exponential(r, (double)c->mtbf_ps[cls]);
			if (at >= (double)horizon)
				break;
			double len = gsl_ran_exponential(r, (double)c->mttr_ps[cls]);
			/* Whole nanoseconds: readable schedules, nothing lost. */
			simtime_t down = (simtime_t)(at / 1000) * 1000;   /* before the horizon still */
			simtime_t up = (simtime_t)llround((at + len) / 1000) * 1000;
			if (up <= down)
				up = down + 1000;
			add_failure(fm, link_failure(f, l, down, up, true), cap);
			at += len;
		}
		gsl_rng_free(r);
	}
}

/* ---- Routing's reaction ---- */

static void reroute(struct fabric *f)
{
	struct fail_model *fm = f->fail;
	const struct topo *t = &f->topo;
	for (int l = 0; l < t->n_links; l++)
		fm->mask[l] = fm->route_down[l] > 0;
	struct route_table *nt = xcalloc((size_t)f->n_nodes, sizeof *nt);
	char *err = NULL;
	if (routing_build_masked(t, nt, fm->mask, &err) < 0)
		die_internal("rerouting after a failure: %s", err);
	for (int u = 0; u < f->n_nodes; u++) {
		struct node *nd = &f->nodes[u];
		if (nd->kind != NODE_SWITCH)
			continue;
		routing_free(&f->routes[u], 1);
		f->routes[u] = nt[u];
		nd->set_of_grp = nd->rt->set_of_grp;
		nd->ep_route = nd->rt->dst->eps;
		nd->sets = nd->rt->sets;
		nd->rt_ports = nd->rt->ports;
	}
	free(nt);
	fm->reroutes++;
}

/* The links of failure i: a link's one, or a switch's every one. */
static const int *fail_links(const struct fail_model *fm, int i, int *n)
{
	*n = fm->links_off[i + 1] - fm->links_off[i];
	return fm->links_of + fm->links_off[i];
}

static void on_route(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim;
	struct fail_model *fm = obj;
	int i = (int)(arg >> 1), n;
	bool down = arg & 1;
	const int *ls = fail_links(fm, i, &n);
	for (int k = 0; k < n; k++)
		fm->route_down[ls[k]] = (uint16_t)(fm->route_down[ls[k]] + (down ? 1 : -1));
	if (down)
		fm->route_fail_id = i;
	reroute(fm->fab);
}

static void set_link(struct sim *sim, struct fabric *f, int link, int fail_id, bool down)
{
	const struct topo_link *lk = &f->topo.links[link];
	for (int i = 0; i < f->nodes[lk->a].n_ports; i++) {
		if (fabric_tport(f, lk->a, i)->link != link)
			continue;
		if (down)
			f->fail->went_down[link]++;
		if (!fabric_node_port_held(f, lk->a, i))
			return;   /* neither end is this rank's (fabric.h) */
		struct port *p = &f->nodes[lk->a].ports[i];
		if (down) {
			port_link_down(sim, p, fail_id);
			port_link_down(sim, p->peer, fail_id);
		} else {
			port_link_up(sim, p);
			port_link_up(sim, p->peer);
		}
		return;
	}
}

static void on_change(struct sim *sim, void *obj, uintptr_t arg)
{
	struct fail_model *fm = obj;
	int i = (int)(arg >> 1), n;
	bool down = arg & 1;
	const int *ls = fail_links(fm, i, &n);
	for (int k = 0; k < n; k++) {
		uint16_t *c = &fm->link_down[ls[k]];
		if (down ? (*c)++ == 0 : --(*c) == 0)
			set_link(sim, fm->fab, ls[k], i, down);
	}
	sched_at(sim, sim->now + fm->detection_ps, &fm->elem, on_route, fm, arg);
}

/* ---- Building ---- */

int failure_build(struct fabric *f, char **err)
{
	const struct failure_cfg *c = cfg_get(f->cfg, &failure_section);
	bool any_random = false;
	for (int k = 0; k < FAIL_CLASSES; k++)
		any_random |= c->mtbf_ps[k] > 0;
	f->fail = NULL;
	if (!c->links.n && !c->switches.n && !any_random)
		return 0;
	struct fail_model *fm = xcalloc(1, sizeof *fm);
	f->fail = fm;
	fm->fab = f;
	fm->detection_ps = c->detection_ps;
	fm->route_fail_id = -1;
	int cap = 0;
	for (size_t i = 0; i < c->links.n; i++) {
		const struct fail_line *l = &c->links.v[i];
		int pa, na, nb;
		int link = find_link(f, l, &pa, &na, &nb, err);
		if (link < 0)
			goto fail;
		struct failure fl = link_failure(f, link, l->down_ps, l->up_ps, false);
		if (fl.node_a != na) { /* as written: the first node named is end a */
			fl.node_a = na;
			fl.port_a = pa;
			fl.node_b = nb;
			fl.port_b = fabric_tport(f, na, pa)->peer_port;
		}
		add_failure(fm, fl, &cap);
	}
	for (size_t i = 0; i < c->switches.n; i++) {
		const struct fail_line *l = &c->switches.v[i];
		int u = topo_find(&f->topo, l->a);
		if (u < 0) {
			*err = unknown_node(f, "switch", l->line, l->a);
			goto fail;
		}
		if (f->nodes[u].kind != NODE_SWITCH) {
			*err = cfg_error_at(f->cfg, "failure", "switch", l->line, "'%s' is a %s; expected a "
					    "switch (a host's link fails with `link`)", l->a,
					    fabric_kind_name(f->nodes[u].kind));
			goto fail;
		}
		add_failure(fm, (struct failure){ .kind = FAIL_SWITCH, .node_a = u, .port_a = -1, .node_b = -1,
						  .port_b = -1, .link = -1, .down_ps = l->down_ps,
						  .up_ps = l->up_ps }, &cap);
	}
	if (any_random) {
		simtime_t horizon = c->horizon_ps ? c->horizon_ps
				  : f->sim->stop_at != SIMTIME_NEVER ? f->sim->stop_at : 0;
		if (horizon <= 0) {
			*err = cfg_error_at(f->cfg, "failure", "mtbf", 0, "random failures need an end: "
					    "set [failure] horizon or [simulation] stop");
			goto fail;
		}
		draw_random(f, c, horizon, &cap);
	}
	/* Each failure's links, and the counters over links. */
	int n_links = f->topo.n_links;
	fm->links_off = xcalloc((size_t)fm->n + 1, sizeof *fm->links_off);
	int total = 0;
	for (int i = 0; i < fm->n; i++)
		total += fm->v[i].kind == FAIL_LINK ? 1 : f->nodes[fm->v[i].node_a].n_ports;
	fm->links_of = xmalloc(((size_t)total + 1) * sizeof *fm->links_of);
	for (int i = 0, k = 0; i < fm->n; i++) {
		fm->links_off[i] = k;
		if (fm->v[i].kind == FAIL_LINK)
			fm->links_of[k++] = fm->v[i].link;
		else
			for (int p = 0; p < f->nodes[fm->v[i].node_a].n_ports; p++)
				fm->links_of[k++] = fabric_tport(f, fm->v[i].node_a, p)->link;
		fm->links_off[i + 1] = k;
	}
	fm->link_down = xcalloc((size_t)n_links + 1, sizeof *fm->link_down);
	fm->route_down = xcalloc((size_t)n_links + 1, sizeof *fm->route_down);
	fm->went_down = xcalloc((size_t)n_links + 1, sizeof *fm->went_down);
	fm->mask = xcalloc((size_t)n_links + 1, 1);
	sim_elem_register(f->sim, &fm->elem, "failure");
	for (int i = 0; i < fm->n; i++) {
		sched_at(f->sim, fm->v[i].down_ps, &fm->elem, on_change, fm, (uintptr_t)i << 1 | 1);
		if (fm->v[i].up_ps >= 0)
			sched_at(f->sim, fm->v[i].up_ps, &fm->elem, on_change, fm, (uintptr_t)i << 1);
	}
	return 0;
fail:
	failure_free(f);
	return -1;
}

void failure_free(struct fabric *f)
{
	struct fail_model *fm = f->fail;
	if (!fm)
		return;
	free(fm->v);
	free(fm->links_of);
	free(fm->links_off);
	free(fm->link_down);
	free(fm->route_down);
	free(fm->went_down);
	free(fm->mask);
	free(fm);
	f->fail = NULL;
}

/* ---- Lost frames ---- */

static void lose(struct sim *sim, struct fail_model *fm, int id, struct packet *pkt)
{
	if (id >= 0)
		fm->v[id].frames_lost++;
	if (pkt->type == PKT_DATA)
		sim->packets_dropped++;
	if (fm->lost && id >= 0)
		fm->lost(fm->lost_ctx, id, pkt);
	fabric_pkt_put(fm->fab, pkt);
}

void failure_lose(struct sim *sim, struct port *p, struct packet *pkt)
{
	p->fail_lost++;
	lose(sim, p->node->fab->fail, p->fail_id, pkt);
}

void failure_unreachable(struct sim *sim, struct node *sw, struct packet *pkt)
{
	struct fail_model *fm = sw->fab->fail;
	fm->unreachable_drops++;
	lose(sim, fm, fm->route_fail_id, pkt);
}

/* ---- Reports ---- */

void failure_print(const struct fabric *f, FILE *out)
{
	const struct fail_model *fm = f->fail;
	if (!fm)
		return;
	char d[32], u[32], det[32];
	units_format_time(fm->detection_ps, det, sizeof det);
	fprintf(out, "failures: %d, routing reacts %s after each change\n", fm->n, det);
	for (int i = 0; i < fm->n; i++) {
		const struct failure *fl = &fm->v[i];
		units_format_time(fl->down_ps, d, sizeof d);
		if (fl->up_ps >= 0)
			units_format_time(fl->up_ps, u, sizeof u);
		if (fl->kind == FAIL_LINK)
			fprintf(out, "failure %d: link %s:p%d - %s:p%d", i + 1, f->nodes[fl->node_a].name,
				fl->port_a, f->nodes[fl->node_b].name, fl->port_b);
		else
			fprintf(out, "failure %d: switch %s (%d links)", i + 1, f->nodes[fl->node_a].name,
				f->nodes[fl->node_a].n_ports);
		fprintf(out, " down at %s, %s%s%s\n", d, fl->up_ps >= 0 ? "up at " : "down for good",
			fl->up_ps >= 0 ? u : "", fl->random ? " (random)" : "");
	}
}

static const char failure_cols[] = "failure_id, kind, node_a, port_a, node_b, port_b, down_ps, up_ps, "
				   "detection_ps, random, frames_lost";

int failure_results_prepare(struct fabric *f, struct results *res)
{
	if (!f->fail)
		return 0;
	f->fail->table = results_table(res, "failure", failure_cols);
	return f->fail->table ? 0 : -1;
}

void failure_write(const struct fabric *f, struct results *res)
{
	const struct fail_model *fm = f->fail;
	if (!fm || !fm->table)
		return;
	for (int i = 0; i < fm->n; i++) {
		const struct failure *fl = &fm->v[i];
		if (fl->kind == FAIL_LINK)
			results_row(res, fm->table, "issisitttiu", i + 1, kind_names[fl->kind],
				    f->nodes[fl->node_a].name, fl->port_a, f->nodes[fl->node_b].name, fl->port_b,
				    fl->down_ps, fl->up_ps, fm->detection_ps, (int)fl->random, fl->frames_lost);
		else
			results_row(res, fm->table, "issnnntttiu", i + 1, kind_names[fl->kind],
				    f->nodes[fl->node_a].name, fl->down_ps, fl->up_ps, fm->detection_ps,
				    (int)fl->random, fl->frames_lost);
	}
}
