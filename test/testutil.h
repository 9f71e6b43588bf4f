/*
 * testutil.h — shared CUnit scaffolding: each test program lists its tests
 * in a table and calls TEST_MAIN. Exit status is the number of failures,
 * so automake's harness sees a failing program. Also what many tests need
 * around that: error messages checked for fragments (msg_has_all), files
 * in a private temporary folder (tmp_file, file_in), and a descriptor sent
 * elsewhere for a while (fd_to, fd_restore). Header-only: every helper is
 * static inline, so a test uses what it needs.
 */
#ifndef ROCESIM_TESTUTIL_H
#define ROCESIM_TESTUTIL_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct test_case { const char *name; void (*fn)(void); };

static inline int test_run(const char *suite, const struct test_case *tc)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite(suite, NULL, NULL);
	for (; tc->name; tc++)
		CU_add_test(s, tc->name, tc->fn);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}

#define TEST_MAIN(suite, ...) \
	int main(void) { static const struct test_case t_[] = { __VA_ARGS__, { 0, 0 } }; return test_run(suite, t_); }

/* ---- error messages ---- */

/* Whether msg holds every fragment of want (NULL-terminated). When not,
 * prints the message and each fragment it lacks; a NULL msg holds none. */
static inline bool msg_has_all(const char *msg, const char *const *want)
{
	bool ok = true;
	for (; *want; want++) {
		if (msg && strstr(msg, *want))
			continue;
		if (ok)
			fprintf(stderr, "\n  message: %s\n", msg ? msg : "(none)");
		fprintf(stderr, "  missing: %s\n", *want);
		ok = false;
	}
	return ok;
}

/* ---- a private temporary folder ---- */

/* Its path, "" until tmp_dir makes it. */
static char test_tmpdir[256];

/* Removes the folder and the files in it (atexit). */
static inline void tmp_dir_remove(void)
{
	DIR *d = opendir(test_tmpdir);
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[sizeof test_tmpdir + 256];
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			snprintf(p, sizeof p, "%s/%s", test_tmpdir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(test_tmpdir);
}

/* The test program's own folder under /tmp, made on first use and removed
 * with its files at exit. */
static inline const char *tmp_dir(void)
{
	if (test_tmpdir[0])
		return test_tmpdir;
	snprintf(test_tmpdir, sizeof test_tmpdir, "/tmp/rocesim-test.XXXXXX");
	if (!mkdtemp(test_tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	atexit(tmp_dir_remove);
	return test_tmpdir;
}

/* The path of name in the private folder; the last four stay valid. */
static inline const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", tmp_dir(), name);
	return b;
}

/* Writes text to the file name in folder dir (replacing it); returns its
 * path, which stays valid until the next file_in or tmp_file. */
static inline const char *file_in(const char *dir, const char *name, const char *text)
{
	static char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* The same in the private folder. */
static inline const char *tmp_file(const char *name, const char *text)
{
	return file_in(tmp_dir(), name, text);
}

/* ---- a descriptor pointed elsewhere for a while ---- */

/* Points fd at path (created or truncated), stdio flushed first so nothing
 * written before goes there; returns fd's old target for fd_restore. */
static inline int fd_to(int fd, const char *path)
{
	fflush(NULL);
	int saved = dup(fd), to = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(saved >= 0 && to >= 0);
	dup2(to, fd);
	close(to);
	return saved;
}

/* Points fd back where fd_to found it. */
static inline void fd_restore(int fd, int saved)
{
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
}

#endif
