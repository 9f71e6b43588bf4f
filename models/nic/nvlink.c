/*
 * nvlink.c — max-min fair fluid sharing of NVLink inside each host (see
 * nvlink.h for the model).
 *
 * Per host: one entry per ordered GPU pair (G x G, allocated at the host's
 * first message) and the list of pairs that have messages draining. The
 * messages of one pair cross the same two resources, so max-min gives them
 * equal rates: a pair is one weighted flow of the water-filling, and its
 * messages drain as a processor-sharing queue kept sorted by finish tag
 * (`served` when their last bit has left). So a host costs O(G^2) memory
 * plus one small record per message, and a start or finish costs
 * O(G x active pairs) for the water-filling.
 *
 * Events: one pending drain timer per host (sim_timer, lazily cancelled by
 * its generation) for the earliest drain, and one arrival event per message
 * nvlink_delay later. Both run on the host node's element, so ties break
 * deterministically.
 *
 * Integer arithmetic, never early, bytes conserved:
 *   - work is counted in bit-picoseconds x 1e12, i.e. rate_bps x ps, in
 *     128 bits: a message of S bytes needs exactly S x 8 x 1e12 units and a
 *     pair at r b/s for t ps receives exactly r x t, so no byte is lost or
 *     made up and a message completes only when all of its work is served;
 *   - rates are integer b/s: each water-filling level is floored, so no
 *     egress or ingress ever carries more than nvlink_rate, and a message
 *     alone gets exactly nvlink_rate; a shared rate is below the exact
 *     max-min rate by less than 1 b/s per filling step (1e-12 relative at
 *     450 GB/s);
 *   - the drain time is rounded up to the next picosecond (the message
 *     finishes at the first ps at which all its work is served).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "log.h"
#include "nvlink.h"
#include "results.h"
#include "sim.h"
#include "world.h"
#include "xalloc.h"

/* rate_bps x ps; one byte is 8e12 units. */
__extension__ typedef unsigned __int128 nvlink_work;
#define NVLINK_WORK_PER_BYTE ((nvlink_work)8 * 1000000000000ull)

struct nvlink_host;

/* One message on NVLink (the flow holds everything that reaches results). */
struct nvlink_msg {
	struct flow *f;
	struct nvlink_host *host;
	struct nvlink_msg *next;       /* its pair's queue, ascending tag */
	struct nvlink_msg *live_prev, *live_next; /* not yet arrived, posting order */
	nvlink_work tag;               /* the pair's `served` when its last bit has left */
};

/* The messages from one GPU to another of a host. */
struct nvlink_pair {
	struct nvlink_msg *head;       /* draining, ascending tag (ties: posting order) */
	nvlink_work served;            /* work each of its messages got since the pair was idle */
	uint64_t rate_bps;             /* rate of each of its messages */
	int n;                         /* messages draining */
	int slot;                      /* index in host->active, -1 when idle */
};

struct nvlink_host {
	struct nvlink *nv;
	struct node *node;             /* the host: its element schedules our events */
	struct sim_timer timer;        /* the earliest drain among its pairs */
	simtime_t last;                /* every active pair's `served` is current at this time */
	struct nvlink_pair *pairs;     /* [G x G], src x G + dst (GPU index in the host); lazy */
	int *active;                   /* [G x G]: pair ids with messages, n_active of them */
	int n_active;
};

struct nvlink {
	struct world *w;
	int gpus;                      /* G, GPUs per host */
	uint64_t rate_bps;             /* per GPU per direction */
	simtime_t delay_ps;
	struct nvlink_host *hosts;     /* [n_hosts] */
	struct pool msg_pool;          /* struct nvlink_msg */
	struct nvlink_msg *live_head, *live_tail;
	uint64_t n_live;
	/* Water-filling scratch (one host at a time): resource r < G is GPU r's
	 * egress, G + g GPU g's ingress. */
	uint64_t *cap;                 /* [2G] capacity not yet handed out */
	uint64_t *cnt;                 /* [2G] messages using it that have no rate yet */
	bool *fixed;                   /* [G x G] by active slot: rate decided */
};

static void nvlink_wake(struct sim *sim, void *obj);

struct nvlink *nvlink_create(struct world *w)
{
	struct nvlink *nv = xcalloc(1, sizeof *nv);
	const struct topo_cfg *c = w->topo_cfg;
	nv->w = w;
	nv->gpus = w->gpus_per_host;
	nv->rate_bps = c->nvlink_rate_bps;
	nv->delay_ps = c->nvlink_delay;
	nv->hosts = xcalloc((size_t)w->fab.n_hosts, sizeof *nv->hosts);
	for (int h = 0; h < w->fab.n_hosts; h++) {
		struct nvlink_host *nh = &nv->hosts[h];
		nh->nv = nv;
		nh->node = &w->fab.nodes[h];
		sim_timer_init(&nh->timer, &nh->node->elem, nvlink_wake, nh);
	}
	pool_init(&nv->msg_pool, sizeof(struct nvlink_msg), 1024);
	size_t g = (size_t)nv->gpus;
	nv->cap = xcalloc(2 * g, sizeof *nv->cap);
	nv->cnt = xcalloc(2 * g, sizeof *nv->cnt);
	nv->fixed = xcalloc(g * g, sizeof *nv->fixed);
	return nv;
}

