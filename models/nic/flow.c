/*
 * flow.c — the life of a message record, whatever carries it (a queue pair
 * or NVLink): creation, arrival and completion, which the world's
 * observers of flow records are told of (see flow.h).
 */
#include "flow.h"
#include "nic.h"
#include "qp.h"
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
	world_flow_report(w, f);
	/* A message some of whose frames went twice may still have copies
	 * on the wire, which name this record (a capture reads its size, a
	 * failure losing one counts it against its id): the record stays,
	 * never reused, until the world goes. Without a retransmission, the
	 * last acknowledgement came after every frame arrived. */
	if (!f->retx_pkts) {
		if (w->flow_freed)
			w->flow_freed(w, f);
		pool_put(&w->flow_pool, f);
	}
}

bool flow_qp_info(const struct flow *f, uint32_t *qpn, uint16_t *sport, uint8_t *prio)
{
	if (!f->qp)
		return false;
	*qpn = f->qp->qpn;
	*sport = f->qp->sport;
	*prio = f->qp->prio;
	return true;
}
