/*
 * results_merge.c — the rows another database holds for one run, added to
 * this run's (results.h): how a partitioned run (models/parallel) gathers
 * the rows each rank wrote into its own part database.
 *
 * Every table of the part but `run` is copied row by row into the table of
 * the same name, its run_id rewritten to this run's; the part's schema is
 * this build's (the ranks run one binary), so the columns match by name.
 */
#include <stdlib.h>
#include <string.h>
#include "results.h"
#include "results_internal.h"

/* "a, b, c" of table t of schema db, run_id replaced by ?1 when
 * as_select; NULL when out of memory or the table has no columns. */
static char *column_list(sqlite3 *db, const char *schema, const char *t, bool as_select)
{
	char *q = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q, %Q) ORDER BY cid", t, schema);
	sqlite3_stmt *st = NULL;
	char *out = NULL;
	size_t n = 0;
	if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(st, 0);
			const char *item = as_select && strcmp(c, "run_id") == 0 ? "?1" : NULL;
			char *quoted = item ? NULL : sqlite3_mprintf("\"%w\"", c);
			const char *s = item ? item : quoted;
			size_t k = strlen(s);
			char *grown = realloc(out, n + k + 3);
			if (!grown) {
				sqlite3_free(quoted);
				free(out);
				out = NULL;
				break;
			}
			out = grown;
			if (n) {
				memcpy(out + n, ", ", 2);
				n += 2;
			}
			memcpy(out + n, s, k + 1);
			n += k;
			sqlite3_free(quoted);
		}
	}
	sqlite3_finalize(st);
	sqlite3_free(q);
	return out;
}

int results_merge(struct results *r, const char *part_path, int part_run_id)
{
	if (results_batch_commit(r) < 0)
		return -1;
	char *sql = sqlite3_mprintf("ATTACH DATABASE %Q AS part", part_path);
	int rc = results_exec(r, sql, "attach a rank's part");
	sqlite3_free(sql);
	if (rc)
		return -1;
	sqlite3_stmt *tables = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT name FROM part.sqlite_master WHERE type = 'table' AND name <> 'run'"
				      " AND name NOT LIKE 'sqlite_%' ORDER BY name", -1, &tables, NULL) != SQLITE_OK) {
		results_report_db(r, "list a rank's tables");
		rc = -1;
	}
	/* The names first: the inserts below may not run while the listing
	 * reads the attached schema. */
	char **names = NULL;
	size_t n = 0;
	while (!rc && sqlite3_step(tables) == SQLITE_ROW) {
		char **grown = realloc(names, (n + 1) * sizeof *names);
		if (!grown) {
			rc = -1;
			break;
		}
		names = grown;
		names[n++] = strdup((const char *)sqlite3_column_text(tables, 0));
	}
	sqlite3_finalize(tables);
	results_batch_begin(r);
	for (size_t i = 0; !rc && i < n; i++) {
		char *cols = column_list(r->db, "part", names[i], false);
		char *sel = column_list(r->db, "part", names[i], true);
		sqlite3_stmt *st = NULL;
		char *ins = cols && sel ? sqlite3_mprintf("INSERT INTO main.\"%w\" (%s) SELECT %s FROM part.\"%w\""
							 " WHERE run_id = ?2", names[i], cols, sel, names[i])
				       : NULL;
		if (!ins || sqlite3_prepare_v2(r->db, ins, -1, &st, NULL) != SQLITE_OK) {
			results_report_db(r, "copy a rank's rows");
			rc = -1;
		} else {
			sqlite3_bind_int(st, 1, r->run_id);
			sqlite3_bind_int(st, 2, part_run_id);
			if (sqlite3_step(st) != SQLITE_DONE) {
				results_report_db(r, "copy a rank's rows");
				rc = -1;
			}
		}
		sqlite3_finalize(st);
		sqlite3_free(ins);
		free(cols);
		free(sel);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (results_batch_commit(r) < 0)
		rc = -1;
	if (results_exec(r, "DETACH DATABASE part", "detach a rank's part"))
		rc = -1;
	return rc;
}

int results_sql(struct results *r, const char *sql, const char *what)
{
	results_batch_begin(r);
	return results_exec(r, sql, what);
}

void *results_db(struct results *r)
{
	return r->db;
}

void results_run_set(struct results *r, int ranks, const char *partition, const char *rank_events)
{
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
