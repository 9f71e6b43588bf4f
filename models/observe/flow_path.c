/*
 * flow_path.c — the flow_path rows of [output] flow_paths: a flow's hops,
 * written with its row (an observer of the world's flow records, world.h).
 * Hop 0 is the sender's host port, then each switch and the egress port it
 * chooses. Nothing for NVLink messages or a multicast sender's record, nor,
 * with ecmp = packet, for a message that never sent a packet.
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
 * Cost when off: nothing (no sink is added).
 */
#include "config.h"
#include "nic.h"
#include "path.h"
#include "log.h"
#include "fabric.h"
#include "results.h"
#include "observe.h"
#include "topology.h"

static void flow_path_write(void *ctx, const struct world *w, const struct flow *f)
{
	struct results_table *t = ctx;
	uint32_t qpn;
	uint16_t sport;
	uint8_t prio;
	if (!flow_qp_info(f, &qpn, &sport, &prio) || f->dst_name)
		return;                     /* NVLink: not in the network; a group's sender: no one path */
	bool spray = w->fab.sw_cfg->ecmp == ECMP_PACKET;
	if (spray && !f->psn_valid)
		return;                     /* no packet sent: no path taken */
	int64_t psn = spray ? (int64_t)f->first_psn : -1;
	struct path_hop hop[IDEAL_MAX_HOPS];
	int n = switch_path_ports(&w->fab, f->src, f->dst, sport, psn, hop, IDEAL_MAX_HOPS);
	SIM_ASSERT(w->sim, &w->eps[f->src].port->elem, n > 0,
		   "flow %llu: no path of at most %d hops to its destination", (unsigned long long)f->id,
		   IDEAL_MAX_HOPS);
	for (int i = 0; i < n; i++)
		results_row(w->sim->res, t, "uisi", f->id, i, w->fab.nodes[hop[i].node].name, hop[i].port);
}

int flow_paths_attach(struct world *w, struct results *res)
{
	const struct output_cfg *o = cfg_get(w->cfg, &output_section);
	if (!o->flow_paths)
		return 0;
	struct results_table *t = results_table(res, "flow_path", "flow_id, hop, node, port");
	if (!t)
		return -1;
	world_add_flow_sink(w, flow_path_write, t);
	return 0;
}
