/*
 * run_outputs.c — what a run writes (run_internal.h): its database, its
 * fct.txt and its captures, or under MPI this rank's parts of them (sent
 * to rank 0 or left beside the output, par_ship.c): opening them with
 * the ranks agreeing, the guard against a run that dies, and publishing.
 */
#include <stdio.h>
#include <stdlib.h>
#include "autoconfig.h"
#include "config.h"
#include "fabric.h"
#include "log.h"
#include "observe.h"
#include "parallel.h"
#include "results.h"
#include "run.h"
#include "run_internal.h"
#include "xalloc.h"

/* What a run that dies (die_*, SIM_ASSERT) must not leave half-written. */
static struct results *open_results; /* discarded */
static struct hpcc_fct *open_fct;    /* removed, as the database is */
static struct taps *open_taps;       /* flushed and closed */

static void abort_results(void)
{
	if (open_results)
		results_abort(open_results);
	open_results = NULL;
	if (open_fct)
		hpcc_fct_abort(open_fct);
	open_fct = NULL;
	tap_close(open_taps);
	open_taps = NULL;
}

static char *output_path(const struct config *cfg, const struct run_opts *o)
{
	if (o->output)
		return xstrdup(o->output);
	if (scenario_sim(cfg)->output)
		return xstrdup(scenario_sim(cfg)->output);
	return str_printf("results/%s.db", cfg->name);
}

/* results_open's prepare step: the world's, the flow rows' and the flow
 * paths' inserts, before the run row is committed; `refused` tells the
 * caller the tables would not take them. */
struct tables_ctx { struct world *w; bool refused; };

static int prepare_tables(void *ctx, struct results *res)
{
	struct tables_ctx *tc = ctx;
	tc->refused = world_results_prepare(tc->w, res) < 0 || flow_rows_attach(tc->w, res) < 0 ||
		      flow_paths_attach(tc->w, res) < 0;
	return tc->refused ? -1 : 0;
}

/* Where the run writes its fct.txt: --fct's path, else [output]
 * hpcc_fct's; NULL: it writes none. run_fct_who: which named it. */
static const char *run_fct_path(const struct run *r)
{
	const struct output_cfg *oc = cfg_get(r->cfg, &output_section);
	return r->o.fct_path ? r->o.fct_path : oc->hpcc_fct;
}
static const char *run_fct_who(const struct run *r)
{
	return r->o.fct_path ? HPCC_FCT_OPTION : HPCC_FCT_KEY;
}

/* Removes what open_outputs opened (another rank could not open its own). */
static void discard_outputs(struct run *r)
{
	if (r->res)
		results_abort(r->res);
	r->res = NULL;
	if (r->fct)
		hpcc_fct_abort(r->fct);
	r->fct = NULL;
	tap_discard(r->taps);
	r->taps = NULL;
}

/* Opens the run's outputs: captures, fct.txt, the database (a rank's
 * parts under MPI, par_ship.c says where). 0, or -1 with *err and nothing
 * left open. */
static int open_outputs(struct run *r, struct run_report *rep, char **err)
{
	const struct config *cfg = r->cfg;
	const struct run_opts *o = &r->o;
	struct world *w = &r->w;
	bool part = r->par && par_rank() > 0; /* its part, merged by rank 0 (par_merge.c) */
	if (r->par && par_ship_open(r->par, rep->output, run_fct_path(r), err) < 0)
		return -1;
	/* Each rank captures its own ports, beside the published database
	 * (or in its private folder, sent to rank 0 at the end). */
	if (r->taps) {
		par_share_records(r->par);
		char *here = r->par ? par_captures_here(r->par) : NULL;
		int trc = tap_open(r->taps, rep->output, here, err);
		free(here);
		if (trc < 0) {
			r->taps = NULL;  /* tap_open removed what it created */
			return -1;
		}
	}
	if (part) {
		char *at = par_part_here(r->par, rep->output, "results.db");
		free(rep->output);
		rep->output = at;
	}
	struct tables_ctx tables = { .w = w };
	/* A part is read once, by the merge: no indexes (rank 0 builds
	 * the database's over the merged tables). */
	struct results_run_info info = { .scenario = o->scenario ? o->scenario : cfg->path,
					 .config = cfg->resolved, .seed = scenario_sim(cfg)->seed,
					 .version = PACKAGE_VERSION, .schema_sql = rocesim_schema_sql,
					 .index_sql = part ? NULL : rocesim_index_sql, .prepare = prepare_tables,
					 .prepare_ctx = &tables };
	/* [output] hpcc_fct (or --fct): opened before the run, so an
	 * unwritable path is an input error with nothing simulated
	 * (hpcc_fct.h). Partitioned: each rank writes its part, which rank 0
	 * merges (run_fct_merge). */
	const char *fct = run_fct_path(r);
	if (fct) {
		bool keyed = par_partitioned(r->par);
		char *fpath = keyed ? par_part_here(r->par, fct, "fct.txt") : xstrdup(fct);
		r->fct = hpcc_fct_open(fpath, run_fct_who(r), keyed, err);
		free(fpath);
		if (!r->fct) {
			tap_discard(r->taps); /* nothing half-written */
			r->taps = NULL;
			return -1;
		}
		hpcc_fct_attach(r->fct, w); /* the first observer of flow records; their rows next */
	}
	r->res = results_open(rep->output, o->append && !part, &info, err); /* a part is new */
	if (!r->res && o->append && tables.refused) {
		char *why = *err;
		*err = str_printf("%s (its tables do not match this version of rocesim: write to a new "
				  "database, or --append to one this version made)", why);
		free(why);
	}
	if (!r->res) {
		discard_outputs(r);
		return -1;
	}
	return 0;
}

