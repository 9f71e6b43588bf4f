/*
 * estimate.c — the memory a scenario will need (see estimate.h).
 *
 * Terms, each from the size of the structure that holds it:
 *   fabric   sizeof(struct node) per node, sizeof(struct port) per link end,
 *            sizeof(struct mmu_port) per switch port, a NIC per endpoint;
 *   routing  routing.h: one uint16 per (switch, destination switch) plus
 *            its sets and the endpoints' shared map;
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
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "evq.h"
#include "job.h"
#include "observe.h"
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
/* Run time. Events per packet-hop (a frame put on a link): 1.52 on the
 * headline (rail-optimised), 1.80 on fat trees (test/bench/RESULTS.md,
 * `bench:` lines); their middle. */
#define EST_EVENTS_PER_HOP 1.65
/* A whole event (its model's work included) against one operation of the
 * event queue alone (queue_ns), both measured in CPU time in the same -O2
 * build on the same machine: fat_tree_moe 10.13 s for 217.2 M events
 * (46.6 ns) against 10.7 ns per queue operation (the median of 8 calls).
 * Scaling by queue_ns carries this build's and this machine's speed into
 * the estimate. */
#define EST_EVENT_PER_QUEUE_OP 4.4
#define EST_PCAP_RECORD_B 16.0        /* pcap record header */
#define EST_PCAP_FILE_B 24.0          /* pcap file header */

void estimate_memory(const struct config *cfg, const struct topo *t, struct mem_estimate *e)
{
	*e = (struct mem_estimate){ .base_b = EST_BASE_B };
	uint64_t eps = (uint64_t)topo_n_eps(t);
	uint64_t ports = 2 * (uint64_t)t->n_links;
	e->fabric_b = fabric_estimate_b(t) + eps * EST_NIC_B;
	e->routing_b = fabric_routing_estimate_b(t);
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

/* ---- Run time and capture size (estimate.h) ---- */

/* Mean links between two NICs of different hosts: over host0's NICs i, the
 * other hosts h and their NICs j, the switch hops from NIC i's switch to
 * NIC j's (breadth-first, hosts are not crossed) plus the two host links,
 * as GPU traffic is spread over the NIC pairs. 2 when the fabric has one
 * host. */
static double mean_links(const struct topo *t)
{
	int n = t->n_nodes, nh = t->n_hosts;
	if (nh < 2)
		return 2;
	int *dist = malloc((size_t)n * sizeof *dist), *queue = malloc((size_t)n * sizeof *queue);
	if (!dist || !queue) {
		free(dist);
		free(queue);
		return 2;
	}
	double sum = 0, count = 0;
	for (int pi = t->port_off[0]; pi < t->port_off[1]; pi++) {
		for (int u = 0; u < n; u++)
			dist[u] = -1;
		int head = 0, tail = 0, s = t->ports[pi].peer;
		dist[s] = 0;
		queue[tail++] = s;
		while (head < tail) {
			int u = queue[head++];
			for (int p = t->port_off[u]; p < t->port_off[u + 1]; p++) {
				int v = t->ports[p].peer;
				if (v >= nh && dist[v] < 0) {
					dist[v] = dist[u] + 1;
					queue[tail++] = v;
				}
			}
		}
		for (int h = 1; h < nh; h++)
			for (int p = t->port_off[h]; p < t->port_off[h + 1]; p++)
				if (dist[t->ports[p].peer] >= 0) {
					sum += dist[t->ports[p].peer] + 2;
					count++;
				}
	}
	free(dist);
	free(queue);
	return count ? sum / count : 2;
}

/* Nanoseconds per event queue operation (a pop and an insert, 16384
 * events pending, times spread over 1 us), on this machine and build, in
 * CPU time (other processes on a shared machine do not count): the fastest
 * of 24 rounds of 2^15, which on a shared 2-core machine varied 10.5-14 ns
 * over 8 calls where single rounds varied 10-50 ns. About 10 ms. */
static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double queue_ns(void)
{
	enum { PENDING = 16384, OPS = 1 << 15, ROUNDS = 24 };
	struct evq q;
	evq_init(&q);
	uint64_t x = 88172645463325252ull;  /* xorshift64: cheap, fixed */
	struct event e = { 0 };
	for (int i = 0; i < PENDING; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		e.t = (simtime_t)(x % 1000000);
		e.key = (uint64_t)i;
		evq_insert(&q, &e);
	}
	double best = 0;
	uint64_t key = PENDING;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = cpu_seconds();
		for (int i = 0; i < OPS; i++) {
			struct event out;
			evq_pop(&q, &out);
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			out.t += (simtime_t)(x % 1000000);
			out.key = key++;
			evq_insert(&q, &out);
		}
		double ns = (cpu_seconds() - t0) * 1e9 / OPS;
		if (!r || ns < best)
			best = ns;
	}
	evq_free(&q);
	return best;
}

void estimate_run(const struct config *cfg, const struct topo *t, const struct jobs *js,
		  int tapped_ports, bool host_taps, struct run_estimate *e)
{
	*e = (struct run_estimate){ 0 };
	struct jobs_estimate je;
	jobs_estimate(js, &je);
	e->traffic_uncounted = cfg_count(cfg, &traffic_section) > 0;
	const struct nic_cfg *nic = nic_cfg_of(cfg);
	double mtu = nic->mtu > 0 ? nic->mtu : 1024;
	/* Every message's last packet is partly filled: + one per message. */
	e->data_packets = je.net_bytes / mtu + je.net_messages;
	e->ack_packets = e->data_packets / (nic->ack_every > 0 ? nic->ack_every : 1);
	e->links_per_path = mean_links(t);
	e->packet_hops = (e->data_packets + e->ack_packets) * e->links_per_path;
	e->events = EST_EVENTS_PER_HOP * e->packet_hops;
	e->ns_per_event = queue_ns() * EST_EVENT_PER_QUEUE_OP;
	e->cpu_s = e->events * e->ns_per_event * 1e-9;
	e->sim_ps = je.end_ps;
	/* Capture: a record (16 B header and the frame, cut at snaplen) per
	 * frame per tapped link end. */
	const struct pcap_cfg *pc = cfg_get(cfg, &pcap_section);
	double data_b = pkt_data_frame_b((uint32_t)mtu, 0), ack_b = PKT_ACK_FRAME_B;
	if (pc->snaplen_b && data_b > (double)pc->snaplen_b)
		data_b = (double)pc->snaplen_b;
	if (pc->snaplen_b && ack_b > (double)pc->snaplen_b)
		ack_b = (double)pc->snaplen_b;
	double frames_b = e->data_packets * (data_b + EST_PCAP_RECORD_B) + e->ack_packets * (ack_b + EST_PCAP_RECORD_B);
	if (host_taps)   /* every host port: each frame at its sender's and its receiver's */
		e->pcap_b = 2 * frames_b;
	else if (t->n_links)   /* named ports: their share of every link end's frames */
		e->pcap_b = frames_b * e->links_per_path * tapped_ports / t->n_links;
	e->pcap_b += EST_PCAP_FILE_B * tapped_ports;
}
