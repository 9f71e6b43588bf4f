/*
 * scenario.c — the scenario format of rocesim: the [simulation] section
 * (the run's own keys) and the schema, the list of every part's sections
 * in the order `sim --keys` documents them and run.config writes them.
 *
 * A part adds a section by exporting its struct cfg_section through its
 * public header and taking one line here; a congestion control's section
 * ([dcqcn]) comes from the controllers' registry (cc.h), after [nic].
 */
#include <stddef.h>
#include "cc.h"
#include "config.h"
#include "fabric.h"
#include "job.h"
#include "nic.h"
#include "observe.h"
#include "parallel.h"
#include "run.h"
#include "topology.h"
#include "traffic.h"

#define SIM(f) offsetof(struct sim_cfg, f)

static const char *const v_progress[] = { "auto", "on", "off", NULL };

static const struct cfg_key sim_keys[] = {
	{ "seed", KT_SEED, "1", .off = SIM(seed), .help = "seed of every random stream" },
	{ "stop", KT_TIME, .def_doc = "when all finite traffic and jobs are done", CFG_POS,
	  .off = SIM(stop), .help = "simulated time at which the run stops" },
	{ "output", KT_PATH_OUT, .def_doc = "results/<scenario>.db", .off = SIM(output),
	  .help = "result database" },
	{ "progress", KT_ENUM, "auto", .vocab = v_progress, .off = SIM(progress),
	  .help = "progress line on stderr (auto: when it is a terminal)" },
	{ "watchdog", KT_TIME, "1ms", CFG_POS, .off = SIM(watchdog),
	  .help = "no byte delivered for this long while flows remain: stall or deadlock check" },
};

static const struct cfg_section sim_section = {
	.name = "simulation", .help = "the run: seed, stop time, output",
	CFG_KEYS(sim_keys), .size = sizeof(struct sim_cfg),
};

/* The sections, in documentation order; the controllers' after [nic]. */
static const struct cfg_section *const before_cc[] = {
	&sim_section, &topo_section, &switch_section, &failure_section, &nic_section,
};
static const struct cfg_section *const after_cc[] = {
	&mcast_section, &pcap_section, &output_section, &job_section, &traffic_section, &parallel_section,
};
#define N_BEFORE (sizeof before_cc / sizeof *before_cc)
#define N_AFTER (sizeof after_cc / sizeof *after_cc)

static const struct cfg_section *section_at(size_t i)
{
	if (i < N_BEFORE)
		return before_cc[i];
	i -= N_BEFORE;
	size_t n_cc = 0;
	while (cc_section_at(n_cc))
		n_cc++;
	if (i < n_cc)
		return cc_section_at(i);
	i -= n_cc;
	return i < N_AFTER ? after_cc[i] : NULL;
}

const struct cfg_schema rocesim_schema = {
	.section_at = section_at,
	.scale_rates = topo_scale_rates,
};

int scenario_load(struct config *cfg, const char *path, const struct cfg_override *ov, size_t n_ov,
		  char **err)
{
	return config_load(cfg, &rocesim_schema, path, ov, n_ov, err);
}

int scenario_load_text(struct config *cfg, const char *path, const char *text, size_t len,
		       const struct cfg_override *ov, size_t n_ov, char **err)
{
	return config_load_text(cfg, &rocesim_schema, path, text, len, ov, n_ov, err);
}

const struct sim_cfg *scenario_sim(const struct config *cfg)
{
	return cfg_get(cfg, &sim_section);
}
