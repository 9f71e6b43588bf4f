/*
 * sweep_points.c — a sweep's points (sweep_internal.h): each point's
 * scenario loaded with its overrides (stage 1 of sweep.c), the names of
 * its captures and fct.txt (point-N beside what was asked for, so points
 * running at once never write the same file), and the command line of
 * the child that checks or runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "log.h"
#include "observe.h"
#include "parallel.h"
#include "run.h"
#include "sweep.h"
#include "sweep_internal.h"
#include "xalloc.h"

/* "name.point-3.txt" for "name.txt", "dir/point-3" style names elsewhere. */
static char *per_point_file(const char *path, size_t i)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	if (dot && dot > (slash ? slash + 1 : path))
		return str_printf("%.*s.point-%zu%s", (int)(dot - path), path, i + 1, dot);
	return str_printf("%s.point-%zu", path, i + 1);
}

/* The capture folder `sim -o output` would use (tap.c): output less its
 * extension, or output-pcap. */
static char *default_pcap_dir(const char *output)
{
	const char *slash = strrchr(output, '/'), *dot = strrchr(output, '.');
	size_t n = dot && dot > (slash ? slash + 1 : output) ? (size_t)(dot - output) : strlen(output);
	return str_printf("%.*s%s", (int)n, output, n == strlen(output) ? "-pcap" : "");
}

/* Stage 1: every point's scenario loads. 0, or EXIT_INPUT (printed). */
int sweep_load_points(struct sweep *s)
{
	const struct cli *cli = s->cli;
	struct cfg_override *ov = xcalloc(cli->n_sets + s->n_ax, sizeof *ov);
	int rc = 0;
	for (size_t i = 0; i < s->n && !rc; i++) {
		struct point *p = &s->pt[i];
		p->label = sweep_point_label(s->ax, s->n_ax, i);
		sweep_point_overrides(s->ax, s->n_ax, i, cli->sets, cli->n_sets, ov);
		struct config cfg;
		char *err = NULL;
		if (scenario_load(&cfg, cli->scenario, ov, cli->n_sets + s->n_ax, &err) < 0) {
			if (par_leader())
				fprintf(stderr, "sim: sweep point %zu/%zu (%s): %s\n", i + 1, s->n, p->label, err);
			free(err);
			rc = EXIT_INPUT;
			break;
		}
		p->config = xstrdup(cfg.resolved);
		p->seed = scenario_sim(&cfg)->seed;
		if (i == 0) {
			s->output = cli->output ? xstrdup(cli->output)
				  : scenario_sim(&cfg)->output ? xstrdup(scenario_sim(&cfg)->output)
				  : str_printf("results/%s.db", cfg.name);
			s->parts = ((const struct parallel_cfg *)cfg_get(&cfg, &parallel_section))->parts;
		}
		const struct pcap_cfg *pc = cfg_get(&cfg, &pcap_section);
		if (cli->pcap_dir || pc->dir || pc->n_taps) {
			char *base = xstrdup(cli->pcap_dir ? cli->pcap_dir : pc->dir ? pc->dir : "");
			if (!*base) {
				free(base);
				base = default_pcap_dir(s->output);
			}
			p->pcap = str_printf("%s/point-%zu", base, i + 1);
			free(base);
		}
		const struct output_cfg *oc = cfg_get(&cfg, &output_section);
		if (oc->hpcc_fct)
			p->fct = per_point_file(oc->hpcc_fct, i);
		if (cli->fct_path)
			p->fct_at = per_point_file(cli->fct_path, i);
		config_free(&cfg);
	}
	free(ov);
	return rc;
}

/* A child's argv: sim -q [--check | -o DB] [--pcap DIR] --set ... [--fct FILE] -- SCENARIO. */
char **sweep_point_argv(const struct sweep *s, size_t i, bool check)
{
	const struct cli *cli = s->cli;
	const struct point *p = &s->pt[i];
	/* exe -q -o DB --pcap DIR --set FCT --fct FILE -- SCENARIO NULL, and
	 * two per --set and axis */
	size_t n = 0, cap = 13 + 2 * (cli->n_sets + s->n_ax);
	char **argv = xcalloc(cap, sizeof *argv);
	argv[n++] = xstrdup(s->exe);
	argv[n++] = xstrdup("-q");
	if (check) {
		argv[n++] = xstrdup("--check");
	} else {
		argv[n++] = xstrdup("-o");
		argv[n++] = xstrdup(p->db);
	}
	if (p->pcap) {
		argv[n++] = xstrdup("--pcap");
		argv[n++] = xstrdup(p->pcap);
	}
	for (size_t k = 0; k < cli->n_sets; k++) {
		argv[n++] = xstrdup("--set");
		argv[n++] = str_printf("%s.%s=%s", cli->sets[k].section, cli->sets[k].key, cli->sets[k].value);
	}
	for (size_t a = 0; a < s->n_ax; a++) {
		argv[n++] = xstrdup("--set");
		argv[n++] = str_printf("%s.%s=%s", s->ax[a].section, s->ax[a].key,
				       s->ax[a].values[sweep_value_at(s->ax, s->n_ax, i, a)]);
	}
	if (p->fct) {
		argv[n++] = xstrdup("--set");
		argv[n++] = str_printf("output.hpcc_fct=%s", p->fct);
	}
	if (p->fct_at) {
		argv[n++] = xstrdup("--fct");
		argv[n++] = xstrdup(p->fct_at);
	}
	argv[n++] = xstrdup("--");
	argv[n++] = xstrdup(cli->scenario);
	argv[n] = NULL;
	return argv;
}

void sweep_free_argv(char **argv)
{
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}
