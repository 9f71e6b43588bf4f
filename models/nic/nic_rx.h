/*
 * nic_rx.h — the receive path from a NIC into its host, when the host is
 * slower than the link ([nic] rx_rate: PCIe or memory bandwidth).
 *
 * Data frames wait in the NIC's receive buffer ([nic] rx_buffer) and are
 * handed to their queue pair one at a time, each after its frame bytes at
 * rx_rate. With PFC on, the NIC pauses the data class at its ToR when the
 * buffer passes XOFF = rx_buffer − headroom (the same auto headroom a
 * switch port uses) and resumes it when the buffer drained two maximal
 * frames below that, so a slow host backs up into the fabric as real NICs
 * do. Without PFC, or if the buffer overflows anyway, frames are dropped
 * and counted on the host port. Control frames (ACK, NAK, CNP, PFC) are
 * consumed by the NIC itself and never wait here. With rx_rate off this
 * path is not used: frames go straight to their QP.
 */
#ifndef ROCESIM_NIC_RX_H
#define ROCESIM_NIC_RX_H

#include <stdbool.h>
#include <stdint.h>
#include "sim.h"

struct packet;
struct port;

typedef void (*nic_rx_deliver_fn)(struct sim *sim, void *ctx, struct packet *p);

struct nic_rx {
	struct packet *head, *tail;    /* frames waiting for the host, oldest first */
	uint64_t bytes;                /* frame bytes held */
	uint64_t cap_b;                /* rx_buffer */
	uint64_t xoff_b, xon_b;        /* PFC thresholds of the lossless class */
	uint64_t rate_bps;             /* rx_rate; 0 = the path is off */
	bool busy;                     /* the head is being taken (one event pending) */
	bool paused;                   /* XOFF sent, no XON yet */
	int lossless;                  /* class paused by PFC, -1 without PFC */
	struct port *port;             /* the NIC's host port */
	struct sim_elem *elem;
	nic_rx_deliver_fn deliver;
	void *ctx;
	uint64_t lossless_drops;       /* lossless frames dropped: buffer too small */
};

/* The receive buffer of the NIC at port (which it only points to) whose
 * link needs hdrm bytes of headroom (fabric_headroom: what still arrives
 * after XOFF, the link's round trip with the ToR's latency, the frames in
 * progress at both ends and the XOFF itself). Returns 0, or -1 when the
 * buffer cannot hold it (*need_b says how much it needs). */
int nic_rx_init(struct nic_rx *rx, const struct port *port, uint64_t hdrm, uint64_t rate_bps, uint64_t cap_b,
		int lossless, uint32_t max_frame_b, uint64_t *need_b);
/* A data frame arrived from the link. */
void nic_rx_push(struct sim *sim, struct nic_rx *rx, struct packet *p);
static inline bool nic_rx_empty(const struct nic_rx *rx) { return !rx->head; }

#endif
