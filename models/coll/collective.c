/*
 * collective.c — the collective engine: registry, message posting,
 * completion, the `collective` row and the ideal time (see collective.h;
 * the algorithms are in coll_ring.c, coll_hd.c, coll_tree.c, coll_direct.c,
 * coll_mcast.c, their state layout in coll_internal.h).
 *
 * Pipelining and chunking (NCCL, docs/protocol.md "Collectives"): the buffer is
 * split over `channels` independent pipelines (rings, chains, or pairs of
 * trees); each step's bytes go in pieces (messages) of at most `chunk`
 * bytes. Dependency rules, per (channel, rank):
 *   ring (allreduce, reduce_scatter, allgather)  piece k of step s+1 is
 *       posted once piece k of step s arrived from the predecessor; step 0
 *       at the start;
 *   broadcast (chain from the root)  piece k is forwarded once it arrived;
 *   tree  piece k goes up once it arrived from every child, and down once
 *       it arrived from the parent (the root: from every child);
 *   halving_doubling  step s+1 opens once all of step s arrived (a round
 *       barrier per rank);
 *   alltoall, sendrecv  everything at the start.
 * A piece of zero bytes (buffers smaller than ranks x channels) is not a
 * message: it "arrives" at once, in the same event.
 *
 * Lifetime: coll_start copies the spec, takes the next id of its colls,
 * keeps the run alive (world_source_begin) until the last piece arrived,
 * then writes the row, ends the source, calls on_done and frees itself.
 * Each message's on_recv carries a pointer to the receiver's slot (never
 * freed before the collective ends, which needs every message arrived).
 *
 * Ideal time (collective.ideal_ps): the virtual pass of coll_virtual.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_internal.h"
#include "config.h"
#include "log.h"
#include "nic.h"
#include "results.h"
#include "xalloc.h"

static const char *const op_names[] = { "allreduce", "reduce_scatter", "allgather", "alltoall",
					"broadcast", "sendrecv" };

#define N_OPS (sizeof op_names / sizeof *op_names)

/* The registry is coll_families (coll_internal.h). */

const char *coll_alg_name_at(const void *op, size_t i)
{
	for (size_t f = 0; coll_families[f]; f++)
		for (const struct coll_algo *const *a = coll_families[f]; *a; a++)
			if ((*a)->op == *(const enum coll_op *)op && i-- == 0)
				return (*a)->name;
	return NULL;
}

/* Whether an entry before coll_families[f][k] has the same name. */
static bool named_before(size_t f, size_t k)
{
	const char *name = coll_families[f][k]->name;
	for (size_t g = 0; g <= f; g++)
		for (size_t j = 0; coll_families[g][j] && (g < f || j < k); j++)
			if (strcmp(coll_families[g][j]->name, name) == 0)
				return true;
	return false;
}

const char *coll_any_alg_name_at(const void *arg, size_t i)
{
	(void)arg;
	for (size_t f = 0; coll_families[f]; f++)
		for (size_t k = 0; coll_families[f][k]; k++)
			if (!named_before(f, k) && i-- == 0)
				return coll_families[f][k]->name;
	return NULL;
}

const char *coll_op_name_at(const void *arg, size_t i)
{
	(void)arg;
	return i < N_OPS ? op_names[i] : NULL;
}

void coll_alg_list(enum coll_op op, char *buf, size_t size)
{
	size_t len = 0, n = 0;
	buf[0] = '\0';
	while (coll_alg_name_at(&op, n))
		n++;
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", coll_alg_name_at(&op, i));
}

/* "ring, halving_doubling, tree or multicast for allreduce": what op accepts. */
static const char *op_accepts(enum coll_op op)
{
	static char text[N_OPS][256];
	char *b = text[op];
	if (!b[0]) {
		coll_alg_list(op, b, sizeof text[op]);
		size_t len = strlen(b);
		snprintf(b + len, sizeof text[op] - len, " for %s", op_names[op]);
	}
	return b;
}

bool coll_alg_multicast(const char *algorithm)
{
	return algorithm && strcmp(algorithm, "multicast") == 0;
}