int run_outputs_open(struct run *r, struct run_report *rep, char **err)
{
	rep->output = output_path(r->cfg, &r->o);
	int rc = open_outputs(r, rep, err);
	if (par_partitioned(r->par)) {
		/* One rank that cannot open its outputs stops them all (the
		 * others would wait for it in their first window); rank 0 says
		 * why. */
		char *first = par_first_error(r->par, rc < 0 ? *err : NULL);
		if (first && rc == 0)
			discard_outputs(r);
		if (first) {
			free(*err);
			*err = first;
			rc = -1;
		}
	}
	return rc;
}

void run_outputs_guard(struct run *r)
{
	open_results = r->res;
	open_fct = r->fct;
	open_taps = r->taps;
	log_set_cleanup(abort_results);
}

bool run_outputs_close_captures(struct run *r)
{
	char *captured = r->taps ? xstrdup(tap_dir(r->taps)) : NULL;
	tap_close(r->taps);
	r->taps = open_taps = NULL;
	bool shipped = !par_partitioned(r->par) || !captured || par_ship_captures(r->par, captured) == 0;
	free(captured);
	return shipped;
}

/* Publishes this process's database (a rank's part under MPI) and closes
 * its fct.txt (or part) beside it: the file is kept only with a published
 * database. Returns whether both were kept. */
static bool publish(struct run *r, struct results *res, const char *status, const struct run_summary *sum,
		    char **err)
{
	open_results = NULL;
	open_fct = NULL;
	log_set_cleanup(NULL);
	bool kept = results_finish(res, status, sum) == 0;
	if (!kept)
		*err = xstrdup("could not finish the results database");
	if (r->fct) {
		if (!kept)
			hpcc_fct_abort(r->fct);
		else if (hpcc_fct_close(r->fct, err) < 0)
			kept = false;
		r->fct = NULL;
	}
	return kept;
}

int run_outputs_finish(struct run *r, struct results *res, struct run_report *rep, const struct run_summary *sum,
		       bool shipped, char **err)
{
	int rc = 0;
	bool par = par_partitioned(r->par);
	if (res && r->par && par_rank() > 0) { /* its part first, for rank 0 to merge */
		if (!publish(r, res, rep->status, sum, err))
			rc = -1;
		res = NULL;
	}
	if (par && rep->output) { /* the parts sent to rank 0, when they are (par_ship.c) */
		shipped &= par_ship_part(r->par, rep->output, "results.db") == 0;
		shipped &= par_ship_part(r->par, run_fct_path(r), "fct.txt") == 0;
	}
	bool merged = !r->par || par_merge_parts(r->par, res, rep->output) == 0;
	if (!shipped || !merged)
		rc = -1;
	if (res && !merged) { /* a rank's rows are missing: no database rather than half of one */
		abort_results();
		r->fct = NULL;
		log_set_cleanup(NULL);
		run_fct_merge(run_fct_path(r), run_fct_who(r), r->par, false, err);
		free(*err);
		*err = str_printf("could not gather the ranks' parts (said above): %s was not written", rep->output);
	} else if (res) {
		bool kept = publish(r, res, rep->status, sum, err);
		if (run_fct_merge(run_fct_path(r), run_fct_who(r), r->par, kept, err) < 0 || !kept)
			rc = -1; /* merged, or the parts removed */
	}
	return rc;
}
