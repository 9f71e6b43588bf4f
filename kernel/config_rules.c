/*
 * config_rules.c — the rules between keys that the key table cannot state
 * one key at a time (SCENARIO.md "Keys", scenarios/README.md "Rules"): ep
 * divides dp, global_batch is a multiple of micro_batch x dp, ecn_kmin <=
 * ecn_kmax, an incast receiver is not a sender, a collective's algorithm
 * suits its op, multicast names a group and needs [multicast] enabled (and
 * reliable, for collectives).
 *
 * cfg_section_rules runs on each section once its values are typed;
 * cfg_global_rules once every section is, for rules across sections and
 * for defaults computed from other keys (DCQCN's rate-scaled increases).
 * Each failure is one located message naming the key at fault.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_keys.h"

/* a <= b at every rate both define (kmin <= kmax). */
static bool map_le(const struct cfg_rate_map *a, const struct cfg_rate_map *b, uint64_t *rate)
{
	int na = a->is_map ? a->n : 1, nb = b->is_map ? b->n : 1;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++) {
			if (a->is_map && b->is_map && a->rate_bps[i] != b->rate_bps[j])
				continue;
			double va = a->is_map ? a->val[i] : a->scalar, vb = b->is_map ? b->val[j] : b->scalar;
			if (va > vb) {
				*rate = a->is_map ? a->rate_bps[i] : b->is_map ? b->rate_bps[j] : 0;
				return false;
			}
		}
	return true;
}

static const char *const *algorithms_of(const char *op)
{
	static const char *const all[] = { "ring", "halving_doubling", "tree", "multicast", NULL };
	static const char *const ring_mc[] = { "ring", "multicast", NULL };
	static const char *const direct[] = { "direct", NULL };
	static const char *const sendrecv[] = { "ring", "direct", NULL };
	if (strcmp(op, "allreduce") == 0)
		return all;
	if (strcmp(op, "alltoall") == 0)
		return direct;
	if (strcmp(op, "sendrecv") == 0)
		return sendrecv;
	return ring_mc;
}

static int job_rules(struct cfg_raw_section *s, struct cfg_job *j, char **err)
{
	char exp[CFG_EXPECTED_MAX];
	static const char *const custom_needs[] = { "layers", "hidden", "seq_len" };
	if (strcmp(j->model, "custom") == 0)
		for (int i = 0; i < 3; i++)
			if (!cfg_raw_find(s, custom_needs[i])) {
				*err = cfg_err_missing(s, custom_needs[i], " for model custom");
				return -1;
			}
	if (j->dp % j->ep != 0) {
		snprintf(exp, sizeof exp, "a divisor of dp (%d): expert parallelism is carved out of data parallelism", j->dp);
		*err = cfg_err_value(s, cfg_raw_find(s, "ep"), exp);
		return -1;
	}
	if (j->grad_bytes != 2 && j->grad_bytes != 4) {
		*err = cfg_err_value(s, cfg_raw_find(s, "grad_bytes"), "2 (bf16) or 4 (fp32)");
		return -1;
	}
	static const char *const dims[] = { "tp", "ep", "dp", "pp" };
	bool ok = j->n_placement == 4;
	for (int d = 0; d < 4 && ok; d++) {
		int seen = 0;
		for (size_t i = 0; i < j->n_placement; i++)
			seen += strcmp(j->placement[i], dims[d]) == 0;
		ok = seen == 1;
	}
	if (!ok) {
		*err = cfg_err_value(s, cfg_raw_find(s, "placement"), "a permutation of tp, ep, dp, pp");
		return -1;
	}
	long long per_step = (long long)j->micro_batch * j->dp;
	if (j->global_batch % per_step != 0) {
		snprintf(exp, sizeof exp, "a multiple of micro_batch x dp (%lld)", per_step);
		*err = cfg_err_value(s, cfg_raw_find(s, "global_batch"), exp);
		return -1;
	}
	return 0;
}

static int traffic_rules(struct cfg_raw_section *s, struct cfg_traffic *t, char **err)
{
	char exp[CFG_EXPECTED_MAX], list[CFG_EXPECTED_MAX / 2], w1[64];
	if (t->type == TRAFFIC_COLLECTIVE) {
		if (t->n_gpus && t->n_hosts) {
			*err = cfg_err_value(s, cfg_raw_find(s, "gpus"), "either gpus or hosts, not both");
			return -1;
		}
		const char *const *algs = algorithms_of(t->op);
		if (!t->algorithm)
			t->algorithm = strdup(algs[0]);
		if (!t->algorithm)
			abort();
		bool ok = false;
		for (int i = 0; algs[i]; i++)
			ok |= strcmp(algs[i], t->algorithm) == 0;
		if (!ok) {
			cfg_vocab_text(algs, list, sizeof list);
			snprintf(exp, sizeof exp, "%s for op %s", list, t->op);
			*err = cfg_err_value(s, cfg_raw_find(s, "algorithm"), exp);
			return -1;
		}
	}
	if (t->type == TRAFFIC_POISSON && t->stop != SIMTIME_NEVER && t->stop <= t->start) {
		units_format_time(t->start, w1, sizeof w1);
		snprintf(exp, sizeof exp, "a time after start (%s)", w1);
		*err = cfg_err_value(s, cfg_raw_find(s, "stop"), exp);
		return -1;
	}
	if (t->type == TRAFFIC_INCAST)
		for (size_t i = 0; i < t->n_senders; i++)
			if (strcmp(t->senders[i], t->receiver) == 0) {
				*err = cfg_err_value(s, cfg_raw_find(s, "receiver"), "a host that is not one of the senders");
				return -1;
			}
	return 0;
}

