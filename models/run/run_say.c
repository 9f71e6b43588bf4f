/*
 * run_say.c — what a run says of itself besides its results (run_internal.h):
 * the cost and capture estimates of --check and before a capture, the
 * warnings about choices that work but hurt, the refusal of a scenario the
 * machine cannot hold, and the warnings after a run (cut short, lossless
 * drops).
 */
#include <stdio.h>
#include <stdlib.h>
#include "config.h"
#include "estimate.h"
#include "fabric.h"
#include "job.h"
#include "log.h"
#include "nic.h"
#include "observe.h"
#include "run_internal.h"
#include "topology.h"
#include "units.h"
#include "xalloc.h"

/* "0.4 s", "12 s", "3.4 min", "5.2 h", "1.5 days". */
static const char *duration(double s, char *buf, size_t n)
{
	if (s < 10)
		snprintf(buf, n, "%.1f s", s);
	else if (s < 100)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 6000)
		snprintf(buf, n, "%.1f min", s / 60);
	else if (s < 48 * 3600)
		snprintf(buf, n, "%.1f h", s / 3600);
	else
		snprintf(buf, n, "%.1f days", s / 86400);
	return buf;
}

/* "850 MB", "1.2 GB", "190 TB": decimal units, 3 digits. */
static const char *bytes_text(double b, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	int u = 0;
	while (b >= 1000 && u < 5) {
		b /= 1000;
		u++;
	}
	snprintf(buf, n, "%.3g %s", b, unit[u]);
	return buf;
}

/* Capture above this many bytes is warned about before the run. */
#define PCAP_WARN_B 1e9

/* The run's cost and its capture's size, before it runs (estimate.h): at
 * --check printed, before a run with capture a warning when large. */
void run_estimate_cost(const struct config *cfg, const struct world *w, const struct jobs *jobs,
			  const struct run_opts *o, bool capture)
{
	const struct pcap_cfg *pc = cfg_get(cfg, &pcap_section);
	int tapped = 0;
	bool hosts = !pc->n_taps;
	if (hosts) {
		tapped = w->fab.n_hosts * w->fab.nics_per_host;
	} else {
		bool *want = xcalloc((size_t)w->fab.n_ports, sizeof *want);
		char *err = NULL;   /* none: tap_setup read the same names */
		for (size_t i = 0; i < pc->n_taps; i++)
			if (observe_mark_ports(w, "pcap", "taps", pc->taps[i], want, &err) < 0)
				break;
		free(err);
		for (int i = 0; i < w->fab.n_ports; i++)
			tapped += want[i];
		free(want);
	}
	struct run_estimate e;
	estimate_run(cfg, &w->fab.topo, jobs, tapped, hosts, &e);
	if (o->check) {
		if (jobs) {
			char t[32];
			printf("run time: an estimate from the jobs' plans%s: %.3g network packets and %.3g ACKs "
			       "over %.2f links each, %.3g events, about %s of CPU with this build (%.0f ns per "
			       "event, scaled from a measurement of its event queue); the jobs end near %.1f ms "
			       "of simulated time\n",
			       e.traffic_uncounted ? " ([traffic] sections not counted)" : "", e.data_packets,
			       e.ack_packets, e.links_per_path, e.events, duration(e.cpu_s, t, sizeof t),
			       e.ns_per_event, e.sim_ps / 1e9);
			printf("pcap: capturing %s would write about %s (an estimate)\n",
			       hosts ? "every host port" : "the [pcap] taps", bytes_text(e.pcap_b, t, sizeof t));
		} else {
			printf("run time: not estimated (no job; [traffic] sections are not estimated)\n");
		}
	}
	bool capturing = capture || (o->check && (pc->n_taps || pc->dir || o->pcap_dir));
	if (jobs && capturing && e.pcap_b > PCAP_WARN_B) {
		char t[32];
		warnx_sim("the capture would write about %s (%s, an estimate from the jobs' plans): "
			  "name fewer ports in [pcap] taps, set [pcap] snaplen, or stop the run earlier",
			  bytes_text(e.pcap_b, t, sizeof t), hosts ? "every host port" : "the [pcap] taps");
	}
}

/* What was built (the `fabric:` line, stdout) and what of it the keys do
 * not make obvious, with choices that work but are known to hurt: said
 * once, before the run, after every input error (so those stay one line). */
