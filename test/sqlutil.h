/*
 * sqlutil.h — one-value SQL queries for tests that check result databases
 * (test_results.c, test_physics.c). Header-only, like testutil.h.
 * A query that fails to prepare is a test failure, reported with SQLite's
 * message; NULL or no row reads as -999 (numbers) or "(null)"/"" (text).
 */
#ifndef ROCESIM_SQLUTIL_H
#define ROCESIM_SQLUTIL_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static inline sqlite3 *db_open(const char *path)
{
	sqlite3 *db = NULL;
	CU_ASSERT_FATAL(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	return db;
}

/* The first column of the first row, prepared or failed. */
static inline sqlite3_stmt *q_first(sqlite3 *db, const char *sql, int *has_value)
{
	sqlite3_stmt *st;
	*has_value = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
		CU_FAIL("query failed");
		return NULL;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		*has_value = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : 1;
	return st;
}

static inline long long q_int(sqlite3 *db, const char *sql)
{
	int has;
	sqlite3_stmt *st = q_first(db, sql, &has);
	long long v = has > 0 ? sqlite3_column_int64(st, 0) : -999;
	sqlite3_finalize(st);
	return v;
}

static inline double q_real(sqlite3 *db, const char *sql)
{
	int has;
	sqlite3_stmt *st = q_first(db, sql, &has);
	double v = has > 0 ? sqlite3_column_double(st, 0) : -999.0;
	sqlite3_finalize(st);
	return v;
}

/* malloc'd text ("(null)" for NULL, "" for no row). */
static inline char *q_text(sqlite3 *db, const char *sql)
{
	int has;
	sqlite3_stmt *st = q_first(db, sql, &has);
	char *v = strdup(has > 0 ? (const char *)sqlite3_column_text(st, 0) : has < 0 ? "(null)" : "");
	sqlite3_finalize(st);
	return v;
}

#define CHECK_TEXT(db, sql, want) do { \
	char *got_ = q_text((db), (sql)); \
	CU_ASSERT_STRING_EQUAL(got_, (want)); \
	if (strcmp(got_, (want))) fprintf(stderr, "%s: got '%s', want '%s'\n", (sql), got_, (want)); \
	free(got_); } while (0)

#endif