void nvlink_free(struct world *w)
{
	struct nvlink *nv = w->nvlink;
	if (!nv)
		return;
	for (int h = 0; h < w->fab.n_hosts; h++) {
		free(nv->hosts[h].pairs);
		free(nv->hosts[h].active);
	}
	free(nv->hosts);
	free(nv->cap);
	free(nv->cnt);
	free(nv->fixed);
	pool_destroy(&nv->msg_pool);
	free(nv);
	w->nvlink = NULL;
}

simtime_t nvlink_send_ps(const struct world *w, uint64_t size_b)
{
	return simtime_serialize(size_b, w->topo_cfg->nvlink_rate_bps);
}

simtime_t nvlink_ideal_ps(const struct world *w, uint64_t size_b)
{
	const struct topo_cfg *c = w->topo_cfg;
	return simtime_serialize(size_b, c->nvlink_rate_bps) + c->nvlink_delay;
}

/* Every active pair's service up to now. */
static void nvlink_advance(struct nvlink_host *h, simtime_t now)
{
	if (now > h->last)
		for (int s = 0; s < h->n_active; s++) {
			struct nvlink_pair *p = &h->pairs[h->active[s]];
			p->served += (nvlink_work)p->rate_bps * (uint64_t)(now - h->last);
		}
	h->last = now;
}

static void nvlink_arrive(struct sim *sim, void *obj, uintptr_t arg);

/* Takes out every message whose work is all served and schedules its
 * arrival nvlink_delay later; idle pairs leave the active list. */
static void nvlink_drain(struct sim *sim, struct nvlink_host *h)
{
	struct nvlink *nv = h->nv;
	for (int s = 0; s < h->n_active;) {
		struct nvlink_pair *p = &h->pairs[h->active[s]];
		while (p->head && p->head->tag <= p->served) {
			struct nvlink_msg *m = p->head;
			p->head = m->next;
			m->next = NULL;
			p->n--;
			sched_at(sim, sim->now + nv->delay_ps, &h->node->elem, nvlink_arrive, m, 0);
		}
		if (p->n > 0) {
			s++;
			continue;
		}
		/* Idle: restart its service count, swap the last slot in here. */
		p->served = 0;
		p->rate_bps = 0;
		p->slot = -1;
		h->active[s] = h->active[--h->n_active];
		if (s < h->n_active)
			h->pairs[h->active[s]].slot = s;
	}
}

/* Max-min fair rates of the host's active pairs by progressive filling:
 * repeatedly the resource with the smallest fair level (capacity left over
 * messages without a rate) fixes the rate of every message through it. A
 * pair of n messages counts n times. Levels are floored to whole b/s. */
static void nvlink_share(struct sim *sim, struct nvlink_host *h)
{
	struct nvlink *nv = h->nv;
	int G = nv->gpus, left = h->n_active;
	for (int r = 0; r < 2 * G; r++) {
		nv->cap[r] = nv->rate_bps;
		nv->cnt[r] = 0;
	}
	for (int s = 0; s < h->n_active; s++) {
		int id = h->active[s];
		const struct nvlink_pair *p = &h->pairs[id];
		nv->cnt[id / G] += (uint64_t)p->n;
		nv->cnt[G + id % G] += (uint64_t)p->n;
		nv->fixed[s] = false;
	}
	while (left > 0) {
		int best = -1;
		for (int r = 0; r < 2 * G; r++)
			if (nv->cnt[r] && (best < 0 || (nvlink_work)nv->cap[r] * nv->cnt[best] <
							(nvlink_work)nv->cap[best] * nv->cnt[r]))
				best = r;
		uint64_t level = nv->cap[best] / nv->cnt[best];
		SIM_ASSERT(sim, &h->node->elem, level > 0,
			   "NVLink: %llu messages share one GPU's %llu b/s",
			   (unsigned long long)nv->cnt[best], (unsigned long long)nv->rate_bps);
		for (int s = 0; s < h->n_active; s++) {
			int id = h->active[s], src = id / G, dst = G + id % G;
			if (nv->fixed[s] || (src != best && dst != best))
				continue;
			struct nvlink_pair *p = &h->pairs[id];
			p->rate_bps = level;
			nv->fixed[s] = true;
			left--;
			/* level <= cap/cnt of both resources, so neither goes negative. */
			nv->cap[src] -= level * (uint64_t)p->n;
			nv->cap[dst] -= level * (uint64_t)p->n;
			nv->cnt[src] -= (uint64_t)p->n;
			nv->cnt[dst] -= (uint64_t)p->n;
		}
	}
}

