/*
 * port.h — one end of a full-duplex link: eight priority queues, a
 * scheduler, the transmitter and the link's propagation toward the peer.
 *
 * Scheduling: classes PORT_CTRL_PRIO and above (ACK, NAK, CNP) are served
 * by strict priority, highest first; the data classes below share the link
 * by deficit weighted round robin with equal quanta. A host port has a
 * pull source (its NIC) consulted after its queues, so data is segmented
 * only when the link is free.
 *
 * Events: a port keeps at most one pending "transmission done" event, and
 * only while frames wait; the frames on the wire toward the peer form a
 * FIFO (arrival times on one link only grow) with one pending arrival event
 * for its head, so the event queue holds a few events per port however many
 * packets are in flight. Each frame still costs one arrival event at the
 * peer (start + serialisation + propagation + the peer's switch latency). A
 * frame that meets an idle port is sent at once, so a packet crossing idle
 * equal-rate hops costs one event per hop.
 *
 * Serialisation counts the frame plus preamble and inter-frame gap
 * (PKT_WIRE_EXTRA_B); statistics count frame bytes (analysis/schema.sql, port_stats).
 */
#ifndef ROCESIM_PORT_H
#define ROCESIM_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include "packet.h"
#include "sim.h"

#define PORT_PRIOS 8
#define PORT_CTRL_PRIO 6              /* ACK/NAK/CNP class: docs/protocol.md "Frames on the wire", CNP on priority 6 */
#define PORT_DATA_CLASSES PORT_CTRL_PRIO
#define PORT_DWRR_QUANTUM_B 9300      /* >= largest frame, so a visit always sends */

struct node;
struct link_loss;

/* A capture hook on a port (the observers' packet capture): told of each
 * frame the port sends, when its first bit goes on the wire, and of each
 * frame that lands on it, when its last bit arrived. */
struct port_tap {
	void (*tx)(struct port_tap *t, simtime_t at, const struct packet *pkt);
	void (*rx)(struct port_tap *t, simtime_t at, const struct packet *pkt);
};

struct port_queue {
	struct packet *head, *tail;
	uint64_t bytes;                /* frame bytes queued */
	uint32_t n;
};

typedef struct packet *(*port_pull_fn)(struct sim *sim, void *ctx);

/* Ports live in one array (fabric.ports), aligned to cache lines; fields are
 * ordered by use so that a frame landing reads one line of the port that
 * sent it (line 0: its link) and none of the port it lands on, and a frame
 * sent from an idle port touches that port's lines 0 and 1; its class
 * queue's line only when frames wait (docs/architecture.md "Speed": the hot path touches
 * few lines). */
