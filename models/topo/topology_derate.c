/*
 * topology_derate.c — `[topology] derate = HOST[:NIC] RATE` (a repeated
 * key): a host link that runs below its nominal rate, as a NIC that
 * negotiated 200G on a 400G fabric or a cable trained down to a lower
 * speed.
 *
 * The link's rate itself is lowered (both directions, as link training
 * lowers both), before any port exists, so everything built from the
 * link — the host's and the switch's port serialisation, PFC headroom,
 * ECN thresholds scaled by rate, the NIC's line rate for congestion
 * control and windows, the ideal FCT of the flow rows (nic_ideal.c reads
 * the ports' rates) and the `link` rows — sees the derated rate. Runs once
 * per build: names are looked up linearly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topology.h"
#include "units.h"
#include "xalloc.h"

static int derate_parse(const struct cfg_key *k, void *base, const char *value,
			const struct cfg_store_ctx *ctx, char *expected)
{
	(void)k;
	static const char what[] = "HOST[:NIC] RATE (such as 'host3 200Gbps': host3's links run at 200Gbps)";
	struct topo_cfg *c = base;
	char sub[UNITS_EXPECTED_MAX];
	char **tok;
	size_t n = units_list(value, &tok);
	struct topo_derate d = { .nic = -1, .line = ctx->line };
	int rc = -1;
	char *colon = n == 2 ? strchr(tok[0], ':') : NULL;
	char *end = NULL;
	if (colon) {
		*colon = 0;
		d.nic = (int)strtol(colon + 1, &end, 10);
	}
	if (n != 2)
		snprintf(expected, CFG_EXPECTED_MAX, "%s", what);
	else if (colon && (end == colon + 1 || *end || d.nic < 0))
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with NIC a number from 0", what);
	else if (units_rate(tok[1], &d.rate_bps, sub) < 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with RATE %s", what, sub);
	else if (d.rate_bps == 0)
		snprintf(expected, CFG_EXPECTED_MAX, "%s, with RATE > 0", what);
	else
		rc = 0;
	if (rc == 0) {
		c->derate = xrealloc(c->derate, (c->n_derate + 1) * sizeof *c->derate);
		d.host = tok[0];
		tok[0] = NULL;
		c->derate[c->n_derate++] = d;
	}
	units_list_free(tok, n);
	return rc;
}

static void derate_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const struct topo_cfg *c = base;
	if (c->n_derate == 0) {
		cfg_text_unset(t, k);
		return;
	}
	for (size_t i = 0; i < c->n_derate; i++) {
		char who[TOPO_NAME_MAX + 16], rate[48];
		if (c->derate[i].nic >= 0)
			snprintf(who, sizeof who, "%s:%d", c->derate[i].host, c->derate[i].nic);
		else
			snprintf(who, sizeof who, "%s", c->derate[i].host);
		units_format_rate(c->derate[i].rate_bps, rate, sizeof rate);
		cfg_text_begin(t, k->name);
		cfg_text_word(t, "", who);
		cfg_text_word(t, "", rate);
		cfg_text_end(t);
	}
}

static void derate_free(const struct cfg_key *k, void *base)
{
	(void)k;
	struct topo_cfg *c = base;
	for (size_t i = 0; i < c->n_derate; i++)
		free(c->derate[i].host);
	free(c->derate);
	c->derate = NULL;
	c->n_derate = 0;
}

const struct cfg_custom topo_derate_line = {
	.parse = derate_parse, .write = derate_write, .free = derate_free,
	.type_doc = "repeated line: HOST[:NIC] RATE", .repeated = true,
};

/* "host0, host1, ..." (malloc'd), for suggestions. */
static char *host_names(const struct topo *t)
{
	size_t cap = (size_t)t->n_hosts * (TOPO_NAME_MAX + 2) + 1, len = 0;
	char *s = xmalloc(cap);
	s[0] = 0;
	for (int h = 0; h < t->n_hosts; h++)
		len += (size_t)snprintf(s + len, cap - len, "%s%s", h ? ", " : "", t->nodes[h].name);
	return s;
}

int topo_apply_derate(const struct config *cfg, struct topo *t, char **err)
{
	const struct topo_cfg *c = topology_cfg(cfg);
	for (size_t i = 0; i < c->n_derate; i++) {
		const struct topo_derate *d = &c->derate[i];
		int h = topo_find(t, d->host);
		if (h < 0 || h >= t->n_hosts) {
			char *names = host_names(t), mean[96];
			*err = cfg_error_at(cfg, "topology", "derate", d->line, "%s '%s'%s",
					    h < 0 ? "unknown host" : "not a host:", d->host,
					    cfg_did_you_mean(d->host, names, mean, sizeof mean));
			free(names);
			return -1;
		}
		int n_ports = topo_n_ports(t, h);
		if (d->nic >= n_ports) {
			*err = cfg_error_at(cfg, "topology", "derate", d->line,
					    "%s has NICs 0..%d (nics_per_host = %d), not %d", d->host, n_ports - 1,
					    n_ports, d->nic);
			return -1;
		}
		for (int p = 0; p < n_ports; p++) {
			if (d->nic >= 0 && p != d->nic)
				continue;
			struct topo_link *l = &t->links[t->ports[t->port_off[h] + p].link];
			if (d->rate_bps > l->rate_bps) {
				char have[48], want[48];
				units_format_rate(l->rate_bps, have, sizeof have);
				units_format_rate(d->rate_bps, want, sizeof want);
				*err = cfg_error_at(cfg, "topology", "derate", d->line,
						    "%s runs at %s on its link %d: a derated rate is at most that, not %s",
						    d->host, have, p, want);
				return -1;
			}
			l->rate_bps = d->rate_bps;
		}
	}
	return 0;
}
