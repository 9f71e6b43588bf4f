/*
 * hpcc_format.h — parsers of the HPCC ns-3 simulator's input files
 * (github.com/alibaba-edu/High-Precision-Congestion-Control, simulation/
 * mix/), so the same input runs in rocesim and in that simulator
 * (REFERENCE.md "Peer simulators and their formats").
 *
 *   topology.txt   <nodes> <switches> <links>
 *                  <switch id> ... (one line, <switches> ids)
 *                  <a> <b> <rate> <delay> <error_rate>   (<links> lines)
 *                  e.g. "0 320 100Gbps 1000ns 0.000000"; ids not listed
 *                  as switches are hosts.
 *   flow.txt       <N>
 *                  <src> <dst> <priority> <dport> <size_bytes> <start_s>
 *                  (<N> lines, ascending start), e.g.
 *                  "13 6 3 100 24375 2.000000962"
 *
 * Node naming (SCENARIO.md "Node names", our numbering rules in
 * topology.h): hosts first, keeping their relative HPCC id order (the
 * smallest host id is host0), then the switches as sw0.. in HPCC id order;
 * every switch is tier 1 (the file carries no tiers). topo->hpcc_id[u] is
 * the HPCC id of our node u, so the mapping is recoverable both ways.
 * Rates and delays are HPCC's per link, parsed with our units ("100Gbps",
 * "1000ns", "0.001ms"); error_rate must be 0 (no random loss is modelled).
 *
 * Both parsers read from a memory buffer (no NUL terminator needed; text
 * may contain anything) and are safe on hostile input: they never crash,
 * leak, or allocate more than a small multiple of `len` (declared counts
 * larger than the text could hold are errors before any allocation).
 * Errors: -1 and *err, malloc'd, "NAME:LINE: what was found, what was
 * expected". On failure the outputs are left empty (nothing to free).
 */
#ifndef ROCESIM_HPCC_FORMAT_H
#define ROCESIM_HPCC_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "simtime.h"

struct topo;

/* One line of flow.txt, ids as in the file (HPCC node ids). */
struct hpcc_flow {
	int src, dst;              /* HPCC node ids */
	int priority;              /* the file's priority group (HPCC: 3) */
	uint32_t dport;            /* the file's destination port */
	uint32_t sport;            /* HPCC's source port: 10000 + the number of earlier
				    * flows of the same (src, dst) in the file
				    * (third.cc, portNumder[src][dst]++) */
	uint64_t size_b;
	simtime_t start_ps;        /* start_s exactly in ps (decimal, not via double) */
	int line;                  /* line in the file, for later errors */
};

/* Parses topology.txt into t (zeroed first; nodes, links and hpcc_id
 * filled, ports numbered with topo_finalize, n_hosts set, nics_per_host 1).
 * Checks: counts, ids in [0, nodes), switch ids distinct, links between
 * two distinct nodes, every host on exactly one link (one NIC per host),
 * rate > 0, delay >= 0, error_rate 0, at least one host, nothing after
 * the last link but blank space. 0, or -1 with *err and t empty. */
int hpcc_topology_parse(const char *name, const char *text, size_t len, struct topo *t,
			char **err);

/* Parses flow.txt: *flows (malloc'd, *n entries, file order). Checks: the
 * count matches the lines, ids >= 0 (the caller checks them against its
 * topology), src != dst, size > 0, start >= 0 with at most 12 decimals
 * (ps), starts non-decreasing (HPCC reads the file sequentially and
 * requires it). 0, or -1 with *err, *flows NULL and *n 0. */
int hpcc_flows_parse(const char *name, const char *text, size_t len, struct hpcc_flow **flows,
		     size_t *n, char **err);

/* Reads a whole file into *text (malloc'd, NUL-terminated, *len bytes
 * before the NUL). 0, or -1 with *err "PATH: cannot read: REASON". */
int hpcc_file_read(const char *path, char **text, size_t *len, char **err);

/* HPCC's IPv4 address of node id (third.cc node_id_to_ip):
 * 0x0b000001 + (id / 256) << 16 + (id % 256) << 8. */
static inline uint32_t hpcc_node_ip(uint32_t id)
{
	return 0x0b000001u + ((id / 256u) << 16) + ((id % 256u) << 8);
}

#endif
