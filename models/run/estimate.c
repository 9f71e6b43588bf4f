/*
 * estimate.c — the memory a scenario will need (see estimate.h).
 *
 * Terms, each from the size of the structure that holds it:
 *   fabric   sizeof(struct node) per node, sizeof(struct port) per link end,
 *            sizeof(struct mmu_port) per switch port, a NIC per endpoint;
 *   routing  routing.h: one uint16 per (switch, endpoint) plus its sets;
 *   flows    every flow a static traffic section posts (incast, permutation,
 *            all_to_all, flows) lives at once: sizeof(struct flow), a pair
 *            of queue pairs (requester and responder, nic.c; pairs are
 *            distinct in these patterns) with their congestion-control
 *            state and, with selective repeat, the send-time ring (64
 *            PSNs), the NIC's QP map and lists, malloc's overhead and an
 *            event; Poisson, collective and job traffic post as they go and
 *            are not counted (their concurrency is bounded by the fabric).
 *            Measured: a k=16 fat tree with all-to-all 1 KB messages
 *            (1,047,552 flows, DCQCN) peaks at 1297 MB;
 *   packets  sizeof(struct packet) per frame: what each link holds in flight
 *            (rate x delay, both directions) plus PORT_QUEUE_FRAMES queued
 *            per port — what queues hold in practice, far below full buffers;
 *   sqlite   the page cache results.c sets (cache_size = -65536: 64 MiB),
 *            reached by databases that large (a flow row is ~150 B), plus
 *            the sorter that builds the indexes at the end (~16 MiB once
 *            the cache is full; test/bench/RESULTS.md, massif of
 *            fat_tree_moe). Traffic whose flow count is not known in
 *            advance (Poisson, collectives, jobs) is assumed to fill both;
 *   base     the process before any of it (measured: ~8 MiB for -O2 `sim`).
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include "job.h"
#include "traffic.h"
#include "config.h"
#include "estimate.h"
#include "nic.h"
#include "fabric.h"
#include "topology.h"

#define EST_BASE_B (8ull << 20)
#define EST_NIC_B 512ull              /* struct nic and its QP table, per endpoint */
#define EST_EVENT_B 48ull             /* an event in the heap, with slack */
#define EST_FLOW_ROW_B 150ull         /* a flow row in SQLite's cache */
#define EST_SQLITE_CACHE_B (64ull << 20)
#define EST_SQLITE_SORT_B (16ull << 20)
#define PORT_QUEUE_FRAMES 16ull
#define EST_MALLOC_B 16ull            /* glibc's per-allocation overhead */
#define EST_QP_MAP_B 64ull            /* QP map slots (load <= 1/2) and QP list entries, per pair */

void estimate_memory(const struct config *cfg, const struct topo *t, struct mem_estimate *e)
{
	*e = (struct mem_estimate){ .base_b = EST_BASE_B };
	uint64_t eps = (uint64_t)topo_n_eps(t);
	uint64_t switches = (uint64_t)(t->n_nodes - t->n_hosts);
	uint64_t ports = 2 * (uint64_t)t->n_links;
	e->fabric_b = fabric_estimate_b(t) + eps * EST_NIC_B;
	e->routing_b = switches * (eps * sizeof(uint16_t) + 64 * sizeof(uint16_t));
	bool open = cfg_count(cfg, &job_section) > 0;
	e->flows = traffic_flows_known(cfg, t->n_hosts, &open);
	const struct nic_cfg *nic = nic_cfg_of(cfg);
	struct nic_flow_b fb;
	nic_flow_estimate(cfg, &fb);
	uint64_t per_flow = fb.records_b + fb.allocs * EST_MALLOC_B + EST_QP_MAP_B + EST_EVENT_B;
	e->flows_b = e->flows * per_flow;
	/* Frames on the wire: bits in flight on each link end, one frame per
	 * MTU-sized packet; plus a few queued at every port. */
	uint64_t frame_b = pkt_data_frame_b((uint32_t)(nic->mtu > 0 ? nic->mtu : 1024), 0);
	unsigned __int128 fly_bits = 0;
	for (int l = 0; l < t->n_links; l++)
		fly_bits += (unsigned __int128)t->links[l].rate_bps * (uint64_t)t->links[l].delay_ps;
	uint64_t fly_frames = (uint64_t)(2 * fly_bits / 8000000000000ull / frame_b) + 2 * (uint64_t)t->n_links;
	e->packets_b = (fly_frames + ports * PORT_QUEUE_FRAMES) * (sizeof(struct packet) + EST_EVENT_B / 2 + fb.frame_extra_b);
	uint64_t rows = e->flows + ports;
	e->sqlite_b = !open && rows * EST_FLOW_ROW_B < EST_SQLITE_CACHE_B ? rows * EST_FLOW_ROW_B
		    : EST_SQLITE_CACHE_B + EST_SQLITE_SORT_B;
	e->total_b = e->base_b + e->fabric_b + e->routing_b + e->flows_b + e->packets_b + e->sqlite_b;
}

uint64_t estimate_machine_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
	uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	/* A container's limit, when it is lower ("max" = none). */
	FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
	if (f) {
		unsigned long long lim;
		if (fscanf(f, "%llu", &lim) == 1 && lim > 0 && (!phys || lim < phys))
			phys = lim;
		fclose(f);
	}
	return phys;
}
