/*
 * watchdog.c — stall and PFC deadlock detection (see watchdog.h).
 *
 * The wait-for graph. A vertex is a switch egress (port, class c) that is
 * paused by its peer in class c, holds frames of class c, and has stayed
 * paused since the silence began. Its peer switch's ingress (peer port, c)
 * is in XOFF (mmu.h) because it holds bytes; those bytes sit in egress
 * queues of that switch, each frame recording its ingress (packet.in_port).
 * An edge v -> u joins v to every vertex u of the peer switch whose queue c
 * holds a frame that entered on the peer port: v cannot move until u moves.
 * A cycle is the cyclic buffer dependency of a PFC deadlock (Hu et al.,
 * HotNets 2016). Hosts never forward, so a host ingress (the NIC's own
 * rx_buffer PFC) ends every chain. The graph is built only when the
 * progress count has stood still for a period, so its cost (a walk of the
 * queues of the switches involved) is paid at most once per period of a
 * silent run, never per packet.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "nic.h"
#include "invariants.h"
#include "log.h"
#include "fabric.h"
#include "results.h"
#include "watchdog.h"
#include "xalloc.h"

#define WD_REPORT_MAX 10   /* flows and ports named in a stall report */

static void watchdog_tick(struct sim *sim, void *obj, uintptr_t arg);

void watchdog_start(struct watchdog *wd, struct world *w, simtime_t period_ps)
{
	struct sim *sim = w->sim;
	memset(wd, 0, sizeof *wd);
	wd->w = w;
	wd->period_ps = period_ps > 0 ? period_ps : SIMTIME_NEVER;
	simtime_t two_rto = 2 * w->nic_cfg->rto;
	wd->stall_ps = two_rto > wd->period_ps ? two_rto : wd->period_ps;
	wd->silent_since = sim->now;
	wd->active = period_ps > 0;
	sim_elem_register(sim, &wd->elem, "watchdog");
	if (wd->active) {
		sched_in(sim, wd->period_ps, &wd->elem, watchdog_tick, wd, 0);
		wd->next_tick = sim->now + wd->period_ps;
		wd->ticking = true;
	}
}

void watchdog_rearm(struct watchdog *wd)
{
	struct sim *sim = wd->w->sim;
	if (!wd->active || wd->ticking)
		return;
	wd->silent_since = sim->now;
	wd->last_progress = sim->packets_delivered + wd->w->flows_done;
	sched_in(sim, wd->period_ps, &wd->elem, watchdog_tick, wd, 0);
	wd->next_tick = sim->now + wd->period_ps;
	wd->ticking = true;
}

void watchdog_free(struct watchdog *wd)
{
	wd_cycles_free(&wd->cycles);
}

void wd_cycles_free(struct wd_cycles *c)
{
	free(c->hops);
	free(c->start);
	memset(c, 0, sizeof *c);
}

/* ---- the wait-for graph ------------------------------------------------- */

struct wd_graph {
	const struct world *w;
	simtime_t since;
};

static bool wd_vertex(const struct wd_graph *g, const struct port *p, int c)
{
	return p->node->kind == NODE_SWITCH && (p->paused & (1u << c)) && p->q[c].head &&
	       p->paused_since[c] <= g->since;
}

/* Does queue c of o hold a frame that entered its switch on port `in`? */
static bool wd_holds_from(const struct port *o, int c, int in)
{
	for (const struct packet *pkt = o->q[c].head; pkt; pkt = pkt->next)
		if (pkt->in_port == in)
			return true;
	return false;
}

/* The wait-for graph as data, so that a partitioned run's ranks, each
 * holding part of the fabric, can put their parts together
 * (wd->global_graph): records of ints, a vertex as (0, v) and the
 * successors of every vertex whose peer ingress (in, c) holds XOFF as
 * (1, in x PORT_PRIOS + c, n, u1 .. un), the u in port order of in's
 * switch. Vertex v = port index x PORT_PRIOS + class. mine: the nodes
 * whose part this is (NULL: all). */
struct wd_blob {
	int *v;
	size_t n, cap;
};

static void blob_put(struct wd_blob *b, int x)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->v = xrealloc(b->v, b->cap * sizeof *b->v);
	}
	b->v[b->n++] = x;
}