/* Arms the host's timer for its earliest drain (or cancels it). */
static void nvlink_rearm(struct sim *sim, struct nvlink_host *h)
{
	simtime_t next = SIMTIME_NEVER;
	for (int s = 0; s < h->n_active; s++) {
		const struct nvlink_pair *p = &h->pairs[h->active[s]];
		nvlink_work rem = p->head->tag > p->served ? p->head->tag - p->served : 0;
		nvlink_work dt = (rem + p->rate_bps - 1) / p->rate_bps;
		if (dt < (nvlink_work)(next - sim->now))
			next = sim->now + (simtime_t)dt;
	}
	if (next == SIMTIME_NEVER)
		sim_timer_cancel(&h->timer);
	else if (!h->timer.armed || h->timer.t != next)
		sim_timer_set(sim, &h->timer, next);
}

/* Something changed on host h at sim->now: serve up to now, take out what
 * drained, share again, re-arm. */
static void nvlink_update(struct sim *sim, struct nvlink_host *h)
{
	nvlink_advance(h, sim->now);
	nvlink_drain(sim, h);
	nvlink_share(sim, h);
	nvlink_rearm(sim, h);
}

static void nvlink_wake(struct sim *sim, void *obj)
{
	nvlink_update(sim, obj);
}

/* The last byte reached the destination GPU. */
static void nvlink_arrive(struct sim *sim, void *obj, uintptr_t arg)
{
	struct nvlink_msg *m = obj;
	struct nvlink *nv = m->host->nv;
	struct world *w = nv->w;
	struct flow *f = m->f;
	(void)arg;
	if (m->live_prev)
		m->live_prev->live_next = m->live_next;
	else
		nv->live_head = m->live_next;
	if (m->live_next)
		m->live_next->live_prev = m->live_prev;
	else
		nv->live_tail = m->live_prev;
	nv->n_live--;
	pool_put(&nv->msg_pool, m);
	flow_received(sim, f);   /* no ACK on NVLink: received is complete */
	flow_finish(sim, w, f);
}

struct flow *nvlink_post(struct world *w, int src_gpu, int dst_gpu, uint64_t size_b,
			 const char *source, const char *parallelism)
{
	struct sim *sim = w->sim;
	struct nvlink *nv = w->nvlink;
	int host = src_gpu / w->gpus_per_host;
	SIM_ASSERT(sim, &sim->kernel,
		   nv && src_gpu >= 0 && dst_gpu >= 0 && src_gpu < w->n_gpus && dst_gpu < w->n_gpus &&
		   src_gpu != dst_gpu && host == dst_gpu / w->gpus_per_host && size_b > 0,
		   "NVLink message of %llu bytes from GPU %d to GPU %d", (unsigned long long)size_b,
		   src_gpu, dst_gpu);
	struct nvlink_host *h = &nv->hosts[host];
	int G = nv->gpus;
	if (!h->pairs) {
		h->pairs = xcalloc((size_t)G * (size_t)G, sizeof *h->pairs);
		h->active = xcalloc((size_t)G * (size_t)G, sizeof *h->active);
		for (int i = 0; i < G * G; i++)
			h->pairs[i].slot = -1;
	}
	/* Serve the running messages up to now before this one joins. */
	nvlink_advance(h, sim->now);

	struct flow *f = flow_new(w, world_gpu_ep(w, src_gpu), world_gpu_ep(w, dst_gpu), size_b,
				  source, parallelism);
	f->ideal = nvlink_ideal_ps(w, size_b);
	f->src_gpu = src_gpu;
	f->dst_gpu = dst_gpu;

	struct nvlink_msg *m = pool_get(&nv->msg_pool);
	*m = (struct nvlink_msg){ .f = f, .host = h, .live_prev = nv->live_tail };
	if (nv->live_tail)
		nv->live_tail->live_next = m;
	else
		nv->live_head = m;
	nv->live_tail = m;
	nv->n_live++;

	int id = (src_gpu % G) * G + dst_gpu % G;
	struct nvlink_pair *p = &h->pairs[id];
	m->tag = p->served + (nvlink_work)size_b * NVLINK_WORK_PER_BYTE;
	struct nvlink_msg **at = &p->head;
	while (*at && (*at)->tag <= m->tag)
		at = &(*at)->next;
	m->next = *at;
	*at = m;
	if (p->n++ == 0) {
		p->slot = h->n_active;
		h->active[h->n_active++] = id;
	}
	/* Arrivals are scheduled, never run here: the caller decorates f first. */
	nvlink_update(sim, h);
	return f;
}

void nvlink_write_unfinished(struct world *w)
{
	for (const struct nvlink_msg *m = w->nvlink ? w->nvlink->live_head : NULL; m; m = m->live_next)
		world_flow_report(w, m->f);
}

void nvlink_check_drained(struct world *w)
{
	struct nvlink *nv = w->nvlink;
	SIM_ASSERT(w->sim, &w->sim->kernel, nv->n_live == 0 && nv->msg_pool.live == 0,
		   "%llu NVLink messages never arrived", (unsigned long long)nv->n_live);
}