int coll_rule_multicast(struct cfg_check *c, const char *key, const char *algorithm)
{
	const struct mcast_cfg *mc = mcast_cfg_of(c->cfg);
	if (!coll_alg_multicast(algorithm))
		return 0;
	if (!mc->enabled)
		return cfg_fail(c, key, "ring (or another unicast algorithm) while [multicast] enabled = off");
	if (!mc->reliable)
		return cfg_fail(c, key, "a unicast algorithm while [multicast] reliable = off "
				"(a collective needs every byte; an unreliable group loses some)");
	return 0;
}

int coll_op_by_name(const char *name)
{
	for (int i = 0; i < (int)N_OPS; i++)
		if (!strcmp(op_names[i], name))
			return i;
	return -1;
}

const char *coll_op_name(enum coll_op op) { return op_names[op]; }

static const char *default_algorithm(enum coll_op op) { return coll_alg_name_at(&op, 0); }

static const struct coll_algo *algo_find(enum coll_op op, const char *algorithm)
{
	if (!algorithm)
		algorithm = default_algorithm(op);
	for (size_t f = 0; coll_families[f]; f++)
		for (const struct coll_algo *const *a = coll_families[f]; *a; a++)
			if ((*a)->op == op && !strcmp((*a)->name, algorithm))
				return *a;
	return NULL;
}

const char *coll_check(enum coll_op op, const char *algorithm, int n)
{
	if ((unsigned)op > COLL_SENDRECV)
		return "one of allreduce, reduce_scatter, allgather, alltoall, broadcast, sendrecv";
	const struct coll_algo *a = algo_find(op, algorithm);
	if (!a)
		return op_accepts(op);
	return a->check(n);
}

/* ---- construction ---- */

static struct coll *coll_new(struct world *w, const struct coll_spec *s)
{
	const struct coll_algo *algo = algo_find(s->op, s->algorithm);
	const char *why = coll_check(s->op, s->algorithm, s->n);
	if (!algo || why)
		die_internal("collective %s/%s over %d ranks: expected %s", coll_op_name(s->op),
			     s->algorithm ? s->algorithm : "(default)", s->n, why ? why : "a known algorithm");
	if (s->channels < 1 || s->chunk_b == 0)
		die_internal("collective with %d channels and chunk %llu", s->channels,
			     (unsigned long long)s->chunk_b);
	if (s->op == COLL_BROADCAST && (s->root < 0 || s->root >= s->n))
		die_internal("broadcast root %d outside a group of %d", s->root, s->n);
	struct coll *c = xcalloc(1, sizeof *c);
	c->w = w;
	c->algo = algo;
	c->op = s->op;
	c->n = s->n;
	c->channels = s->channels;
	c->size_b = s->size_b;
	c->chunk_b = s->chunk_b;
	c->gpus = xmalloc((size_t)s->n * sizeof *c->gpus);
	for (int i = 0; i < s->n; i++)
		c->gpus[i] = s->gpus ? s->gpus[i] : i; /* plans need no GPUs */
	if (s->op == COLL_ALLTOALL && s->a2a_b) {
		size_t nn = (size_t)s->n * (size_t)s->n;
		c->a2a = xmalloc(nn * sizeof *c->a2a);
		memcpy(c->a2a, s->a2a_b, nn * sizeof *c->a2a);
	}
	c->root = s->root;
	c->plan_gph = s->gpus_per_host > 0 ? s->gpus_per_host : 1;
	c->source = s->source;
	c->parallelism = s->parallelism;
	c->job = s->job;
	c->iteration = s->iteration;
	c->prio = s->prio_set ? s->prio : -1;
	c->recv_delay = s->recv_delay;
	c->on_done = s->on_done;
	c->ctx = s->ctx;
	c->id = -1;
	algo->layout(c);
	size_t npr = (size_t)c->pipes * (size_t)c->n;
	c->pr = xcalloc(npr, sizeof *c->pr);
	c->slots = xcalloc(npr * (size_t)c->spr, sizeof *c->slots);
	for (size_t i = 0; i < npr * (size_t)c->spr; i++) {
		c->slots[i].c = c;
		c->slots[i].pr = (uint32_t)(i / (size_t)c->spr);
	}
	return c;
}