static void wd_local_graph(const struct wd_graph *g, struct wd_blob *b)
{
	const struct fabric *f = &g->w->fab;
	for (int i = 0; i < f->n_ports; i++) {
		if (fabric_port_at_host(f, i) || !fabric_port_own(f, i))
			continue;   /* a host's, or another rank's switch's */
		const struct port *p = &f->ports[i];
		for (int c = 0; c < PORT_PRIOS; c++) {
			if (wd_vertex(g, p, c)) {
				blob_put(b, 0);
				blob_put(b, i * PORT_PRIOS + c);
			}
			if (!fabric_holds_pause(p->node, p->idx, c))
				continue; /* ingress p, class c: does it hold its upstream? */
			blob_put(b, 1);
			blob_put(b, i * PORT_PRIOS + c);
			size_t at = b->n;
			blob_put(b, 0);
			for (int k = 0; k < p->node->n_ports; k++) {
				const struct port *o = &p->node->ports[k];
				if (wd_vertex(g, o, c) && wd_holds_from(o, c, p->idx)) {
					blob_put(b, (int)(o - f->ports) * PORT_PRIOS + c);
					b->v[at]++;
				}
			}
		}
	}
}

/* The next successor of v = (p, c) (the *it-th of its list); -1 when none. */
static int wd_next_succ(const struct world *w, const int *succ_at, const int *blob, int v, int *it)
{
	/* the peer of v's port, from the topology (it may be another rank's) */
	const struct topo_port *tp = &w->fab.topo.ports[v / PORT_PRIOS];
	int in = w->fab.topo.port_off[tp->peer] + tp->peer_port;
	int at = succ_at[in * PORT_PRIOS + v % PORT_PRIOS];
	if (at < 0 || *it >= blob[at])
		return -1;
	return blob[at + 1 + (*it)++];
}

static void wd_push_hop(struct wd_cycles *out, const struct fabric *f, int i, int c)
{
	int u = fabric_port_node(f, i);
	if (out->n_hops == out->cap_hops) {
		out->cap_hops = out->cap_hops ? 2 * out->cap_hops : 16;
		out->hops = xrealloc(out->hops, (size_t)out->cap_hops * sizeof *out->hops);
	}
	out->hops[out->n_hops++] = (struct wd_hop){ .node = f->nodes[u].name, .port = i - f->topo.port_off[u],
						    .prio = c };
}

/* Records stack[from..top] as a cycle, rotated to start at its lowest vertex. */
static void wd_record(const struct world *w, struct wd_cycles *out, const int *stack, int from, int top)
{
	int len = top - from + 1, low = 0;
	for (int i = 1; i < len; i++)
		if (stack[from + i] < stack[from + low])
			low = i;
	if (out->n + 1 >= out->cap) {
		out->cap = out->cap ? 2 * out->cap : 8;
		out->start = xrealloc(out->start, (size_t)out->cap * sizeof *out->start);
	}
	out->start[out->n] = out->n_hops;
	for (int i = 0; i < len; i++) {
		int v = stack[from + (low + i) % len];
		wd_push_hop(out, &w->fab, v / PORT_PRIOS, v % PORT_PRIOS);
	}
	out->n++;
	out->start[out->n] = out->n_hops;
}

int watchdog_find_cycles(const struct world *w, simtime_t since, struct wd_cycles *out)
{
	return wd_find_cycles(NULL, w, since, out);
}

