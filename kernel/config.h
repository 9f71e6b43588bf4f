/*
 * config.h — the validated scenario (SCENARIO.md "Keys").
 *
 * config_load reads an .ini file with inih, applies --set overrides, checks
 * every section and key (type, unit, range, required, unknown) and fills
 * struct config with typed values and defaults. Nothing is run and nothing
 * written before it succeeds. Keys of models that do not exist yet are
 * still typed and validated, so later work only adds behaviour.
 *
 * Errors name file:line, [section], key, the value and what was expected:
 *   scenarios/x.ini:12: [topology] link_rate = '100': expected a rate with a unit (bps, Kbps, Mbps, Gbps, Tbps, GBps)
 * A --set override is located as "--set" instead of file:line.
 */
#ifndef ROCESIM_CONFIG_H
#define ROCESIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "simtime.h"

#define CFG_MAX_RATE_MAP 16

/* A number (or size in bytes) that may depend on link rate:
 * "0.125" or "100Gbps:400KB 400Gbps:1600KB". */
struct cfg_rate_map {
	bool is_map;                          /* false: `scalar` applies to every rate */
	double scalar;
	int n;                                /* entries when is_map */
	uint64_t rate_bps[CFG_MAX_RATE_MAP];
	double val[CFG_MAX_RATE_MAP];
	double per_25g;                       /* > 0: a default of per_25g x rate / 25Gbps
					       * (HPCC's ECN thresholds); is_map is false */
	const char *section, *key;            /* "switch", "ecn_kmin": for cfg_rate_map_get's error */
	const char *file;                     /* where it was given (scenario path or "--set") */
	int line;                             /* 0 for --set or a default */
};

enum cfg_progress { CFG_PROGRESS_AUTO, CFG_PROGRESS_ON, CFG_PROGRESS_OFF };
enum cfg_topo_type { TOPO_FAT_TREE, TOPO_LEAF_SPINE, TOPO_RAIL_OPTIMIZED, TOPO_DUMBBELL, TOPO_STAR, TOPO_HPCC,
		     TOPO_RING /* robust: cyclic topology for PFC deadlock studies */ };
enum cfg_ecmp { ECMP_FLOW, ECMP_PACKET };
enum cfg_cc { CC_NONE, CC_DCQCN };
enum cfg_loss_recovery { LR_GBN, LR_SR };
enum cfg_dcqcn_variant { DCQCN_PAPER, DCQCN_HPCC };
enum cfg_traffic_type { TRAFFIC_POISSON, TRAFFIC_INCAST, TRAFFIC_PERMUTATION, TRAFFIC_ALL_TO_ALL,
			TRAFFIC_FLOWS, TRAFFIC_HPCC, TRAFFIC_MULTICAST, TRAFFIC_COLLECTIVE };

struct cfg_simulation {
	uint64_t seed;                 /* [1] */
	simtime_t stop;                /* SIMTIME_NEVER when unset: run until finite work is done */
	char *output;                  /* NULL when unset */
	enum cfg_progress progress;    /* [auto] */
	simtime_t watchdog;            /* [1ms] */
};

struct cfg_topology {
	enum cfg_topo_type type;       /* required */
	uint64_t link_rate_bps;        /* required */
	simtime_t link_delay;          /* required */
	uint64_t host_link_rate_bps;   /* [link_rate] */
	simtime_t switch_latency;      /* [0] */
	int gpus_per_host;             /* [1] */
	int nics_per_host;             /* [1] */
	uint64_t nvlink_rate_bps;      /* [450GBps] */
	simtime_t nvlink_delay;        /* [200ns] */
	int k;                         /* fat_tree: even, >= 2 */
	double oversubscription;       /* fat_tree [1] */
	int leaves, spines, hosts_per_leaf; /* leaf_spine; spines also rail_optimized */
	int hosts;                     /* star, rail_optimized */
	int hosts_left, hosts_right;   /* dumbbell */
	char *file;                    /* hpcc: resolved path */
	int switches, hosts_per_switch; /* ring */
};