void coll_reset(struct coll *c)
{
	size_t npr = (size_t)c->pipes * (size_t)c->n;
	memset(c->pr, 0, npr * sizeof *c->pr);
	for (size_t i = 0; i < npr * (size_t)c->spr; i++)
		c->slots[i].count = 0;
	c->pending = 0;
	c->messages = 0;
	c->bytes = 0;
	c->mcasts = 0;
}

/* Collectives started and not finished (cs->live, newest first), so
 * that a run that stops early can write and free them. */
static void live_add(struct coll *c)
{
	c->live_prev = NULL;
	c->live_next = c->cs->live;
	if (c->cs->live)
		c->cs->live->live_prev = c;
	c->cs->live = c;
}

static void live_remove(struct coll *c)
{
	if (c->live_prev)
		c->live_prev->live_next = c->live_next;
	else if (c->cs && c->cs->live == c)
		c->cs->live = c->live_next;
	if (c->live_next)
		c->live_next->live_prev = c->live_prev;
	c->live_prev = c->live_next = NULL;
}

static void coll_free(struct coll *c)
{
	if (c->algo->free_a && c->a)
		c->algo->free_a(c->a);
	free(c->a);
	free(c->pr);
	free(c->slots);
	free(c->work);
	free(c->gpus);
	free(c->a2a);
	free(c);
}

/* ---- both passes ---- */

void coll_arrived(struct coll *c, struct coll_slot *s)
{
	s->count++;
	c->pending--;
	c->algo->progress(c, (int)(s->pr / (uint32_t)c->n), (int)(s->pr % (uint32_t)c->n));
}

void coll_start_all(struct coll *c)
{
	for (int r = 0; r < c->n; r++)
		for (int p = 0; p < c->pipes; p++)
			c->algo->progress(c, p, r);
}

/* ---- the real pass ---- */

static void coll_flow_recv(struct sim *sim, struct flow *f, void *ctx);
static void coll_finish(struct coll *c);

void coll_send(struct coll *c, int pipe, int src, int dst, int slot, uint64_t size_b)
{
	struct coll_slot *s = coll_slot_of(c, pipe, dst, slot);
	c->pending++;
	if (size_b) {
		c->messages++;
		c->bytes += size_b;
	}
	c->pass->send(c, src, dst, s, size_b);
}

/* The real pass: a message on the world, or at once for no bytes. */
static void real_send(struct coll *c, int src, int dst, struct coll_slot *s, uint64_t size_b)
{
	if (!size_b) {
		if (c->n_work == c->cap_work) {
			c->cap_work = c->cap_work ? 2 * c->cap_work : 64;
			c->work = xrealloc(c->work, c->cap_work * sizeof *c->work);
		}
		c->work[c->n_work++] = s;
		return;
	}
	struct msg m = {
		.src_gpu = c->gpus[src], .dst_gpu = c->gpus[dst], .size_b = size_b,
		.source = c->source, .parallelism = c->parallelism, .job = c->job,
		.iteration = c->iteration, .collective_id = c->id,
		.on_recv = coll_flow_recv, .ctx = s, .prio_set = c->prio >= 0, .prio = c->prio,
		.recv_delay = c->recv_delay,
	};
	msg_send(c->w, &m);
}

const struct coll_pass coll_real_pass = { .send = real_send, .mcast = coll_mcast_post };

static void drain(struct coll *c)
{
	while (c->n_work)
		coll_arrived(c, c->work[--c->n_work]);
}

void coll_recv(struct coll *c, struct coll_slot *s)
{
	c->end = c->w->sim->now;
	coll_arrived(c, s);
	drain(c);
	if (c->pending == 0)
		coll_finish(c);
}

static void coll_flow_recv(struct sim *sim, struct flow *f, void *ctx)
{
	(void)sim; (void)f;
	struct coll_slot *s = ctx;
	coll_recv(s->c, s);
}

static void coll_finish_ev(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)arg;
	struct coll *c = obj;
	c->end = sim->now;
	coll_finish(c);
}

static uint64_t row_size(const struct coll *c)
{
	if (c->op != COLL_ALLTOALL || !c->a2a || c->size_b)
		return c->size_b;
	uint64_t best = 0;
	for (int i = 0; i < c->n; i++) {
		uint64_t row = 0;
		for (int j = 0; j < c->n; j++)
			if (j != i) /* the diagonal is never sent */
				row += c->a2a[(size_t)i * (size_t)c->n + (size_t)j];
		if (row > best)
			best = row;
	}
	return best;
}

