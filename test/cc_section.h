/*
 * cc_section.h — a controller's section through the scenario loader: a
 * two-host star with [nic] cc = its name, for the controllers' tests.
 */
#ifndef ROCESIM_TEST_CC_SECTION_H
#define ROCESIM_TEST_CC_SECTION_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>
#include "cc.h"
#include "config.h"
#include "nic.h"
#include "run.h"

/* Loads the star with [nic] cc = ops->name and `extra` scenario text after
 * it, checks that [nic] cc selects ops, and returns its section's struct
 * (c is the caller's to free). */
static inline const void *cc_section_load(struct config *c, const struct cc_ops *ops, const char *extra)
{
	char text[1024];
	snprintf(text, sizeof text, "[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\n"
		 "link_delay = 1us\n[nic]\ncc = %s\n%s", ops->name, extra);
	char *err = NULL;
	int rc = scenario_load_text(c, "test.ini", text, strlen(text), NULL, 0, &err);
	if (rc != 0)
		fprintf(stderr, "\n  scenario_load_text: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_EQUAL(cc_lookup(nic_cfg_of(c)->cc), ops);
	const void *p = cc_params(c, ops);
	CU_ASSERT_FATAL(p != NULL);
	return p;
}

#endif
