/*
 * par_merge.c — one database from a partitioned run (parallel.h).
 *
 * Each rank writes the rows of what it owns (its ports' statistics and
 * pauses, the messages its hosts sent, ...) into its own database: rank 0
 * into the output, rank r > 0 into a part beside it (par_part_path), which
 * it publishes, without indexes, as any run does. Rank 0 then copies every
 * part's rows into the run (results_merge) before publishing the output,
 * so the database appears complete or not at all, as in a sequential run.
 *
 * A message's row is written by its sender's rank; what its receiver
 * records (the time its last byte arrived, the CE marks it saw) is in the
 * receiving rank's copy of the record when the two ranks differ. That half
 * reaches the sender's record before the row is written, as soon as the
 * message is whole at the receiver (par_xfer.c); only the CE marks of
 * messages not whole when the run ends are left: each rank writes those
 * into par_flow_recv, merged and folded into the flow rows, then dropped.
 * A failure's rows are every rank's, each with the frames lost there:
 * they are summed (fold_summed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fabric.h"
#include "log.h"
#include "nic.h"
#include "par_internal.h"
#include "results.h"
#include "xalloc.h"

char *par_part_path(const char *output, int rank)
{
	return str_printf("%s.rank%d", output, rank);
}

#ifdef HAVE_MPI

/* Tables whose rows every rank writes for the same keys, each with its own
 * share of one count: a failure's frames lost on that rank's links and at
 * its switches (failure.c runs on every rank). After the merge, one row
 * per key with the shares summed, in key order as the sequential run
 * writes them. */
static const struct summed {
	const char *table, *keys, *sum;
} summed[] = {
	{ "failure", "failure_id", "frames_lost" },
	{ "failure_flow", "failure_id, flow_id", "frames_lost" },
};

