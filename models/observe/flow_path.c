/*
 * flow_path.c — the flow_path rows of [output] flow_paths (sampler.h).
 *
 * No packet is followed. With ecmp = flow every switch picks the egress of a
 * flow from its routing table and the hash of the flow's 5-tuple with its own
 * seed (switch.h), so the path is a pure function of (src, dst, UDP source
 * port) and is recomputed here, once per flow, when its row is written, by
 * the walk of the ideal FCT (switch_path_ports). With ecmp = packet the
 * hash also takes the PSN, so each packet has its own path and no single one is
 * "the flow's": the rows are the path of its first packet (PSN first_psn),
 * recomputed the same way, and other packets may have crossed other links
 * (documented in scenarios/README.md, warned at the start of the run).
 */
#include "config.h"
#include "nic.h"
#include "path.h"
#include "log.h"
#include "fabric.h"
#include "results.h"
#include "sampler.h"
#include "topology.h"

void flow_path_write(void *sampler, const struct world *w, const struct flow *f)
{
	const struct sampler *s = sampler;
	uint32_t qpn;
	uint16_t sport;
	uint8_t prio;
	if (!flow_qp_info(f, &qpn, &sport, &prio) || f->dst_name)
		return;                     /* NVLink: not in the network; a group's sender: no one path */
	bool spray = w->fab.sw_cfg->ecmp == ECMP_PACKET;
	if (spray && !f->psn_valid)
		return;                     /* no packet sent: no path taken */
	int64_t psn = spray ? (int64_t)f->first_psn : -1;
	const struct port *hop[IDEAL_MAX_HOPS];
	int n = switch_path_ports(&w->fab, f->src, f->dst, sport, psn, hop, IDEAL_MAX_HOPS);
	SIM_ASSERT(w->sim, &w->eps[f->src].port->elem, n > 0,
		   "flow %llu: no path of at most %d hops to its destination", (unsigned long long)f->id,
		   IDEAL_MAX_HOPS);
	for (int i = 0; i < n; i++)
		results_row(w->sim->res, s->t_path, "uisi", f->id, i, hop[i]->node->name, hop[i]->idx);
}
