/*
 * world.c — turning a topology into live nodes and ports (see world.h).
 *
 * Element ids are registered in a fixed order (nodes by id, then each
 * node's ports by index) so that tie-breaking never depends on anything but
 * the scenario.
 *
 * Hosts: one NIC per host port (port i = NIC i = endpoint host x
 * nics_per_host + i, world.h); node.nic is NIC 0. GPUs are not elements:
 * NVLink (nvlink.c) schedules on its host's element. In results, GPUs get
 * node rows after the network nodes (node id n_nodes + GPU id, kind 'gpu',
 * tier 0 like hosts, analysis/schema.sql), one per host when hosts have a
 * single GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "config.h"
#include "job.h"
#include "log.h"
#include "mcast_internal.h"
#include "nic.h"
#include "nvlink.h"
#include "packet.h"
#include "port.h"
#include "results.h"
#include "rng.h"
#include "switch.h"
#include "traffic.h"
#include "world.h"
#include "xalloc.h"

int world_build(struct world *w, struct sim *sim, const struct config *cfg, char **err)
{
	memset(w, 0, sizeof *w);
	w->sim = sim;
	w->cfg = cfg;
	w->topo_cfg = topology_cfg(cfg);
	w->sw_cfg = cfg_get(cfg, &switch_section);
	w->nic_cfg = nic_cfg_of(cfg);
	w->cnp_interval = cc_cnp_interval(cfg, w->nic_cfg->cc);
	w->post = world_post_host;
	if (topology_build(cfg, &w->topo, err) < 0)
		return -1;
	const struct topo *t = &w->topo;
	w->n_nodes = t->n_nodes;
	w->n_hosts = t->n_hosts;
	w->nics_per_host = t->nics_per_host;   /* >= 1 after topology_build */
	/* A config filled by hand (tests) may leave gpus_per_host 0. */
	w->gpus_per_host = w->topo_cfg->gpus_per_host > 1 ? w->topo_cfg->gpus_per_host : 1;
	if ((int64_t)w->n_hosts * w->gpus_per_host > INT32_MAX / 2) {
		*err = str_printf("[topology] gpus_per_host = %d: %lld GPUs; at most %d are supported",
				  w->gpus_per_host, (long long)w->n_hosts * w->gpus_per_host, INT32_MAX / 2);
		topology_free(&w->topo);
		return -1;
	}
	w->n_gpus = w->n_hosts * w->gpus_per_host;
	w->n_eps = w->n_hosts * w->nics_per_host;
	w->eps = xcalloc((size_t)w->n_eps, sizeof *w->eps);
	w->n_ports = t->port_off[t->n_nodes];
	w->nodes = xcalloc_lines((size_t)w->n_nodes, sizeof *w->nodes);
	w->ports = xcalloc_lines((size_t)w->n_ports, sizeof *w->ports);
	w->routes = xcalloc((size_t)w->n_nodes, sizeof *w->routes);
	if (routing_build(t, w->routes, err) < 0) {
		world_free(w);
		return -1;
	}
	pool_init(&w->pkt_pool, sizeof(struct packet), 4096);
	pool_init(&w->flow_pool, sizeof(struct flow), 1024);
	for (int u = 0; u < t->n_nodes; u++) {
		struct node *nd = &w->nodes[u];
		nd->id = u;
		nd->kind = t->nodes[u].kind;
		nd->tier = t->nodes[u].tier;
		nd->name = t->nodes[u].name;
		nd->w = w;
		nd->ports = &w->ports[t->port_off[u]];
		nd->n_ports = topo_n_ports(t, u);
		sim_elem_register(sim, &nd->elem, nd->name);
		if (nd->kind == NODE_SWITCH) {
			nd->rt = &w->routes[u];
			nd->set_of_dst = nd->rt->set_of_dst;
			nd->sets = nd->rt->sets;
			nd->rt_ports = nd->rt->ports;
			nd->ecmp_seed = (uint32_t)rng_derive(sim->seed, RNG_ECMP_SEED, (uint64_t)u);
			nd->ecmp_packet = w->sw_cfg->ecmp == ECMP_PACKET;
		}
		for (int i = 0; i < nd->n_ports; i++) {
			const struct topo_port *tp = &t->ports[t->port_off[u] + i];
			const struct topo_link *l = &t->links[tp->link];
			port_init(sim, &nd->ports[i], nd, i, l->rate_bps, l->delay_ps);
			nd->ports[i].link_id = tp->link;
		}
	}
	for (int u = 0; u < t->n_nodes; u++) {
		struct node *nd = &w->nodes[u];
		for (int i = 0; i < nd->n_ports; i++) {
			const struct topo_port *tp = &t->ports[t->port_off[u] + i];
			struct node *peer = &w->nodes[tp->peer];
			port_connect(&nd->ports[i], &peer->ports[tp->peer_port],
				     peer->kind == NODE_SWITCH ? w->topo_cfg->switch_latency : 0);
		}
		if (nd->kind == NODE_SWITCH)
			switch_setup(w, nd);
		if (nd->kind == NODE_HOST) {
			for (int i = 0; i < nd->n_ports; i++) {
				struct endpoint *ep = &w->eps[world_ep(w, u, i)];
				ep->host = nd;
				ep->port = &nd->ports[i];
				ep->nic = nic_create(w, nd, i, world_ep(w, u, i));
			}
			nd->nic = w->eps[world_ep(w, u, 0)].nic;
			nd->receive = nic_receive;
		}
		if (w->setup_err) { /* switch_setup or nic_create found bad input */
			*err = w->setup_err;
			w->setup_err = NULL;
			world_free(w);
			return -1;
		}
	}
	if (w->gpus_per_host > 1)
		w->nvlink = nvlink_create(w);
	return 0;
}

