/*
 * config_fixture.h — shared scaffolding of the config tests: scenarios
 * written to the private temporary folder (testutil.h) and loaded through
 * scenario_load as main.c does; expect_load_error_text and EXPECT_ERROR,
 * which check that a load fails with a one-line message holding every
 * expected fragment; and ways to see values that the models keep in their
 * own structs (a topology's or a traffic type's keys): the resolved text,
 * the key origins, and a --check run that builds the world and its traffic
 * sources. Header-only, like testutil.h (its helpers are static inline: a
 * test uses what it needs); included by the config tests, the traffic
 * harness, test_topology_kinds.c and test_fuzz_regress.c. It also holds
 * FULL, a scenario giving keys of most sections, STAR, a small one, and
 * expect_roundtrip.
 */
#ifndef ROCESIM_CONFIG_FIXTURE_H
#define ROCESIM_CONFIG_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "log.h"
#include "run.h"
#include "testutil.h"
#include "xalloc.h"

/* The private folder (testutil.h's tmp_dir), for the tests that name it;
 * "" until a scenario or tmp_file is written. */
static const char *const tmpdir = test_tmpdir;

/* A scenario giving keys of most sections (the line numbers are counted
 * in the comments: tests check the loader's). */
#define FULL \
	"; a full scenario\n"                           /* 1 */         \
	"[simulation]\n"                                                \
	"seed = 42\n"                                                   \
	"stop = 2.5ms\n"                                                \
	"progress = off\n"                              /* 5 */         \
	"\n"                                                            \
	"[topology]\n"                                                  \
	"type = fat_tree\n"                                             \
	"k = 4\n"                                                       \
	"link_rate = 100Gbps\n"                         /* 10 */        \
	"link_delay = 1.5us   ; inline comment\n"                       \
	"host_link_rate = 50Gbps\n"                                     \
	"gpus_per_host = 8\n"                                           \
	"\n"                                                            \
	"[switch]\n"                                    /* 15 */        \
	"ecn_kmin = 100Gbps:400KB 50Gbps:200KB\n"                       \
	"ecn_kmax = 100Gbps:1600KB, 50Gbps:800KB\n"                     \
	"pfc_alpha = 1/16\n"                                            \
	"pfc_headroom = 100KiB\n"                                       \
	"ecmp = packet\n"                               /* 20 */        \
	"# full-line hash comment\n"                                    \
	"[nic]\n"                                                       \
	"mtu = 4096\n"                                                  \
	"loss_recovery = sr\n"                                          \
	"[dcqcn]\n"                                     /* 25 */        \
	"rai = 40Mbps\n"                                                \
	"byte_counter = 10MB\n"                                         \
	"[multicast]\n"                                                 \
	"group = g1 host0 host1 host2\n"                                \
	"group = g2 host3, host0\n"                     /* 30 */        \
	"[job.moe]\n"                                                   \
	"model = mixtral-8x7b\n"                                        \
	"tp = 4\n"                                                      \
	"pp = 2\n"                                                      \
	"dp = 4\n"                                      /* 35 */        \
	"ep = 2\n"                                                      \
	"global_batch = 64\n"                                           \
	"placement = tp dp ep pp\n"                                     \
	"hosts = host0, host1\n"                                        \
	"[job.small]\n"                                 /* 40 */        \
	"model = custom\n"                                              \
	"layers = 2\n"                                                  \
	"hidden = 1024\n"                                               \
	"seq_len = 512\n"                                               \
	"global_batch = 8\n"                            /* 45 */        \
	"[traffic.bg]\n"                                                \
	"type = poisson\n"                                              \
	"load = 0.3\n"                                                  \
	"cdf = hadoop\n"                                                \
	"stop = 1ms\n"                                  /* 50 */        \
	"[traffic.fl]\n"                                                \
	"type = flows\n"                                                \
	"flow = host0 host1 1MB 0us\n"                                  \
	"flow = host2 host3 1.5KiB 1.5us\n"                             \
	"[traffic.mc]\n"                                /* 55 */        \
	"type = multicast\n"                                            \
	"group = g2\n"                                                  \
	"size = 64KB\n"                                                 \
	"[traffic.coll]\n"                                              \
	"type = collective\n"                           /* 60 */        \
	"op = alltoall\n"                                               \
	"size = 1MiB\n"                                                 \
	"gpus = host0.gpu0 host1.gpu0\n"

/* c's resolved text loads again (as "resolved.ini") and resolves to the
 * same text after its first line, which names the scenario. */
