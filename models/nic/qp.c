/*
 * qp.c — RC queue pair protocol: segmentation, acknowledgement, go-back-N
 * and selective repeat (see qp.h).
 *
 * Invariants: snd_una ≤ snd_nxt ≤ snd_max (sr: snd_nxt = snd_max);
 * snd_flow holds snd_nxt (it is the first message of the list not fully
 * sent); a message leaves the list when its last PSN < snd_una; every
 * message before snd_flow has psn_valid.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "log.h"
#include "cc.h"
#include "fabric.h"
#include "nic_internal.h"
#include "qp.h"
#include "nic.h"
#include "world.h"
#include "xalloc.h"

/* ---- PSN sets (sr) ---- */

static void pset_advance(struct psn_set *s, uint32_t psn)
{
	uint32_t base = psn & ~63u;
	if (base <= s->base)
		return;
	uint32_t shift = (base - s->base) / 64;
	if (!s->n_words) {
		/* nothing stored yet */
	} else if (shift >= s->n_words) {
		memset(s->w, 0, s->n_words * sizeof *s->w);
	} else {
		memmove(s->w, s->w + shift, (s->n_words - shift) * sizeof *s->w);
		memset(s->w + s->n_words - shift, 0, shift * sizeof *s->w);
	}
	s->base = base;
}

static void pset_add(struct psn_set *s, uint32_t psn)
{
	uint32_t k = (psn - s->base) / 64;
	if (k >= s->n_words) {
		uint32_t n = s->n_words ? s->n_words : 4;
		while (n <= k)
			n *= 2;
		s->w = xrealloc(s->w, n * sizeof *s->w);
		memset(s->w + s->n_words, 0, (n - s->n_words) * sizeof *s->w);
		s->n_words = n;
	}
	s->w[k] |= 1ull << ((psn - s->base) & 63);
}

static bool pset_has(const struct psn_set *s, uint32_t psn)
{
	if (psn < s->base)
		return true; /* below the base: acknowledged already */
	uint32_t k = (psn - s->base) / 64;
	return k < s->n_words && (s->w[k] >> ((psn - s->base) & 63) & 1);
}

void qp_free(struct qp *q)
{
	free(q->sacked.w);
	free(q->ooo.w);
	free(q->sent_at);
	free(q->lasts);
	free(q->cc);
	free(q);
}

/* ---- Requester ---- */

void qp_post(struct qp *q, struct flow *f)
{
	f->next = NULL;
	if (q->tail)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	if (!q->snd_flow)
		q->snd_flow = f;
}

static void sent_at_set(struct qp *q, uint32_t psn, simtime_t t)
{
	uint32_t need = q->snd_max - q->snd_una + 1;
	if (need > q->sent_cap) {
		uint32_t cap = q->sent_cap ? q->sent_cap : 64;
		while (cap < need)
			cap *= 2;
		simtime_t *v = xcalloc(cap, sizeof *v);
		for (uint32_t p = q->snd_una; q->sent_cap && p != q->snd_max; p++)
			if (p != psn)
				v[p & (cap - 1)] = q->sent_at[p & (q->sent_cap - 1)];
		free(q->sent_at);
		q->sent_at = v;
		q->sent_cap = cap;
	}
	q->sent_at[psn & (q->sent_cap - 1)] = t;
}

/* sr: the next PSN to resend, or snd_max when none is known lost. Skips
 * SACKed PSNs for good. */
static uint32_t rtx_peek(struct qp *q)
{
	if (q->rtx_nxt < q->snd_una)
		q->rtx_nxt = q->snd_una;
	struct world *w = nic_world(q->nic);
	simtime_t reo = w->nic_cfg->rto / QP_REORDER_FRACTION;
	uint32_t hi = q->rtx_hi > q->rto_hi ? q->rtx_hi : q->rto_hi;
	while (q->rtx_nxt < hi) {
		uint32_t p = q->rtx_nxt;
		if (pset_has(&q->sacked, p)) {
			q->rtx_nxt++;
			continue;
		}
		if (p < q->rto_hi || q->sent_at[p & (q->sent_cap - 1)] + reo <= q->sacked_sent_at)
			return p;
		break; /* may still be in flight: decided by a later SACK or the timeout */
	}
	return q->snd_max;
}

/* The cap on q's unacknowledged payload bytes (q->windowed): the
 * controller's own window_b, and with [nic] window the NIC's, rate x T / 8
 * (var_window) or line x T / 8, at least one byte; the smaller of the two. */