void world_free(struct world *w)
{
	if (w->nvlink)
		nvlink_free(w);
	if (w->jobs)
		jobs_free(w);
	if (w->traffic)
		traffic_free(w);
	mcast_free(w);
	for (int u = 0; w->nodes && u < w->n_nodes; u++)
		switch_free(&w->nodes[u]);
	for (int e = 0; w->eps && e < w->n_eps; e++)
		nic_destroy(w->eps[e].nic);
	free(w->eps);
	if (w->routes)
		routing_free(w->routes, w->n_nodes);
	free(w->routes);
	free(w->nodes);
	free(w->ports);
	topology_free(&w->topo);
	pool_destroy(&w->pkt_pool);
	pool_destroy(&w->flow_pool);
	memset(w, 0, sizeof *w);
}

int world_host_id(const struct world *w, const char *name)
{
	int id = topo_find(&w->topo, name);
	return id >= 0 && id < w->topo.n_hosts ? id : -1;
}

bool world_done(struct sim *sim, void *ctx)
{
	struct world *w = ctx;
	(void)sim;
	return w->sources_active == 0 && w->flows_done == w->flows_posted;
}

void world_check_drained(struct world *w)
{
	struct sim *sim = w->sim;
	for (int i = 0; i < w->n_ports; i++) {
		const struct port *p = &w->ports[i];
		SIM_ASSERT(sim, &p->elem, p->queued_bytes == 0 && p->nonempty == 0 && !p->fly_head,
			   "port not drained: %llu bytes queued, %s in flight",
			   (unsigned long long)p->queued_bytes, p->fly_head ? "frames" : "nothing");
	}
	for (int u = 0; u < w->n_nodes; u++)
		switch_check_drained(&w->nodes[u]);
	SIM_ASSERT(sim, &sim->kernel, w->pkt_pool.live == 0, "%zu packets never returned to the pool",
		   w->pkt_pool.live);
	if (w->nvlink)
		nvlink_check_drained(w);
}

static const char *kind_name(enum node_kind k)
{
	static const char *const names[] = { [NODE_HOST] = "host", [NODE_GPU] = "gpu",
					     [NODE_SWITCH] = "switch", [NODE_NVSWITCH] = "nvswitch" };
	return names[k];
}

static const char node_cols[] = "node_id, name, kind, tier";
static const char link_cols[] = "link_id, node_a, port_a, node_b, port_b, rate_bps, delay_ps";
static const char port_cols[] = "node, port, tx_bytes, tx_packets, rx_bytes, drops, ecn_marked,"
				" pause_frames_tx, pause_frames_rx, paused_ps, max_queue_bytes";

int world_results_prepare(const struct world *w, struct results *res)
{
	(void)w;
	return results_table(res, "node", node_cols) && results_table(res, "link", link_cols) &&
	       results_table(res, "port_stats", port_cols) ? 0 : -1;
}

