/*
 * nic_keys.c — the [nic] and [multicast] sections: what every NIC of the
 * fabric is configured with (the controller of `cc` comes from the
 * congestion-control registry, cc.h) and the multicast groups a scenario
 * names.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "nic.h"
#include "units.h"
#include "xalloc.h"

#define NIC(f) offsetof(struct nic_cfg, f)
static const char *const v_lr[] = { "gbn", "sr", NULL };
static const char *const v_ackp[] = { "high", "data", NULL };

static const struct cfg_key nic_keys[] = {
	{ "mtu", KT_INT, "1024", CFG_IN(256, 9000), .off = NIC(mtu), .help = "payload bytes per packet" },
	{ "cc", KT_ENUM, "dcqcn", .vocab_fn = cc_name_at, .off = NIC(cc), .help = "congestion control" },
	{ "ack_every", KT_INT, "1", CFG_GE(1), .off = NIC(ack_every), .help = "packets per ACK" },
	{ "rto", KT_TIME, "1ms", CFG_POS, .off = NIC(rto), .help = "retransmission timeout" },
	{ "priority", KT_INT, "3", CFG_IN(0, 7), .off = NIC(priority), .help = "priority of RoCE data" },
	{ "loss_recovery", KT_ENUM, "gbn", .vocab = v_lr, .off = NIC(loss_recovery),
	  .help = "go-back-N or selective repeat" },
	{ "qps_per_pair", KT_INT, "1", CFG_GE(1), .off = NIC(qps_per_pair),
	  .help = "queue pairs between two endpoints" },
	{ "rx_rate", KT_RATE_OFF, "off", CFG_POS, .off = NIC(rx_rate_bps), .off2 = NIC(rx_rate_off),
	  .help = "rate the host takes received data at (PCIe, memory); off: as it arrives" },
	{ "rx_buffer", KT_SIZE, "256KiB", CFG_POS, .off = NIC(rx_buffer_b),
	  .help = "NIC receive buffer; with rx_rate the NIC sends PFC when it fills" },
	{ "window", KT_BOOL, "off", .off = NIC(window),
	  .help = "cap each queue pair's unacknowledged payload bytes (docs/protocol.md)" },
	{ "var_window", KT_BOOL, "on", .off = NIC(var_window),
	  .help = "with window: the cap follows the rate (rate x T), else one BDP at line rate" },
	{ "ack_priority", KT_ENUM, "high", .vocab = v_ackp, .off = NIC(ack_priority),
	  .help = "ACK, NAK and CNP on the strict high class or on the data's class" },
};

const struct cfg_section nic_section = {
	.name = "nic", .help = "RoCE NICs: queue pairs, loss recovery, congestion control",
	CFG_KEYS(nic_keys), .size = sizeof(struct nic_cfg),
};

const struct nic_cfg *nic_cfg_of(const struct config *cfg)
{
	return cfg_get(cfg, &nic_section);
}

/* ---- [multicast] group = NAME SRC DST... (a repeated key) ---- */

static int group_parse(const struct cfg_key *k, void *base, const char *value,
		       const struct cfg_store_ctx *ctx, char *expected)
{
	(void)k;
	struct mcast_cfg *mc = base;
	char **tok;
	size_t n = units_list(value, &tok);
	if (n < 3) {
		units_list_free(tok, n);
		snprintf(expected, CFG_EXPECTED_MAX,
			 "NAME SRC DST [DST...]: a group name, its source and at least one destination");
		return -1;
	}
	for (size_t i = 0; i < mc->n_groups; i++)
		if (strcmp(mc->groups[i].name, tok[0]) == 0) {
			snprintf(expected, CFG_EXPECTED_MAX, "a group name not used before ('%s' is also at line %d)",
				 tok[0], mc->groups[i].line);
			units_list_free(tok, n);
			return -1;
		}
	struct mcast_cfg_group *ng = xrealloc(mc->groups, (mc->n_groups + 1) * sizeof *ng);
	char **dst = xmalloc((n - 2) * sizeof *dst);
	memcpy(dst, tok + 2, (n - 2) * sizeof *dst);
	ng[mc->n_groups++] = (struct mcast_cfg_group){ .name = tok[0], .src = tok[1], .dst = dst,
						       .n_dst = n - 2, .line = ctx->line };
	mc->groups = ng;
	free(tok);
	return 0;
}

static void group_write(const struct cfg_key *k, const void *base, struct cfg_text *t)
{
	const struct mcast_cfg *mc = base;
	if (mc->n_groups == 0) {
		cfg_text_unset(t, k);
		return;
	}
	for (size_t i = 0; i < mc->n_groups; i++) {
		cfg_text_begin(t, k->name);
		cfg_text_word(t, "", mc->groups[i].name);
		cfg_text_word(t, "", mc->groups[i].src);
		for (size_t j = 0; j < mc->groups[i].n_dst; j++)
			cfg_text_word(t, "", mc->groups[i].dst[j]);
		cfg_text_end(t);
	}
}

static void group_free(const struct cfg_key *k, void *base)
{
	(void)k;
	struct mcast_cfg *mc = base;
	for (size_t i = 0; i < mc->n_groups; i++) {
		free(mc->groups[i].name);
		free(mc->groups[i].src);
		units_list_free(mc->groups[i].dst, mc->groups[i].n_dst);
	}
	free(mc->groups);
	mc->groups = NULL;
	mc->n_groups = 0;
}

static const struct cfg_custom group_type = {
	.parse = group_parse, .write = group_write, .free = group_free,
	.type_doc = "repeated line: NAME SRC DST [DST...]", .repeated = true,
};

#define MC(f) offsetof(struct mcast_cfg, f)

static const struct cfg_key mcast_keys[] = {
	{ "enabled", KT_BOOL, "on", .off = MC(enabled), .help = "switch replication" },
	{ "reliable", KT_BOOL, "on", .off = MC(reliable), .help = "off: UD, no feedback" },
	{ "group", KT_CUSTOM, .def_doc = "none", .custom = &group_type, .off = MC(groups),
	  .help = "repeated: NAME SRC DST DST..." },
};

const struct cfg_section mcast_section = {
	.name = "multicast", .help = "multicast groups: switch replication, reliable (RC) or UD",
	CFG_KEYS(mcast_keys), .size = sizeof(struct mcast_cfg),
};

const struct mcast_cfg *mcast_cfg_of(const struct config *cfg)
{
	return cfg_get(cfg, &mcast_section);
}