struct port {
	/* Line 0: the link toward the peer: the frames on it, and what a frame
	 * landing at the peer needs of the peer (port_connect keeps copies). */
	struct packet *fly_head, *fly_tail; /* on the wire toward the peer, oldest first */
	struct sim_elem land;          /* schedules the landings at the peer: the link's own
				       * sequence, one key a frame in the order sent, so a
				       * partitioned run stamps a frame crossing ranks alike */
	struct port *peer;
	struct node *peer_node;        /* peer->node */
	void *peer_ctx;                /* peer->pull_ctx: at a host, its NIC (the receive hook's context) */
	uint16_t peer_idx;             /* peer->idx */
	bool peer_tapped;              /* peer->tap != NULL */
	uint8_t peer_pass;             /* at a switch peer, its ingress's pass summary
				       * (mmu_pass_sync keeps this copy) */
	bool down;                     /* the link is down (failure.h): frames put on it are lost */
	bool lossy;                    /* frames sent here may be corrupted on the wire (loss,
				       * link_loss.h); false: a lossless direction */
	uint32_t fly_doomed;           /* frames at the head of the FIFO that were on the
				       * wire when the link last went down: lost on landing */
	/* Line 1: sending. */
	struct node *node __attribute__((aligned(64)));
	struct sim_elem elem;          /* schedules departures, PFC refreshes and expiries */
	simtime_t busy_until;          /* end of the frame being serialised */
	simtime_t flight_ps;           /* propagation and the peer's switch latency */
	uint32_t ps_per_byte;          /* exact serialisation per byte, 0 if the rate has none */
	union {                        /* busy: any of these, read at once by port_idle_for */
		struct {
			bool tx_event;         /* a transmission-done event is pending */
			uint8_t nonempty;      /* bit c: q[c] holds frames */
			uint8_t pfc_pend_off, pfc_pend_on; /* PFC frames to send: classes to pause /
							    * resume at the peer */
		};
		uint32_t busy;
	};
	uint16_t idx;                  /* port number on its node */
	uint8_t paused;                /* bit c: egress class c paused by the peer's PFC */
	bool pull_more;                /* the pull source has data (kept by the source) */
	uint8_t pull_classes;          /* classes the pull source sends (bit c: class c; it skips paused ones) */
	uint8_t xoff;                  /* classes this port keeps paused at its peer (refreshed) */
	bool tx_hook;                  /* a frame sent calls port_tx_hook: tap != NULL or int_stamp */
	uint64_t tx_bytes;
	uint64_t tx_packets;
	/* Queueing, scheduling and the pull source. */
	uint64_t queued_bytes;         /* sum over classes */
	uint64_t max_queue_bytes;
	port_pull_fn pull;             /* host ports: the NIC */
	void *pull_ctx;
	int32_t deficit[PORT_DATA_CLASSES];
	bool pfc_refresh;              /* a refresh event is pending */
	uint8_t dwrr_cur;              /* DWRR: class being visited */
	bool dwrr_visited;             /* DWRR: quantum already granted this visit */
	struct port_queue q[PORT_PRIOS];
	/* Capture, PFC, configuration and the end of the run. */
	struct port_tap *tap;          /* capture of this port's link; NULL: none */
	bool int_stamp;                /* a switch egress that stamps telemetry (pkt_tel.h) */
	simtime_t delay_ps;            /* propagation to the peer */
	simtime_t peer_latency_ps;     /* the peer's switch latency, paid on arrival */
	int link_id;
	uint64_t rate_bps;
	simtime_t paused_until[PORT_PRIOS]; /* end of the pause of each paused class */
	simtime_t paused_since[PORT_PRIOS]; /* start of the current pause interval */
	uint64_t drops, ecn_marked;
	uint64_t rx_corrupt;           /* frames landed here corrupted, dropped (link_loss.h) */
	struct link_loss *loss;        /* lossy: the draws of this direction (link_loss.h) */
	uint64_t pause_tx, pause_rx;
	simtime_t paused_ps;
	uint64_t fail_lost;            /* frames lost on this port's link while down or in flight
				       * when it went down (failure.h); not in tx_packets */
	int32_t fail_id;               /* the failure that last took the link down, -1: none */
	bool remote;                   /* the peer is another rank's (port_set_remote) */
	char name[40];                 /* "tor3:p5" */
} __attribute__((aligned(64)));

void port_init(struct sim *sim, struct port *p, struct node *node, int idx,
	       uint64_t rate_bps, simtime_t delay_ps);
/* In place of port_init for a port this process does not build (another
 * rank's, fabric.h): its two elements are numbered, nothing is written. */
void port_skip(struct sim *sim);
/* Links p to its peer, whose node has the given switch latency (0 for a
 * host): sets peer and the copies line 0 keeps of it. */
void port_connect(struct port *p, struct port *peer, simtime_t peer_latency_ps);
/* Makes fn(ctx) p's pull source (a host port's NIC). */
void port_set_pull(struct port *p, port_pull_fn fn, void *ctx);
/* Starts (tap) or stops (NULL) capturing the frames sent and landed on p. */
void port_set_tap(struct port *p, struct port_tap *tap);
/* Makes switch port p stamp in-band telemetry on the data frames it sends
 * whose side record asks for it (pkt_tel.h). Off, a port pays nothing for
 * telemetry: the test shares the capture's branch (tx_hook). */
