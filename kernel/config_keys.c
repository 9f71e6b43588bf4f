/*
 * config_keys.c — the table of every scenario section and key
 * (SCENARIO.md "Keys"), its lookups, and the table-driven defaults and
 * freeing.
 *
 * The table is the single source of truth: names, types, defaults (written
 * as scenario text and parsed like user input, so a default can never be a
 * value the parser would reject), ranges, which topology/traffic types a key
 * belongs to and where it is required. config.c drives validation from it,
 * config_values.c parses values by its types, config_resolve.c writes the
 * resolved text from it, config_doc.c prints it for `sim --keys`, and error
 * messages list valid keys from it. Rules that tie keys together (ep divides
 * dp, kmin <= kmax, ...) are in config_rules.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_keys.h"

/* KT_ENUM stores an index through an int pointer. */
_Static_assert(sizeof(enum cfg_topo_type) == sizeof(int) && sizeof(enum cfg_traffic_type) == sizeof(int) &&
	       sizeof(enum cfg_progress) == sizeof(int) && sizeof(enum cfg_ecmp) == sizeof(int) &&
	       sizeof(enum cfg_cc) == sizeof(int) && sizeof(enum cfg_loss_recovery) == sizeof(int) &&
	       sizeof(enum cfg_dcqcn_variant) == sizeof(int), "enums are ints");

#define T(x) (1u << (x))
#define SIM(f) offsetof(struct cfg_simulation, f)
#define TOP(f) offsetof(struct cfg_topology, f)
#define SW(f) offsetof(struct cfg_switch, f)
#define NIC(f) offsetof(struct cfg_nic, f)
#define DC(f) offsetof(struct cfg_dcqcn, f)
#define MC(f) offsetof(struct cfg_multicast, f)
#define PC(f) offsetof(struct cfg_pcap, f)
#define OUT(f) offsetof(struct cfg_output, f)
#define JOB(f) offsetof(struct cfg_job, f)
#define TR(f) offsetof(struct cfg_traffic, f)

#define POS .range = CFG_R_MIN_OPEN, .lo = 0               /* > 0 */
#define GE(x) .range = CFG_R_MIN, .lo = (x)                /* >= x */
#define IN(a, b) .range = CFG_R_MIN | CFG_R_MAX, .lo = (a), .hi = (b)
#define UNIT .range = CFG_R_MIN_OPEN | CFG_R_MAX, .lo = 0, .hi = 1  /* (0, 1] */

const char *const cfg_sec_names[SEC_N] = {
	"simulation", "topology", "switch", "nic", "dcqcn",
	"multicast", "pcap", "output", "job", "traffic",
};
const char *const cfg_topo_type_names[] = {
	"fat_tree", "leaf_spine", "rail_optimized", "dumbbell", "star", "hpcc", "ring", NULL,
};
const char *const cfg_traffic_type_names[] = {
	"poisson", "incast", "permutation", "all_to_all", "flows", "hpcc",
	"multicast", "collective", NULL,
};
/* HPCC traffic_gen's distributions, shipped in data/cdf/. */
const char *const cfg_cdf_builtin[] = {
	"websearch", "hadoop", "alistorage2019", "googlerpc2008", NULL,
};

static const char *const v_progress[] = { "auto", "on", "off", NULL };
static const char *const v_ecmp[] = { "flow", "packet", NULL };
static const char *const v_cc[] = { "none", "dcqcn", NULL };
static const char *const v_lr[] = { "gbn", "sr", NULL };
static const char *const v_variant[] = { "paper", "hpcc", NULL };
static const char *const v_model[] = {
	"gpt3-175b", "llama2-7b", "llama2-70b", "mixtral-8x7b", "bert-large", "custom", NULL,
};
static const char *const v_gpu[] = { "a100", "h100", "h200", NULL };
static const char *const v_allreduce[] = { "ring", "halving_doubling", "tree", "multicast", NULL };
static const char *const v_ring_mc[] = { "ring", "multicast", NULL };
static const char *const v_direct[] = { "direct", NULL };
static const char *const v_op[] = {
	"allreduce", "reduce_scatter", "allgather", "alltoall", "broadcast", "sendrecv", NULL,
};
static const char *const v_algorithm[] = {
	"ring", "halving_doubling", "tree", "multicast", "direct", NULL,
};

