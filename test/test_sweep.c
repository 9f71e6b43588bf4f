/*
 * test_sweep.c — a sweep's plan (models/run/sweep_plan.c) and gathering
 * runs into one database (kernel/results_gather.c).
 *
 * The plan: --sweep values split at commas with '\,' and '\\' escapes,
 * empty values refused; the cartesian product in the order of nested loops
 * written in --sweep order (point p = ((i0 * n1) + i1) * n2 + i2), each
 * combination exactly once; a point's overrides are the command line's
 * --set first, then its axes' values; labels as run.sweep stores them.
 *
 * Gathering: runs written by results_open into their own databases, copied
 * into a target: run_ids in the order of the calls (not of the sources'
 * own ids, all 1), every row under its new run_id, the label column added
 * when the target lacks it, a fresh target invisible until finished, an
 * append continuing after the existing runs, a run that left no database as
 * its run row alone, and a source whose tables do not fit the target
 * refused with the target unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results.h"
#include "sqlutil.h"
#include "sweep.h"
#include "testutil.h"

static void check_values(const char *spec, const char *section, const char *key, const char *const *want,
			 size_t n_want)
{
	struct sweep_axis a;
	char *why = NULL;
	CU_ASSERT_EQUAL_FATAL(sweep_axis_parse(spec, &a, &why), 0);
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_STRING_EQUAL(a.section, section);
	CU_ASSERT_STRING_EQUAL(a.key, key);
	CU_ASSERT_EQUAL(a.n_values, n_want);
	for (size_t i = 0; i < n_want && i < a.n_values; i++) {
		CU_ASSERT_STRING_EQUAL(a.values[i], want[i]);
		if (strcmp(a.values[i], want[i]))
			fprintf(stderr, "%s: value %zu '%s', want '%s'\n", spec, i, a.values[i], want[i]);
	}
	sweep_axis_free(&a);
}

static void test_parse(void)
{
	check_values("traffic.ws.load=0.3,0.5", "traffic.ws", "load", (const char *[]){ "0.3", "0.5" }, 2);
	check_values("nic.cc=dcqcn", "nic", "cc", (const char *[]){ "dcqcn" }, 1);
	/* Sections with dots, '=' inside a value (split at the first '='). */
	check_values("job.moe.tp=8", "job.moe", "tp", (const char *[]){ "8" }, 1);
	check_values("traffic.f.flow=a=b,c", "traffic.f", "flow", (const char *[]){ "a=b", "c" }, 2);
	/* Escapes: '\,' a comma in a value, '\\' a backslash, other
	 * backslashes kept; spaces are part of a value (a list). */
	check_values("traffic.x.hosts=host0 host1,host2\\,host3,a\\\\b,c\\d,\\\\",
		     "traffic.x", "hosts", (const char *[]){ "host0 host1", "host2,host3", "a\\b", "c\\d", "\\" }, 5);
	/* "\\," is a backslash, then a separator. */
	check_values("a.b=x\\\\,y", "a", "b", (const char *[]){ "x\\", "y" }, 2);
}

static void check_refused(const char *spec, const char *fragment)
{
	struct sweep_axis a;
	char *why = NULL;
	CU_ASSERT_EQUAL(sweep_axis_parse(spec, &a, &why), 2);
	CU_ASSERT_TRUE(msg_has_all(why, (const char *[]){ fragment, NULL }));
	CU_ASSERT_PTR_NULL(a.values);
	free(why);
}

static void test_parse_errors(void)
{
	check_refused("load=0.3", "expected SECTION.KEY=V1,V2");
	check_refused("nic.cc", "expected SECTION.KEY=V1,V2");
	check_refused(".cc=none", "expected SECTION.KEY=V1,V2");
	check_refused("nic.=none", "expected SECTION.KEY=V1,V2");
	check_refused("nic.cc=", "value 1 is empty");
	check_refused("nic.cc=none,,dcqcn", "value 2 is empty");
	check_refused("nic.cc=none,", "value 2 is empty");
	check_refused("nic.cc=,none", "value 1 is empty");
}

