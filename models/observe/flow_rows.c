/*
 * flow_rows.c — the `flow` table: one row per message, written when the
 * world reports its record (at its end, or unfinished when the run ends;
 * world.h), through one prepared insert (the table with millions of rows).
 *
 * Derived columns: fct_ps = end - start and slowdown = fct / ideal for a
 * finished flow; NULL otherwise, and NULL ideal_fct_ps (and slowdown) when
 * the model computed no ideal, rather than a 0 that would read as an
 * instantaneous transfer. NVLink messages (no queue pair) have NULL qpn,
 * sport, priority and packets and transport 'nvlink' (every other
 * message crosses the network: 'network'); a multicast sender's row names
 * its group as dst.
 */
#include <math.h>
#include <stdint.h>
#include "nic.h"
#include "observe.h"
#include "results.h"

static const char columns[] =
	"flow_id, src, dst, src_gpu, dst_gpu, qpn, sport, priority, size_bytes, start_ps, end_ps,"
	" recv_end_ps, fct_ps, ideal_fct_ps, slowdown, packets, retx_packets, ecn_marked,"
	" cnp_received, source, job, iteration, collective_id, parallelism, transport";

static void flow_row(void *ctx, const struct world *w, const struct flow *f)
{
	struct results_table *t = ctx;
	char sg[48], dg[48];
	const char *src = w->eps[f->src].host->name;
	const char *dst = f->dst_name ? f->dst_name : w->eps[f->dst].host->name;
	const char *src_gpu = f->src_gpu >= 0 ? world_gpu_name(w, f->src_gpu, sg, sizeof sg) : NULL;
	const char *dst_gpu = f->dst_gpu >= 0 ? world_gpu_name(w, f->dst_gpu, dg, sizeof dg) : NULL;
	bool done = f->end >= 0;
	simtime_t fct = done ? f->end - f->start : -1;
	simtime_t ideal = f->ideal > 0 ? f->ideal : -1;
	double slowdown = done && f->ideal > 0 ? (double)fct / (double)f->ideal : NAN;
	uint32_t qpn = 0;
	uint16_t sport = 0;
	uint8_t prio = 0;
	bool qp = flow_qp_info(f, &qpn, &sport, &prio);   /* 't': -1 is NULL */
	results_row(w->sim->res, t, "usssstttulttttdtuuussttss", f->id, src, dst, src_gpu, dst_gpu,
		    qp ? (simtime_t)qpn : -1, qp ? (simtime_t)sport : -1, qp ? (simtime_t)prio : -1, f->size_b,
		    (int64_t)f->start, f->end, f->recv_end, fct, ideal, slowdown,
		    qp ? (simtime_t)f->n_pkts : -1, f->retx_pkts, f->ecn_marked, f->cnp_received, f->source,
		    f->job, (simtime_t)f->iteration, (simtime_t)f->collective_id, f->parallelism,
		    qp ? "network" : "nvlink");
}

int flow_rows_attach(struct world *w, struct results *res)
{
	struct results_table *t = results_table(res, "flow", columns);
	if (!t)
		return -1;
	world_add_flow_sink(w, flow_row, t);
	return 0;
}