int wd_find_cycles(const struct watchdog *wd, const struct world *w, simtime_t since, struct wd_cycles *out)
{
	memset(out, 0, sizeof *out);
	struct wd_graph g = { .w = w, .since = since };
	int nv = w->fab.n_ports * PORT_PRIOS;
	struct wd_blob b = { 0 };
	wd_local_graph(&g, &b);
	int *blob = b.v, n = (int)b.n;
	if (wd && wd->global_graph) /* every rank's part */
		wd->global_graph(wd->global_ctx, b.v, (int)b.n, &blob, &n);
	uint8_t *vertex = xcalloc((size_t)nv + 1, 1);
	int *succ_at = xmalloc(((size_t)nv + 1) * sizeof *succ_at);
	for (int v = 0; v < nv; v++)
		succ_at[v] = -1;
	for (int k = 0; k < n;) {
		if (blob[k] == 0) {
			vertex[blob[k + 1]] = 1;
			k += 2;
		} else {
			succ_at[blob[k + 1]] = k + 2;
			k += 3 + blob[k + 2];
		}
	}
	/* Iterative DFS: colour 0 new, 1 on the stack, 2 finished; pos[v] its
	 * stack slot; it[slot] the next successor to try. */
	uint8_t *colour = xcalloc((size_t)nv + 1, 1);
	int *pos = xmalloc(((size_t)nv + 1) * sizeof *pos);
	int *stack = xmalloc(((size_t)nv + 1) * sizeof *stack);
	int *it = xmalloc(((size_t)nv + 1) * sizeof *it);
	for (int root = 0; root < nv && out->n < WD_MAX_CYCLES; root++) {
		if (colour[root] || !vertex[root])
			continue;
		int top = 0;
		stack[0] = root;
		it[0] = 0;
		colour[root] = 1;
		pos[root] = 0;
		while (top >= 0) {
			int v = stack[top];
			int u = wd_next_succ(w, succ_at, blob, v, &it[top]);
			if (u < 0) {
				colour[v] = 2;
				top--;
			} else if (colour[u] == 1) {
				if (out->n < WD_MAX_CYCLES)
					wd_record(w, out, stack, pos[u], top);
			} else if (colour[u] == 0) {
				colour[u] = 1;
				stack[++top] = u;
				pos[u] = top;
				it[top] = 0;
			}
		}
	}
	if (blob != b.v)
		free(blob);
	free(b.v);
	free(vertex);
	free(succ_at);
	free(colour);
	free(pos);
	free(stack);
	free(it);
	return out->n;
}

void watchdog_cycle_name(const struct wd_cycles *c, int i, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int h = c->start[i]; h < c->start[i + 1] && n < size; h++) {
		int k = snprintf(buf + n, size - n, "%s%s:p%d (prio %d)", h > c->start[i] ? " -> " : "",
				 c->hops[h].node, c->hops[h].port, c->hops[h].prio);
		n += k > 0 ? (size_t)k : 0;
	}
	if (n < size)   /* back to where it started */
		snprintf(buf + n, size - n, " -> %s:p%d", c->hops[c->start[i]].node, c->hops[c->start[i]].port);
}

/* ---- the tick ----------------------------------------------------------- */

static void wd_count_flow(const struct flow *f, void *ctx)
{
	(void)f;
	(*(uint64_t *)ctx)++;
}

/* Flows carried by queue pairs that have not finished (NVLink messages,
 * a fluid that always drains, are not counted). */
static uint64_t wd_nic_flows(const struct world *w)
{
	uint64_t n = 0;
	for (int e = 0; e < w->n_eps; e++)
		nic_foreach_flow(w->eps[e].nic, wd_count_flow, &n);
	return n;
}

static void wd_verdict(struct sim *sim, struct watchdog *wd, enum watchdog_verdict v)
{
	wd->verdict = v;
	wd->verdict_at = sim->now;
	wd->active = false;
	/* Stop after the events of this instant: sim_run ends before the first
	 * event past stop_at (SIM_STOP_TIME); run.c reads the verdict. */
	sim->stop_at = sim->now;
}

static void watchdog_tick(struct sim *sim, void *obj, uintptr_t arg)
{
	struct watchdog *wd = obj;
	struct world *w = wd->w;
	(void)arg;
	wd->ticking = false;
	if (!wd->active)
		return;
#ifdef SIM_DEBUG
	inv_check(w);   /* debug builds: the accounting identities, every period */
#endif
	struct wd_view v = { .progress = sim->packets_delivered + w->flows_done,
			     .idle = w->flows_done == w->flows_posted, .empty = evq_empty(&sim->q),
			     .nic_flows = UINT64_MAX /* counted when needed */ };
	if (wd->global) {
		v.nic_flows = wd_nic_flows(w);
		wd->global(wd->global_ctx, &v);
	}
	if (v.progress != wd->last_progress || v.idle) {
		wd->last_progress = v.progress;
		wd->silent_since = sim->now;
		if (v.idle && v.empty)
			return;   /* the last event: let the run end as it would without us */
	} else if ((v.nic_flows == UINT64_MAX ? wd_nic_flows(w) : v.nic_flows) > 0) {
		if (wd_find_cycles(wd, w, wd->silent_since, &wd->cycles) > 0) {
			wd_verdict(sim, wd, WD_DEADLOCK);
			return;
		}
		wd_cycles_free(&wd->cycles);
		if (sim->now - wd->silent_since >= wd->stall_ps || v.empty) {
			wd_verdict(sim, wd, WD_STALLED);
			return;
		}
	} else {
		wd->silent_since = sim->now;   /* only NVLink messages: they always drain */
		if (v.empty)
			return;
	}
	sched_in(sim, wd->period_ps, &wd->elem, watchdog_tick, wd, 0);
	wd->next_tick = sim->now + wd->period_ps;
	wd->ticking = true;
}

