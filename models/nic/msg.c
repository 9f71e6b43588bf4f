/*
 * msg.c — putting a GPU-to-GPU message on NVLink or on a queue pair (see msg.h).
 */
#include "flow.h"
#include "log.h"
#include "msg.h"
#include "nic.h"
#include "nvlink.h"
#include "world.h"

/* on_recv of a late message's record: its delivery, recv_delay on. */
static void late_recv(struct sim *sim, struct flow *f, void *ctx)
{
	(void)sim;
	msg_late_arrived(ctx, f->id);
}

struct flow *msg_send(struct world *w, const struct msg *m)
{
	SIM_ASSERT(w->sim, &w->sim->kernel,
		   m->src_gpu >= 0 && m->dst_gpu >= 0 && m->src_gpu < w->n_gpus && m->dst_gpu < w->n_gpus &&
		   m->src_gpu != m->dst_gpu && m->size_b > 0,
		   "message of %llu bytes from GPU %d to GPU %d", (unsigned long long)m->size_b,
		   m->src_gpu, m->dst_gpu);
	bool nvl = world_gpu_host(w, m->src_gpu) == world_gpu_host(w, m->dst_gpu);
	if (w->fab.mine && !w->fab.mine[w->eps[world_gpu_ep(w, m->src_gpu)].host->id]) {
		/* Another rank's GPU: that rank posts it; its id and queue pair
		 * are numbered here too. */
		if (nvl)
			w->next_flow_id++;
		else
			nic_post_elsewhere(w, world_gpu_ep(w, m->src_gpu), world_gpu_ep(w, m->dst_gpu),
					   m->prio_set ? m->prio : -1);
		if (m->recv_delay > 0)
			msg_late_keep(w, w->next_flow_id, m);
		return NULL;
	}
	struct flow *f;
	if (nvl)
		f = nvlink_post(w, m->src_gpu, m->dst_gpu, m->size_b, m->source, m->parallelism);
	else
		f = nic_post_class(w, world_gpu_ep(w, m->src_gpu), world_gpu_ep(w, m->dst_gpu), m->size_b,
				   m->source, m->parallelism, m->prio_set ? m->prio : -1);
	f->src_gpu = m->src_gpu;
	f->dst_gpu = m->dst_gpu;
	f->job = m->job;
	f->iteration = m->iteration;
	f->collective_id = m->collective_id;
	if (m->recv_delay > 0) {
		msg_late_keep(w, f->id, m);
		f->on_recv = late_recv;
		f->on_recv_ctx = w;
	} else {
		f->on_recv = m->on_recv;
		f->on_recv_ctx = m->ctx;
	}
	if (!nvl && w->msg_posted)
		w->msg_posted(w, f);
	return f;
}
