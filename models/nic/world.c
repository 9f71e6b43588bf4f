/*
 * world.c — the fabric with a NIC at each host port, the flow accounting,
 * and the rows of nodes, links and ports (see world.h).
 *
 * Hosts: one NIC per host port (port i = NIC i = endpoint host x
 * nics_per_host + i, world.h), created in endpoint order once the fabric
 * registered its elements. GPUs are not elements: NVLink (nvlink.c)
 * schedules on its host's element. In results, GPUs get node rows after
 * the network nodes (node id n_nodes + GPU id, kind 'gpu', tier 0 like
 * hosts, analysis/schema.sql), one per host when hosts have a single GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "config.h"
#include "log.h"
#include "mcast_internal.h"
#include "msg.h"
#include "nic.h"
#include "nvlink.h"
#include "fabric.h"
#include "results.h"
#include "rng.h"
#include "world.h"
#include "xalloc.h"

int world_build(struct world *w, struct sim *sim, const struct config *cfg, char **err)
{
	return world_build_classes(w, sim, cfg, 0, err);
}

int world_build_classes(struct world *w, struct sim *sim, const struct config *cfg, uint8_t classes,
			char **err)
{
	return world_build_placed(w, sim, cfg, classes, NULL, NULL, err);
}

int world_build_placed(struct world *w, struct sim *sim, const struct config *cfg, uint8_t classes,
		       int (*place)(void *ctx, const struct topo *t, const bool **mine, char **err),
		       void *place_ctx, char **err)
{
	memset(w, 0, sizeof *w);
	w->sim = sim;
	w->cfg = cfg;
	w->topo_cfg = topology_cfg(cfg);
	w->nic_cfg = nic_cfg_of(cfg);
	w->post = world_post_host;
	w->base_rtt[0] = w->base_rtt[1] = -1;
	struct fabric_params fp = {
		.lossless = (uint8_t)(1u << w->nic_cfg->priority | classes),
		.max_frame_b = pkt_data_frame_b((uint32_t)w->nic_cfg->mtu, 1) +
			       (cc_lookup(w->nic_cfg->cc) && (cc_lookup(w->nic_cfg->cc)->needs & CC_NEEDS_INT) ? PKT_INT_B : 0),
		.cnp_interval = cc_cnp_interval(cfg, w->nic_cfg->cc),
		.place = place,
		.place_ctx = place_ctx,
	};
	if (fabric_build(&w->fab, sim, cfg, &fp, err) < 0)
		return -1;
	if (cc_lookup(w->nic_cfg->cc) && (cc_lookup(w->nic_cfg->cc)->needs & CC_NEEDS_INT))
		fabric_enable_int(&w->fab);
	w->gpus_per_host = world_cfg_gpus_per_host(cfg);
	if ((int64_t)w->fab.n_hosts * w->gpus_per_host > INT32_MAX / 2) {
		*err = str_printf("[topology] gpus_per_host = %d: %lld GPUs; at most %d are supported",
				  w->gpus_per_host, (long long)w->fab.n_hosts * w->gpus_per_host, INT32_MAX / 2);
		fabric_free(&w->fab);
		return -1;
	}
	w->n_gpus = w->fab.n_hosts * w->gpus_per_host;
	w->n_eps = w->fab.n_hosts * w->fab.nics_per_host;
	w->eps = xcalloc((size_t)w->n_eps, sizeof *w->eps);
	pool_init(&w->flow_pool, sizeof(struct flow), 1024);
	/* Host port i is NIC i (endpoint host x nics_per_host + i). */
	for (int e = 0; e < w->n_eps; e++) {
		struct endpoint *ep = &w->eps[e];
		ep->port = fabric_ep_port(&w->fab, e);
		ep->host = &w->fab.nodes[fabric_ep_host(&w->fab, e)];
		ep->nic = nic_create(w, ep->host, fabric_ep_nic(&w->fab, e), e);
		if (fabric_ep_held(&w->fab, e))
			fabric_attach_host(&w->fab, e, nic_pull, ep->nic, nic_receive);
		if (w->setup_err) { /* nic_create found bad input */
			*err = w->setup_err;
			w->setup_err = NULL;
			world_free(w);
			return -1;
		}
	}
	if (w->gpus_per_host > 1)
		w->nvlink = nvlink_create(w);
	world_fail_attach(w);
	return 0;
}