enum { P = T(TRAFFIC_POISSON), I = T(TRAFFIC_INCAST), PE = T(TRAFFIC_PERMUTATION),
       A2A = T(TRAFFIC_ALL_TO_ALL), F = T(TRAFFIC_FLOWS), H = T(TRAFFIC_HPCC),
       M = T(TRAFFIC_MULTICAST), C = T(TRAFFIC_COLLECTIVE) };

#define MODEL_DIM(n, what) \
	{ SEC_JOB, #n, KT_LLONG, .def_doc = "from the preset", GE(1), .off = JOB(n), .help = what }

const struct cfg_key cfg_keys[] = {
	/* [simulation] */
	{ SEC_SIMULATION, "seed", KT_SEED, "1", .off = SIM(seed),
	  .help = "seed of every random stream" },
	{ SEC_SIMULATION, "stop", KT_TIME, .def_doc = "when all finite traffic and jobs are done",
	  POS, .off = SIM(stop), .help = "simulated time at which the run stops" },
	{ SEC_SIMULATION, "output", KT_PATH_OUT, .def_doc = "results/<scenario>.db",
	  .off = SIM(output), .help = "result database" },
	{ SEC_SIMULATION, "progress", KT_ENUM, "auto", .vocab = v_progress, .off = SIM(progress),
	  .help = "progress line on stderr (auto: when it is a terminal)" },
	{ SEC_SIMULATION, "watchdog", KT_TIME, "1ms", POS, .off = SIM(watchdog),
	  .help = "no byte delivered for this long while flows remain: stall or deadlock check" },

	/* [topology] */
	{ SEC_TOPOLOGY, "type", KT_ENUM, .required = CFG_ALL, .vocab = cfg_topo_type_names,
	  .off = TOP(type), .help = "fabric shape" },
	{ SEC_TOPOLOGY, "link_rate", KT_RATE, .required = CFG_ALL, POS, .off = TOP(link_rate_bps),
	  .help = "rate of every link" },
	{ SEC_TOPOLOGY, "link_delay", KT_TIME, .required = CFG_ALL, .off = TOP(link_delay),
	  .help = "propagation delay of every link" },
	{ SEC_TOPOLOGY, "host_link_rate", KT_RATE, .def_doc = "link_rate", POS,
	  .off = TOP(host_link_rate_bps), .help = "rate of host-to-switch links" },
	{ SEC_TOPOLOGY, "switch_latency", KT_TIME, "0s", .off = TOP(switch_latency),
	  .help = "forwarding latency of a switch" },
	{ SEC_TOPOLOGY, "gpus_per_host", KT_INT, "1", GE(1), .off = TOP(gpus_per_host),
	  .help = "GPUs in a host" },
	{ SEC_TOPOLOGY, "nics_per_host", KT_INT, "1", GE(1), .off = TOP(nics_per_host),
	  .help = "NICs in a host" },
	{ SEC_TOPOLOGY, "nvlink_rate", KT_RATE, "450GBps", POS, .off = TOP(nvlink_rate_bps),
	  .help = "NVLink rate per GPU per direction" },
	{ SEC_TOPOLOGY, "nvlink_delay", KT_TIME, "200ns", .off = TOP(nvlink_delay),
	  .help = "NVLink latency" },
	{ SEC_TOPOLOGY, "k", KT_INT, .applies = T(TOPO_FAT_TREE), .required = T(TOPO_FAT_TREE),
	  .range = CFG_R_MIN | CFG_R_EVEN, .lo = 2, .off = TOP(k),
	  .help = "fat-tree arity (k^3/4 hosts)" },
	{ SEC_TOPOLOGY, "oversubscription", KT_NUMBER, "1", .applies = T(TOPO_FAT_TREE), POS,
	  .off = TOP(oversubscription), .help = "ToR downlink to uplink capacity ratio" },
	{ SEC_TOPOLOGY, "leaves", KT_INT, .applies = T(TOPO_LEAF_SPINE),
	  .required = T(TOPO_LEAF_SPINE), GE(1), .off = TOP(leaves), .help = "leaf switches" },
	{ SEC_TOPOLOGY, "spines", KT_INT, .applies = T(TOPO_LEAF_SPINE) | T(TOPO_RAIL_OPTIMIZED),
	  .required = T(TOPO_LEAF_SPINE) | T(TOPO_RAIL_OPTIMIZED), GE(1), .off = TOP(spines),
	  .help = "spine switches" },
	{ SEC_TOPOLOGY, "hosts_per_leaf", KT_INT, .applies = T(TOPO_LEAF_SPINE),
	  .required = T(TOPO_LEAF_SPINE), GE(1), .off = TOP(hosts_per_leaf), .help = "hosts under a leaf" },
	{ SEC_TOPOLOGY, "hosts", KT_INT, .applies = T(TOPO_STAR) | T(TOPO_RAIL_OPTIMIZED),
	  .required = T(TOPO_STAR) | T(TOPO_RAIL_OPTIMIZED), GE(1), .off = TOP(hosts), .help = "hosts" },
	{ SEC_TOPOLOGY, "hosts_left", KT_INT, .applies = T(TOPO_DUMBBELL),
	  .required = T(TOPO_DUMBBELL), GE(1), .off = TOP(hosts_left), .help = "hosts on sw0" },
	{ SEC_TOPOLOGY, "hosts_right", KT_INT, .applies = T(TOPO_DUMBBELL),
	  .required = T(TOPO_DUMBBELL), GE(1), .off = TOP(hosts_right), .help = "hosts on sw1" },
	{ SEC_TOPOLOGY, "file", KT_PATH_IN, .applies = T(TOPO_HPCC), .required = T(TOPO_HPCC),
	  .off = TOP(file), .help = "HPCC ns-3 topology.txt" },
	{ SEC_TOPOLOGY, "switches", KT_INT, .applies = T(TOPO_RING), .required = T(TOPO_RING), GE(3),
	  .off = TOP(switches), .help = "switches around the ring" },
	{ SEC_TOPOLOGY, "hosts_per_switch", KT_INT, .applies = T(TOPO_RING), .required = T(TOPO_RING),
	  GE(1), .off = TOP(hosts_per_switch), .help = "hosts under each ring switch" },

	/* [switch] */
	{ SEC_SWITCH, "buffer", KT_SIZE, "32MiB", POS, .off = SW(buffer_b), .help = "shared buffer" },
	{ SEC_SWITCH, "pfc", KT_BOOL, "on", .off = SW(pfc), .help = "priority flow control" },
	{ SEC_SWITCH, "pfc_alpha", KT_NUM_MAP, "0.125", POS, .off = SW(pfc_alpha),
	  .help = "dynamic threshold of the PFC XOFF limit" },
	{ SEC_SWITCH, "pfc_headroom", KT_SIZE_AUTO, "auto", .off = SW(headroom_b),
	  .off2 = SW(headroom_auto), .help = "headroom per ingress port and priority" },
	{ SEC_SWITCH, "ecn", KT_BOOL, "on", .off = SW(ecn), .help = "ECN marking" },
	{ SEC_SWITCH, "ecn_kmin", KT_SIZE_MAP, .def_doc = "100KB per 25Gbps of link rate, as HPCC",
	  .off = SW(ecn_kmin), .off2 = SW(ecn_kmin_default), .per_25g = 100000,
	  .help = "queue length where marking starts" },
	{ SEC_SWITCH, "ecn_kmax", KT_SIZE_MAP, .def_doc = "400KB per 25Gbps of link rate, as HPCC",
	  .off = SW(ecn_kmax), .off2 = SW(ecn_kmax_default), .per_25g = 400000,
	  .help = "queue length where marking reaches ecn_pmax" },
	{ SEC_SWITCH, "ecn_pmax", KT_NUM_MAP, "0.2", IN(0, 1), .off = SW(ecn_pmax),
	  .help = "marking probability at ecn_kmax" },
	{ SEC_SWITCH, "ecmp", KT_ENUM, "flow", .vocab = v_ecmp, .off = SW(ecmp),
	  .help = "per-flow hashing or per-packet spraying" },

	/* [nic] */
	{ SEC_NIC, "mtu", KT_INT, "1024", IN(256, 9000), .off = NIC(mtu), .help = "payload bytes per packet" },
	{ SEC_NIC, "cc", KT_ENUM, "dcqcn", .vocab = v_cc, .off = NIC(cc), .help = "congestion control" },
	{ SEC_NIC, "ack_every", KT_INT, "1", GE(1), .off = NIC(ack_every), .help = "packets per ACK" },
	{ SEC_NIC, "rto", KT_TIME, "1ms", POS, .off = NIC(rto), .help = "retransmission timeout" },
	{ SEC_NIC, "priority", KT_INT, "3", IN(0, 7), .off = NIC(priority), .help = "priority of RoCE data" },
	{ SEC_NIC, "loss_recovery", KT_ENUM, "gbn", .vocab = v_lr, .off = NIC(loss_recovery),
	  .help = "go-back-N or selective repeat" },
	{ SEC_NIC, "qps_per_pair", KT_INT, "1", GE(1), .off = NIC(qps_per_pair),
	  .help = "queue pairs between two endpoints" },
	{ SEC_NIC, "rx_rate", KT_RATE_OFF, "off", POS, .off = NIC(rx_rate_bps), .off2 = NIC(rx_rate_off),
	  .help = "rate the host takes received data at (PCIe, memory); off: as it arrives" },
	{ SEC_NIC, "rx_buffer", KT_SIZE, "256KiB", POS, .off = NIC(rx_buffer_b),
	  .help = "NIC receive buffer; with rx_rate the NIC sends PFC when it fills" },

	/* [dcqcn] */
	{ SEC_DCQCN, "variant", KT_ENUM, "hpcc", .vocab = v_variant, .off = DC(variant),
	  .help = "paper, or HPCC ns-3's stage machine" },
	{ SEC_DCQCN, "g", KT_NUMBER, "1/256", UNIT, .off = DC(g), .help = "alpha gain" },
	{ SEC_DCQCN, "rai", KT_RATE, .def_doc = "5Mbps per 25Gbps of host link rate, as HPCC", POS,
	  .off = DC(rai_bps), .off2 = DC(rai_default), .per_25g = 5e6, .help = "additive increase" },
	{ SEC_DCQCN, "rhai", KT_RATE, .def_doc = "50Mbps per 25Gbps of host link rate, as HPCC", POS,
	  .off = DC(rhai_bps), .off2 = DC(rhai_default), .per_25g = 50e6, .help = "hyper increase" },
	{ SEC_DCQCN, "t_alpha", KT_TIME, "1us", POS, .off = DC(t_alpha), .help = "alpha update period" },
	{ SEC_DCQCN, "t_dec", KT_TIME, "4us", POS, .off = DC(t_dec), .help = "minimum spacing of rate decreases" },
	{ SEC_DCQCN, "t_inc", KT_TIME, "300us", POS, .off = DC(t_inc), .help = "rate increase timer" },
	{ SEC_DCQCN, "byte_counter", KT_SIZE_OFF, "off", POS, .off = DC(byte_counter_b),
	  .off2 = DC(byte_counter_off), .help = "bytes per increase event" },
	{ SEC_DCQCN, "fast_recovery_times", KT_INT, "1", GE(0), .off = DC(fast_recovery_times),
	  .help = "F: fast recovery stages" },
	{ SEC_DCQCN, "min_rate", KT_RATE, "1Gbps", POS, .off = DC(min_rate_bps), .help = "rate floor" },
	{ SEC_DCQCN, "cnp_interval", KT_TIME, "0s", .off = DC(cnp_interval),
	  .help = "minimum spacing of CNPs per QP (0: one per CE mark)" },
	{ SEC_DCQCN, "rate_on_first_cnp", KT_NUMBER, "1.0", UNIT, .off = DC(rate_on_first_cnp),
	  .help = "fraction of line rate set by the first CNP" },
	{ SEC_DCQCN, "clamp_target_rate", KT_BOOL, "off", .off = DC(clamp_target_rate),
	  .help = "always set the target rate on a decrease" },

	/* [multicast] */
	{ SEC_MULTICAST, "enabled", KT_BOOL, "on", .off = MC(enabled), .help = "switch replication" },
	{ SEC_MULTICAST, "reliable", KT_BOOL, "on", .off = MC(reliable), .help = "off: UD, no feedback" },
	{ SEC_MULTICAST, "group", KT_GROUP, .def_doc = "none", .off = MC(groups), .off2 = MC(n_groups),
	  .help = "repeated: NAME SRC DST DST..." },

	/* [pcap] */
	{ SEC_PCAP, "taps", KT_LIST, .def_doc = "none (with --pcap: every host port)",
	  .off = PC(taps), .off2 = PC(n_taps), .help = "node or node:port" },
	{ SEC_PCAP, "snaplen", KT_SIZE, .def_doc = "full frame", POS, .off = PC(snaplen_b),
	  .help = "bytes kept of each frame" },
	{ SEC_PCAP, "dir", KT_PATH_OUT, .def_doc = "the database path without .db (when taps or --pcap ask for capture)", .off = PC(dir),
	  .help = "capture folder" },

	/* [output] */
	{ SEC_OUTPUT, "queue_sample_interval", KT_TIME, "0s", .off = OUT(queue_sample_interval),
	  .help = "queue depth sampling (0: off)" },
	{ SEC_OUTPUT, "link_sample_interval", KT_TIME, "0s", .off = OUT(link_sample_interval),
	  .help = "link utilisation sampling (0: off)" },
	{ SEC_OUTPUT, "cc_sample_interval", KT_TIME, "0s", .off = OUT(cc_sample_interval),
	  .help = "congestion control sampling (0: off)" },
	{ SEC_OUTPUT, "sample_ports", KT_LIST, .def_doc = "all", .off = OUT(sample_ports),
	  .off2 = OUT(n_sample_ports), .help = "ports sampled" },
	{ SEC_OUTPUT, "flow_paths", KT_BOOL, "off", .off = OUT(flow_paths), .help = "record each flow's path" },
	{ SEC_OUTPUT, "hpcc_fct", KT_PATH_OUT, .def_doc = "not written", .off = OUT(hpcc_fct),
	  .help = "also write HPCC's fct.txt" },

	/* [job.NAME] */
	{ SEC_JOB, "model", KT_WORD, .required = CFG_ALL, .vocab = v_model, .off = JOB(model),
	  .help = "model preset or custom" },
	MODEL_DIM(layers, "transformer layers"),
	MODEL_DIM(hidden, "hidden size"),
	MODEL_DIM(ffn_hidden, "feed-forward hidden size"),
	MODEL_DIM(heads, "attention heads"),
	MODEL_DIM(kv_heads, "key/value heads"),
	MODEL_DIM(seq_len, "sequence length"),
	MODEL_DIM(vocab, "vocabulary size"),
	MODEL_DIM(experts, "experts per MoE layer"),
	MODEL_DIM(top_k, "experts per token"),
	MODEL_DIM(moe_every, "an MoE layer every n layers"),
	{ SEC_JOB, "capacity_factor", KT_NUMBER, "1.0", POS, .off = JOB(capacity_factor),
	  .help = "MoE capacity factor" },
	{ SEC_JOB, "micro_batch", KT_INT, "1", GE(1), .off = JOB(micro_batch), .help = "micro-batch size" },
	{ SEC_JOB, "global_batch", KT_LLONG, .required = CFG_ALL, GE(1), .off = JOB(global_batch),
	  .help = "global batch size" },
	{ SEC_JOB, "tp", KT_INT, "1", GE(1), .off = JOB(tp), .help = "tensor parallelism" },
	{ SEC_JOB, "pp", KT_INT, "1", GE(1), .off = JOB(pp), .help = "pipeline parallelism" },
	{ SEC_JOB, "dp", KT_INT, "1", GE(1), .off = JOB(dp), .help = "data parallelism" },
	{ SEC_JOB, "ep", KT_INT, "1", GE(1), .off = JOB(ep), .help = "expert parallelism (divides dp)" },
	{ SEC_JOB, "zero", KT_INT, "0", IN(0, 3), .off = JOB(zero), .help = "ZeRO stage" },
	{ SEC_JOB, "sequence_parallel", KT_BOOL, "off", .off = JOB(sequence_parallel),
	  .help = "Megatron sequence parallelism" },
	{ SEC_JOB, "iterations", KT_INT, "1", GE(1), .off = JOB(iterations), .help = "training iterations" },
	{ SEC_JOB, "gpu", KT_WORD, "h100", .vocab = v_gpu, .off = JOB(gpu), .help = "GPU preset" },
	{ SEC_JOB, "mfu", KT_NUMBER, "0.5", UNIT, .off = JOB(mfu), .help = "model FLOPs utilisation" },
	{ SEC_JOB, "grad_bytes", KT_INT, "2", IN(2, 4), .off = JOB(grad_bytes),
	  .help = "bytes per gradient element (2 or 4)" },
	{ SEC_JOB, "hosts", KT_LIST, .def_doc = "all", .off = JOB(hosts), .off2 = JOB(n_hosts),
	  .help = "hosts the job runs on" },
	{ SEC_JOB, "placement", KT_LIST, "tp,ep,dp,pp", .off = JOB(placement),
	  .off2 = JOB(n_placement), .help = "rank order, innermost first" },
	{ SEC_JOB, "allreduce", KT_WORD, "ring", .vocab = v_allreduce, .off = JOB(allreduce),
	  .help = "all-reduce algorithm" },
	{ SEC_JOB, "allgather", KT_WORD, "ring", .vocab = v_ring_mc, .off = JOB(allgather),
	  .help = "all-gather algorithm" },
	{ SEC_JOB, "reduce_scatter", KT_WORD, "ring", .vocab = v_ring_mc, .off = JOB(reduce_scatter),
	  .help = "reduce-scatter algorithm" },
	{ SEC_JOB, "broadcast", KT_WORD, "ring", .vocab = v_ring_mc, .off = JOB(broadcast),
	  .help = "broadcast algorithm" },
	{ SEC_JOB, "alltoall", KT_WORD, "direct", .vocab = v_direct, .off = JOB(alltoall),
	  .help = "all-to-all algorithm" },
	{ SEC_JOB, "moe_skew", KT_NUMBER, "0", GE(0), .off = JOB(moe_skew),
	  .help = "Zipf exponent of expert popularity" },
	{ SEC_JOB, "chunk", KT_SIZE, "512KiB", POS, .off = JOB(chunk_b), .help = "pipelining chunk" },
	{ SEC_JOB, "channels", KT_INT, "2", GE(1), .off = JOB(channels), .help = "parallel rings" },
	{ SEC_JOB, "start", KT_TIME, "0s", .off = JOB(start), .help = "start time" },

	/* [traffic.NAME] */
	{ SEC_TRAFFIC, "type", KT_ENUM, .required = CFG_ALL, .vocab = cfg_traffic_type_names,
	  .off = TR(type), .help = "traffic pattern" },
	{ SEC_TRAFFIC, "load", KT_NUMBER, .applies = P, .required = P, UNIT, .off = TR(load),
	  .help = "offered load as a fraction of host link rate" },
	{ SEC_TRAFFIC, "cdf", KT_CDF, "websearch", .applies = P, .off = TR(cdf),
	  .help = "flow-size distribution: built-in name or file" },
	{ SEC_TRAFFIC, "hosts", KT_LIST, .def_doc = "all", .applies = P | C, .off = TR(hosts),
	  .off2 = TR(n_hosts), .help = "hosts taking part" },
	{ SEC_TRAFFIC, "gpus", KT_LIST, .def_doc = "all", .applies = C, .off = TR(gpus),
	  .off2 = TR(n_gpus), .help = "GPUs taking part" },
	{ SEC_TRAFFIC, "start", KT_TIME, "0s", .applies = P | I | PE | A2A | M | C, .off = TR(start),
	  .help = "start time" },
	{ SEC_TRAFFIC, "stop", KT_TIME, .def_doc = "until [simulation] stop", .applies = P, POS,
	  .off = TR(stop), .help = "last arrival" },
	{ SEC_TRAFFIC, "senders", KT_LIST, .applies = I, .required = I, .off = TR(senders),
	  .off2 = TR(n_senders), .help = "incast senders" },
	{ SEC_TRAFFIC, "receiver", KT_NAME, .applies = I, .required = I, .off = TR(receiver),
	  .help = "incast receiver" },
	{ SEC_TRAFFIC, "size", KT_SIZE, .applies = I | PE | A2A | M | C, .required = I | PE | A2A | M | C,
	  POS, .off = TR(size_b), .help = "bytes per flow or collective buffer" },
	{ SEC_TRAFFIC, "flow", KT_FLOW, .applies = F, .required = F, .off = TR(flows),
	  .off2 = TR(n_flows), .help = "repeated: SRC DST SIZE START" },
	{ SEC_TRAFFIC, "file", KT_PATH_IN, .applies = H, .required = H, .off = TR(file),
	  .help = "HPCC ns-3 flow.txt" },
	{ SEC_TRAFFIC, "group", KT_NAME, .applies = M, .required = M, .off = TR(group),
	  .help = "a group of [multicast]" },
	{ SEC_TRAFFIC, "op", KT_WORD, .applies = C, .required = C, .vocab = v_op, .off = TR(op),
	  .help = "collective operation" },
	{ SEC_TRAFFIC, "algorithm", KT_WORD, .def_doc = "ring (direct for alltoall)", .applies = C,
	  .vocab = v_algorithm, .off = TR(algorithm), .help = "collective algorithm" },
	{ SEC_TRAFFIC, "repeat", KT_INT, "1", .applies = C, GE(1), .off = TR(repeat),
	  .help = "times the collective runs" },
};
const size_t cfg_n_keys = sizeof cfg_keys / sizeof cfg_keys[0];

const struct cfg_key *cfg_key_find(enum cfg_sec_kind sec, const char *name)
{
	for (size_t i = 0; i < cfg_n_keys; i++)
		if (cfg_keys[i].sec == sec && strcmp(cfg_keys[i].name, name) == 0)
			return &cfg_keys[i];
	return NULL;
}

/* NAME of [job.NAME]: a word that can appear in results and --set. */
static bool valid_instance_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

int cfg_sec_kind_of(const char *section)
{
	for (int k = 0; k < SEC_N; k++) {
		size_t len = strlen(cfg_sec_names[k]);
		if (k == SEC_JOB || k == SEC_TRAFFIC) {
			if (strncmp(section, cfg_sec_names[k], len) == 0 && section[len] == '.' &&
			    valid_instance_name(section + len + 1))
				return k;
		} else if (strcmp(section, cfg_sec_names[k]) == 0) {
			return k;
		}
	}
	return -1;
}

bool cfg_key_applies(const struct cfg_key *k, int type)
{
	return k->applies == 0 || type < 0 || (k->applies & T(type));
}

void cfg_keys_names(enum cfg_sec_kind sec, int type, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < cfg_n_keys && len < n; i++) {
		const struct cfg_key *k = &cfg_keys[i];
		if (k->sec != sec || !cfg_key_applies(k, type))
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", k->name);
	}
}

