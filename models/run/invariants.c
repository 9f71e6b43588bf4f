/*
 * invariants.c — accounting identities of a live fabric (see invariants.h).
 *
 * Cost: one walk of every queued and flying frame, plus a per-switch array
 * of ports x classes; run once per watchdog period in debug builds and once
 * per run otherwise, never per packet.
 */
#include <stdlib.h>
#include "config.h"
#include "invariants.h"
#include "log.h"
#include "mmu.h"
#include "packet.h"
#include "port.h"
#include "nic.h"
#include "world.h"
#include "xalloc.h"

uint64_t inv_data_in_network(const struct world *w)
{
	uint64_t n = 0;
	for (int i = 0; i < w->n_ports; i++) {
		const struct port *p = &w->ports[i];
		for (int c = 0; c < PORT_PRIOS; c++)
			for (const struct packet *k = p->q[c].head; k; k = k->next)
				n += k->type == PKT_DATA;
		for (const struct packet *k = p->fly_head; k; k = k->next)
			n += k->type == PKT_DATA;
	}
	return n;
}

bool inv_conservation_checkable(const struct world *w)
{
	return w->nic_cfg->rx_rate_off;
}

/* One switch: the MMU's counters against the frames its queues hold. */
static void inv_check_switch(struct world *w, struct node *sw, uint64_t *held)
{
	const struct mmu *m = sw->mmu;
	uint64_t queued = 0;
	for (int i = 0; i < sw->n_ports * MMU_CLASSES; i++)
		held[i] = 0;
	for (int o = 0; o < sw->n_ports; o++) {
		const struct port *p = &sw->ports[o];
		for (int c = 0; c < PORT_PRIOS; c++) {
			uint64_t qb = 0;
			for (const struct packet *k = p->q[c].head; k; k = k->next) {
				SIM_ASSERT(w->sim, &p->elem, k->in_port < sw->n_ports && k->prio == c,
					   "frame from port %u class %u in queue %d", k->in_port, k->prio, c);
				held[k->in_port * MMU_CLASSES + c] += k->frame_b;
				qb += k->frame_b;
			}
			SIM_ASSERT(w->sim, &p->elem, qb == p->q[c].bytes,
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
			SIM_ASSERT(w->sim, &sw->elem, acc == held[i * MMU_CLASSES + c],
				   "MMU holds %llu bytes for ingress port %d class %d, its queues %llu",
				   (unsigned long long)acc, i, c, (unsigned long long)held[i * MMU_CLASSES + c]);
			SIM_ASSERT(w->sim, &sw->elem, mp->hdrm_b[c] <= mp->hdrm_cap_b,
				   "port %d class %d headroom %u over its %u", i, c, mp->hdrm_b[c], mp->hdrm_cap_b);
			SIM_ASSERT(w->sim, &sw->elem, !!(mp->hdrm_used & (1u << c)) == (mp->hdrm_b[c] > 0),
				   "port %d class %d headroom %u but its in-use bit %d", i, c, mp->hdrm_b[c],
				   !!(mp->hdrm_used & (1u << c)));
			bool pass = mmu_pass_holds(m, mp, c);
			SIM_ASSERT(w->sim, &sw->elem, pass == !!(mp->pass & (1u << c)) && *mp->pass_copy == mp->pass,
				   "port %d class %d: pass summary %#x (copy %#x), state says %d", i, c,
				   mp->pass, *mp->pass_copy, pass);
			shared += mmu_shared_used(m, i, c);
		}
	SIM_ASSERT(w->sim, &sw->elem, m->pass_ok == mmu_pool_passes(m), "pool pass mask %#x with %llu shared bytes used",
		   m->pass_ok, (unsigned long long)m->shared_used_b);
	SIM_ASSERT(w->sim, &sw->elem, m->used_b == queued && m->shared_used_b == shared,
		   "MMU used %llu (queues %llu), shared %llu (sum %llu)", (unsigned long long)m->used_b,
		   (unsigned long long)queued, (unsigned long long)m->shared_used_b,
		   (unsigned long long)shared);
}

void inv_check(struct world *w)
{
	struct sim *sim = w->sim;
	int max_ports = 1;
	for (int u = 0; u < w->n_nodes; u++)
		if (w->nodes[u].n_ports > max_ports)
			max_ports = w->nodes[u].n_ports;
	uint64_t *held = xmalloc((size_t)max_ports * MMU_CLASSES * sizeof *held);
	for (int u = 0; u < w->n_nodes; u++)
		if (w->nodes[u].mmu)
			inv_check_switch(w, &w->nodes[u], held);
	free(held);
	if (inv_conservation_checkable(w)) {
		uint64_t in_net = inv_data_in_network(w);
		SIM_ASSERT(sim, &sim->kernel, sim->packets_sent == sim->packets_delivered + sim->packets_dropped + in_net,
			   "packet conservation: sent %llu != delivered %llu + dropped %llu + in the network %llu",
			   (unsigned long long)sim->packets_sent, (unsigned long long)sim->packets_delivered,
			   (unsigned long long)sim->packets_dropped, (unsigned long long)in_net);
	}
}
