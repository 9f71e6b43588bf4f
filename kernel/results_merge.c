/*
 * results_merge.c — the rows another database holds for one run, added to
 * this run's (results.h): how a partitioned run (models/parallel) gathers
 * the rows each rank wrote into its own part database.
 *
 * Every table of the part but `run` is copied into the table of the same
 * name, its run_id rewritten to this run's (results_copy_attached, which
 * the sweep's gathering shares); the part's schema is this build's (the
 * ranks run one binary), so the columns match by name.
 */
#include <stdlib.h>
#include <string.h>
#include "results.h"
#include "results_internal.h"

int results_merge(struct results *r, const char *part_path)
{
	results_flush_all(r);
	if (results_batch_commit(r) < 0)
		return -1;
	char *sql = sqlite3_mprintf("ATTACH DATABASE %Q AS src", part_path);
	int rc = results_exec(r, sql, "attach a rank's part");
	sqlite3_free(sql);
	if (rc)
		return -1;
	results_batch_begin(r);
	char *what = NULL;
	if (results_copy_attached(r->db, r->run_id, false, &what) < 0) {
		results_report(r, "merge a rank's part", what ? what : "out of memory");
		rc = -1;
	}
	free(what);
	if (results_batch_commit(r) < 0)
		rc = -1;
	if (results_exec(r, "DETACH DATABASE src", "detach a rank's part"))
		rc = -1;
	return rc;
}

int results_sql(struct results *r, const char *sql, const char *what)
{
	results_flush_all(r);
	results_batch_begin(r);
	return results_exec(r, sql, what);
}
void results_run_set(struct results *r, int ranks, const char *partition, const char *rank_events)
{
	results_flush_all(r);
	sqlite3_stmt *st = NULL;
	results_batch_begin(r);
	if (sqlite3_prepare_v2(r->db, "UPDATE run SET ranks = ?, partition = ?, rank_events = ? WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		results_report_db(r, "update run");
		return;
	}
	sqlite3_bind_int(st, 1, ranks);
	sqlite3_bind_text(st, 2, partition, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, rank_events, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, r->run_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		results_report_db(r, "update run");
	sqlite3_finalize(st);
}