void cfg_vocab_text(const char *const *vocab, char *buf, size_t n)
{
	size_t len = 0, count = 0;
	while (vocab[count])
		count++;
	buf[0] = '\0';
	for (size_t i = 0; i < count && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					i == 0 ? "" : i + 1 == count ? " or " : ", ", vocab[i]);
}

/* ---- Defaults and freeing, driven by the table ---- */

int cfg_section_defaults(enum cfg_sec_kind sec, void *base, int type,
			 const struct cfg_store_ctx *ctx, const struct cfg_key **bad, char *expected)
{
	for (size_t i = 0; i < cfg_n_keys; i++) {
		const struct cfg_key *k = &cfg_keys[i];
		if (k->sec != sec || !cfg_key_applies(k, type))
			continue;
		if (k->type == KT_TIME && !k->def)
			*CFG_FIELD(base, k->off, simtime_t) = SIMTIME_NEVER;
		if (k->def && cfg_key_store(k, base, k->def, ctx, expected) < 0) {
			*bad = k;
			return -1;
		}
		if (k->per_25g > 0) {
			*CFG_FIELD(base, k->off2, bool) = true;
			if (k->type == KT_SIZE_MAP || k->type == KT_NUM_MAP)
				*CFG_FIELD(base, k->off, struct cfg_rate_map) =
					(struct cfg_rate_map){ .per_25g = k->per_25g,
								.section = cfg_sec_names[k->sec], .key = k->name };
		}
	}
	return 0;
}

