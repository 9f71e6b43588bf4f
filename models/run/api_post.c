/*
 * api_post.c — posting through librocesim (rocesim.h): rocesim_post_msg,
 * rocesim_post_coll and their _after forms, and the run's side of a post.
 *
 * A post is a record scheduled on the handle's element ("api") at its
 * time, or hung on a pending post to start in that post's completion event
 * (_after). Its event posts the message (msg_send between GPUs, w->post
 * between hosts: what [traffic] collective and flows do) or starts the
 * collective (coll_start, with [traffic] collective's chunking); the
 * record lives on until the message's last byte arrives or the
 * collective's on_done, which queue a completion, start the posts chained
 * after it, and ask the run loop to look at its done hook after this event
 * (sim_poll_soon).
 *
 * Invariants: h->n_pending = records in h->posts (posted, not complete);
 * a record not yet fired has exactly one event pending or is on exactly
 * one predecessor's chain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api_internal.h"
#include "nic.h"
#include "xalloc.h"

static void unlink_post(struct rocesim *h, struct api_post *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		h->posts = p->next;
	if (p->next)
		p->next->prev = p->prev;
	h->n_pending--;
}

static void fire(struct sim *sim, void *obj, uintptr_t arg);

static void complete(struct sim *sim, struct api_post *p)
{
	struct rocesim *h = p->h;
	if (h->q_n == h->q_cap) {
		size_t cap = h->q_cap ? 2 * h->q_cap : 64;
		struct rocesim_completion *q = xmalloc(cap * sizeof *q);
		for (size_t i = 0; i < h->q_n; i++)
			q[i] = h->q[(h->q_head + i) % h->q_cap];
		free(h->q);
		h->q = q;
		h->q_head = 0;
		h->q_cap = cap;
	}
	h->q[(h->q_head + h->q_n++) % h->q_cap] = (struct rocesim_completion){
		.tag = p->tag, .time_ps = sim->now, .posted_ps = p->at_ps, .bytes = p->size_b,
		.kind = p->kind, .id = p->id,
	};
	unlink_post(h, p);
	/* Chained posts start now, within this event, as a stream starts its
	 * next operation when the previous one ends (job_stream.c). */
	for (struct api_post *c = p->then, *n; c; c = n) {
		n = c->then_next;
		c->at_ps = sim->now;
		fire(sim, c, 0);
	}
	free(p->gpus);
	free(p);
	sim_poll_soon(sim); /* rocesim_next stops after this event */
}

static void msg_arrived(struct sim *sim, struct flow *f, void *ctx)
{
	(void)f;
	complete(sim, ctx);
}

static void coll_finished(struct sim *sim, struct coll *c, void *ctx)
{
	struct api_post *p = ctx;
	p->id = coll_id(c);
	complete(sim, p);
}

static void fire(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	struct api_post *p = obj;
	struct rocesim *h = p->h;
	struct world *w = h->w;
	if (p->kind == ROCESIM_COLL) {
		struct coll *c = coll_start(h->colls, &p->spec); /* copies the group */
		free(p->gpus);
		p->gpus = NULL;
		p->spec.gpus = NULL;
		(void)c; /* its id comes with on_done: the handle may be gone after a
			  * collective that completes at once */
		return;
	}
	struct flow *f;
	if (p->src < w->n_gpus) {
		struct msg m = { .src_gpu = p->src, .dst_gpu = p->dst, .size_b = p->size_b,
				 .source = API_SOURCE, .parallelism = "micro", .job = NULL, .iteration = -1,
				 .collective_id = -1, .on_recv = msg_arrived, .ctx = p };
		f = msg_send(w, &m);
	} else {
		f = w->post(w, p->src - w->n_gpus, p->dst - w->n_gpus, p->size_b, API_SOURCE, "micro");
		f->on_recv = msg_arrived;
		f->on_recv_ctx = p;
	}
	p->id = (int64_t)f->id;
}


/* The pending post tagged `tag` (the latest posted of them), or NULL. */
static struct api_post *pending_tag(const struct rocesim *h, uint64_t tag)
{
	for (struct api_post *p = h->posts; p; p = p->next)
		if (p->tag == tag)
			return p;
	return NULL;
}