/* ---- reporting ---------------------------------------------------------- */

const char *watchdog_status(const struct watchdog *wd)
{
	return wd->verdict == WD_DEADLOCK ? "deadlock" : wd->verdict == WD_STALLED ? "stalled" : NULL;
}

struct wd_flow_list {
	FILE *f;
	const struct world *w;
	int shown;
};

static void wd_print_flow(const struct flow *fl, void *ctx)
{
	struct wd_flow_list *l = ctx;
	if (l->shown++ >= WD_REPORT_MAX)
		return;
	fprintf(l->f, "  flow %llu %s -> %s, %llu bytes, posted at %.3f us by %s\n",
		(unsigned long long)fl->id, l->w->eps[fl->src].host->name, l->w->eps[fl->dst].host->name,
		(unsigned long long)fl->size_b, (double)fl->start / 1e6, fl->source ? fl->source : "?");
}

void watchdog_report(struct watchdog *wd, FILE *f)
{
	const struct world *w = wd->w;
	double t_us = (double)wd->verdict_at / 1e6;
	double silent_us = (double)(wd->verdict_at - wd->silent_since) / 1e6;
	uint64_t left = w->flows_posted - w->flows_done;
	if (wd->verdict == WD_DEADLOCK) {
		fprintf(f, "sim: PFC deadlock at %.3f us: no data delivered for %.3f us while %llu flows "
			"remain; %d cycle%s of paused ports:\n", t_us, silent_us, (unsigned long long)left,
			wd->cycles.n, wd->cycles.n == 1 ? "" : "s");
		char buf[1024];
		for (int i = 0; i < wd->cycles.n; i++) {
			watchdog_cycle_name(&wd->cycles, i, buf, sizeof buf);
			fprintf(f, "  cycle %d: %s\n", i, buf);
		}
		return;
	}
	if (wd->verdict != WD_STALLED)
		return;
	fprintf(f, "sim: stalled at %.3f us: no data delivered for %.3f us while %llu flows remain, "
		"and no cycle of paused ports holds them ([simulation] watchdog)\n", t_us, silent_us,
		(unsigned long long)left);
	struct wd_flow_list l = { .f = f, .w = w };
	for (int e = 0; e < w->n_eps; e++)
		nic_foreach_flow(w->eps[e].nic, wd_print_flow, &l);
	if (l.shown > WD_REPORT_MAX)
		fprintf(f, "  ... and %d more flows\n", l.shown - WD_REPORT_MAX);
	int ports = 0;
	for (int i = 0; i < w->fab.n_ports; i++) {
		if (!fabric_port_own(&w->fab, i))
			continue;   /* another rank's (a partitioned run reports its own) */
		const struct port *p = &w->fab.ports[i];
		if (!p->queued_bytes && !p->paused)
			continue;
		if (ports++ < WD_REPORT_MAX)
			fprintf(f, "  port %s: %llu bytes queued, paused classes 0x%02x, XOFF sent 0x%02x\n",
				p->name, (unsigned long long)p->queued_bytes, p->paused, p->xoff);
	}
	if (ports > WD_REPORT_MAX)
		fprintf(f, "  ... and %d more ports\n", ports - WD_REPORT_MAX);
	if (!ports)
		fprintf(f, "  no port holds a frame or is paused\n");
}

void watchdog_write(const struct watchdog *wd, struct results *res)
{
	if (!res || wd->verdict != WD_DEADLOCK)
		return;
	struct results_table *t = results_table(res, "deadlock", "cycle, position, node, port, priority");
	if (!t)
		return;
	for (int i = 0; i < wd->cycles.n; i++)
		for (int h = wd->cycles.start[i]; h < wd->cycles.start[i + 1]; h++) {
			const struct wd_hop *hop = &wd->cycles.hops[h];
			results_row(res, t, "iisii", i, h - wd->cycles.start[i], hop->node, hop->port, hop->prio);
		}
}