static struct sweep_axis axis(const char *spec)
{
	struct sweep_axis a;
	char *why = NULL;
	CU_ASSERT_EQUAL_FATAL(sweep_axis_parse(spec, &a, &why), 0);
	return a;
}

/* Nested loops in --sweep order: point p is ((i0 * 2) + i1) * 4 + i2 for
 * axes of 3, 2 and 4 values; every combination once. */
static void test_order(void)
{
	struct sweep_axis ax[3] = { axis("a.x=0,1,2"), axis("b.y=0,1"), axis("c.z=0,1,2,3") };
	CU_ASSERT_EQUAL(sweep_n_points(ax, 3), 24);
	bool seen[3][2][4] = { { { false } } };
	size_t p = 0;
	for (size_t i0 = 0; i0 < 3; i0++)
		for (size_t i1 = 0; i1 < 2; i1++)
			for (size_t i2 = 0; i2 < 4; i2++, p++) {
				size_t a = sweep_value_at(ax, 3, p, 0), b = sweep_value_at(ax, 3, p, 1),
				       c = sweep_value_at(ax, 3, p, 2);
				CU_ASSERT_TRUE(a == i0 && b == i1 && c == i2);
				CU_ASSERT_FALSE(seen[a][b][c]);
				seen[a][b][c] = true;
			}
	char *label = sweep_point_label(ax, 3, 13);   /* (1, 1, 1) */
	CU_ASSERT_STRING_EQUAL(label, "a.x=1 b.y=1 c.z=1");
	free(label);
	label = sweep_point_label(ax, 3, 23);
	CU_ASSERT_STRING_EQUAL(label, "a.x=2 b.y=1 c.z=3");
	free(label);
	/* One axis: point i is value i. No axis: one point. */
	CU_ASSERT_EQUAL(sweep_n_points(ax + 2, 1), 4);
	CU_ASSERT_EQUAL(sweep_value_at(ax + 2, 1, 3, 0), 3);
	CU_ASSERT_EQUAL(sweep_n_points(ax, 0), 1);
	for (int i = 0; i < 3; i++)
		sweep_axis_free(&ax[i]);
}

/* More than SWEEP_MAX_POINTS points: 0, without overflowing. */
static void test_too_many(void)
{
	char spec[4096] = "a.b=0";
	for (int i = 1; i < 400; i++)
		snprintf(spec + strlen(spec), sizeof spec - strlen(spec), ",%d", i);
	struct sweep_axis ax[3] = { axis(spec), axis(spec), axis(spec) };
	CU_ASSERT_EQUAL(ax[0].n_values, 400);
	CU_ASSERT_EQUAL(sweep_n_points(ax, 1), 400);
	CU_ASSERT_EQUAL(sweep_n_points(ax, 2), 0);   /* 160,000 > SWEEP_MAX_POINTS */
	CU_ASSERT_EQUAL(sweep_n_points(ax, 3), 0);
	for (int i = 0; i < 3; i++)
		sweep_axis_free(&ax[i]);
}

/* The command line's --set first, then the point's values: the loader
 * keeps the last override of a key, so a swept key wins. */
static void test_overrides(void)
{
	struct sweep_axis ax[2] = { axis("traffic.ws.load=0.3,0.5"), axis("nic.cc=none,dcqcn") };
	struct cfg_override base[2] = { { "simulation", "seed", "7" }, { "traffic.ws", "load", "0.9" } };
	struct cfg_override out[4];
	sweep_point_overrides(ax, 2, 2, base, 2, out);   /* (0.5, none) */
	CU_ASSERT_STRING_EQUAL(out[0].key, "seed");
	CU_ASSERT_STRING_EQUAL(out[1].value, "0.9");
	CU_ASSERT_TRUE(!strcmp(out[2].section, "traffic.ws") && !strcmp(out[2].key, "load") &&
		       !strcmp(out[2].value, "0.5"));
	CU_ASSERT_TRUE(!strcmp(out[3].section, "nic") && !strcmp(out[3].key, "cc") && !strcmp(out[3].value, "none"));
	for (int i = 0; i < 2; i++)
		sweep_axis_free(&ax[i]);
}

