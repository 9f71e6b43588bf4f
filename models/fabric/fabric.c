/*
 * fabric.c — turning a topology into live nodes, ports and switches, and
 * the questions asked of the whole fabric at the end of a run (see
 * fabric.h).
 *
 * Element ids are registered in a fixed order (nodes by id, then each
 * node's ports by index) so that tie-breaking never depends on anything
 * but the scenario.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "config.h"
#include "fabric.h"
#include "log.h"
#include "mcast_tree.h"
#include "mmu.h"
#include "results.h"
#include "rng.h"
#include "routing.h"
#include "xalloc.h"

/* SIM_DEBUG: the pages of the ports array that hold no port of this
 * process are made inaccessible, so that a model reading another rank's
 * port fails there (a segmentation fault, located by the debugger or
 * AddressSanitizer) instead of reading zeros. */
static void fabric_guard_ports(const struct fabric *f)
{
#ifdef SIM_DEBUG
	if (!f->held)
		return;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), sz = sizeof *f->ports;
	size_t n_pages = ((size_t)f->n_ports * sz + pg - 1) / pg;
	for (size_t k = 0; k < n_pages; k++) {
		size_t lo = k * pg / sz, hi = ((k + 1) * pg + sz - 1) / sz;
		if (hi > (size_t)f->n_ports)
			hi = (size_t)f->n_ports;
		bool used = false;
		for (size_t i = lo; i < hi && !used; i++)
			used = f->held[i];
		if (!used && mprotect((char *)f->ports + k * pg, pg, PROT_NONE) != 0)
			die_internal("mprotect of the ports array failed");
	}
#else
	(void)f;
#endif
}

int fabric_build(struct fabric *f, struct sim *sim, const struct config *cfg,
		 const struct fabric_params *p, char **err)
{
	memset(f, 0, sizeof *f);
	f->sim = sim;
	f->cfg = cfg;
	f->sw_cfg = cfg_get(cfg, &switch_section);
	f->params = *p;
	if (topology_build(cfg, &f->topo, err) < 0)
		return -1;
	const struct topo *t = &f->topo;
	f->switch_latency = topology_cfg(cfg)->switch_latency;
	/* What the configuration alone refuses, before routing and buffers. */
	if (switch_check_buffers(f, t, err) < 0) {
		fabric_free(f);
		return -1;
	}
	simtime_t switch_latency = f->switch_latency;
	f->n_nodes = t->n_nodes;
	f->n_hosts = t->n_hosts;
	f->nics_per_host = t->nics_per_host;   /* >= 1 after topology_build */
	f->n_ports = t->port_off[t->n_nodes];
	/* A partitioned run builds only the ports it holds (fabric.h). */
	if (p->place && p->place(p->place_ctx, t, &f->mine, err) < 0) {
		fabric_free(f);
		return -1;
	}
	if (f->mine) {
		f->held = xcalloc((size_t)f->n_ports, 1);
		for (int u = 0; u < t->n_nodes; u++)
			for (int i = t->port_off[u]; i < t->port_off[u + 1]; i++)
				f->held[i] = f->mine[u] ? FABRIC_OWN : f->mine[t->ports[i].peer] ? FABRIC_FAR : 0;
	}
	f->nodes = xcalloc_lines((size_t)f->n_nodes, sizeof *f->nodes);
	f->ports = xcalloc_pages((size_t)f->n_ports, sizeof *f->ports);
	f->routes = xcalloc((size_t)f->n_nodes, sizeof *f->routes);
	if (routing_build(t, f->routes, err) < 0) {
		fabric_free(f);
		return -1;
	}
	pool_init(&f->pkt_pool, sizeof(struct packet), 4096);
	for (int u = 0; u < t->n_nodes; u++) {
		struct node *nd = &f->nodes[u];
		nd->id = u;
		nd->kind = t->nodes[u].kind;
		nd->tier = t->nodes[u].tier;
		nd->name = t->nodes[u].name;
		nd->fab = f;
		nd->ports = &f->ports[t->port_off[u]];
		nd->n_ports = topo_n_ports(t, u);
		sim_elem_register(sim, &nd->elem, nd->name);
		if (nd->kind == NODE_SWITCH) {
			nd->rt = &f->routes[u];
			nd->set_of_grp = nd->rt->set_of_grp;
			nd->ep_route = nd->rt->dst->eps;
			nd->sets = nd->rt->sets;
			nd->rt_ports = nd->rt->ports;
			nd->ecmp_seed = (uint32_t)rng_derive(sim->seed, RNG_ECMP_SEED, (uint64_t)u);
			nd->ecmp_packet = f->sw_cfg->ecmp == ECMP_PACKET;
		}
		nd->port_elem = sim->n_elems;
		for (int i = 0; i < nd->n_ports; i++) {
			const struct topo_port *tp = &t->ports[t->port_off[u] + i];
			const struct topo_link *l = &t->links[tp->link];
			if (!fabric_node_port_held(f, u, i)) {
				port_skip(sim);
				continue;
			}
			port_init(sim, &nd->ports[i], nd, i, l->rate_bps, l->delay_ps);
			nd->ports[i].link_id = tp->link;
		}
	}
	for (int u = 0; u < t->n_nodes; u++) {
		struct node *nd = &f->nodes[u];
		for (int i = 0; i < nd->n_ports; i++) {
			const struct topo_port *tp = &t->ports[t->port_off[u] + i];
			struct node *peer = &f->nodes[tp->peer];
			if (fabric_node_port_held(f, u, i))
				port_connect(&nd->ports[i], &peer->ports[tp->peer_port],
					     peer->kind == NODE_SWITCH ? switch_latency : 0);
		}
		if (nd->kind == NODE_SWITCH && (!f->mine || f->mine[u]) && switch_setup(f, nd, err) < 0) {
			fabric_free(f);
			return -1;
		}
	}
	fabric_guard_ports(f);
	if (link_loss_build(f, &((const struct failure_cfg *)cfg_get(cfg, &failure_section))->loss, err) < 0) {
		fabric_free(f);
		return -1;
	}
	/* Last: its element after every node's and port's. */
	if (failure_build(f, err) < 0) {
		fabric_free(f);
		return -1;
	}
	return 0;
}