void run_warn_choices(const struct config *cfg, const struct world *w, const struct jobs *jobs,
			 bool describe)
{
	char line[768];
	topology_describe(cfg, &w->fab.topo, line, sizeof line);
	if (describe) {
		printf("%s\n", line);
		fflush(stdout);
	}
	if (topology_surprise(cfg, &w->fab.topo, line, sizeof line))
		warnx_sim("%s", line);
	jobs_warn_layout(jobs);
	const struct switch_cfg *sw = cfg_get(cfg, &switch_section);
	if (sw->ecmp == ECMP_PACKET && nic_cfg_of(cfg)->loss_recovery == LR_GBN)
		warnx_sim("[switch] ecmp = packet with [nic] loss_recovery = gbn: every reordering "
			  "looks like a loss to go-back-N and resends the rest of the window; "
			  "use loss_recovery = sr with spraying");
}

/* [simulation] stop ended the run before its work: what was left. */
void run_warn_stopped(const struct world *w, simtime_t at, const char *jobs_left)
{
	char t[32];
	units_format_time(at, t, sizeof t);
	uint64_t open_flows = w->flows_posted - w->flows_done;
	warnx_sim("the run stopped at [simulation] stop = %s with work unfinished: %s%s%llu message%s in "
		  "flight (run.status 'stopped'; unfinished rows have end_ps NULL)",
		  t, jobs_left, *jobs_left ? "; " : "", (unsigned long long)open_flows,
		  open_flows == 1 ? "" : "s");
}

/* A lossless-class drop is a modelled outcome of a too small explicit
 * headroom, or of PFC frames lost on lossy links (docs/architecture.md
 * "Kernel contracts"): reported, never hidden. */
void run_warn_lossless_drops(const struct world *w)
{
	int switches;
	uint64_t drops = fabric_lossless_drops(&w->fab, &switches);
	/* With lossy links a corrupted PFC XOFF lets the upstream port send on
	 * past the headroom: the headroom need not be at fault. */
	if (drops && w->fab.n_loss)
		warnx_sim("%llu frames of the lossless class dropped at %d switch%s: PFC frames "
			  "corrupted on lossy links ([failure] loss), or [switch] pfc_headroom too small",
			  (unsigned long long)drops, switches, switches == 1 ? "" : "es");
	else if (drops)
		warnx_sim("%llu frames of the lossless class dropped at %d switch%s: "
			  "[switch] pfc_headroom is too small for the links' rate and delay (try auto)",
			  (unsigned long long)drops, switches, switches == 1 ? "" : "es");
	uint64_t nic_drops = 0;
	for (int e = 0; e < w->n_eps; e++)
		nic_drops += nic_lossless_drops(w->eps[e].nic);
	if (nic_drops)
		warnx_sim("%llu frames of the lossless class dropped in NIC receive buffers "
			  "([nic] rx_buffer too small for rx_rate)", (unsigned long long)nic_drops);
}

/* A scenario the machine cannot hold is refused before its world is built
 * (estimate.h), at --check as before a run. */
int run_check_memory(const struct config *cfg, struct run_report *rep, char **err)
{
	struct topo t;
	char *terr = NULL;
	if (topology_build(cfg, &t, &terr) < 0) {
		free(terr);   /* world_build reports it, located */
		return 0;
	}
	struct mem_estimate e;
	estimate_memory(cfg, &t, &e);
	int n_nodes = t.n_nodes;
	topology_free(&t);
	rep->mem_estimate_b = e.total_b;
	rep->mem_machine_b = estimate_machine_memory();
	if (!rep->mem_machine_b || e.total_b <= rep->mem_machine_b)
		return 0;
	const double gib = 1024.0 * 1024 * 1024;
	*err = str_printf("%s: [topology] %s with %d nodes, %llu flows known in advance: needs about "
			  "%.1f GiB of memory, this machine has %.1f GiB (routing %.1f GiB, flows %.1f GiB, "
			  "fabric %.1f GiB, packets %.1f GiB); use a smaller topology or less traffic",
			  cfg->path ? cfg->path : "scenario", topology_type_name(cfg),
			  n_nodes, (unsigned long long)e.flows, (double)e.total_b / gib,
			  (double)rep->mem_machine_b / gib, (double)e.routing_b / gib, (double)e.flows_b / gib,
			  (double)e.fabric_b / gib, (double)e.packets_b / gib);
	return -1;
}