uint64_t qp_window_b(const struct qp *q)
{
	const struct nic *n = q->nic;
	const struct nic_cfg *cfg = nic_world(n)->nic_cfg;
	uint64_t w = UINT64_MAX;
	if (n->cc && n->cc->window_b)
		w = n->cc->window_b(q->cc);
	if (cfg->window) {
		uint64_t line = n->line_bps;
		uint64_t rate = cfg->var_window && n->cc ? n->cc->rate_bps(q->cc) : line;
		uint64_t nw = (uint64_t)((unsigned __int128)rate * (uint64_t)q->base_rtt / 8000000000000ull);
		if (nw < 1)
			nw = 1;
		if (nw < w)
			w = nw;
	}
	return w;
}

/* No first transmission now: the window is full. Resends (gbn after a
 * rewind, sr's repairs) are never held, so loss recovery cannot stall
 * behind a window that only its ACKs would open. Out of line: a QP
 * without a window pays one test of `windowed`. */
static __attribute__((noinline)) bool window_full(const struct qp *q)
{
	return q->snd_nxt == q->snd_max && q->max_b - q->una_b >= qp_window_b(q);
}
static inline bool window_holds(const struct qp *q)
{
	return q->windowed && window_full(q);
}

bool qp_has_data(struct qp *q)
{
	if (q->snd_flow)
		return !window_holds(q);
	return q->sr && q->rtx_nxt < (q->rtx_hi > q->rto_hi ? q->rtx_hi : q->rto_hi) && rtx_peek(q) != q->snd_max;
}

/* The message holding PSN psn: one already numbered, or else the first not
 * yet numbered (psn is then the next fresh PSN); NULL when none is left. */
static struct flow *flow_at(struct qp *q, uint32_t psn)
{
	struct flow *f = q->head;
	while (f && f->psn_valid && psn - f->first_psn >= f->n_pkts)
		f = f->next;
	return f;
}

static struct flow *flow_of(struct qp *q, uint32_t psn)
{
	struct flow *f = flow_at(q, psn);
	SIM_ASSERT(nic_world(q->nic)->sim, q->elem, f && f->psn_valid, "QP %u: no message holds PSN %u",
		   q->qpn, psn);
	return f;
}

static struct packet *build(struct sim *sim, struct qp *q, struct flow *f, uint32_t psn)
{
	struct world *w = nic_world(q->nic);
	uint32_t idx = psn - f->first_psn;
	bool first = idx == 0, last = idx == f->n_pkts - 1;
	uint32_t payload = pkt_payload_b(f->size_b, nic_mtu(q->nic), idx, f->n_pkts);
	struct packet *p = pool_get(&w->fab.pkt_pool);
	*p = (struct packet){ .flow = f, .psn = psn, .dqpn = q->dqpn, .src = f->src, .dst = f->dst,
			      .sport = q->sport, .payload_b = (uint16_t)payload, .type = PKT_DATA,
			      .prio = q->prio, .ttl = PKT_TTL0, .route = q->route,
			      .flags = (uint8_t)(PKT_F_ECT | (first ? PKT_F_FIRST : 0) |
						 (last ? PKT_F_LAST | PKT_F_ACKREQ : 0)) };
	p->opcode = first ? (last ? OP_WRITE_ONLY : OP_WRITE_FIRST) : (last ? OP_WRITE_LAST : OP_WRITE_MIDDLE);
	p->frame_b = (uint16_t)pkt_data_frame_b(payload, first);
	if (q->tel) { /* its send time, and the switches' telemetry when asked (pkt_tel.h) */
		uint32_t rec = pkt_tel_new(&w->fab.tel);
		struct pkt_tel *r = pkt_tel_at(&w->fab.tel, rec);
		r->sent_at = sim->now;
		r->stamp = q->int_on;
		p->aux = rec;
		p->flags |= PKT_F_TEL;
		if (q->int_on)
			p->frame_b += PKT_INT_B;
	}
	sim->packets_sent++;
	if (psn < q->snd_max)
		f->retx_pkts++;
	if (q->ops)
		q->ops->sent(sim, q, p);
	return p;
}

