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
 * The table: open addressing on the id, linear probing, at most half
 * full; deletion moves back the entries a hole would hide.
 */
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "nic.h"
#include "par_internal.h"
#include "xalloc.h"

/* Where id's search starts in a table of cap slots (a power of 2). */
static inline size_t shadow_home(uint64_t id, size_t cap)
{
	return (id * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

/* The slot holding id, or the empty one where it would go (cap > 0). */
static size_t shadow_probe(const struct par_shadows *sh, uint64_t id)
{
	size_t k = shadow_home(id, sh->cap);
	while (sh->id[k] && sh->id[k] != id)
		k = (k + 1) & (sh->cap - 1);
	return k;
}

/* The slot of id (its own or the empty one where it would go), after
 * growing the table to keep it at most half full. */
static size_t shadow_slot(struct par_shadows *sh, uint64_t id)
{
	if (2 * (sh->n + 1) > sh->cap) {
		struct par_shadows g = { .cap = sh->cap ? 2 * sh->cap : 1024 };
		g.id = xcalloc(g.cap, sizeof *g.id);
		g.f = xcalloc(g.cap, sizeof *g.f);
		g.real = xcalloc(g.cap, sizeof *g.real);
		for (size_t i = 0; i < sh->cap; i++) {
			if (!sh->id[i])
				continue;
			size_t k = shadow_probe(&g, sh->id[i]);
			g.id[k] = sh->id[i];
			g.f[k] = sh->f[i];
			g.real[k] = sh->real[i];
		}
		g.n = sh->n;
		free(sh->id);
		free(sh->f);
		free(sh->real);
		*sh = g;
	}
	return shadow_probe(sh, id);
}

void par_flow_posted(struct par *p, struct flow *f)
{
	size_t k = shadow_slot(&p->sh, f->id);
	p->sh.id[k] = f->id;
	p->sh.f[k] = f;
	p->sh.real[k] = true;
	p->sh.n++;
}

#ifdef HAVE_MPI
/* The slot holding id, or SIZE_MAX. */
static size_t shadow_find(const struct par_shadows *sh, uint64_t id)
{
	if (!sh->cap)
		return SIZE_MAX;
	size_t k = shadow_probe(sh, id);
	return sh->id[k] ? k : SIZE_MAX;
}

/* Empties slot k, moving back the entries after it that would no longer
 * be found past the hole (deletion under linear probing). */
static void shadow_remove(struct par_shadows *sh, size_t k)
{
	size_t mask = sh->cap - 1, hole = k;
	for (size_t j = (k + 1) & mask; sh->id[j]; j = (j + 1) & mask) {
		size_t home = shadow_home(sh->id[j], sh->cap);
		/* entry j stays when its home lies cyclically in (hole, j] */
		bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
		if (stays)
			continue;
		sh->id[hole] = sh->id[j];
		sh->f[hole] = sh->f[j];
		sh->real[hole] = sh->real[j];
		hole = j;
	}
	sh->id[hole] = 0;
	sh->f[hole] = NULL;
	sh->real[hole] = false;
	sh->n--;
}

void par_flow_forget(struct par *p, const struct flow *f)
{
	size_t k = shadow_find(&p->sh, f->id);
	if (k == SIZE_MAX || p->sh.f[k] != f)
		return; /* not posted through par_post: no rank copied it */
	shadow_remove(&p->sh, k);
	/* Copies are made only of records frames carry (par_ship). */
	if (!p->hosts_alone || p->share)
		par_send_end(p, f->id);
}

void par_copy_drop(struct par *p, uint64_t id)
{
	size_t k = shadow_find(&p->sh, id);
	if (k == SIZE_MAX || p->sh.real[k])
		return; /* its frames never came here */
	struct flow *f = p->sh.f[k];
	shadow_remove(&p->sh, k);
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
	size_t k = shadow_find(&p->sh, id);
	if (k == SIZE_MAX || !p->sh.real[k])
		die_internal("the receiving half of message %llu reached a rank without its record",
			     (unsigned long long)id);
	struct flow *f = p->sh.f[k];
	f->recv_end = recv_end;
	f->ecn_marked += ecn_marked;
}
#endif

struct flow *par_shadow(struct par *p, uint64_t id, uint64_t size_b, int32_t src, int32_t dst)
{
	struct par_shadows *sh = &p->sh;
	size_t k = shadow_slot(sh, id);
	if (!sh->id[k]) {
		struct flow *f = xcalloc(1, sizeof *f);
		*f = (struct flow){ .id = id, .src = src, .dst = dst, .size_b = size_b, .start = -1,
				    .recv_end = -1, .end = -1, .iteration = -1, .collective_id = -1,
				    .src_gpu = -1, .dst_gpu = -1 };
		sh->id[k] = id;
		sh->f[k] = f;
		sh->n++;
		p->st.copies_made++;
#ifdef HAVE_MPI
		/* This rank's host receives it: its half goes to the sender's rank. */
		if (!p->hosts_alone && p->node_owner[p->w->eps[dst].host->id] == p->me) {
			f->on_recv = copy_received;
			f->on_recv_ctx = p;
		}
#endif
	}
	return sh->f[k];
}

void par_shadows_free(struct par_shadows *sh)
{
	for (size_t i = 0; i < sh->cap; i++)
		if (!sh->real[i])
			free(sh->f[i]);
	free(sh->id);
	free(sh->f);
	free(sh->real);
	memset(sh, 0, sizeof *sh);
}