static inline void expect_roundtrip(const char *what, const struct config *c)
{
	struct config b;
	char *err = NULL;
	int rc = scenario_load_text(&b, "resolved.ini", c->resolved, strlen(c->resolved), NULL, 0, &err);
	if (rc)
		fprintf(stderr, "\n  %s: %s\n%s\n", what, err, c->resolved);
	free(err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(strchr(c->resolved, '\n'), strchr(b.resolved, '\n'));
	config_free(&b);
}

/* Loads text as the file scen.ini of the private folder; returns the
 * scenario_load status. */
static inline int load_text(struct config *cfg, const char *text, const struct cfg_override *ov, size_t n_ov,
		     char **err)
{
	static char path[512];
	snprintf(path, sizeof path, "%s", tmp_file("scen.ini", text));
	*err = NULL;
	return scenario_load(cfg, path, ov, n_ov, err);
}

/* Loading text named `name` (scenario_load_text) with the overrides fails:
 * -1, the config left zeroed, and a one-line message holding every
 * fragment of want (NULL-terminated). */
static inline void expect_load_error_ov(const char *name, const char *text, const struct cfg_override *ov,
					size_t n_ov, const char *const *want)
{
	struct config cfg, zero;
	char *err = NULL;
	memset(&zero, 0, sizeof zero);
	int rc = scenario_load_text(&cfg, name, text, strlen(text), ov, n_ov, &err);
	CU_ASSERT_EQUAL(rc, -1);
	if (rc == 0) {
		fprintf(stderr, "\n  loaded, wanted an error:\n%s\n", text);
		config_free(&cfg);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));  /* one line */
	CU_ASSERT_EQUAL(memcmp(&cfg, &zero, sizeof cfg), 0);
	CU_ASSERT(msg_has_all(err, want));
	free(err);
}

/* The same without overrides: expect_load_error_text(name, text, fragment...). */
#define expect_load_error_text(name, text, ...) \
	expect_load_error_ov((name), (text), NULL, 0, (const char *const[]){ __VA_ARGS__, NULL })
/* The scenario text, named scen.ini, fails to load: EXPECT_ERROR(text, fragment...). */
#define EXPECT_ERROR(text, ...) expect_load_error_text("scen.ini", (text), __VA_ARGS__)
#define EXPECT_ERROR_SET(text, ov, n, ...) \
	expect_load_error_ov("scen.ini", (text), (ov), (n), (const char *const[]){ __VA_ARGS__, NULL })

/* The lines of [title] in c's resolved text, from "\n" after its header
 * to the "\n" before the next one, so that "\nKEY = VALUE\n" matches a
 * whole line; malloc'd, NULL when the section is not there. */
static inline char *resolved_block(const struct config *c, const char *title)
{
	char head[128];
	snprintf(head, sizeof head, "\n[%s]\n", title);
	const char *b = c->resolved ? strstr(c->resolved, head) : NULL;
	if (!b)
		return NULL;
	b += strlen(head) - 1;
	const char *e = strstr(b + 1, "\n[");
	size_t n = e ? (size_t)(e - b) + 1 : strlen(b);
	char *out = malloc(n + 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	memcpy(out, b, n);
	out[n] = '\0';
	if (n == 0 || out[n - 1] != '\n')
		strcat(out, "\n");
	return out;
}

/* Whether [title] of the resolved text holds `line` as a whole line. */
static inline bool resolved_has(const struct config *c, const char *title, const char *line)
{
	char *b = resolved_block(c, title), *want = str_printf("\n%s\n", line);
	bool ok = b && strstr(b, want);
	free(want);
	if (!ok)
		fprintf(stderr, "\n  [%s] of the resolved text lacks the line '%s':%s\n", title, line,
			b ? b : " (no such section)");
	free(b);
	return ok;
}

/* Lines of [title] in the resolved text that start with prefix. */
static inline int resolved_count(const struct config *c, const char *title, const char *prefix)
{
	char *b = resolved_block(c, title), want[512];
	int n = 0;
	snprintf(want, sizeof want, "\n%s", prefix);
	for (const char *p = b; p && (p = strstr(p, want)); p++)
		n++;
	free(b);
	return n;
}

/* The i-th origin (0 first) of section.key as read, NULL when there are fewer. */
static inline const struct cfg_origin *origin_of(const struct config *c, const char *section, const char *key, int i)
{
	for (size_t k = 0; k < c->n_origins; k++)
		if (strcmp(c->origins[k].section, section) == 0 && strcmp(c->origins[k].key, key) == 0 && i-- == 0)
			return &c->origins[k];
	return NULL;
}

/* Builds the world, the traffic sources and the jobs of c as `sim --check`
 * does (nothing written): EXIT_SUCCESS with *flows the flows the static
 * sources will post, or the status with the message in *err (malloc'd). */
static inline int check_run(const struct config *c, uint64_t *flows, char **err)
{
	struct run_opts o = { .scenario = c->path, .check = true };
	struct run_report rep;
	*err = NULL;
	/* --check prints the jobs' plans on stdout: not here. */
	int saved = fd_to(STDOUT_FILENO, "/dev/null");
	int rc = run_scenario(c, &o, &rep, err);
	fd_restore(STDOUT_FILENO, saved);
	if (flows)
		*flows = rep.flows_expected;
	run_report_free(&rep);
	return rc;
}

#define STAR "[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"

#endif