struct packet *qp_next_packet(struct sim *sim, struct qp *q)
{
	struct packet *p;
	if (q->sr) {
		uint32_t r = rtx_peek(q);
		if (r != q->snd_max) {
			p = build(sim, q, flow_of(q, r), r);
			q->rtx_nxt = r + 1;
			sent_at_set(q, r, sim->now);
			nic_rto_arm(sim, q);
			return p;
		}
	}
	struct flow *f = q->snd_flow;
	if (!f || window_holds(q))
		return NULL;
	if (!f->psn_valid) {
		f->first_psn = q->snd_nxt;
		f->last_psn = q->snd_nxt + f->n_pkts - 1;
		f->psn_valid = true;
		if (q->track_b) {
			f->first_b = q->next_msg_b;
			q->next_msg_b += f->size_b;
		}
	}
	uint32_t psn = q->snd_nxt++;
	p = build(sim, q, f, psn);
	if (q->track_b && psn >= q->snd_max) /* stream offsets: only where read */
		q->max_b += p->payload_b;
	if (psn == f->last_psn)
		q->snd_flow = f->next;
	if (q->snd_nxt > q->snd_max)
		q->snd_max = q->snd_nxt;
	if (q->sr)
		sent_at_set(q, psn, sim->now);
	nic_rto_arm(sim, q);
	return p;
}

/* Everything below una is acknowledged. */
static void acked_to(struct sim *sim, struct qp *q, uint32_t una)
{
	if (una <= q->snd_una || una > q->snd_max)
		return;
	q->snd_una = una;
	if (q->sr)
		pset_advance(&q->sacked, una);
	while (q->head && q->head->psn_valid && q->head->last_psn < una) {
		struct flow *f = q->head;
		q->head = f->next;
		if (!q->head)
			q->tail = NULL;
		if (q->snd_flow == f)
			q->snd_flow = f->next;
		if (q->ops)
			q->ops->finished(sim, q, f);
		else
			flow_finish(sim, nic_world(q->nic), f);
	}
	if (q->snd_nxt < una) { /* gbn after a rewind: the responder had these already */
		q->snd_nxt = una;
		q->snd_flow = flow_at(q, una);
	}
	/* The stream offset of una: inside the oldest message still held, or
	 * the end of every message numbered so far. */
	if (q->track_b) {
		struct flow *h = q->head;
		q->una_b = h && h->psn_valid ? h->first_b + (uint64_t)(una - h->first_psn) * (uint64_t)q->nic->mtu
					     : q->next_msg_b;
	}
	q->rto_at = sim->now + nic_world(q->nic)->nic_cfg->rto;
}

/* gbn: resend from psn. */
static void rewind_to(struct sim *sim, struct qp *q, uint32_t psn)
{
	if (psn >= q->snd_nxt)
		return;
	q->snd_nxt = psn;
	q->snd_flow = flow_of(q, psn);
	nic_qp_wake(sim, q->nic, q);
}

void qp_on_ack(struct sim *sim, struct qp *q, const struct packet *p)
{
	if (p->type == PKT_ACK) {
		acked_to(sim, q, p->psn + 1);
		return;
	}
	/* NAK: the responder expects p->psn. */
	acked_to(sim, q, p->psn);
	if (!q->sr) {
		/* A NAK below what is acknowledged is stale: a later ACK
		 * overtook it (on another path, after a failure rerouted one of
		 * them). The responder has those PSNs; nothing to resend. */
		if (p->psn >= q->snd_una && q->last_nak != p->psn + 1) {
			q->last_nak = p->psn + 1;
			rewind_to(sim, q, p->psn);
		}
		return;
	}
	uint32_t s = p->aux;
	if (s >= q->snd_una && s < q->snd_max) {
		pset_add(&q->sacked, s);
		simtime_t t = q->sent_at[s & (q->sent_cap - 1)];
		if (t > q->sacked_sent_at)
			q->sacked_sent_at = t;
		if (s + 1 > q->rtx_hi)
			q->rtx_hi = s + 1;
	}
	nic_qp_wake(sim, q->nic, q);
}

/* The timeout fired with PSNs outstanding. */
void qp_timeout(struct sim *sim, struct qp *q)
{
	if (q->sr) {
		q->rto_hi = q->snd_max;
		q->rtx_nxt = q->snd_una;
	} else {
		q->last_nak = 0;
		if (q->snd_una < q->snd_nxt) {
			q->snd_nxt = q->snd_una;
			q->snd_flow = flow_of(q, q->snd_una);
		}
	}
	q->rto_at = sim->now + nic_world(q->nic)->nic_cfg->rto;
	nic_qp_wake(sim, q->nic, q);
}

