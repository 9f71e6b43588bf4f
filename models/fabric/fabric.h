/*
 * fabric.h — the network part of rocesim, its one door for the other
 * parts: nodes and ports, frames (packet.h), switches with their MMU,
 * routing and ECMP, multicast replication, and the [switch] keys.
 *
 * The fabric moves frames between ports; it knows nothing of what a NIC
 * does with them, nor of traffic or training. Read-only questions about
 * paths (the ports a flow crosses, ideal times) go through path.h.
 */
#ifndef ROCESIM_FABRIC_H
#define ROCESIM_FABRIC_H

#include "packet.h"
#include "port.h"
#include "switch.h"

#endif
