/*
 * topology_describe.c — what a [topology] section built, in words (topology.h):
 * the line `fabric: ...` printed before a run and at --check, and the
 * warning for a shape a user would not expect from the keys.
 *
 * Edge switches are the switches with at least one host link. Their down
 * ports face hosts (one per NIC), their up ports face other switches; the
 * oversubscription of an edge switch is the ratio of its down capacity to
 * its up capacity (sum of the links' rates each way), 1 meaning a host can
 * send at its full rate whatever the others do (when routing spreads the
 * load). A switch with no up port (a star) has no ratio.
 */
#include <stdio.h>
#include <string.h>

#include "topology.h"
#include "units.h"

void topology_edge(const struct topo *t, struct topo_edge *e)
{
	memset(e, 0, sizeof *e);
	for (int u = t->n_hosts; u < t->n_nodes; u++) {
		int down = 0, up = 0;
		double down_bps = 0, up_bps = 0;
		for (int p = t->port_off[u]; p < t->port_off[u + 1]; p++) {
			double bps = (double)t->links[t->ports[p].link].rate_bps;
			if (t->ports[p].peer < t->n_hosts) {
				down++;
				down_bps += bps;
			} else {
				up++;
				up_bps += bps;
			}
		}
		if (!down)
			continue;
		double ratio = up ? down_bps / up_bps : 0;
		if (!e->switches++) {
			/* The tier's name: the node name without its number. */
			snprintf(e->name, sizeof e->name, "%.*s",
				 (int)strcspn(t->nodes[u].name, "0123456789"), t->nodes[u].name);
			e->down_min = e->down_max = down;
			e->up_min = e->up_max = up;
			e->ratio_min = e->ratio_max = ratio;
			continue;
		}
		if (down < e->down_min) e->down_min = down;
		if (down > e->down_max) e->down_max = down;
		if (up < e->up_min) e->up_min = up;
		if (up > e->up_max) e->up_max = up;
		if (ratio < e->ratio_min) e->ratio_min = ratio;
		if (ratio > e->ratio_max) e->ratio_max = ratio;
	}
}

/* "8", or "2-4" when the switches differ. */
static const char *span(int lo, int hi, char *buf, size_t n)
{
	if (lo == hi)
		snprintf(buf, n, "%d", lo);
	else
		snprintf(buf, n, "%d-%d", lo, hi);
	return buf;
}

/* "8:1", "1:1", "1:2" (more up than down capacity). */
static const char *ratio_text(double r, char *buf, size_t n)
{
	if (r >= 1)
		snprintf(buf, n, "%.3g:1", r);
	else
		snprintf(buf, n, "1:%.3g", 1 / r);
	return buf;
}

void topology_describe(const struct config *cfg, const struct topo *t, char *buf, size_t n)
{
	struct topo_edge e;
	topology_edge(t, &e);
	const struct topo_cfg *c = topology_cfg(cfg);
	int nics = t->nics_per_host > 1 ? t->nics_per_host : 1;
	char rate[32], d[32], u[32], r1[32], r2[32];
	units_format_rate(c->host_link_rate_bps, rate, sizeof rate);
	size_t at = 0;
	int w = snprintf(buf, n, "fabric: %s, %d hosts x %d NIC%s", topology_type_name(cfg), t->n_hosts,
			 nics, nics == 1 ? "" : "s");
	if (!topology_kind(topology_type_name(cfg))->own_links)
		w += snprintf(buf + w, n > (size_t)w ? n - (size_t)w : 0, " (%s)", rate);
	at = (size_t)w;
	if (at < n && e.switches && e.up_max)
		at += (size_t)snprintf(buf + at, n - at, "; %d %s switch%s with %s host and %s switch ports%s",
				       e.switches, e.name, e.switches == 1 ? "" : "es",
				       span(e.down_min, e.down_max, d, sizeof d), span(e.up_min, e.up_max, u, sizeof u),
				       e.switches == 1 ? "" : " each");
	else if (at < n && e.switches)
		at += (size_t)snprintf(buf + at, n - at, "; %d %s switch%s with %s host ports%s",
				       e.switches, e.name, e.switches == 1 ? "" : "es",
				       span(e.down_min, e.down_max, d, sizeof d), e.switches == 1 ? "" : " each");
	if (at < n && e.switches && e.up_min > 0) {
		if (e.ratio_min == e.ratio_max)
			at += (size_t)snprintf(buf + at, n - at, ", oversubscription %s%s",
					       ratio_text(e.ratio_max, r1, sizeof r1),
					       e.ratio_max <= 1 ? " (non-blocking)" : "");
		else
			at += (size_t)snprintf(buf + at, n - at, ", oversubscription %s to %s",
					       ratio_text(e.ratio_min, r1, sizeof r1),
					       ratio_text(e.ratio_max, r2, sizeof r2));
	}
	const void *own;
	const struct topo_kind *ty = topology_kind_of(cfg, &own);
	if (at + 2 < n && ty->describe) {
		at += (size_t)snprintf(buf + at, n - at, "; ");
		ty->describe(own, t, buf + at, n - at);
	}
}

int topology_surprise(const struct config *cfg, const struct topo *t, char *buf, size_t n)
{
	const void *own;
	const struct topo_kind *ty = topology_kind_of(cfg, &own);
	struct topo_edge e;
	topology_edge(t, &e);
	int nics = t->nics_per_host;
	/* Every NIC of a host on the host's switch multiplies its down ports
	 * and leaves its up ports as they were. */
	if (nics > 1 && ty->nics == TOPO_NICS_SAME_SWITCH && e.switches && e.up_min > 0 && e.ratio_max > 1) {
		char r[32];
		snprintf(buf, n, "[topology] nics_per_host = %d on %s links every NIC of a host to its %s: "
			 "a %s has %d host and %d switch ports, oversubscription %s; for a non-blocking fabric "
			 "use type = rail_optimized (NIC i of every host on leaf i) or fewer hosts per %s%s",
			 nics, ty->cfg.name, e.name, e.name, e.down_max, e.up_min,
			 ratio_text(e.ratio_max, r, sizeof r), e.name,
			 strcmp(ty->cfg.name, "fat_tree") == 0
			 ? " (fat_tree: oversubscription = 1/nics_per_host, with k/2 a multiple of nics_per_host)" : "");
		return 1;
	}
	return 0;
}
