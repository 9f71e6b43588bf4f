/*
 * coll_virtual.c — the collective engine's virtual pass (coll_internal.h):
 * the same algorithm run over a private event heap, for the ideal time and
 * for plans (order only).
 *
 * Ideal time (collective.ideal_ps): before posting anything, the same
 * algorithm runs once "virtually" over a private event heap, with each
 * message timed as if alone on its path (ideal.h: store-and-forward of its
 * packets over the path routing gives it; ECMP choices are the route of a
 * fixed UDP port, equal-cost paths having equal hops and rates here) but
 * with the NIC's serialisation kept: a NIC sends the messages of its GPUs
 * one after another in posting order (a message starts when the previous
 * one's last frame left), and the ACKs it returns for messages it receives
 * (one ACK frame per ack_every packets) take its link time too. NVLink
 * messages are serialised per sending GPU at nvlink_rate plus nvlink_delay.
 * Ignored: contention between the collective's own messages inside the
 * fabric and at receiving links (an alltoall onto one hot rank is limited
 * by that rank's ingress; the ideal does not see it) — except between
 * multicast copies, which a receiving NIC takes in one after another
 * (coll_vmcast: a multicast allgather is bound by its members' links) —
 * and NIC round-robin
 * between QPs (FIFO is never slower for the last message of a stream).
 * ideal_ps is therefore a lower bound of the idle-fabric run up to those
 * approximations, and within a few percent of it for bandwidth-bound rings.
 */
#include <stdlib.h>
#include "coll_internal.h"
#include "log.h"
#include "nic.h"
#include "xalloc.h"

struct vmsg {
	simtime_t t;
	uint64_t seq;
	struct coll_slot *slot;
	int32_t ack_nic;            /* dense NIC index that returns ACKs, -1 none */
	simtime_t ack_ps;
	uint64_t relay_b;           /* a multicast piece landing on its host: relayed on arrival (0 none) */
};

struct vmemo { int dst; uint64_t size_b; simtime_t del, ser0, ack_ps; };

struct coll_virtual {
	bool timing;                /* false: order only (plans) */
	simtime_t now;
	struct vmsg *heap; size_t n_heap, cap_heap;
	uint64_t seq;
	int *nic;                   /* [n] dense NIC index of each rank */
	simtime_t *tx_free;         /* [distinct NICs] */
	simtime_t *rx_free;         /* [distinct NICs] last multicast copy taken in (coll_vmcast) */
	simtime_t *nv_free;         /* [n] NVLink egress of each GPU */
	struct vmemo *memo;         /* [n] last message timed per sender */
};