/* ---- gathering ----------------------------------------------------------- */

/* The run table as results.c writes it, and one table of rows. */
static const char schema[] =
	"CREATE TABLE IF NOT EXISTS run (run_id INTEGER PRIMARY KEY, scenario TEXT NOT NULL, config TEXT,"
	" seed INTEGER, version TEXT, started_at TEXT, wall_s REAL, sim_end_ps INTEGER, events INTEGER,"
	" packets_sent INTEGER, packets_delivered INTEGER, packets_dropped INTEGER, status TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS item (run_id INTEGER NOT NULL, k INTEGER NOT NULL, v TEXT);";
static const char indexes[] = "CREATE INDEX IF NOT EXISTS item_by_run ON item (run_id, k);";

/* A database holding one run (run_id 1) with n item rows (k = 0..n-1,
 * v = tag) and final status `status`. */
static char *one_run(const char *name, const char *tag, int n, const char *status, const char *table_sql)
{
	char *path = strdup(file_in(tmp_dir(), name, ""));
	unlink(path);
	struct results_run_info info = { .scenario = tag, .config = tag, .seed = 5, .version = "t",
					 .schema_sql = table_sql ? table_sql : schema };
	char *err = NULL;
	struct results *r = results_open(path, false, &info, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	struct results_table *t = results_table(r, "item", "k, v");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int i = 0; i < n; i++)
		results_row(r, t, "is", i, tag);
	struct run_summary sum = { .wall_s = 1.5, .events = (uint64_t)n };
	CU_ASSERT_EQUAL(results_finish(r, status, &sum), 0);
	return path;
}