/* ---- Responder ---- */

/* sr: in-order delivery reached past buffered packets; finish the messages
 * whose last packet came early. */
static void lasts_release(struct sim *sim, struct qp *q)
{
	uint32_t k = 0;
	while (k < q->n_lasts && q->lasts[k].psn < q->rcv_nxt)
		flow_received(sim, q->lasts[k++].f);
	if (k) {
		memmove(q->lasts, q->lasts + k, (q->n_lasts - k) * sizeof *q->lasts);
		q->n_lasts -= k;
	}
}

static void lasts_add(struct qp *q, uint32_t psn, struct flow *f)
{
	if (q->n_lasts == q->cap_lasts) {
		q->cap_lasts = q->cap_lasts ? 2 * q->cap_lasts : 4;
		q->lasts = xrealloc(q->lasts, q->cap_lasts * sizeof *q->lasts);
	}
	uint32_t i = q->n_lasts++;
	while (i && q->lasts[i - 1].psn > psn) {
		q->lasts[i] = q->lasts[i - 1];
		i--;
	}
	q->lasts[i] = (struct qp_last){ psn, f };
}

static void notify_ce(struct sim *sim, struct qp *q, struct packet *p)
{
	/* Counted until the message is whole at the receiver: a duplicate
	 * landing later is after the sender's row may have been written
	 * (and, under MPI, on another rank than the row's). */
	if (p->flow->recv_end < 0)
		p->flow->ecn_marked++;
	simtime_t iv = nic_world(q->nic)->fab.params.cnp_interval;
	if (iv && q->last_cnp >= 0 && sim->now - q->last_cnp < iv)
		return;
	q->last_cnp = sim->now;
	nic_send_ctrl(sim, q, PKT_CNP, 0, 0, NULL);
}

void qp_on_data(struct sim *sim, struct qp *q, struct packet *p)
{
	const struct nic_cfg *cfg = nic_world(q->nic)->nic_cfg;
	sim->packets_delivered++;
	if (p->flags & PKT_F_CE)
		notify_ce(sim, q, p);
	if (p->psn == q->rcv_nxt) {
		/* Debug invariant (issue 8): what a responder accepts in order is
		 * one message after another, each from its first packet to its
		 * last (with sr, stored packets join without passing here). */
		SIM_DEBUG_ASSERT(sim, q->elem, q->sr || !(p->flags & PKT_F_FIRST) == q->rx_mid,
				 "QP %u accepted PSN %u: %s", q->qpn, p->psn,
				 q->rx_mid ? "a message's first packet before the last one's end"
					   : "a packet that does not start a message after a message ended");
		q->rx_mid = !(p->flags & PKT_F_LAST);
		q->rcv_nxt++;
		q->nak_sent = false;
		bool ack = (p->flags & PKT_F_LAST) || ++q->rx_since_ack >= (uint32_t)cfg->ack_every;
		if ((p->flags & PKT_F_LAST) && q->ops)
			q->ops->received(sim, q, p);
		else if (p->flags & PKT_F_LAST)
			flow_received(sim, p->flow);
		if (q->sr && pset_has(&q->ooo, q->rcv_nxt)) {
			while (pset_has(&q->ooo, q->rcv_nxt))
				q->rcv_nxt++;
			pset_advance(&q->ooo, q->rcv_nxt);
			lasts_release(sim, q);
			ack = true;
		} else if (q->sr) {
			pset_advance(&q->ooo, q->rcv_nxt);
		}
		if (ack) {
			q->rx_since_ack = 0;
			nic_send_ctrl(sim, q, PKT_ACK, q->rcv_nxt - 1, 0, p);
		}
		return;
	}
	if (p->psn < q->rcv_nxt || (q->sr && pset_has(&q->ooo, p->psn))) {
		nic_send_ctrl(sim, q, PKT_ACK, q->rcv_nxt - 1, 0, p); /* duplicate */
		return;
	}
	if (q->sr) {
		pset_add(&q->ooo, p->psn);
		if (p->flags & PKT_F_LAST)
			lasts_add(q, p->psn, p->flow);
		nic_send_ctrl(sim, q, PKT_NAK, q->rcv_nxt, p->psn, p);
		return;
	}
	if (!q->nak_sent) { /* gbn: one NAK per gap; the rest of the gap is discarded */
		q->nak_sent = true;
		nic_send_ctrl(sim, q, PKT_NAK, q->rcv_nxt, 0, p);
	}
}
