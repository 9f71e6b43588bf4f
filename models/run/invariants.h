/*
 * invariants.h — accounting identities of a live fabric (docs/architecture.md "Kernel contracts": a
 * packet that vanishes without being counted, or a buffer count that
 * drifts, is a bug).
 *
 *   conservation  data packets sent by NICs = delivered + dropped + those
 *                 still in the network (switch and host port queues, links);
 *   buffers       every switch's MMU holds, per (ingress port, class),
 *                 exactly the frame bytes of the frames queued that entered
 *                 there; used_b and shared_used_b are the sums they claim.
 * Debug builds (--enable-debug) check both at every watchdog tick and when
 * the run ends; every build checks conservation once when the run ends and
 * reports it in the summary (sent, delivered, dropped, in flight).
 */
#ifndef ROCESIM_INVARIANTS_H
#define ROCESIM_INVARIANTS_H

#include <stdbool.h>

struct world;

/* Whether conservation can be checked from the ports alone: false when NICs
 * model a receive buffer ([nic] rx_rate), which holds packets out of sight. */
bool inv_conservation_checkable(const struct world *w);
/* Aborts (SIM_ASSERT, naming the element) on a broken identity. */
void inv_check(struct world *w);

#endif
