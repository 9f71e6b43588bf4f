/*
 * switch.h — a switch: forwarding with ECMP and its shared packet buffer.
 *
 * Forwarding looks the destination host up in the switch's routing table
 * (routing.h) and, among equal-cost ports, picks one by hashing the 5-tuple
 * (source IP, destination IP, UDP source port, destination port 4791) with
 * MurmurHash3 and the switch's own seed (HPCC's ns-3 does the same with the
 * node id as seed); `ecmp = packet` adds the PSN so each packet may take
 * another path (spraying).
 *
 * Buffer: the shared-buffer MMU of mmu.h admits each frame on arrival
 * (per ingress port and class), asks the upstream to pause a lossless class
 * through the ingress port (PFC XOFF/XON) and marks ECN when a frame leaves.
 * A frame refused is dropped, counted on its egress port and, for data, in
 * the run's packets_dropped. PFC frames are consumed by the port they reach.
 */
#ifndef ROCESIM_SWITCH_H
#define ROCESIM_SWITCH_H

#include <stdbool.h>
#include <stdint.h>
#include "config.h"
#include "packet.h"
#include "sim.h"

struct node;
struct fabric;
struct port;
struct topo;

/* [switch] (switch.c) */
enum { ECMP_FLOW, ECMP_PACKET };
struct switch_cfg {
	uint64_t buffer_b;             /* [32MiB] */
	bool pfc;                      /* [on] */
	struct cfg_rate_map pfc_alpha; /* [0.125] */
	bool headroom_auto;            /* [auto] */
	uint64_t headroom_b;           /* when !headroom_auto */
	bool ecn;                      /* [on] */
	bool ecn_kmin_default, ecn_kmax_default; /* HPCC's 100/400 x rate/25G KB when true */
	struct cfg_rate_map ecn_kmin, ecn_kmax;  /* bytes */
	struct cfg_rate_map ecn_pmax;  /* [0.2] */
	int ecmp;                      /* ECMP_* [flow] */
};
extern const struct cfg_section switch_section;

/* The ECMP hash (ecmp_hash) and a switch's choice of egress port
 * (route_port) are in switch_fwd.h. */

/* After the switch's ports are linked: buffer and MMU state. Returns 0, or
 * -1 with *err (malloc'd) when [switch] does not fit the switch's links (a
 * per-rate value without an entry for a link's rate, a buffer smaller than
 * its headroom and reserves). */
int switch_setup(struct fabric *f, struct node *sw, char **err);
/* Before anything but the topology graph is built: every switch's
 * headroom and reserves against [switch] buffer, and the per-rate keys
 * against its links' rates, from t and the fabric's parameters alone (the
 * sums switch_setup makes, in the same order, with the same errors), so
 * a fabric whose switches cannot hold their headroom is refused in time
 * linear in its links. 0, or -1 with *err. */
int switch_check_buffers(const struct fabric *f, const struct topo *t, char **err);
void switch_free(struct node *sw);   /* no-op for other nodes */
/* Buffer counters all zero (after the fabric drained); aborts naming the switch otherwise. */
void switch_check_drained(struct node *sw);

#endif
