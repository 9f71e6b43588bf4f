/*
 * flow.c — the life of a message record, whatever carries it (a queue pair
 * or NVLink): creation, arrival, completion and its `flow` row (see flow.h).
 */
#include "flow.h"
#include "hpcc_fct.h"
#include "qp.h"
#include "results.h"
#include "sampler.h"
#include "world.h"

struct flow *flow_new(struct world *w, int src, int dst, uint64_t size_b, const char *source,
		      const char *parallelism)
{
	struct flow *f = pool_get(&w->flow_pool);
	*f = (struct flow){ .id = ++w->next_flow_id, .src = src, .dst = dst, .size_b = size_b,
			    .start = w->sim->now, .recv_end = -1, .end = -1, .source = source,
			    .parallelism = parallelism, .iteration = -1, .collective_id = -1,
			    .src_gpu = -1, .dst_gpu = -1 };
	w->flows_posted++;
	return f;
}

void flow_received(struct sim *sim, struct flow *f)
{
	f->recv_end = sim->now;
	if (f->on_recv)
		f->on_recv(sim, f, f->on_recv_ctx);
}

void flow_ended(struct sim *sim, struct world *w, struct flow *f)
{
	f->end = sim->now;
	if (++w->flows_done == w->flows_posted)
		sim_poll_soon(sim);
}

void flow_finish(struct sim *sim, struct world *w, struct flow *f)
{
	flow_ended(sim, w, f);
	if (f->on_done)
		f->on_done(sim, f, f->on_done_ctx);
	if (w->hpcc_fct)
		hpcc_fct_flow(w->hpcc_fct, w, f);
	flow_write(w, f);
	pool_put(&w->flow_pool, f);
}

void flow_write(struct world *w, const struct flow *f)
{
	struct results *res = w->sim->res;
	if (!res)
		return;
	char sg[48], dg[48];
	struct flow_record r = {
		.flow_id = f->id, .src = w->eps[f->src].host->name, .dst = w->eps[f->dst].host->name,
		.size_bytes = f->size_b, .start_ps = f->start, .end_ps = f->end,
		.recv_end_ps = f->recv_end, .ideal_fct_ps = f->ideal,
		.retx_packets = f->retx_pkts, .ecn_marked = f->ecn_marked,
		.cnp_received = f->cnp_received, .source = f->source, .job = f->job,
		.iteration = f->iteration, .collective_id = f->collective_id,
		.parallelism = f->parallelism,
		.src_gpu = f->src_gpu >= 0 ? world_gpu_name(w, f->src_gpu, sg, sizeof sg) : NULL,
		.dst_gpu = f->dst_gpu >= 0 ? world_gpu_name(w, f->dst_gpu, dg, sizeof dg) : NULL,
	};
	if (f->qp) {
		r.qpn = f->qp->qpn;
		r.sport = f->qp->sport;
		r.priority = f->qp->prio;
		r.packets = f->n_pkts;
	} else {
		r.no_qp = true; /* NVLink: no QP, UDP port, priority or packets */
	}
	results_flow(res, &r);
	if (w->sampler)
		flow_path_write(w, f);
}
