/*
 * qp.h — an RC queue pair: the requester (segmentation, PSNs, loss
 * recovery, pacing by congestion control) and the responder (in-order
 * acceptance, ACK/NAK, the DCQCN notification point).
 *
 * Requester. Messages (struct flow) stay on the QP's list, in posting order,
 * until their last PSN is acknowledged. snd_flow/snd_nxt say what to send
 * next; snd_una is the oldest unacknowledged PSN and snd_max one past the
 * highest ever sent, so a packet with PSN < snd_max is a retransmission.
 *   gbn: a NAK (PSN sequence error, carrying the PSN expected) or a
 *        retransmission timeout rewinds snd_nxt to that PSN (go-back-N).
 *   sr:  selective repeat in the manner of IRN (Mittal et al., SIGCOMM
 *        2018): the responder keeps out-of-order packets and answers each
 *        with a SACK (a NAK carrying the cumulative PSN and the PSN it
 *        received); the requester resends only PSNs never SACKed, and only
 *        once a packet sent at least QP_REORDER_FRACTION of the RTO after
 *        them was delivered (time-based, as RACK does, so that the
 *        reordering of per-packet ECMP spraying is not taken for loss); a
 *        timeout resends every unSACKed PSN.
 * The retransmission timeout ([nic] rto) runs while PSNs are outstanding and
 * restarts on progress; it keeps one pending event per QP.
 *
 * Responder. Accepts PSN rcv_nxt (and, with sr, keeps later ones), ACKs
 * every ack_every packets and every message's last packet; gbn NAKs the
 * first out-of-order packet of a gap once; duplicates are re-ACKed. A
 * CE-marked packet makes it send a CNP (every one, or at most one per
 * [dcqcn] cnp_interval). recv_end of a message is when its last byte is in
 * order at the responder.
 */
#ifndef ROCESIM_QP_H
#define ROCESIM_QP_H

#include <stdbool.h>
#include <stdint.h>
#include "flow.h"
#include "sim.h"

#define QPN_BASE 0x100u        /* first QPN a NIC hands out (low numbers are reserved in IB) */
#define QP_REORDER_FRACTION 4  /* sr: reordering window = rto / 4 */

struct nic;
struct packet;
struct cc_ops;
struct qp;

/* What a queue pair that serves something other than one unicast message
 * stream does at the few points where it differs (multicast groups,
 * mcast_msg.c): NULL ops is plain RC. */
struct qp_ops {
	/* Requester: data packet p was built (mark it, complete UD sends). */
	void (*sent)(struct sim *sim, struct qp *q, struct packet *p);
	/* Requester: message f fully acknowledged, in place of flow_finish. */
	void (*finished)(struct sim *sim, struct qp *q, struct flow *f);
	/* Responder: the last packet of a message accepted in order, in place
	 * of flow_received. */
	void (*received)(struct sim *sim, struct qp *q, const struct packet *p);
	/* Responder: feedback a (ACK, NAK, CNP) is about to be sent; false
	 * when none is sent (UD). */
	bool (*feedback)(const struct qp *q, struct packet *a);
};

/* A set of PSNs at or above a moving base (SR: SACKed / received out of order). */
struct psn_set {
	uint64_t *w;               /* bit i of word k: PSN base + 64k + i */
	uint32_t base;             /* multiple of 64 */
	uint32_t n_words;
};