static bool vless(const struct vmsg *a, const struct vmsg *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

static void vpush(struct coll_virtual *v, struct vmsg m)
{
	if (v->n_heap == v->cap_heap) {
		v->cap_heap = v->cap_heap ? 2 * v->cap_heap : 256;
		v->heap = xrealloc(v->heap, v->cap_heap * sizeof *v->heap);
	}
	m.seq = v->seq++;
	size_t i = v->n_heap++;
	while (i > 0 && vless(&m, &v->heap[(i - 1) / 2])) {
		v->heap[i] = v->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	v->heap[i] = m;
}

static struct vmsg vpop(struct coll_virtual *v)
{
	struct vmsg top = v->heap[0], last = v->heap[--v->n_heap];
	size_t i = 0, n = v->n_heap;
	if (!n)
		return top;
	for (;;) {
		size_t ch = 2 * i + 1;
		if (ch >= n)
			break;
		if (ch + 1 < n && vless(&v->heap[ch + 1], &v->heap[ch]))
			ch++;
		if (!vless(&v->heap[ch], &last))
			break;
		v->heap[i] = v->heap[ch];
		i = ch;
	}
	v->heap[i] = last;
	return top;
}

static void vtime(struct coll *c, int src, int dst, uint64_t size_b, struct vmemo *out)
{
	struct coll_virtual *v = c->v;
	struct vmemo *m = &v->memo[src];
	if (m->size_b == size_b && m->dst == dst) {
		*out = *m;
		return;
	}
	const struct world *w = c->w;
	struct nic_ideal t;
	nic_ideal_msg(w, world_gpu_ep(w, c->gpus[src]), world_gpu_ep(w, c->gpus[dst]), size_b, &t);
	*m = (struct vmemo){ .dst = dst, .size_b = size_b, .del = t.delivery_ps, .ser0 = t.send_ps,
			     .ack_ps = t.acks_ps };
	*out = *m;
}

static void coll_vsend(struct coll *c, int src, int dst, struct coll_slot *slot, uint64_t size_b)
{
	struct coll_virtual *v = c->v;
	struct vmsg m = { .t = v->now, .slot = slot, .ack_nic = -1 };
	if (size_b && v->timing) {
		const struct world *w = c->w;
		if (world_gpu_host(w, c->gpus[src]) == world_gpu_host(w, c->gpus[dst])) {
			simtime_t start = v->nv_free[src] > v->now ? v->nv_free[src] : v->now;
			simtime_t ser = nvlink_send_ps(w, size_b);
			v->nv_free[src] = start + ser;
			m.t = start + nvlink_ideal_ps(w, size_b);
		} else {
			struct vmemo t;
			vtime(c, src, dst, size_b, &t);
			simtime_t *free_at = &v->tx_free[v->nic[src]];
			simtime_t start = *free_at > v->now ? *free_at : v->now;
			*free_at = start + t.ser0;
			m.t = start + t.del;
			m.ack_nic = v->nic[dst];
			m.ack_ps = t.ack_ps;
		}
		m.t += c->recv_delay; /* seen that long after its last byte (msg.h) */
	}
	vpush(v, m);
}

static void coll_vmcast(struct coll *c, int src, const int *dst, int n_dst, int pipe, int slot, uint64_t size_b)
{
	struct coll_virtual *v = c->v;
	simtime_t start = v->now;
	struct vmemo t = { 0 };
	if (v->timing) {
		/* One copy leaves the source NIC (the switches replicate): its
		 * link time is that of any member's path, whose first hop it is. */
		vtime(c, src, dst[0], size_b, &t);
		simtime_t *free_at = &v->tx_free[v->nic[src]];
		start = *free_at > v->now ? *free_at : v->now;
		*free_at = start + t.ser0;
	}
	for (int i = 0; i < n_dst; i++) {
		struct vmsg m = { .t = v->now, .slot = coll_slot_of(c, pipe, dst[i], slot), .ack_nic = -1,
				  .relay_b = size_b };
		if (v->timing) {
			/* A multicast allgather's bound is the members' links (each
			 * takes n-1 shards while it sends one): copies are taken in
			 * one after another there, each for its source-link time. */
			vtime(c, src, dst[i], size_b, &t);
			simtime_t *rx = &v->rx_free[v->nic[dst[i]]];
			m.t = start + t.del > *rx + t.ser0 ? start + t.del : *rx + t.ser0;
			*rx = m.t;
			m.ack_nic = v->nic[dst[i]];
			m.ack_ps = t.ack_ps;
		}
		vpush(v, m);
	}
}

const struct coll_pass coll_virtual_pass = { .send = coll_vsend, .mcast = coll_vmcast };

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Runs the collective over the virtual heap; returns the last arrival
 * (relative to the start). Leaves the counters to be reset. */
simtime_t coll_virtual_run(struct coll *c, bool timing)
{
	struct coll_virtual v = { .timing = timing };
	int n = c->n;
	if (timing) {
		int *eps = xmalloc((size_t)n * sizeof *eps);
		for (int r = 0; r < n; r++)
			eps[r] = world_gpu_ep(c->w, c->gpus[r]);
		qsort(eps, (size_t)n, sizeof *eps, int_cmp);
		int distinct = 0;
		for (int i = 0; i < n; i++)
			if (i == 0 || eps[i] != eps[distinct - 1])
				eps[distinct++] = eps[i];
		v.nic = xmalloc((size_t)n * sizeof *v.nic);
		for (int r = 0; r < n; r++) {
			int e = world_gpu_ep(c->w, c->gpus[r]);
			v.nic[r] = (int)((int *)bsearch(&e, eps, (size_t)distinct, sizeof *eps, int_cmp) - eps);
		}
		free(eps);
		v.tx_free = xcalloc((size_t)distinct, sizeof *v.tx_free);
		v.rx_free = xcalloc((size_t)distinct, sizeof *v.rx_free);
		v.nv_free = xcalloc((size_t)n, sizeof *v.nv_free);
		v.memo = xcalloc((size_t)n, sizeof *v.memo);
		for (int r = 0; r < n; r++)
			v.memo[r].dst = -1;
	}
	c->v = &v;
	c->pass = &coll_virtual_pass;
	coll_reset(c);
	coll_start_all(c);
	while (v.n_heap) {
		struct vmsg m = vpop(&v);
		v.now = m.t;
		if (m.ack_nic >= 0) {
			simtime_t *f = &v.tx_free[m.ack_nic];
			simtime_t from = *f > m.t - m.ack_ps ? *f : m.t - m.ack_ps;
			*f = from + m.ack_ps;
		}
		if (m.relay_b)
			coll_mcast_relay(c, m.slot, m.relay_b);
		coll_arrived(c, m.slot);
	}
	c->v = NULL;
	free(v.heap);
	free(v.nic);
	free(v.tx_free);
	free(v.rx_free);
	free(v.nv_free);
	free(v.memo);
	return v.now;
}