void fabric_free(struct fabric *f)
{
	failure_free(f);
	mcast_fabric_free(f);
	link_loss_free(f);
	for (int u = 0; f->nodes && u < f->n_nodes; u++)
		switch_free(&f->nodes[u]);
	if (f->routes)
		routing_free(f->routes, f->n_nodes);
	free(f->routes);
	free(f->nodes);
	xfree_pages(f->ports, (size_t)f->n_ports, sizeof *f->ports);
	free(f->held);
	topology_free(&f->topo);
	pool_destroy(&f->pkt_pool);
	pkt_tel_pool_free(&f->tel);
	memset(f, 0, sizeof *f);
}

int fabric_port_node(const struct fabric *f, int i)
{
	int lo = 0, hi = f->n_nodes - 1;   /* port_off[lo] <= i < port_off[hi + 1] */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (f->topo.port_off[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

void fabric_attach_host(struct fabric *f, int ep, port_pull_fn pull, void *pull_ctx,
			void (*recv)(struct sim *, void *, struct port *, struct packet *))
{
	struct port *p = fabric_ep_port(f, ep);
	port_set_pull(p, pull, pull_ctx);
	p->node->receive = recv;
}

uint32_t fabric_headroom(const struct fabric *f, int u, int i, uint32_t max_frame_b)
{
	/* Frames cross the link toward u and pay u's switch latency; the XOFF
	 * pays the peer's. */
	const struct topo_port *tp = fabric_tport(f, u, i);
	const struct topo_link *l = &f->topo.links[tp->link];
	simtime_t lat = (f->topo.nodes[u].kind == NODE_SWITCH ? f->switch_latency : 0) +
			(f->topo.nodes[tp->peer].kind == NODE_SWITCH ? f->switch_latency : 0);
	return mmu_auto_headroom(l->rate_bps, l->delay_ps, lat, max_frame_b);
}

int fabric_results_prepare(struct fabric *f, struct results *res)
{
	f->pfc_pause = results_table(res, "pfc_pause", "node, port, priority, start_ps, end_ps");
	return f->pfc_pause && failure_results_prepare(f, res) == 0 ? 0 : -1;
}

void fabric_check_drained(struct fabric *f)
{
	struct sim *sim = f->sim;
	for (int i = 0; i < f->n_ports; i++) {
		if (!fabric_port_held(f, i))
			continue;   /* another rank's (its copy is not built here) */
		const struct port *p = &f->ports[i];
		SIM_ASSERT(sim, &p->elem, p->queued_bytes == 0 && p->nonempty == 0 && !p->fly_head,
			   "port not drained: %llu bytes queued, %s in flight",
			   (unsigned long long)p->queued_bytes, p->fly_head ? "frames" : "nothing");
	}
	for (int u = 0; u < f->n_nodes; u++)
		switch_check_drained(&f->nodes[u]);
	SIM_ASSERT(sim, &sim->kernel, f->pkt_pool.live == 0, "%zu packets never returned to the pool",
		   f->pkt_pool.live);
	SIM_ASSERT(sim, &sim->kernel, f->tel.live == 0, "%u frame side records never released",
		   f->tel.live);
}

bool fabric_quiet(const struct fabric *f)
{
	for (int i = 0; i < f->n_ports; i++) {
		if (!fabric_port_held(f, i))
			continue;   /* another rank's (its copy is not built here) */
		const struct port *p = &f->ports[i];
		if (p->queued_bytes || p->fly_head || p->pfc_pend_off || p->pfc_pend_on)
			return false;
	}
	return true;
}

uint64_t fabric_lossless_drops(const struct fabric *f, int *switches)
{
	uint64_t drops = 0;
	*switches = 0;
	for (int u = 0; u < f->n_nodes; u++) {
		const struct mmu *m = f->nodes[u].mmu;
		if (m && m->lossless_drops) {
			drops += m->lossless_drops;
			(*switches)++;
		}
	}
	return drops;
}

uint64_t fabric_data_in_flight(const struct fabric *f)
{
	uint64_t n = 0;
	for (int i = 0; i < f->n_ports; i++) {
		if (!fabric_port_held(f, i))
			continue;   /* another rank's (its copy is not built here) */
		const struct port *p = &f->ports[i];
		for (int c = 0; c < PORT_PRIOS; c++)
			for (const struct packet *k = p->q[c].head; k; k = k->next)
				n += k->type == PKT_DATA;
		for (const struct packet *k = p->fly_head; k; k = k->next)
			n += k->type == PKT_DATA;
	}
	return n;
}

bool fabric_holds_pause(const struct node *sw, int port, int c)
{
	return sw->kind == NODE_SWITCH && sw->mmu && (sw->mmu->port[port].xoff & (1u << c));
}

const char *fabric_kind_name(enum node_kind k)
{
	static const char *const names[] = { [NODE_HOST] = "host", [NODE_GPU] = "gpu",
					     [NODE_SWITCH] = "switch", [NODE_NVSWITCH] = "nvswitch" };
	return names[k];
}

/* One switch: the MMU's counters against the frames its queues hold. */
static void check_switch(struct fabric *f, struct node *sw, uint64_t *held)
{
	const struct mmu *m = sw->mmu;
	struct sim *sim = f->sim;
	uint64_t queued = 0;
	for (int i = 0; i < sw->n_ports * MMU_CLASSES; i++)
		held[i] = 0;
	for (int o = 0; o < sw->n_ports; o++) {
		const struct port *p = &sw->ports[o];
		for (int c = 0; c < PORT_PRIOS; c++) {
			uint64_t qb = 0;
			for (const struct packet *k = p->q[c].head; k; k = k->next) {
				SIM_ASSERT(sim, &p->elem, k->in_port < sw->n_ports && k->prio == c,
					   "frame from port %u class %u in queue %d", k->in_port, k->prio, c);
				held[k->in_port * MMU_CLASSES + c] += k->frame_b;
				qb += k->frame_b;
			}
			SIM_ASSERT(sim, &p->elem, qb == p->q[c].bytes,
				   "queue %d counts %llu bytes, holds %llu", c,
				   (unsigned long long)p->q[c].bytes, (unsigned long long)qb);
			queued += qb;
		}
	}
	uint64_t shared = 0;
	for (int i = 0; i < sw->n_ports; i++)
		for (int c = 0; c < MMU_CLASSES; c++) {
			const struct mmu_port *mp = &m->port[i];
			uint64_t acc = (uint64_t)mp->ingress_b[c] + mp->hdrm_b[c];
			SIM_ASSERT(sim, &sw->elem, acc == held[i * MMU_CLASSES + c],
				   "MMU holds %llu bytes for ingress port %d class %d, its queues %llu",
				   (unsigned long long)acc, i, c, (unsigned long long)held[i * MMU_CLASSES + c]);
			SIM_ASSERT(sim, &sw->elem, mp->hdrm_b[c] <= mp->hdrm_cap_b,
				   "port %d class %d headroom %u over its %u", i, c, mp->hdrm_b[c], mp->hdrm_cap_b);
			SIM_ASSERT(sim, &sw->elem, !!(mp->hdrm_used & (1u << c)) == (mp->hdrm_b[c] > 0),
				   "port %d class %d headroom %u but its in-use bit %d", i, c, mp->hdrm_b[c],
				   !!(mp->hdrm_used & (1u << c)));
			bool pass = mmu_pass_holds(m, mp, c);
			SIM_ASSERT(sim, &sw->elem, pass == !!(mp->pass & (1u << c)) && *mp->pass_copy == mp->pass,
				   "port %d class %d: pass summary %#x (copy %#x), state says %d", i, c,
				   mp->pass, *mp->pass_copy, pass);
			shared += mmu_shared_used(m, i, c);
		}
	SIM_ASSERT(sim, &sw->elem, m->pass_ok == mmu_pool_passes(m), "pool pass mask %#x with %llu shared bytes used",
		   m->pass_ok, (unsigned long long)m->shared_used_b);
	SIM_ASSERT(sim, &sw->elem, m->used_b == queued && m->shared_used_b == shared,
		   "MMU used %llu (queues %llu), shared %llu (sum %llu)", (unsigned long long)m->used_b,
		   (unsigned long long)queued, (unsigned long long)m->shared_used_b,
		   (unsigned long long)shared);
}

void fabric_check_buffers(struct fabric *f)
{
	int max_ports = 1;
	for (int u = 0; u < f->n_nodes; u++)
		if (f->nodes[u].n_ports > max_ports)
			max_ports = f->nodes[u].n_ports;
	uint64_t *held = xmalloc((size_t)max_ports * MMU_CLASSES * sizeof *held);
	for (int u = 0; u < f->n_nodes; u++)
		if (f->nodes[u].mmu)
			check_switch(f, &f->nodes[u], held);
	free(held);
}

uint64_t fabric_estimate_b(const struct topo *t)
{
	uint64_t eps = (uint64_t)topo_n_eps(t);
	uint64_t switches = (uint64_t)(t->n_nodes - t->n_hosts);
	uint64_t ports = 2 * (uint64_t)t->n_links;
	uint64_t switch_ports = ports - eps;   /* every endpoint is one host port */
	return (uint64_t)t->n_nodes * (sizeof(struct node) + sizeof(struct topo_node)) +
	       ports * (sizeof(struct port) + sizeof(struct topo_port)) +
	       (uint64_t)t->n_links * sizeof(struct topo_link) +
	       switch_ports * sizeof(struct mmu_port) + switches * sizeof(struct mmu);
}

uint64_t fabric_routing_estimate_b(const struct topo *t)
{
	return routing_estimate_b(t);
}