void world_write_topology(const struct world *w, struct results *res)
{
	struct results_table *tn = results_table(res, "node", node_cols);
	struct results_table *tl = results_table(res, "link", link_cols);
	if (!tn || !tl)
		return;
	for (int u = 0; u < w->n_nodes; u++)
		results_row(res, tn, "issi", u, w->nodes[u].name, kind_name(w->nodes[u].kind), w->nodes[u].tier);
	char name[48];
	for (int g = 0; g < w->n_gpus; g++)
		results_row(res, tn, "issi", world_gpu_node_id(w, g), world_gpu_name(w, g, name, sizeof name),
			    kind_name(NODE_GPU), 0);
	/* Link rows in link order: the port at end `a` of each link, in one pass. */
	const struct topo *t = &w->topo;
	int *pa = xmalloc((size_t)(t->n_links ? t->n_links : 1) * sizeof *pa);
	for (int u = 0; u < t->n_nodes; u++)
		for (int i = 0; i < topo_n_ports(t, u); i++) {
			const struct topo_port *tp = &t->ports[t->port_off[u] + i];
			if (t->links[tp->link].a == u)
				pa[tp->link] = i;
		}
	for (int l = 0; l < t->n_links; l++) {
		const struct topo_link *lk = &t->links[l];
		const struct topo_port *tp = &t->ports[t->port_off[lk->a] + pa[l]];
		results_row(res, tl, "iiiiiul", l, lk->a, pa[l], lk->b, tp->peer_port, lk->rate_bps,
			    (int64_t)lk->delay_ps);
	}
	free(pa);
	mcast_write_rows(w, res); /* groups made before the database opened */
}

static void write_unfinished(const struct flow *f, void *ctx)
{
	world_flow_report(ctx, f);
}

void world_add_flow_sink(struct world *w, world_flow_fn fn, void *ctx)
{
	if (w->n_sinks == WORLD_MAX_SINKS)
		die_internal("more than %d observers of flow records", WORLD_MAX_SINKS);
	w->sinks[w->n_sinks++] = (struct world_sink){ fn, ctx };
}

void world_write_final(struct world *w, struct results *res)
{
	struct results_table *t = results_table(res, "port_stats", port_cols);
	for (int i = 0; t && i < w->n_ports; i++) {
		const struct port *p = &w->ports[i];
		results_row(res, t, "siuuuuuuulu", p->node->name, (int)p->idx, p->tx_bytes, p->tx_packets,
			    port_rx_bytes(p), p->drops, p->ecn_marked, p->pause_tx, p->pause_rx,
			    (int64_t)p->paused_ps, p->max_queue_bytes);
	}
	for (int e = 0; e < w->n_eps; e++)
		nic_foreach_flow(w->eps[e].nic, write_unfinished, w);
	if (w->nvlink)
		nvlink_write_unfinished(w);
	mcast_write_unfinished(w);
}

char *world_gpu_name(const struct world *w, int gpu, char *buf, size_t size)
{
	snprintf(buf, size, "%s.gpu%d", w->nodes[world_gpu_host(w, gpu)].name, gpu % w->gpus_per_host);
	return buf;
}

struct flow *world_post_host(struct world *w, int src, int dst, uint64_t size_b,
			     const char *source, const char *parallelism)
{
	return nic_post(w, world_ep(w, src, 0), world_ep(w, dst, 0), size_b, source, parallelism);
}

int world_host_list(struct world *w, const char *section, const char *key,
		      char *const *names, size_t n, int **ids, char **err)
{
	int n_hosts = w->topo.n_hosts;
	*ids = NULL;
	if (n == 0 || (n == 1 && strcmp(names[0], "all") == 0)) {
		int *v = xmalloc((n_hosts ? n_hosts : 1) * sizeof *v);
		for (int h = 0; h < n_hosts; h++)
			v[h] = h;
		*ids = v;
		return n_hosts;
	}
	int *v = xmalloc(n * sizeof *v);
	/* Seen-marks catch a host listed twice, which would silently double
	 * its share of the traffic. */
	unsigned char *seen = xcalloc(n_hosts ? n_hosts : 1, 1);
	for (size_t i = 0; i < n; i++) {
		int h = world_host_id(w, names[i]);
		if (h < 0) {
			*err = cfg_error_at(w->cfg, section, key, 0, "unknown host '%s'", names[i]);
			goto fail;
		}
		if (seen[h]) {
			*err = cfg_error_at(w->cfg, section, key, 0, "host '%s' is listed twice", names[i]);
			goto fail;
		}
		seen[h] = 1;
		v[i] = h;
	}
	free(seen);
	*ids = v;
	return (int)n;
fail:
	free(seen);
	free(v);
	return -1;
}

int world_cfg_gpus_per_host(const struct config *cfg)
{
	int g = topology_cfg(cfg)->gpus_per_host;
	return g > 0 ? g : 1;
}
