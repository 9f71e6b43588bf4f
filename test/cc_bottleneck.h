/*
 * cc_bottleneck.h — a single-bottleneck packet model that drives N copies
 * of one controller through cc_ops, for controller unit tests.
 *
 * N senders, each with an unbounded backlog starting at start[i], send MTU
 * packets paced at the controller's rate_bps() and, when it has one, capped
 * by its window_b() (or else by the NIC's window, nic_window).
 * Every packet crosses one switch egress of rate C: it
 * arrives there d_fwd after leaving its sender, waits in a FIFO, is marked
 * CE on arrival (probability 0 below kmin, rising to pmax at kmax, 1 above
 * kmax: DCTCP's step when kmin = kmax), and, when the controller asks for
 * telemetry, stamped as it leaves (queue left behind, bytes transmitted,
 * time, C). Its ACK reaches the sender d_back after it left the switch
 * (the ACK path is uncongested) and is handed to on_ack with the RTT
 * sample, ECN echo and that one hop of telemetry. No losses, no PFC.
 *
 * Two options (both off by default): nic_window caps a controller that
 * has no window of its own as the NIC's [nic] window does (rate × base RTT,
 * or one line-rate BDP); int_at_start stamps the telemetry as the packet
 * starts to serialise, with the queue waiting behind it, as HPCC's ns-3
 * switches do at dequeue, instead of as it has left (when the next packet,
 * already in service, still counts in the queue).
 *
 * Base RTT with an empty queue: d_fwd + wire × 8 / C + d_back, wire being a
 * full packet's bytes on the wire (payload + BN_OVERHEAD_B).
 *
 * Observations: per-sender delivered bytes and time-weighted queue between
 * bn_mark() and the end of bn_run(); every ACK can be watched with
 * bn->on_ack_cb.
 */
#ifndef ROCESIM_TEST_CC_BOTTLENECK_H
#define ROCESIM_TEST_CC_BOTTLENECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "simtime.h"

#define BN_MAX_SENDERS 8
#define BN_OVERHEAD_B 78      /* RoCEv2 headers 58 + preamble and gap 20 */
#define BN_QCAP 65536         /* packets the model can hold in flight */
#ifndef US
#define US SIMTIME_US
#endif

/* The NIC's window ([nic] window, var_window) for controllers without one
 * of their own: none; rate × base RTT (HPCC ns-3's VAR_WIN, its window of
 * one line-rate BDP scaled by rate/line); one BDP at line rate. */
enum bn_nic_window { BN_WIN_OFF, BN_WIN_VAR, BN_WIN_FIXED };

struct bn_pkt { int snd; uint32_t wire_b, payload_b; simtime_t sent, at; bool ce; struct cc_int_hop hop; };

struct bn {
	/* configuration (set before bn_start) */
	const struct cc_ops *ops;
	const void *params;
	int n;
	uint64_t c_bps;             /* bottleneck rate; senders' line rate = line_bps */
	uint64_t line_bps;
	simtime_t d_fwd, d_back;
	uint32_t mtu_b;
	uint64_t kmin_b, kmax_b;    /* ECN marking; kmax_b = 0: never mark */
	double pmax;
	simtime_t start[BN_MAX_SENDERS];
	simtime_t stop[BN_MAX_SENDERS];   /* 0: never */
	int nic_window;             /* for a controller without window_b: enum bn_nic_window */
	bool int_at_start;          /* stamp telemetry as a packet starts to serialise (HPCC
				     * ns-3's SwitchNotifyDequeue: the queue waiting behind
				     * it, itself excluded), not as it has left */
	void (*on_ack_cb)(struct bn *bn, int snd, const struct cc_ack *a, simtime_t now);
	void *user;
	/* state */
	simtime_t now;
	void *st[BN_MAX_SENDERS];
	simtime_t next_send[BN_MAX_SENDERS];
	uint64_t snd_nxt[BN_MAX_SENDERS], snd_una[BN_MAX_SENDERS];
	/* in flight to the switch, in the queue, and acked back: three FIFOs of one ring each */
	struct bn_pkt *to_sw, *q, *to_snd;
	size_t to_sw_h, to_sw_n, q_h, q_n, to_snd_h, to_snd_n;
	uint64_t qlen_b, tx_b;
	simtime_t busy_until;       /* the egress finishes the head's serialisation */
	uint64_t rng;
	/* observations since bn_mark */
	simtime_t mark_t, q_last_t;
	double q_area;              /* byte-picoseconds of queue */
	uint64_t q_max_b;
	uint64_t delivered_b[BN_MAX_SENDERS];
	uint64_t marked, dequeued;
};