static void write_row(struct coll *c, simtime_t end)
{
	struct results *res = world_copied_rows(c->w);
	if (!res)
		return;
	/* The statement is prepared once per results database in the long run
	 * (see the report on results_table); a NULL table was reported there. */
	struct results_table *t = results_table(res, "collective",
		"collective_id, job, iteration, parallelism, op, algorithm, group_size, "
		"size_bytes, start_ps, end_ps, ideal_ps");
	if (t)
		results_row(res, t, "lstsssiuttt", (int64_t)c->id, c->job, (simtime_t)c->iteration,
			    c->parallelism, coll_op_name(c->op), c->algo->name, c->n, row_size(c),
			    c->start, end, c->ideal);
}

static void coll_finish(struct coll *c)
{
	struct world *w = c->w;
	struct sim *sim = w->sim;
	SIM_ASSERT(sim, &sim->kernel, c->messages == c->plan_messages,
		   "collective %lld posted %llu messages, its plan has %llu", (long long)c->id,
		   (unsigned long long)c->messages, (unsigned long long)c->plan_messages);
	live_remove(c);
	write_row(c, c->end);
	world_source_end(w);
	if (c->on_done)
		c->on_done(sim, c, c->ctx);
	coll_free(c);
}

struct colls *colls_new(struct world *w)
{
	struct colls *cs = xcalloc(1, sizeof *cs);
	cs->w = w;
	return cs;
}

void colls_write_unfinished(struct colls *cs)
{
	/* Oldest first: rows in the order the collectives started. */
	struct coll *last = NULL;
	for (struct coll *c = cs ? cs->live : NULL; c; c = c->live_next)
		last = c;
	for (struct coll *c = last; c; c = c->live_prev)
		write_row(c, -1);
}

void colls_free(struct colls *cs)
{
	if (!cs)
		return;
	for (struct coll *c = cs->live, *next; c; c = next) {
		next = c->live_next;
		live_remove(c);
		coll_free(c);
	}
	free(cs);
}

struct coll *coll_start(struct colls *cs, const struct coll_spec *s)
{
	struct world *w = cs->w;
	/* Callers validated their groups; a bad one here is a bug. */
	unsigned char *seen = xcalloc((size_t)w->n_gpus, 1);
	for (int i = 0; i < s->n; i++) {
		if (s->gpus[i] < 0 || s->gpus[i] >= w->n_gpus || seen[s->gpus[i]])
			die_internal("collective: rank %d is GPU %d (of %d GPUs, or given twice)", i,
				     s->gpus[i], w->n_gpus);
		seen[s->gpus[i]] = 1;
	}
	free(seen);
	struct coll *c = coll_new(w, s);
	c->cs = cs;
	c->id = ++cs->next_id;
	world_source_begin(w);
	live_add(c);
	c->ideal = coll_virtual_run(c, true);
	c->plan_messages = c->messages;
	c->plan_mcasts = c->mcasts;
	coll_reset(c);
	c->pass = &coll_real_pass;
	c->start = c->end = w->sim->now;
	coll_start_all(c);
	drain(c);
	if (c->pending == 0)
		sched_at(w->sim, w->sim->now, &w->sim->kernel, coll_finish_ev, c, 0);
	return c;
}

int64_t coll_id(const struct coll *c) { return c->id; }
simtime_t coll_start_ps(const struct coll *c) { return c->start; }
simtime_t coll_ideal_ps(const struct coll *c) { return c->ideal; }

void coll_plan(const struct coll_spec *s, uint64_t *bytes, uint64_t *messages)
{
	struct coll *c = coll_new(NULL, s);
	coll_virtual_run(c, false);
	*bytes = c->bytes;
	*messages = c->messages;
	coll_free(c);
}

int coll_rounds(const struct coll_spec *s)
{
	if (coll_check(s->op, s->algorithm, s->n) || s->channels < 1 || s->chunk_b == 0)
		return 0;
	struct coll *c = coll_new(NULL, s);
	int r = c->algo->rounds(c);
	coll_free(c);
	return r;
}