void cfg_key_free(const struct cfg_key *k, void *base)
{
	switch (k->type) {
	case KT_WORD: case KT_NAME: case KT_PATH_IN: case KT_PATH_OUT: case KT_CDF:
		free(*CFG_FIELD(base, k->off, char *));
		*CFG_FIELD(base, k->off, char *) = NULL;
		break;
	case KT_LIST:
		units_list_free(*CFG_FIELD(base, k->off, char **), *CFG_FIELD(base, k->off2, size_t));
		*CFG_FIELD(base, k->off, char **) = NULL;
		*CFG_FIELD(base, k->off2, size_t) = 0;
		break;
	case KT_FLOW: {
		struct cfg_traffic *t = base;
		for (size_t i = 0; i < t->n_flows; i++) {
			free(t->flows[i].src);
			free(t->flows[i].dst);
		}
		free(t->flows);
		t->flows = NULL;
		t->n_flows = 0;
		break;
	}
	case KT_GROUP: {
		struct cfg_multicast *mc = base;
		for (size_t i = 0; i < mc->n_groups; i++) {
			free(mc->groups[i].name);
			free(mc->groups[i].src);
			units_list_free(mc->groups[i].dst, mc->groups[i].n_dst);
		}
		free(mc->groups);
		mc->groups = NULL;
		mc->n_groups = 0;
		break;
	}
	default:
		break;
	}
}

void cfg_section_free(enum cfg_sec_kind sec, void *base)
{
	for (size_t i = 0; i < cfg_n_keys; i++)
		if (cfg_keys[i].sec == sec)
			cfg_key_free(&cfg_keys[i], base);
}
