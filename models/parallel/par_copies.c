/*
 * par_copies.c — the message records of a partitioned run (par_internal.h).
 *
 * A rank that a message's data frame reaches keeps a copy of its record
 * (par_shadow: its id, size and ends, which the frame carries; what the
 * receiver writes into it), and the rank that posted a message keeps the
 * record itself in the same table (par_flow_posted), so that its frames
 * coming back through another rank's switches find it.
 *
 * Their life:
 *   - at the receiver's rank, the copy sends the receiver's half
 *     (recv_end, the CE marks counted until then) to the sender's rank
 *     when the message is whole there (copy_received), so the sender's row
 *     is whole when written;
 *   - when the message ends with no frame sent twice (w->flow_freed, as
 *     the sequential run returns the record to its pool), the sender's
 *     rank forgets it and tells every rank to drop its copy
 *     (par_flow_forget, par_copy_drop). A message with frames sent twice
 *     keeps them, as the sequential run keeps its record.
 * The records travel in the window's buffers (par_xfer.c).
 *
 * The table (an idmap, kernel/idmap.h) holds both; a copy is told from
 * the record itself by having no queue pair (only the sender's record
 * was posted on one).
 */
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "nic.h"
#include "par_internal.h"
#include "xalloc.h"

bool par_is_copy(const struct flow *f)
{
	return !f->qp;
}

void par_flow_posted(struct par *p, struct flow *f)
{
	idmap_put(&p->sh, f->id, f);
}

#ifdef HAVE_MPI
void par_flow_forget(struct par *p, const struct flow *f)
{
	if (idmap_get(&p->sh, f->id) != f)
		return; /* not posted through par_post: no rank copied it */
	idmap_take(&p->sh, f->id);
	/* Copies are made only of records frames carry (par_ship). */
	if (!p->hosts_alone || p->share)
		par_send_end(p, f->id);
}

void par_copy_drop(struct par *p, uint64_t id)
{
	struct flow *f = idmap_get(&p->sh, id);
	if (!f || !par_is_copy(f))
		return; /* its frames never came here */
	idmap_take(&p->sh, id);
	free(f);
}

/* on_recv of a copy at its receiver's rank: the message is whole here, so
 * its receiving half is final. It goes to the sender's rank with this
 * window's frames, and lands there before the sender can see the message
 * end: the acknowledgement of its last byte leaves now and crosses a cut
 * link of at least the lookahead on its way, so it lands past this
 * window's bound. The sender's row is then whole when written, as in the
 * sequential run. */
static void copy_received(struct sim *sim, struct flow *f, void *ctx)
{
	(void)sim;
	struct par *p = ctx;
	par_send_recv(p, p->node_owner[p->w->eps[f->src].host->id], f->id, f->recv_end, f->ecn_marked);
	msg_late_arrived(p->w, f->id); /* a mirrored job's piece: its delivery */
}

void par_copy_received(struct par *p, uint64_t id, simtime_t recv_end, uint64_t ecn_marked)
{
	struct flow *f = idmap_get(&p->sh, id);
	if (!f || par_is_copy(f))
		die_internal("the receiving half of message %llu reached a rank without its record",
			     (unsigned long long)id);
	f->recv_end = recv_end;
	f->ecn_marked += ecn_marked;
}
#endif

struct flow *par_shadow(struct par *p, uint64_t id, uint64_t size_b, int32_t src, int32_t dst)
{
	struct flow *f = idmap_get(&p->sh, id);
	if (f)
		return f;
	f = xcalloc(1, sizeof *f);
	*f = (struct flow){ .id = id, .src = src, .dst = dst, .size_b = size_b, .start = -1, .recv_end = -1,
			    .end = -1, .iteration = -1, .collective_id = -1, .src_gpu = -1, .dst_gpu = -1 };
	idmap_put(&p->sh, id, f);
	p->st.copies_made++;
#ifdef HAVE_MPI
	/* This rank's host receives it: its half goes to the sender's rank. */
	if (!p->hosts_alone && p->node_owner[p->w->eps[dst].host->id] == p->me) {
		f->on_recv = copy_received;
		f->on_recv_ctx = p;
	}
#endif
	return f;
}

static void free_copy(void *ctx, uint64_t id, void *v)
{
	(void)ctx;
	(void)id;
	if (par_is_copy(v))
		free(v);
}

void par_shadows_free(struct idmap *sh)
{
	idmap_each(sh, free_copy, NULL);
	idmap_free(sh);
}