struct cfg_switch {
	uint64_t buffer_b;             /* [32MiB] */
	bool pfc;                      /* [on] */
	struct cfg_rate_map pfc_alpha; /* [0.125] */
	bool headroom_auto;            /* [auto] */
	uint64_t headroom_b;           /* when !headroom_auto */
	bool ecn;                      /* [on] */
	bool ecn_kmin_default, ecn_kmax_default; /* HPCC's 100/400 x rate/25G KB when true */
	struct cfg_rate_map ecn_kmin, ecn_kmax;  /* bytes */
	struct cfg_rate_map ecn_pmax;  /* [0.2] */
	enum cfg_ecmp ecmp;            /* [flow] */
};

struct cfg_nic {
	int mtu;                       /* payload bytes per packet [1024] */
	enum cfg_cc cc;                /* [dcqcn] */
	int ack_every;                 /* [1] */
	simtime_t rto;                 /* [1ms] */
	int priority;                  /* 0..7 [3] */
	enum cfg_loss_recovery loss_recovery; /* [gbn] */
	int qps_per_pair;              /* [1] */
	bool rx_rate_off;              /* [off]: the host takes data as it arrives */
	uint64_t rx_rate_bps;          /* otherwise: receive drain rate (PCIe, memory) */
	uint64_t rx_buffer_b;          /* [256KiB] receive buffer (PFC when rx_rate is set) */
};

struct cfg_dcqcn {
	enum cfg_dcqcn_variant variant;   /* [hpcc] */
	double g;                         /* [1/256] */
	bool rai_default, rhai_default;   /* 5 / 50 x rate/25G Mb/s when true */
	uint64_t rai_bps, rhai_bps;
	simtime_t t_alpha, t_dec, t_inc;  /* [1us] [4us] [300us] */
	bool byte_counter_off;            /* [off] */
	uint64_t byte_counter_b;
	int fast_recovery_times;          /* [1] */
	uint64_t min_rate_bps;            /* [1Gbps] */
	simtime_t cnp_interval;           /* [0] */
	double rate_on_first_cnp;         /* [1.0] */
	bool clamp_target_rate;           /* [off] */
};

struct cfg_job {
	char *name;                    /* NAME of [job.NAME] */
	char *model;                   /* required: preset name or "custom" */
	/* Model dimensions: 0 = take from the preset. */
	long long layers, hidden, ffn_hidden, heads, kv_heads, seq_len, vocab, experts, top_k, moe_every;
	double capacity_factor;        /* [1.0] */
	int micro_batch;               /* [1] */
	long long global_batch;        /* required */
	int tp, pp, dp, ep;            /* [1]; ep divides dp */
	int zero;                      /* 0..3 [0] */
	bool sequence_parallel;        /* [off] */
	int iterations;                /* [1] */
	char *gpu;                     /* a100|h100|h200 [h100] */
	double mfu;                    /* (0,1] [0.5] */
	int grad_bytes;                /* 2|4 [2] */
	char **hosts; size_t n_hosts;  /* [all]: n_hosts = 0 */
	char **placement; size_t n_placement; /* [tp,ep,dp,pp] */
	char *allreduce;               /* ring|halving_doubling|tree|multicast [ring] */
	char *allgather, *reduce_scatter, *broadcast; /* ring|multicast [ring] */
	char *alltoall;                /* direct [direct] */
	double moe_skew;               /* >= 0 [0] */
	uint64_t chunk_b;              /* [512KiB] */
	int channels;                  /* [2] */
	simtime_t start;               /* [0] */
};

struct cfg_flow_spec {             /* one `flow = SRC DST SIZE START` line */
	char *src, *dst;
	uint64_t size_b;
	simtime_t start;
	int line;
};

struct cfg_traffic {
	char *name;                    /* NAME of [traffic.NAME] */
	enum cfg_traffic_type type;    /* required */
	/* poisson */
	double load;                   /* (0, 1] required */
	char *cdf;                     /* [websearch]: built-in name or resolved path */
	char **hosts; size_t n_hosts;  /* [all]: n_hosts = 0 (also collective) */
	simtime_t start;               /* [0] */
	simtime_t stop;                /* poisson [SIMTIME_NEVER: until [simulation] stop] */
	/* incast */
	char **senders; size_t n_senders; /* required */
	char *receiver;                /* required */
	uint64_t size_b;               /* incast, permutation, all_to_all, multicast, collective: required */
	/* flows */
	struct cfg_flow_spec *flows; size_t n_flows; /* at least one */
	/* hpcc */
	char *file;                    /* resolved path, required */
	/* multicast */
	char *group;                   /* required */
	/* collective */
	char *op;                      /* allreduce|reduce_scatter|allgather|alltoall|broadcast|sendrecv, required */
	char *algorithm;               /* [ring] */
	char **gpus; size_t n_gpus;    /* [all] */
	int repeat;                    /* [1] */
};