static inline simtime_t bn_ser(uint64_t bytes, uint64_t bps)
{
	return (simtime_t)((bytes * 8 * (uint64_t)1000000000000ull + bps - 1) / bps);
}

static inline simtime_t bn_base_rtt(const struct bn *b)
{
	return b->d_fwd + bn_ser(b->mtu_b + BN_OVERHEAD_B, b->c_bps) + b->d_back;
}

static inline void bn_start(struct bn *b)
{
	b->to_sw = calloc(BN_QCAP, sizeof(struct bn_pkt));
	b->q = calloc(BN_QCAP, sizeof(struct bn_pkt));
	b->to_snd = calloc(BN_QCAP, sizeof(struct bn_pkt));
	b->rng = 0x9E3779B97F4A7C15ull;
	struct cc_env env = { .line_bps = b->line_bps, .base_rtt = bn_base_rtt(b), .mtu_b = b->mtu_b, .hops = 1 };
	for (int i = 0; i < b->n; i++) {
		b->st[i] = calloc(1, b->ops->state_b);
		b->ops->init(b->st[i], b->params, &env, b->start[i]);
		b->next_send[i] = b->start[i];
	}
}

static inline void bn_free(struct bn *b)
{
	for (int i = 0; i < b->n; i++)
		free(b->st[i]);
	free(b->to_sw);
	free(b->q);
	free(b->to_snd);
}

static inline void bn_push(struct bn_pkt *ring, size_t h, size_t *n, struct bn_pkt p)
{
	if (*n >= BN_QCAP)
		abort();            /* the model's capacity: a test misconfiguration */
	ring[(h + (*n)++) % BN_QCAP] = p;
}

static inline struct bn_pkt bn_pop(struct bn_pkt *ring, size_t *h, size_t *n)
{
	struct bn_pkt p = ring[*h];
	*h = (*h + 1) % BN_QCAP;
	(*n)--;
	return p;
}

static inline void bn_queue_account(struct bn *b)
{
	b->q_area += (double)b->qlen_b * (double)(b->now - b->q_last_t);
	b->q_last_t = b->now;
}

/* Start the observation window now. */
static inline void bn_mark(struct bn *b)
{
	b->mark_t = b->q_last_t = b->now;
	b->q_area = 0;
	b->q_max_b = 0;
	b->marked = b->dequeued = 0;
	memset(b->delivered_b, 0, sizeof b->delivered_b);
}

static inline double bn_uniform(struct bn *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return (double)(b->rng >> 11) / 9007199254740992.0;
}

/* Sender i may send (when paced): started, not stopped, under its window. */
static inline bool bn_can_send(const struct bn *b, int i, simtime_t t)
{
	if (b->stop[i] && t >= b->stop[i])
		return false;
	uint64_t w = 0;
	if (b->ops->window_b) {
		w = b->ops->window_b(b->st[i]);
	} else if (b->nic_window) {
		uint64_t bdp = (uint64_t)((double)b->line_bps * (double)bn_base_rtt(b) / 8e12);
		w = bdp;
		if (b->nic_window == BN_WIN_VAR) {
			w = (uint64_t)((double)bdp * (double)b->ops->rate_bps(b->st[i]) / (double)b->line_bps);
			if (!w)
				w = 1;
		}
	}
	return !(w && b->snd_nxt[i] - b->snd_una[i] >= w);
}