void port_set_int(struct port *p, bool on);
/* Frame bytes landed on p: those its peer sent less those still on the
 * wire (not counted per frame). */
uint64_t port_rx_bytes(const struct port *p);
/* Frames put on any of the n ports' links (the run's packet-hops: not
 * counted per frame), of the ports i whose held[i] is not 0 (NULL: all;
 * fabric.h). */
uint64_t port_tx_packets_sum(const struct port *ports, int n, const uint8_t *held);
/* sim_run, with the two most frequent events of a fabric (a frame
 * landing, a transmission done) run by direct calls (sim_loop.h). */
int port_run(struct sim *sim);
/* sim_run_bounded (sim_loop.h) with the same direct calls: one window of a
 * partitioned run. */
bool port_run_bounded(struct sim *sim, simtime_t bound_t, uint64_t bound_key, bool check_done,
		      const int16_t *owner, int me, uint64_t *foreign);
/* A frame sent by src on another rank reaches this rank's copy of src's
 * link, to land at the peer at arrive_at (after those already on it).
 * doomed: the link went down while it flew (failure.h), so it is lost on
 * landing; the frames ahead of it on the link went down with it. */
void port_inject(struct sim *sim, struct port *src, struct packet *pkt, simtime_t arrive_at, bool doomed);
/* Makes p's peer another rank's (partitioned run): every frame p sends
 * goes to its node's fabric's ship hook instead of onto the local link. */
void port_set_remote(struct port *p);
/* Queue a frame for transmission and start it if the link is free. */
void port_enqueue(struct sim *sim, struct port *p, struct packet *pkt);
/* An idle port with nothing queued, owed or pausing class prio would
 * pick a frame of that class at once: port_enqueue sends it without the
 * queue round trip (same statistics, same order; most frames of a lightly
 * loaded fabric take this path). */
static inline bool port_idle_for(const struct sim *sim, const struct port *p, int prio)
{
	return !p->busy && sim->now >= p->busy_until && !(p->paused & (1u << prio));
}
/* Sends pkt now on a port idle for its class (port_idle_for), as
 * port_enqueue would, but without a switch's buffer release: for a frame
 * whose buffer use is a no-op (mmu_passes). */
void port_pass(struct sim *sim, struct port *p, struct packet *pkt);
/* A pull source has new data: start sending if the link is free. */
void port_kick(struct sim *sim, struct port *p);

/* Ask the peer to pause (off = true) or resume class c: a PFC frame goes
 * out ahead of every queue; XOFF carries the maximum pause time and is
 * refreshed at half of it while the class stays paused. */
void port_pfc_request(struct sim *sim, struct port *p, int c, bool off);
/* The same, owed but not started: for p starting a frame now, whose end
 * sends it (a frame leaving by the port it came in, whose buffer release
 * resumes that port's peer). */
void port_pfc_owe(struct sim *sim, struct port *p, int c, bool off);
/* A PFC frame arrived on p: pause or resume its egress classes. */
void port_pfc_receive(struct sim *sim, struct port *p, const struct packet *pkt);
/* Ends every pause still open (the run is over): records the intervals. */
void port_pfc_close(struct sim *sim, struct port *p);
/* The link of p went down (failure fail_id): frames on the wire toward
 * the peer are lost as they land, queued frames now (a switch's buffer
 * released), pauses received lifted, PFC frames owed forgotten; frames
 * sent while down are lost (port_start). Called for both ends. */
void port_link_down(struct sim *sim, struct port *p, int fail_id);
/* The link of p carries frames again. */
void port_link_up(struct sim *sim, struct port *p);

/* The pause time of `quanta` at this port's rate. */
static inline simtime_t port_quanta_ps(const struct port *p, uint32_t quanta)
{
	return simtime_serialize((uint64_t)quanta * PFC_QUANTUM_BITS / 8, p->rate_bps);
}

static inline simtime_t port_ser_ps(const struct port *p, uint32_t wire_b)
{
	return p->ps_per_byte ? (simtime_t)wire_b * p->ps_per_byte : simtime_serialize(wire_b, p->rate_bps);
}

#endif
