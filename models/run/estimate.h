/*
 * estimate.h — how much memory a scenario will need, known before the world
 * is built (issue 8, "Resource limits"): a scenario too big for the machine
 * is refused at --check time and before a run, with the estimate, instead of
 * by the OOM killer an hour in.
 *
 * The estimate is computed from the configuration and the topology
 * description (struct topo: tens of bytes per node and link, cheap even for a
 * k=64 fat tree), never from the live world, whose routing tables, ports and
 * flows are what a too large scenario cannot afford. It is an expectation,
 * not a bound: packets are counted for what the links hold in flight plus a
 * few frames queued per port, not for every switch buffer full.
 */
#ifndef ROCESIM_ESTIMATE_H
#define ROCESIM_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

struct config;
struct topo;

struct mem_estimate {
	uint64_t base_b;       /* the process itself: code, libraries, SQLite */
	uint64_t fabric_b;     /* nodes, ports, MMUs, NICs */
	uint64_t routing_b;    /* forwarding tables: 2 B per (switch, endpoint) */
	uint64_t flows_b;      /* flows known in advance, their queue pairs and events */
	uint64_t packets_b;    /* frames in flight and queued */
	uint64_t sqlite_b;     /* the result database's page cache */
	uint64_t total_b;
	uint64_t flows;        /* flows known in advance */
};

/* Fills e for cfg with its topology t (topology_build's result). */
void estimate_memory(const struct config *cfg, const struct topo *t, struct mem_estimate *e);
/* What a run will cost, before it runs: packets from the jobs' plans
 * (jobs_estimate: messages between hosts; [traffic] sections are not
 * counted), packet-hops over the mean path, events at EST_EVENTS_PER_HOP,
 * CPU time at a cost per event scaled by a measurement of this build's
 * event queue, and the bytes a capture would write. An expectation of the
 * order of magnitude, not a bound. */
struct run_estimate {
	double data_packets, ack_packets;
	double links_per_path;     /* mean links between NICs of two hosts */
	double packet_hops, events;
	double ns_per_event, cpu_s;
	double sim_ps;             /* when the jobs should end; 0 without jobs */
	double pcap_b;             /* what the capture would write */
	bool traffic_uncounted;    /* [traffic] sections exist: not in the figures */
};
struct jobs;
/* tapped_ports: link ends captured; host_taps: they are every host port. */
void estimate_run(const struct config *cfg, const struct topo *t, const struct jobs *js,
		  int tapped_ports, bool host_taps, struct run_estimate *e);

/* Memory this process may use: physical memory, or the cgroup v2 limit
 * (/sys/fs/cgroup/memory.max) when lower; 0 when unknown. */
uint64_t estimate_machine_memory(void);

#endif
