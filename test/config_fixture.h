/*
 * config_fixture.h — shared scaffolding of the config tests: a private
 * temporary folder, scenarios written there and loaded through the public
 * config_load as main.c does, and EXPECT_ERROR, which checks that a load
 * fails with a message holding every expected fragment. Header-only, like
 * testutil.h; included by test_config.c and test_config_errors.c.
 */
#ifndef ROCESIM_CONFIG_FIXTURE_H
#define ROCESIM_CONFIG_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "testutil.h"

static char tmpdir[256];
static char scen_path[300];

static void remove_tmpdir(void)
{
	const char *names[] = { "scen.ini", "topo.txt", "sizes.cdf", "resolved.ini", "resolved2.ini" };
	char p[400];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

/* The private folder, made on first use and removed at exit. */
static void ensure_tmpdir(void)
{
	if (tmpdir[0])
		return;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_config.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(scen_path, sizeof scen_path, "%s/scen.ini", tmpdir);
	atexit(remove_tmpdir);
}

static void write_file(const char *path, const char *text)
{
	ensure_tmpdir();
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static const char *tmp_file(const char *name, const char *text)
{
	static char p[400];
	ensure_tmpdir();
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	write_file(p, text);
	return p;
}

/* Loads text as scen.ini; returns the config_load status. */
static int load_text(struct config *cfg, const char *text, const struct cfg_override *ov, size_t n_ov,
		     char **err)
{
	ensure_tmpdir();
	write_file(scen_path, text);
	*err = NULL;
	return config_load(cfg, scen_path, ov, n_ov, err);
}

/* The load fails, the config is left zeroed, and the message holds every
 * fragment in `want` (NULL-terminated). */
static void expect_error_v(const char *text, const struct cfg_override *ov, size_t n_ov,
			   const char *const *want)
{
	struct config cfg;
	char *err = NULL;
	CU_ASSERT_EQUAL(load_text(&cfg, text, ov, n_ov, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));  /* one line */
	CU_ASSERT_PTR_NULL(cfg.path);
	CU_ASSERT_PTR_NULL(cfg.text);
	for (; *want; want++) {
		bool ok = strstr(err, *want) != NULL;
		if (!ok)
			fprintf(stderr, "\n  message: %s\n  missing: %s\n", err, *want);
		CU_ASSERT(ok);
	}
	free(err);
}

#define EXPECT_ERROR(text, ...) \
	expect_error_v((text), NULL, 0, (const char *const[]){ __VA_ARGS__, NULL })
#define EXPECT_ERROR_SET(text, ov, n, ...) \
	expect_error_v((text), (ov), (n), (const char *const[]){ __VA_ARGS__, NULL })

#define STAR "[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"

#endif