static int fold_summed(struct results *res)
{
	int id = results_run_id(res);
	for (size_t i = 0; i < sizeof summed / sizeof *summed; i++) {
		const struct summed *t = &summed[i];
		/* "x.k = T.k AND ..." over the keys: x's rows of T's key. */
		char match[256] = "";
		char keys[128];
		snprintf(keys, sizeof keys, "%s", t->keys);
		for (char *save = NULL, *k = strtok_r(keys, ", ", &save); k; k = strtok_r(NULL, ", ", &save))
			snprintf(match + strlen(match), sizeof match - strlen(match), "%sx.%s = %s.%s",
				 match[0] ? " AND " : "", k, t->table, k);
		char *sql = str_printf(
			"CREATE TEMP TABLE par_fold AS SELECT * FROM %1$s WHERE run_id = %2$d;"
			"CREATE INDEX temp.par_fold_key ON par_fold (%3$s);"
			"DELETE FROM %1$s WHERE run_id = %2$d;"
			"INSERT INTO %1$s SELECT * FROM par_fold GROUP BY %3$s ORDER BY %3$s;"
			"UPDATE %1$s SET %4$s = (SELECT sum(x.%4$s) FROM par_fold x WHERE %5$s) WHERE run_id = %2$d;"
			"DROP TABLE temp.par_fold;",
			t->table, id, t->keys, t->sum, match);
		int rc = results_sql(res, sql, "sum the ranks' failure rows");
		free(sql);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The receiving half of the messages other ranks sent to this rank's
 * hosts and that were not whole here when the run ended: the CE marks
 * counted so far (a whole message's half went to its sender's rank when
 * it became whole, par_xfer.c). */
static int write_received(struct par *p, struct results *res)
{
	if (results_sql(res, "CREATE TABLE IF NOT EXISTS par_flow_recv (run_id INTEGER, flow_id INTEGER,"
			     " recv_end_ps INTEGER, ecn_marked INTEGER)", "make par_flow_recv") < 0)
		return -1;
	struct results_table *t = results_table(res, "par_flow_recv", "flow_id, recv_end_ps, ecn_marked");
	if (!t)
		return -1;
	const struct world *w = p->w;
	for (size_t i = 0; i < p->sh.cap; i++) {
		const struct flow *f = p->sh.v[i];
		if (!p->sh.id[i] || !par_is_copy(f) || p->node_owner[w->eps[f->dst].host->id] != p->me)
			continue;
		if (f->recv_end < 0 && f->ecn_marked)
			results_row(res, t, "utu", f->id, f->recv_end, f->ecn_marked);
	}
	return 0;
}

int par_merge_received(struct par *p, struct results *res)
{
	if (p->solo || !res)
		return 0;
	return write_received(p, res);
}

int par_merge_parts(struct par *p, struct results *res, const char *output)
{
	int rc = 0;
	if (p->solo)
		return 0;
	MPI_Barrier(p->comm); /* every part published */
	if (p->me != 0)
		return 0;
	for (int r = 1; r < p->n; r++) {
		char *part = par_part_path(output, r);
		/* ATTACH would make a missing part, empty: a rank's rows lost
		 * without a word (a folder the ranks do not share). */
		if (!rc && access(part, R_OK) != 0) {
			warnx_sim("rank %d's part %s is not there (%s): %s", r, part, strerror(errno),
				  p->ship ? "it did not arrive" : "across machines the ranks must share the output's "
				  "folder, or set [parallel] parts = messages");
			rc = -1;
		}
		if (!rc && results_merge(res, part) < 0) {
			warnx_sim("could not merge rank %d's part %s", r, part);
			rc = -1;
		}
		unlink(part);
		free(part);
	}
	if (!rc) {
		/* The index makes the fold linear: without it each flow row
		 * scanned every received half (4 s of a 4 ms k = 16 web-search
		 * run's close). */
		char *sql = str_printf(
			"CREATE INDEX par_flow_recv_key ON par_flow_recv (run_id, flow_id);"
			"UPDATE flow SET"
			" recv_end_ps = coalesce((SELECT max(x.recv_end_ps) FROM par_flow_recv x"
			"   WHERE x.run_id = flow.run_id AND x.flow_id = flow.flow_id), recv_end_ps),"
			" ecn_marked = ecn_marked + (SELECT sum(x.ecn_marked) FROM par_flow_recv x"
			"   WHERE x.run_id = flow.run_id AND x.flow_id = flow.flow_id)"
			" WHERE run_id = %d AND flow_id IN (SELECT flow_id FROM par_flow_recv WHERE run_id = %d);"
			"DELETE FROM par_flow_recv WHERE run_id = %d;",
			results_run_id(res), results_run_id(res), results_run_id(res));
		rc = results_sql(res, sql, "fold the received halves into flow");
		free(sql);
		if (!rc)
			rc = results_sql(res, "DROP TABLE IF EXISTS par_flow_recv", "drop par_flow_recv");
		if (!rc && p->w->fab.fail)
			rc = fold_summed(res);
	}
	return rc;
}

void par_write_run(struct par *p, struct results *res)
{
	struct par_stats *all = xcalloc((size_t)p->n, sizeof *all);
	p->st.copies_held = 0;
	for (size_t i = 0; i < p->sh.cap; i++)
		p->st.copies_held += p->sh.id[i] && par_is_copy(p->sh.v[i]);
	p->st.ports_built = 0;
	for (int i = 0; i < p->w->fab.n_ports; i++)
		p->st.ports_built += fabric_port_held(&p->w->fab, i);
	if (p->solo) { /* the others idle: rank 0 ran every event, in one loop */
		all[0] = p->st;
		all[0].events = p->sim->events;
	}
	else
		MPI_Gather(&p->st, sizeof p->st, MPI_BYTE, all, sizeof p->st, MPI_BYTE, 0, p->comm);
	if (p->me == 0 && res) {
		char part[200];
		if (p->solo)
			snprintf(part, sizeof part, "none: rank 0 ran alone (%s cannot be partitioned)", p->why);
		else if (p->mirrored)
			snprintf(part, sizeof part, "%s: %d cut links, lookahead %lld ps; jobs on every rank, "
				 "endpoint_delay %lld ps", p->method, p->n_cut, (long long)p->lookahead,
				 (long long)p->mirror_ps);
		else
			snprintf(part, sizeof part, "%s: %d cut links, lookahead %lld ps", p->method, p->n_cut,
				 (long long)p->lookahead);
		size_t cap = 24 * (size_t)p->n + 1, n = 0;
		char *ev = xcalloc(cap, 1);
		for (int r = 0; r < p->n; r++)
			n += (size_t)snprintf(ev + n, cap - n, "%s%llu", r ? "," : "",
					      (unsigned long long)all[r].events);
		results_run_set(res, p->n, part, ev);
		free(ev);
		struct results_table *t = results_table(res, "run_rank", "rank, events, foreign_events, windows,"
							" frames_out, bytes_out, copies_made, copies_held,"
							" ports_built, busy_s, wait_s, trade_s, land_s");
		for (int r = 0; t && r < p->n; r++)
			results_row(res, t, "iuuuuuuuudddd", r, all[r].events, all[r].foreign, all[r].windows,
				    all[r].frames_out, all[r].bytes_out, all[r].copies_made, all[r].copies_held,
				    all[r].ports_built, all[r].busy_s, all[r].wait_s, all[r].trade_s, all[r].land_s);
		for (int r = 0; r < p->n; r++)
			if (all[r].foreign)
				warnx_sim("rank %d ran %llu events of elements other ranks own (a bug: a model "
					  "reached across the partition)", r, (unsigned long long)all[r].foreign);
	}
	free(all);
}

#else /* no MPI: par_attach never makes a run */

int par_merge_received(struct par *p, struct results *res) { (void)p; (void)res; return 0; }
void par_write_run(struct par *p, struct results *res) { (void)p; (void)res; }
int par_merge_parts(struct par *p, struct results *res, const char *output)
{
	(void)p;
	(void)res;
	(void)output;
	return 0;
}

#endif