/* A new pending record: scheduled at `at`, or, with after, started when
 * after completes. */
static struct api_post *post_new(struct rocesim *h, int kind, uint64_t size_b, int64_t at, uint64_t tag,
				 struct api_post *after)
{
	struct api_post *p = xcalloc(1, sizeof *p);
	*p = (struct api_post){ .h = h, .kind = kind, .tag = tag, .at_ps = at, .size_b = size_b, .id = -1 };
	p->next = h->posts;
	if (h->posts)
		h->posts->prev = p;
	h->posts = p;
	h->n_pending++;
	if (after) {
		if (after->then_last)
			after->then_last->then_next = p;
		else
			after->then = p;
		after->then_last = p;
		return p;
	}
	sched_at(h->sim, at, &h->elem, fire, p, 0);
	run_watchdog_rearm(h->run); /* it stops ticking on an empty queue */
	return p;
}

/* When a post starts: at a time (after_tag NULL) or after a pending post.
 * 0 with *after set (NULL: at at_ps), or an error. */
static int when(struct rocesim *h, const uint64_t *after_tag, int64_t at_ps, const char *what,
		struct api_post **after)
{
	*after = NULL;
	if (!after_tag)
		return api_check_time(h, at_ps, what);
	if (h->verdict)
		return api_fail(h, ROCESIM_E_STALLED, "the run was stopped (%s); only rocesim_close is left", h->verdict);
	if (!(*after = pending_tag(h, *after_tag)))
		return api_fail(h, ROCESIM_E_NAME, "%s after tag %llu: no pending post has that tag (a completed one's "
			    "successor is posted at its completion time)", what, (unsigned long long)*after_tag);
	return 0;
}


static int post_msg(rocesim *h, const uint64_t *after_tag, int src, int dst, uint64_t bytes, int64_t at_ps,
		    uint64_t tag)
{
	int rc;
	struct api_post *after;
	if ((rc = api_check_open(h)) || (rc = when(h, after_tag, at_ps, "a message posted", &after)))
		return rc;
	int n_gpus = h->w->n_gpus, n_ep = n_gpus + h->w->fab.n_hosts;
	if (src < 0 || src >= n_ep || dst < 0 || dst >= n_ep)
		return api_fail(h, ROCESIM_E_NAME, "no endpoint %d: expected 0 .. %d (rocesim_endpoint)",
			    src < 0 || src >= n_ep ? src : dst, n_ep - 1);
	if ((src < n_gpus) != (dst < n_gpus))
		return api_fail(h, ROCESIM_E_ARG, "a message from a %s to a %s: expected two GPUs or two hosts",
			    src < n_gpus ? "GPU" : "host", dst < n_gpus ? "GPU" : "host");
	if (src == dst)
		return api_fail(h, ROCESIM_E_ARG, "a message from endpoint %d to itself", src);
	if (bytes == 0)
		return api_fail(h, ROCESIM_E_ARG, "a message of 0 bytes: expected at least 1");
	struct api_post *p = post_new(h, ROCESIM_MSG, bytes, at_ps, tag, after);
	p->src = src;
	p->dst = dst;
	return ROCESIM_OK;
}

int rocesim_post_msg(rocesim *h, int src, int dst, uint64_t bytes, int64_t at_ps, uint64_t tag)
{
	return post_msg(h, NULL, src, dst, bytes, at_ps, tag);
}

int rocesim_post_msg_after(rocesim *h, uint64_t after_tag, int src, int dst, uint64_t bytes, uint64_t tag)
{
	return post_msg(h, &after_tag, src, dst, bytes, -1, tag);
}