struct cfg_mcast_group { char *name; char *src; char **dst; size_t n_dst; int line; };

struct cfg_multicast {
	bool enabled;                  /* [on] */
	bool reliable;                 /* [on] */
	struct cfg_mcast_group *groups; size_t n_groups;
};

struct cfg_pcap {
	char **taps; size_t n_taps;    /* node or node:port */
	uint64_t snaplen_b;            /* 0 = full frame */
	char *dir;                     /* NULL when unset */
};

struct cfg_output {
	simtime_t queue_sample_interval, link_sample_interval, cc_sample_interval; /* [0 = off] */
	char **sample_ports; size_t n_sample_ports; /* [all]: 0 */
	bool flow_paths;               /* [off] */
	char *hpcc_fct;                /* NULL when unset */
};

/* Where a key came from, for errors raised after loading. */
struct cfg_origin {
	char *section, *key;           /* "traffic.ws", "receiver" */
	char *value;
	const char *file;              /* the scenario path, or "--set" */
	int line;                      /* 0 for --set */
};

struct config {
	char *path;                    /* scenario path as given */
	char *dir;                     /* its folder: relative input paths resolve against it */
	char *name;                    /* basename without .ini: default output results/<name>.db */
	char *text;                    /* the scenario file as read */
	char *resolved;                /* every section and key with defaults filled (run.config) */
	struct cfg_simulation simulation;
	struct cfg_topology topology;
	struct cfg_switch sw;
	struct cfg_nic nic;
	struct cfg_dcqcn dcqcn;
	struct cfg_multicast multicast;
	struct cfg_pcap pcap;
	struct cfg_output output;
	struct cfg_job *jobs; size_t n_jobs;            /* in file order */
	struct cfg_traffic *traffic; size_t n_traffic;  /* in file order */
	struct cfg_origin *origins; size_t n_origins;   /* every key read */
	struct cfg_origin *section_origins;             /* each section header (key, value NULL) */
	size_t n_section_origins;
};

/* A --set SECTION.KEY=VALUE override (already split by the command line). */
struct cfg_override { char *section, *key, *value; };

/* Loads and validates. On error returns -1 and sets *err to a malloc'd one-line
 * message (caller prints it and exits 2); the config is then freed already. */
int config_load(struct config *cfg, const char *path,
		const struct cfg_override *ov, size_t n_ov, char **err);
/* As config_load, from len bytes of text in memory (no NUL needed at its
 * end): path names it in errors and its folder resolves relative input
 * paths; no file is read for the scenario itself (the fuzz target's door). */
int config_load_text(struct config *cfg, const char *path, const char *text, size_t len,
		     const struct cfg_override *ov, size_t n_ov, char **err);
void config_free(struct config *cfg);

/* Value of a per-rate map at a link rate; -1 with *err set when the map has
 * no entry for that rate ("no entry for 40Gbps in ecn_kmin"). */
int cfg_rate_map_get(const struct cfg_rate_map *m, uint64_t rate_bps, double *out, char **err);

/* For errors found after loading (an unknown host name in a traffic section):
 * formats "FILE:LINE: [SECTION] KEY = 'VALUE': MESSAGE" into a malloc'd string.
 * line_override > 0 replaces the key's line (repeated keys such as `flow`). */
char *cfg_error_at(const struct config *cfg, const char *section, const char *key,
		   int line_override, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Resolves a built-in data name ("websearch") or a path to a readable file;
 * returns a malloc'd path or NULL. */
char *cfg_find_cdf(const struct config *cfg, const char *name_or_path);

/* The key reference of `sim --keys`: every section in canonical order and
 * each of its keys with type, default or where it is required, the
 * topology/traffic types it belongs to, and its meaning; generated from the
 * key table (kernel/config_doc.c). */
void config_print_keys(FILE *out);

const char *cfg_traffic_type_name(enum cfg_traffic_type t);
const char *cfg_topo_type_name(enum cfg_topo_type t);

#endif