struct qp {
	struct sim_elem *elem;     /* the NIC's element (timers) */
	struct nic *nic;
	uint32_t qpn, dqpn;        /* local and remote QP numbers */
	int32_t peer;              /* remote endpoint id */
	uint16_t sport;            /* UDP source port (ECMP entropy) */
	uint32_t route;            /* its frames' path (route_path.h), 0: none */
	uint8_t prio;
	bool sr;                   /* loss_recovery = sr */
	/* (Two bytes that were padding, on the line every packet reads.) */
	uint8_t ctrl_prio;         /* class of the ACKs, NAKs and CNPs it sends ([nic] ack_priority) */
	bool tel : 1;              /* its data carries side records (send time, telemetry:
				    * pkt_tel.h) because its controller reads ACKs */
	bool int_on : 1;           /* ... and switches stamp telemetry on it (CC_NEEDS_INT) */
	bool windowed : 1;         /* a window caps its unacknowledged bytes ([nic] window,
				    * or the controller's window_b) */
	bool track_b : 1;          /* tel or windowed: una_b is kept */
	/* requester */
	struct flow *head, *tail;  /* messages not yet acknowledged, posting order */
	struct flow *snd_flow;     /* message holding snd_nxt (NULL: all sent) */
	uint32_t snd_nxt, snd_una, snd_max;
	uint32_t last_nak;         /* gbn: PSN of the last NAK acted on (+1; 0 = none) */
	simtime_t next_send;       /* pacing: earliest time of the next packet */
	uint32_t last_wire;        /* wire bytes of the last packet sent (pacing on a rate change) */
	uint64_t gap_rate_bps;     /* rate gap_ps was computed for */
	simtime_t gap_ps;          /* pacing gap of last_wire bytes at gap_rate_bps */
	simtime_t rto_at;          /* retransmission deadline while PSNs are outstanding */
	bool rto_pending;          /* a timeout event is scheduled */
	bool in_ring, in_heap;     /* NIC scheduler membership */
	uint32_t heap_idx;
	struct qp *rr_next;        /* NIC round-robin ring */
	void *cc;                  /* congestion-control state (NULL: cc = none) */
	bool cc_pending;           /* a cc timer event is scheduled */
	simtime_t cc_at;           /* when it fires */
	/* requester, sr */
	struct psn_set sacked;
	simtime_t *sent_at;        /* ring: last send time of each PSN in [snd_una, snd_max) */
	uint32_t sent_cap;         /* power of two */
	uint32_t rtx_nxt;          /* next PSN to consider for retransmission */
	uint32_t rtx_hi;           /* one past the highest PSN SACKed */
	uint32_t rto_hi;           /* PSNs below this are lost by timeout */
	simtime_t sacked_sent_at;  /* latest send time of any SACKed packet */
	/* responder */
	uint32_t rcv_nxt;          /* next PSN expected */
	uint32_t rx_since_ack;     /* packets accepted since the last ACK */
	bool nak_sent;             /* gbn: a NAK for the current gap is out */
	bool rx_mid;               /* the last PSN accepted in order was not a message's last */
	simtime_t last_cnp;        /* when the last CNP was sent */
	struct psn_set ooo;        /* sr: PSNs received beyond rcv_nxt */
	struct qp_last *lasts;     /* sr: last PSNs of messages received out of order */
	uint32_t n_lasts, cap_lasts;
	uint64_t pair_posts;       /* first QP of a pair: messages posted to the peer */
	const struct qp_ops *ops;  /* NULL: plain RC; else what it serves does at its hooks */
	int32_t mgroup;            /* multicast group it serves (mcast.h), -1 for unicast */
	int32_t mmember;           /* a group's responder: the member index */
	/* requester: stream offsets and T (windows, the controller's ACKs) */
	simtime_t base_rtt;        /* T (path.h fabric_base_rtt) as its controller got it */
	uint64_t una_b;            /* payload bytes acknowledged (cumulative), when track_b */
	uint64_t max_b;            /* payload bytes of first transmissions (through snd_max) */
	uint64_t next_msg_b;       /* stream offset of the next message to be numbered */
};

struct qp_last { uint32_t psn; struct flow *f; };

/* Requester: true when the QP has a packet to send (new or retransmitted)
 * that its window, if any, lets go. */
bool qp_has_data(struct qp *q);
/* Requester with a window (q->windowed): its cap on unacknowledged payload
 * bytes now. */
uint64_t qp_window_b(const struct qp *q);
/* Builds the next data packet (a retransmission first), or NULL. */
struct packet *qp_next_packet(struct sim *sim, struct qp *q);
/* A message was appended to the QP. */
void qp_post(struct qp *q, struct flow *f);
/* ACK, NAK or SACK for this requester. */
void qp_on_ack(struct sim *sim, struct qp *q, const struct packet *p);
/* The retransmission timeout expired with PSNs outstanding. */
void qp_timeout(struct sim *sim, struct qp *q);
/* Responder: a data packet for this QP. */
void qp_on_data(struct sim *sim, struct qp *q, struct packet *p);
void qp_free(struct qp *q);

#endif

/* ---- Provided by nic.c to the queue pairs. ---- */
struct world;
struct world *nic_world(const struct nic *n);
int nic_mtu(const struct nic *n);
/* Sends an ACK (psn = last PSN acknowledged), NAK (psn = PSN expected,
 * aux = SACKed PSN with sr) or CNP from QP q's NIC to its peer. An ACK
 * or NAK takes over the side record of `answers`, the data packet that
 * made the responder send it (pkt_tel.h: its send time, telemetry and CE
 * mark go back to the sender); NULL for a CNP. */
void nic_send_ctrl(struct sim *sim, struct qp *q, int type, uint32_t psn, uint32_t aux, struct packet *answers);
/* The QP may have something to send: put it in the scheduler. */
void nic_qp_wake(struct sim *sim, struct nic *n, struct qp *q);
/* The retransmission timeout deadline moved or was set. */
void nic_rto_arm(struct sim *sim, struct qp *q);
