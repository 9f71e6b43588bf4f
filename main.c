/*
 * main.c — `sim`: parse the command line, load the scenario, run it, print
 * the summary. The run itself lives in models/run/run.c.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "autoconfig.h"
#include "cli.h"
#include "config.h"
#include "log.h"
#include "run.h"
#include "parallel.h"
#include "serve.h"
#include "sweep.h"
#include "xalloc.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	/* First signal: finish the current event and write what we have. A second
	 * one (SIGINT or SIGTERM, whichever came first) takes the default action;
	 * the temporary database is then left beside the previous results, which
	 * stay intact (results.h). */
	interrupted = 1;
	(void)sig;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

static double peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static void print_summary(const struct run_report *r)
{
	double wall = r->wall_s > 0 ? r->wall_s : 1e-9;
	printf("flows %llu/%llu finished\n", (unsigned long long)r->flows_done,
	       (unsigned long long)r->flows_posted);
	printf("simulated %.6f ms in %.3f s wall\n", (double)r->sim_end_ps / 1e9, r->wall_s);
	printf("events %llu (%.2f M/s), packet-hops %llu (%.2f M/s)\n",
	       (unsigned long long)r->events, (double)r->events / wall / 1e6,
	       (unsigned long long)r->packet_hops, (double)r->packet_hops / wall / 1e6);
	printf("packets sent %llu, delivered %llu, dropped %llu, in the network %llu; peak memory %.1f MB\n",
	       (unsigned long long)r->packets_sent, (unsigned long long)r->packets_delivered,
	       (unsigned long long)r->packets_dropped, (unsigned long long)r->packets_in_network,
	       peak_rss_mb());
	printf("results: %s (run %d, %s)\n", r->output, r->run_id, r->status);
	/* For make bench (test/bench/run.sh): CPU time beside wall time (the
	 * machine may be shared), events per packet-hop, and what a host and
	 * a packet in flight cost. */
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("bench: hosts %d, cpu %.3f s, events/hop %.3f, packets in flight peak %llu x %llu B\n",
	       r->hosts, (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	       r->packet_hops ? (double)r->events / (double)r->packet_hops : 0.0,
	       (unsigned long long)r->pkt_peak, (unsigned long long)r->pkt_bytes);
}

static int run_main(int argc, char **argv);

int main(int argc, char **argv)
{
	/* Under mpirun: MPI first (it may take its own arguments); ranks other
	 * than 0 print nothing on stdout (rank 0 says it all: parallel.h). */
	char *err = NULL;
	if (par_init(&argc, &argv, &err) < 0) {
		if (par_leader())
			fprintf(stderr, "sim: %s\n", err);
		free(err);
		return EXIT_INPUT;
	}
	if (!par_leader()) {
		log_set_rank(par_rank());
		if (!freopen("/dev/null", "w", stdout))
			return EXIT_INTERNAL;
	}
	return par_finalize(run_main(argc, argv));
}

static int run_main(int argc, char **argv)
{
	struct cli cli;
	int rc = cli_parse(argc, argv, &cli);
	if (rc)
		return rc;
	if (cli.help || cli.version || cli.keys) {
		if (cli.help)
			cli_usage(stdout);
		else if (cli.keys)
			config_print_keys(&rocesim_schema, stdout);
		else
			printf("rocesim %s\n", PACKAGE_VERSION);
		cli_free(&cli);
		return 0;
	}

	if (cli.n_sweeps) {
		/* The points run as child processes of this binary (sweep.c). */
		rc = sweep_main(&cli, argv[0]);
		cli_free(&cli);
		return rc;
	}

	if (cli.serve) {
		/* The line protocol on the library's API (serve.c); it loads the
		 * scenario itself and installs no signal handler. */
		char **sets = xcalloc(cli.n_sets + 1, sizeof *sets);
		for (size_t i = 0; i < cli.n_sets; i++)
			sets[i] = str_printf("%s.%s=%s", cli.sets[i].section, cli.sets[i].key, cli.sets[i].value);
		rc = serve_run(cli.scenario, (const char *const *)sets, cli.n_sets, cli.output, stdin, stdout);
		for (size_t i = 0; i < cli.n_sets; i++)
			free(sets[i]);
		free(sets);
		cli_free(&cli);
		return rc;
	}

	struct config cfg;
	char *err = NULL;
	if (scenario_load(&cfg, cli.scenario, cli.sets, cli.n_sets, &err) < 0) {
		if (par_leader())
			fprintf(stderr, "sim: %s\n", err);
		free(err);
		cli_free(&cli);
		return EXIT_INPUT;
	}

	/* The second signal meets SIG_DFL (on_signal). */
	cli_catch_signals(on_signal);
	struct run_opts o = {
		.scenario = cli.scenario, .output = cli.output, .append = cli.append, .check = cli.check,
		.ranks = cli.ranks,
		.pcap_dir = cli.pcap_dir,
		.fct_path = cli.fct_path,
		.interrupt = &interrupted,
		.progress = par_leader() && !cli.quiet && (scenario_sim(&cfg)->progress == PROGRESS_ON ||
					   (scenario_sim(&cfg)->progress == PROGRESS_AUTO && isatty(2))),
	};
	struct run_report rep;
	rc = run_scenario(&cfg, &o, &rep, &err);
	if (rc && rc != EXIT_STALLED) {
		if (par_leader())
			fprintf(stderr, "sim: %s\n", err ? err : "failed");
	} else {
		printf("%s: hosts %d, switches %d, links %d\n", cli.scenario, rep.hosts, rep.switches, rep.links);
		if (cli.check) {
			printf("valid; %llu flows known in advance\n", (unsigned long long)rep.flows_expected);
			printf("memory: about %.1f MiB estimated; this machine allows %.1f GiB\n",
			       (double)rep.mem_estimate_b / 1048576.0, (double)rep.mem_machine_b / 1073741824.0);
		}
		else
			print_summary(&rep);
		if (!cli.check && rep.flows_done < rep.flows_posted && !interrupted && rc != EXIT_STALLED &&
		    scenario_sim(&cfg)->stop == SIMTIME_NEVER)
			warnx_sim("%llu flows did not finish (%llu data packets dropped)",
				  (unsigned long long)(rep.flows_posted - rep.flows_done),
				  (unsigned long long)rep.packets_dropped);
	}
	free(err);
	run_report_free(&rep);
	config_free(&cfg);
	cli_free(&cli);
	return rc;
}