static void test_gather_fresh(void)
{
	char *a = one_run("a.db", "A", 3, "complete", NULL);
	char *b = one_run("b.db", "B", 5, "stalled", NULL);
	char *target = strdup(file_in(tmp_dir(), "all.db", ""));
	unlink(target);
	char *err = NULL;
	struct results_gather *m = results_gather_open(target, false, schema, indexes, "sweep", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	/* Added in the order b, a: b becomes run 1. */
	CU_ASSERT_EQUAL(results_gather_add(m, b, "x=1", &err), 1);
	CU_ASSERT_EQUAL(results_gather_add(m, a, "x=2", &err), 2);
	struct results_run_info info = { .scenario = "C", .config = "[c]", .seed = 9, .version = "t" };
	CU_ASSERT_EQUAL(results_gather_add_row(m, &info, "failed", 0.25, "x=3", &err), 3);
	CU_ASSERT_EQUAL(access(target, F_OK), -1);   /* not there until finished */
	CU_ASSERT_EQUAL(results_gather_finish(m, &err), 0);
	CU_ASSERT_PTR_NULL(err);
	sqlite3 *db = db_open(target);
	CHECK_TEXT(db, "SELECT group_concat(run_id || ':' || scenario || ':' || status || ':' || sweep, ' ') FROM "
		       "(SELECT * FROM run ORDER BY run_id)",
		   "1:B:stalled:x=1 2:A:complete:x=2 3:C:failed:x=3");
	CHECK_TEXT(db, "SELECT group_concat(n, ' ') FROM (SELECT run_id, count(*) || v AS n FROM item GROUP BY run_id "
		       "ORDER BY run_id)", "5B 3A");
	CU_ASSERT_EQUAL(q_int(db, "SELECT events FROM run WHERE run_id = 2"), 3);
	CU_ASSERT_EQUAL(q_int(db, "SELECT seed FROM run WHERE run_id = 3"), 9);
	CU_ASSERT_EQUAL(q_real(db, "SELECT wall_s FROM run WHERE run_id = 3"), 0.25);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'item_by_run'"), 1);
	sqlite3_close(db);
	char *st = results_run_status(b);
	CU_ASSERT_STRING_EQUAL(st, "stalled");
	free(st);
	CU_ASSERT_PTR_NULL(results_run_status(file_in(tmp_dir(), "not_a_db", "hello")));
	/* Nothing left beside the target. */
	char *tmp_name = malloc(strlen(target) + 32);
	sprintf(tmp_name, "%s.tmp-%ld", target, (long)getpid());
	CU_ASSERT_EQUAL(access(tmp_name, F_OK), -1);
	free(tmp_name);
	free(a);
	free(b);
	free(target);
}

/* Appending: after the runs already there; a source whose table has a
 * column the target lacks is refused and the target keeps what it had. */
static void test_gather_append(void)
{
	char *a = one_run("c.db", "A", 2, "complete", NULL);
	char *target = one_run("base.db", "BASE", 4, "complete", NULL);
	char *odd = one_run("odd.db", "ODD", 1, "complete",
			    "CREATE TABLE IF NOT EXISTS run (run_id INTEGER PRIMARY KEY, scenario TEXT NOT NULL, config "
			    "TEXT, seed INTEGER, version TEXT, started_at TEXT, wall_s REAL, sim_end_ps INTEGER, events "
			    "INTEGER, packets_sent INTEGER, packets_delivered INTEGER, packets_dropped INTEGER, status "
			    "TEXT NOT NULL); CREATE TABLE IF NOT EXISTS item (run_id INTEGER NOT NULL, k INTEGER NOT "
			    "NULL, v TEXT, extra INTEGER);");
	char *err = NULL;
	struct results_gather *m = results_gather_open(target, true, schema, indexes, "sweep", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(results_gather_add(m, a, "p=1", &err), 2);
	CU_ASSERT_EQUAL(results_gather_add(m, odd, "p=2", &err), -1);
	CU_ASSERT_TRUE(msg_has_all(err, (const char *[]){ "copy table item", "extra", NULL }));
	free(err);
	err = NULL;
	CU_ASSERT_EQUAL(results_gather_add(m, a, "p=3", &err), 3);
	CU_ASSERT_EQUAL(results_gather_finish(m, &err), 0);
	sqlite3 *db = db_open(target);
	CHECK_TEXT(db, "SELECT group_concat(run_id || ':' || scenario || ':' || coalesce(sweep, '-'), ' ') FROM "
		       "(SELECT * FROM run ORDER BY run_id)", "1:BASE:- 2:A:p=1 3:A:p=3");
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM item"), 4 + 2 + 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM item WHERE v = 'ODD'"), 0);
	sqlite3_close(db);
	free(a);
	free(odd);
	free(target);
}

/* A target that cannot be written: NULL and a reason naming it. */
static void test_gather_unwritable(void)
{
	const char *f = file_in(tmp_dir(), "plain", "x");
	char *path = malloc(strlen(f) + 16);
	sprintf(path, "%s/sub/t.db", f);
	char *err = NULL;
	CU_ASSERT_PTR_NULL(results_gather_open(path, false, schema, NULL, "sweep", &err));
	CU_ASSERT_TRUE(msg_has_all(err, (const char *[]){ "cannot write results to", "t.db", NULL }));
	free(err);
	free(path);
}

TEST_MAIN("sweep",
	  { "--sweep values", test_parse },
	  { "--sweep refused", test_parse_errors },
	  { "points in nested-loop order", test_order },
	  { "too many points", test_too_many },
	  { "a point's overrides", test_overrides },
	  { "gathering into a fresh database", test_gather_fresh },
	  { "gathering into an existing database", test_gather_append },
	  { "an unwritable target", test_gather_unwritable })