int cfg_section_rules(struct config *cfg, struct cfg_raw_section *s, char **err)
{
	char exp[CFG_EXPECTED_MAX], r[64];
	uint64_t rate;
	switch (s->kind) {
	case SEC_TOPOLOGY:
		if (!cfg_raw_find(s, "host_link_rate"))
			cfg->topology.host_link_rate_bps = cfg->topology.link_rate_bps;
		return 0;
	case SEC_SWITCH:
		if (!cfg->sw.ecn_kmin_default && !cfg->sw.ecn_kmax_default &&
		    !map_le(&cfg->sw.ecn_kmin, &cfg->sw.ecn_kmax, &rate)) {
			units_format_rate(rate, r, sizeof r);
			snprintf(exp, sizeof exp, "a size >= ecn_kmin%s%s", rate ? " at " : "", rate ? r : "");
			*err = cfg_err_value(s, cfg_raw_find(s, "ecn_kmax"), exp);
			return -1;
		}
		return 0;
	case SEC_PCAP:
		for (size_t i = 0; i < cfg->pcap.n_taps; i++) {
			const char *tap = cfg->pcap.taps[i], *c = strchr(tap, ':');
			if (c && (c == tap || !c[1] || strspn(c + 1, "0123456789") != strlen(c + 1))) {
				snprintf(exp, sizeof exp, "a list of node or node:port, with a port number ('%s' is not)", tap);
				*err = cfg_err_value(s, cfg_raw_find(s, "taps"), exp);
				return -1;
			}
		}
		return 0;
	case SEC_JOB:
		return job_rules(s, s->base, err);
	case SEC_TRAFFIC:
		return traffic_rules(s, s->base, err);
	default:
		return 0;
	}
}

/* Rules across sections, once every section is typed. */
int cfg_global_rules(struct config *cfg, struct cfg_raw_section *ss, size_t n_s, char **err)
{
	static const char *const mc_keys[] = { "allreduce", "allgather", "reduce_scatter", "broadcast" };
	uint64_t host = cfg->topology.host_link_rate_bps;
	if (cfg->dcqcn.rai_default)
		cfg->dcqcn.rai_bps = (uint64_t)cfg_scaled_default(5e6, host);
	if (cfg->dcqcn.rhai_default)
		cfg->dcqcn.rhai_bps = (uint64_t)cfg_scaled_default(50e6, host);
	for (size_t i = 0; i < n_s; i++) {
		struct cfg_raw_section *s = &ss[i];
		if (s->kind == SEC_TRAFFIC && s->type == TRAFFIC_MULTICAST) {
			struct cfg_traffic *t = s->base;
			bool found = false;
			for (size_t g = 0; g < cfg->multicast.n_groups; g++)
				found |= strcmp(cfg->multicast.groups[g].name, t->group) == 0;
			if (!cfg->multicast.enabled) {
				*err = cfg_err_value(s, cfg_raw_find(s, "type"), "a type other than multicast while [multicast] enabled = off");
				return -1;
			}
			if (!found) {
				*err = cfg_err_value(s, cfg_raw_find(s, "group"), "the NAME of a `group = NAME SRC DST...` line of [multicast]");
				return -1;
			}
		}
		if (cfg->multicast.enabled && !cfg->multicast.reliable) {
			/* Collectives need every byte; an unreliable (UD) group never
			 * recovers a lost one (coll_mcast.c). */
			for (int k = 0; k < 5; k++) {
				struct cfg_raw_entry *e = cfg_raw_find(s, k < 4 ? mc_keys[k] : "algorithm");
				if ((k < 4 ? s->kind == SEC_JOB : s->kind == SEC_TRAFFIC) && e &&
				    strcmp(e->value, "multicast") == 0) {
					*err = cfg_err_value(s, e, "a unicast algorithm while [multicast] reliable = off "
							     "(a collective needs every byte; an unreliable group loses some)");
					return -1;
				}
			}
		}
		if (cfg->multicast.enabled)
			continue;
		for (int k = 0; k < 4 && s->kind == SEC_JOB; k++) {
			struct cfg_raw_entry *e = cfg_raw_find(s, mc_keys[k]);
			if (e && strcmp(e->value, "multicast") == 0) {
				*err = cfg_err_value(s, e, "ring (or another unicast algorithm) while [multicast] enabled = off");
				return -1;
			}
		}
		struct cfg_raw_entry *e = s->kind == SEC_TRAFFIC ? cfg_raw_find(s, "algorithm") : NULL;
		if (e && strcmp(e->value, "multicast") == 0) {
			*err = cfg_err_value(s, e, "a unicast algorithm while [multicast] enabled = off");
			return -1;
		}
	}
	return 0;
}
