/*
 * observe_keys.c — the sections of the observers: [pcap] (which ports are
 * captured, tap.c) and [output] (sampled tables and extra files:
 * sampler.c, flow_path.c, hpcc_fct.c).
 */
#include <stddef.h>
#include <string.h>
#include "observe.h"

#define PC(f) offsetof(struct pcap_cfg, f)

static const struct cfg_key pcap_keys[] = {
	{ "taps", KT_LIST, .def_doc = "none (when capture is on: every host port)",
	  .off = PC(taps), .off2 = PC(n_taps), .help = "node or node:port" },
	{ "snaplen", KT_SIZE, .def_doc = "full frame", CFG_POS, .off = PC(snaplen_b),
	  .help = "bytes kept of each frame" },
	{ "dir", KT_PATH_OUT, .def_doc = "the database path without .db (when capture is on)",
	  .off = PC(dir), .help = "capture folder" },
};

static int pcap_rules(struct cfg_check *c)
{
	const struct pcap_cfg *pc = c->data;
	for (size_t i = 0; i < pc->n_taps; i++) {
		const char *tap = pc->taps[i], *colon = strchr(tap, ':');
		if (colon && (colon == tap || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1)))
			return cfg_fail(c, "taps", "a list of node or node:port, with a port number ('%s' is not)",
					tap);
	}
	return 0;
}

const struct cfg_section pcap_section = {
	.name = "pcap", .help = "packet capture: pcap files of tapped ports",
	CFG_KEYS(pcap_keys), .size = sizeof(struct pcap_cfg), .rules = pcap_rules,
};

#define OUT(f) offsetof(struct output_cfg, f)

static const struct cfg_key output_keys[] = {
	{ "queue_sample_interval", KT_TIME, "0s", .off = OUT(queue_sample_interval),
	  .help = "queue depth sampling (0: off)" },
	{ "link_sample_interval", KT_TIME, "0s", .off = OUT(link_sample_interval),
	  .help = "link utilisation sampling (0: off)" },
	{ "cc_sample_interval", KT_TIME, "0s", .off = OUT(cc_sample_interval),
	  .help = "congestion control sampling (0: off)" },
	{ "sample_ports", KT_LIST, .def_doc = "all", .off = OUT(sample_ports),
	  .off2 = OUT(n_sample_ports), .help = "ports sampled" },
	{ "flow_paths", KT_BOOL, "off", .off = OUT(flow_paths), .help = "record each flow's path" },
	{ "hpcc_fct", KT_PATH_OUT, .def_doc = "not written", .off = OUT(hpcc_fct),
	  .help = "also write HPCC's fct.txt" },
};

const struct cfg_section output_section = {
	.name = "output", .help = "optional tables and files: time series, flow paths, HPCC's fct.txt",
	CFG_KEYS(output_keys), .size = sizeof(struct output_cfg),
};
