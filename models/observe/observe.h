/*
 * observe.h — the observers, the one door of models/observe/: packet
 * capture on tapped ports (tap.h, frame.h), sampled time series
 * (sampler.h), flow paths, and HPCC's fct.txt (hpcc_fct.h), with the
 * [pcap] and [output] keys that turn them on.
 *
 * Observers watch; they change nothing that is simulated. They hang off
 * the hooks the other parts offer (a port's tap, the world's flow sinks),
 * so no other part calls them.
 */
#ifndef ROCESIM_OBSERVE_H
#define ROCESIM_OBSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "hpcc_fct.h"
#include "sampler.h"
#include "tap.h"

/* [pcap] */
struct pcap_cfg {
	char **taps; size_t n_taps;    /* node or node:port */
	uint64_t snaplen_b;            /* 0 = full frame */
	char *dir;                     /* NULL when unset */
};
extern const struct cfg_section pcap_section;

/* [output] */
struct output_cfg {
	simtime_t queue_sample_interval, link_sample_interval, cc_sample_interval; /* [0 = off] */
	char **sample_ports; size_t n_sample_ports; /* [all]: 0 */
	bool flow_paths;               /* [off] */
	char *hpcc_fct;                /* NULL when unset */
};
extern const struct cfg_section output_section;

struct world;
struct results;
/* Marks in sel (indexed like w->fab.ports) the ports that entry, one
 * value of [section] key, names: `node` (all its ports) or `node:port`.
 * Returns 0, or -1 with *err (malloc'd, located at the key) for a name
 * that is not a node with ports or a port it does not have. */
int observe_mark_ports(const struct world *w, const char *section, const char *key, const char *entry,
		       bool *sel, char **err);
/* The `flow` table: one row per flow record the world reports (flow_rows.c).
 * Prepares its insert; -1 when the database's table does not fit. */
int flow_rows_attach(struct world *w, struct results *res);
/* The `flow_path` table of [output] flow_paths (flow_path.c): each flow's
 * hops, written with its row. Nothing when off; -1 when the database's
 * table does not fit. */
int flow_paths_attach(struct world *w, struct results *res);

#endif