static int post_coll(rocesim *h, const uint64_t *after_tag, const char *op, const char *algorithm,
		     const int *gpus, size_t n, uint64_t bytes, int64_t at_ps, uint64_t tag)
{
	int rc;
	struct api_post *after;
	if ((rc = api_check_open(h)) || (rc = when(h, after_tag, at_ps, "a collective posted", &after)))
		return rc;
	int o = op ? coll_op_by_name(op) : -1;
	if (o < 0) {
		char list[256] = "";
		for (size_t i = 0; coll_op_name_at(NULL, i); i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
				 coll_op_name_at(NULL, i));
		return api_fail(h, ROCESIM_E_ARG, "unknown collective op '%s': expected one of %s", op ? op : "(null)",
			    list);
	}
	enum coll_op eop = (enum coll_op)o;
	const char *alg = algorithm ? algorithm : coll_alg_name_at(&eop, 0);
	/* The registry's own string, so the spec never points into the caller's. */
	const char *known = NULL;
	for (size_t i = 0; coll_alg_name_at(&eop, i); i++)
		if (strcmp(coll_alg_name_at(&eop, i), alg) == 0)
			known = coll_alg_name_at(&eop, i);
	if (!known) {
		char list[256];
		coll_alg_list(eop, list, sizeof list);
		return api_fail(h, ROCESIM_E_ARG, "unknown algorithm '%s' for %s: expected %s", alg, op, list);
	}
	if (n < 2 || !gpus)
		return api_fail(h, ROCESIM_E_ARG, "a %s over %zu GPU%s: expected at least 2", op, n, n == 1 ? "" : "s");
	if (n > (size_t)h->w->n_gpus)
		return api_fail(h, ROCESIM_E_ARG, "a %s over %zu GPUs: the fabric has %d", op, n, h->w->n_gpus);
	const char *why = coll_check(eop, known, (int)n);
	if (why)
		return api_fail(h, ROCESIM_E_ARG, "%s %s over %zu GPUs: expected %s", op, known, n, why);
	if (strcmp(known, "multicast") == 0) {
		const struct mcast_cfg *mc = mcast_cfg_of(&h->cfg);
		if (!mc->enabled || !mc->reliable)
			return api_fail(h, ROCESIM_E_ARG, "algorithm multicast needs [multicast] enabled = on and "
				    "reliable = on");
	}
	for (size_t i = 0; i < n; i++) {
		if (gpus[i] < 0 || gpus[i] >= h->w->n_gpus)
			return api_fail(h, ROCESIM_E_NAME, "rank %zu: no GPU %d (expected 0 .. %d)", i, gpus[i],
				    h->w->n_gpus - 1);
		for (size_t j = 0; j < i; j++)
			if (gpus[j] == gpus[i])
				return api_fail(h, ROCESIM_E_ARG, "GPU %d is rank %zu and rank %zu", gpus[i], j, i);
	}
	if (bytes == 0)
		return api_fail(h, ROCESIM_E_ARG, "a collective of 0 bytes: expected at least 1");
	struct api_post *p = post_new(h, ROCESIM_COLL, bytes, at_ps, tag, after);
	p->gpus = xmalloc(n * sizeof *p->gpus);
	memcpy(p->gpus, gpus, n * sizeof *p->gpus);
	p->spec = (struct coll_spec){
		.op = eop, .algorithm = known, .gpus = p->gpus, .n = (int)n, .size_b = bytes, .root = 0,
		.chunk_b = h->chunk_b, .channels = h->channels, .source = API_SOURCE, .parallelism = "micro",
		.job = NULL, .iteration = -1, .on_done = coll_finished, .ctx = p,
	};
	return ROCESIM_OK;
}

int rocesim_post_coll(rocesim *h, const char *op, const char *algorithm, const int *gpus, size_t n,
		      uint64_t bytes, int64_t at_ps, uint64_t tag)
{
	return post_coll(h, NULL, op, algorithm, gpus, n, bytes, at_ps, tag);
}

int rocesim_post_coll_after(rocesim *h, uint64_t after_tag, const char *op, const char *algorithm,
			    const int *gpus, size_t n, uint64_t bytes, uint64_t tag)
{
	return post_coll(h, &after_tag, op, algorithm, gpus, n, bytes, -1, tag);
}

int rocesim_coll_options(rocesim *h, uint64_t chunk_bytes, int channels)
{
	if (!h)
		return ROCESIM_E_ARG;
	if (chunk_bytes == 0 || channels < 1)
		return api_fail(h, ROCESIM_E_ARG, "chunk %llu B and %d channels: expected a chunk > 0 and channels >= 1",
			    (unsigned long long)chunk_bytes, channels);
	h->chunk_b = chunk_bytes;
	h->channels = channels;
	return ROCESIM_OK;
}

