/*
 * topo_fixture.h — topologies for the topology and routing tests, built
 * from the [topology] keys as scenario text: a test names the keys
 * (`topo_of("type = fat_tree\nk = 4", &t)`), the fixture loads the small
 * scenario "[topology]\n<keys>\n" through scenario_load_text, as `sim`
 * would from a file, and calls topology_build. Header-only.
 *
 * Every scenario gets 100 Gb/s links of 1 us unless its keys give
 * link_rate or link_delay; a test that defines TOPO_HOST_LINK_RATE (a rate
 * as scenario text, "25Gbps") before including this file gets host links
 * at that rate unless its keys give host_link_rate.
 *
 * The scenario is named TOPO_INI, so the loader's messages are located as
 * "topo.ini:LINE: [topology] KEY = 'VALUE': ..."; line 1 is the section
 * header, the first key is on line 2.
 */
#ifndef ROCESIM_TOPO_FIXTURE_H
#define ROCESIM_TOPO_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include "config.h"
#include "config_fixture.h"
#include "run.h"
#include "topology.h"

#define RATE (100ull * 1000 * 1000 * 1000)
#define DELAY (1 * SIMTIME_US)
#define TOPO_INI "topo.ini"

/* Port i of node u. */
static inline const struct topo_port *port_at(const struct topo *t, int u, int i)
{
	return &t->ports[t->port_off[u] + i];
}

/* Whether a line of keys starts with `name =` (or `name=`). */
static inline bool topo_keys_give(const char *keys, const char *name)
{
	size_t n = strlen(name);
	for (const char *l = keys; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		while (*l == ' ' || *l == '\t')
			l++;
		if (strncmp(l, name, n) == 0) {
			const char *p = l + n;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '=')
				return true;
		}
	}
	return false;
}

/* The scenario text of keys: the header, the keys, then the defaults the
 * keys do not give. malloc'd. */
static inline char *topo_text(const char *keys)
{
	size_t cap = strlen(keys) + 256;
	char *s = malloc(cap);
	int n = snprintf(s, cap, "[topology]\n%s\n", keys);
	if (!topo_keys_give(keys, "link_rate"))
		n += snprintf(s + n, cap - (size_t)n, "link_rate = 100Gbps\n");
	if (!topo_keys_give(keys, "link_delay"))
		n += snprintf(s + n, cap - (size_t)n, "link_delay = 1us\n");
#ifdef TOPO_HOST_LINK_RATE
	if (!topo_keys_give(keys, "host_link_rate"))
		n += snprintf(s + n, cap - (size_t)n, "host_link_rate = %s\n", TOPO_HOST_LINK_RATE);
#endif
	(void)n;
	return s;
}

/* Loads the scenario of keys. 0, or -1 with *err (malloc'd) from the
 * loader; the config is then freed already. */
static inline int topo_load(const char *keys, struct config *cfg, char **err)
{
	char *text = topo_text(keys);
	*err = NULL;
	int rc = scenario_load_text(cfg, TOPO_INI, text, strlen(text), NULL, 0, err);
	free(text);
	return rc;
}

/* Loads and builds. 0, or -1 with *err (malloc'd) from the loader or the
 * builder; *at_load tells which. t is zeroed on failure. */
static inline int topo_try(const char *keys, struct topo *t, char **err, bool *at_load)
{
	struct config cfg;
	memset(t, 0, sizeof *t);
	*at_load = true;
	if (topo_load(keys, &cfg, err) < 0)
		return -1;
	*at_load = false;
	int rc = topology_build(&cfg, t, err);
	config_free(&cfg);
	return rc;
}

/* Loads and builds the topology of keys; 0, or -1 after printing why. */
static inline int topo_of(const char *keys, struct topo *t)
{
	char *err = NULL;
	bool at_load;
	int rc = topo_try(keys, t, &err, &at_load);
	if (rc < 0) {
		fprintf(stderr, "\n  %s: %s\n", at_load ? "loader" : "topology", err ? err : "?");
		free(err);
	}
	return rc;
}

static inline void topo_check_message(const char *err, const char *needle)
{
	CU_ASSERT(msg_has_all(err, (const char *const[]){ needle, NULL }));
}

/* The scenario loads, and topology_build refuses it with a message holding
 * needle, leaving nothing allocated. */
static inline void topo_expect_build_error(const char *keys, const char *needle)
{
	struct topo t;
	char *err = NULL;
	bool at_load;
	int rc = topo_try(keys, &t, &err, &at_load);
	CU_ASSERT_EQUAL(rc, -1);
	if (at_load)
		fprintf(stderr, "\n  the loader refused '%s': %s\n", keys, err ? err : "?");
	CU_ASSERT_FALSE(at_load);
	topo_check_message(err, needle);
	CU_ASSERT_PTR_NULL(t.nodes);   /* nothing left allocated */
	CU_ASSERT_EQUAL(t.n_nodes, 0);
	if (rc == 0)
		topology_free(&t);
	free(err);
}

/* The loader refuses the scenario before any builder sees it, with a
 * one-line message holding needle (located: "topo.ini:LINE: [topology] ..."). */
static inline void topo_expect_load_error(const char *keys, const char *needle)
{
	char *text = topo_text(keys);
	expect_load_error_text(TOPO_INI, text, needle);
	free(text);
}

#endif