/* Run until time `until`, processing every event at or before it. */
static inline void bn_run(struct bn *b, simtime_t until)
{
	const simtime_t NEVER = SIMTIME_NEVER;
	for (;;) {
		/* the earliest event: a send, a timer, an arrival at the switch,
		 * a departure from it, an ACK at a sender */
		simtime_t t = NEVER;
		int kind = -1, who = -1;
		for (int i = 0; i < b->n; i++) {
			simtime_t tt = b->ops->next_timer(b->st[i]);
			if (tt < b->now)
				tt = b->now;
			if (tt < t) { t = tt; kind = 0; who = i; }
			simtime_t ts = b->next_send[i] < b->now ? b->now : b->next_send[i];
			if (ts < t && bn_can_send(b, i, ts)) { t = ts; kind = 1; who = i; }
		}
		if (b->to_sw_n && b->to_sw[b->to_sw_h].at < t) { t = b->to_sw[b->to_sw_h].at; kind = 2; }
		if (b->q_n && b->busy_until < t) { t = b->busy_until; kind = 3; }
		if (b->to_snd_n && b->to_snd[b->to_snd_h].at < t) { t = b->to_snd[b->to_snd_h].at; kind = 4; }
		if (t > until || kind < 0) {
			b->now = until;
			bn_queue_account(b);
			return;
		}
		b->now = t;
		bn_queue_account(b);
		if (kind == 0) {
			b->ops->on_timer(b->st[who], t);
		} else if (kind == 1) {
			uint32_t wire = b->mtu_b + BN_OVERHEAD_B;
			struct bn_pkt p = { .snd = who, .wire_b = wire, .payload_b = b->mtu_b, .sent = t,
					    .at = t + b->d_fwd };
			b->snd_nxt[who] += b->mtu_b;
			b->ops->on_sent(b->st[who], wire, t);
			uint64_t r = b->ops->rate_bps(b->st[who]);
			uint64_t line = b->line_bps;
			/* the NIC serialises at line rate, paced at the controller's rate */
			simtime_t gap = bn_ser(wire, r < line ? r : line);
			b->next_send[who] = t + gap;
			bn_push(b->to_sw, b->to_sw_h, &b->to_sw_n, p);
		} else if (kind == 2) {
			struct bn_pkt p = bn_pop(b->to_sw, &b->to_sw_h, &b->to_sw_n);
			if (b->kmax_b) {
				double pr = b->qlen_b < b->kmin_b ? 0 : b->qlen_b >= b->kmax_b ? 1 :
					    b->kmax_b == b->kmin_b ? 1 :
					    b->pmax * (double)(b->qlen_b - b->kmin_b) / (double)(b->kmax_b - b->kmin_b);
				if (b->qlen_b > b->kmax_b || (pr > 0 && bn_uniform(b) < pr)) {
					p.ce = true;
					b->marked++;
				}
			}
			if (!b->q_n) {
				b->busy_until = t + bn_ser(p.wire_b, b->c_bps);
				if (b->int_at_start)
					p.hop = (struct cc_int_hop){ .qlen_b = 0, .tx_b = b->tx_b + p.wire_b,
								     .ts = t, .rate_bps = b->c_bps };
			}
			b->qlen_b += p.wire_b;
			if (b->qlen_b > b->q_max_b)
				b->q_max_b = b->qlen_b;
			bn_push(b->q, b->q_h, &b->q_n, p);
		} else if (kind == 3) {
			struct bn_pkt p = bn_pop(b->q, &b->q_h, &b->q_n);
			b->qlen_b -= p.wire_b;
			b->tx_b += p.wire_b;
			b->dequeued++;
			if (!b->int_at_start)
				p.hop = (struct cc_int_hop){ .qlen_b = b->qlen_b, .tx_b = b->tx_b, .ts = t,
							     .rate_bps = b->c_bps };
			p.at = t + b->d_back;
			bn_push(b->to_snd, b->to_snd_h, &b->to_snd_n, p);
			if (b->q_n) {
				struct bn_pkt *h = &b->q[b->q_h];
				b->busy_until = t + bn_ser(h->wire_b, b->c_bps);
				if (b->int_at_start)
					h->hop = (struct cc_int_hop){ .qlen_b = b->qlen_b - h->wire_b,
								      .tx_b = b->tx_b + h->wire_b, .ts = t,
								      .rate_bps = b->c_bps };
			}
		} else {
			struct bn_pkt p = bn_pop(b->to_snd, &b->to_snd_h, &b->to_snd_n);
			int i = p.snd;
			b->snd_una[i] += p.payload_b;
			b->delivered_b[i] += p.payload_b;
			struct cc_ack a = { .acked_b = p.payload_b, .snd_una_b = b->snd_una[i],
					    .snd_nxt_b = b->snd_nxt[i], .rtt = t - p.sent, .ecn = p.ce };
			if (b->ops->needs & CC_NEEDS_INT) {
				a.n_hops = 1;
				a.hop = &p.hop;
			}
			if (b->ops->on_ack)
				b->ops->on_ack(b->st[i], &a, t);
			if (b->on_ack_cb)
				b->on_ack_cb(b, i, &a, t);
		}
	}
}

/* Mean queue bytes and throughput share since bn_mark. */
static inline double bn_mean_queue_b(const struct bn *b)
{
	return b->now > b->mark_t ? b->q_area / (double)(b->now - b->mark_t) : 0;
}
static inline double bn_goodput_bps(const struct bn *b, int i)
{
	return b->now > b->mark_t ? (double)b->delivered_b[i] * 8e12 / (double)(b->now - b->mark_t) : 0;
}

#endif