void world_free(struct world *w)
{
	if (w->nvlink)
		nvlink_free(w);
	mcast_free(w);
	msg_late_free(w);
	for (int e = 0; w->eps && e < w->n_eps; e++)
		nic_destroy(w->eps[e].nic);
	free(w->eps);
	pool_destroy(&w->flow_pool);
	world_fail_free(w);
	fabric_free(&w->fab);
	free(w->setup_err);
	memset(w, 0, sizeof *w);
}

int world_host_id(const struct world *w, const char *name)
{
	int id = topo_find(&w->fab.topo, name);
	return id >= 0 && id < w->fab.topo.n_hosts ? id : -1;
}

int world_gpu_id(const struct world *w, const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot || strncmp(dot, ".gpu", 4) != 0 || dot[4] < '0' || dot[4] > '9')
		return -1;
	char *end;
	long i = strtol(dot + 4, &end, 10);
	if (*end || i >= w->gpus_per_host)
		return -1;
	char host[256];
	size_t len = (size_t)(dot - name);
	if (len >= sizeof host)
		return -1;
	memcpy(host, name, len);
	host[len] = 0;
	int h = world_host_id(w, host);
	return h < 0 ? -1 : h * w->gpus_per_host + (int)i;
}

bool world_done(struct sim *sim, void *ctx)
{
	struct world *w = ctx;
	(void)sim;
	return w->sources_active == 0 && w->flows_done == w->flows_posted;
}

void world_check_drained(struct world *w)
{
	fabric_check_drained(&w->fab);
	if (w->nvlink)
		nvlink_check_drained(w);
}

static const char node_cols[] = "node_id, name, kind, tier";
static const char link_cols[] = "link_id, node_a, port_a, node_b, port_b, rate_bps, delay_ps";
static const char port_cols[] = "node, port, tx_bytes, tx_packets, rx_bytes, drops, ecn_marked,"
				" pause_frames_tx, pause_frames_rx, paused_ps, max_queue_bytes, rx_corrupt";

int world_results_prepare(struct world *w, struct results *res)
{
	return results_table(res, "node", node_cols) && results_table(res, "link", link_cols) &&
	       results_table(res, "port_stats", port_cols) && fabric_results_prepare(&w->fab, res) == 0 &&
	       world_fail_prepare(w, res) == 0 ? 0 : -1;
}

void world_write_topology(const struct world *w, struct results *res)
{
	struct results_table *tn = results_table(res, "node", node_cols);
	struct results_table *tl = results_table(res, "link", link_cols);
	if (!tn || !tl)
		return;
	for (int u = 0; u < w->fab.n_nodes; u++)
		results_row(res, tn, "issi", u, w->fab.nodes[u].name, fabric_kind_name(w->fab.nodes[u].kind), w->fab.nodes[u].tier);
	char name[48];
	for (int g = 0; g < w->n_gpus; g++)
		results_row(res, tn, "issi", world_gpu_node_id(w, g), world_gpu_name(w, g, name, sizeof name),
			    fabric_kind_name(NODE_GPU), 0);
	/* Link rows in link order: the port at end `a` of each link, in one pass. */
	const struct topo *t = &w->fab.topo;
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
	for (int i = 0; t && i < w->fab.n_ports; i++) {
		if (!fabric_port_own(&w->fab, i))
			continue; /* another rank's row (parallel.h) */
		const struct port *p = &w->fab.ports[i];
		results_row(res, t, "siuuuuuuuluu", p->node->name, (int)p->idx, p->tx_bytes, p->tx_packets,
			    port_rx_bytes(p), p->drops, p->ecn_marked, p->pause_tx, p->pause_rx,
			    (int64_t)p->paused_ps, p->max_queue_bytes, p->rx_corrupt);
	}
	for (int e = 0; e < w->n_eps; e++)
		nic_foreach_flow(w->eps[e].nic, write_unfinished, w);
	if (w->nvlink)
		nvlink_write_unfinished(w);
	mcast_write_unfinished(w);
	world_fail_write(w, res);
}

char *world_gpu_name(const struct world *w, int gpu, char *buf, size_t size)
{
	snprintf(buf, size, "%s.gpu%d", w->fab.nodes[world_gpu_host(w, gpu)].name, gpu % w->gpus_per_host);
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
	int n_hosts = w->fab.topo.n_hosts;
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
