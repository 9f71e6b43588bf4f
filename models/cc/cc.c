/*
 * cc.c — the registry of congestion controls (see cc.h): `none`, then the
 * controllers of models/cc/Makefile.inc in its order; the position is the
 * value stored for [nic] cc, and the order the order [nic] cc's values and
 * the controllers' sections are listed in.
 */
#include <stddef.h>
#include "cc.h"

/* The controllers' `struct cc_ops`, one per file (cc_*.c), in the order of
 * CC_CONTROLLERS in models/cc/Makefile.inc, and their count (cc_list.c is
 * generated from it). */
extern const struct cc_ops *const cc_controllers[];
extern const size_t cc_controllers_n;

/* cc = none: every QP sends at line rate (no ops are called). */
static const struct cc_ops cc_none = {
	.name = "none", .help = "no congestion control: every queue pair sends at line rate",
};

/* Registry entry i: none, then the controllers; NULL past the last. */
static const struct cc_ops *entry(size_t i)
{
	if (i == 0)
		return &cc_none;
	return i <= cc_controllers_n ? cc_controllers[i - 1] : NULL;
}

const struct cc_ops *cc_lookup(int index)
{
	return index > 0 ? entry((size_t)index) : NULL; /* 0 is none */
}

const void *cc_params(const struct config *cfg, const struct cc_ops *ops)
{
	return ops && ops->section ? cfg_get(cfg, ops->section) : NULL;
}

const char *cc_name_at(const void *arg, size_t i)
{
	(void)arg;
	const struct cc_ops *ops = entry(i);
	return ops ? ops->name : NULL;
}

const struct cfg_section *cc_section_at(size_t i)
{
	for (size_t k = 0; k < cc_controllers_n; k++)
		if (cc_controllers[k]->section && i-- == 0)
			return cc_controllers[k]->section;
	return NULL;
}

simtime_t cc_cnp_interval(const struct config *cfg, int index)
{
	const struct cc_ops *ops = cc_lookup(index);
	/* Receivers send CNPs whatever the senders do with them: with a
	 * controller that has no CNP spacing of its own (none), the first
	 * that has one gives it, as a NIC's notification point is set apart
	 * from its reaction point. */
	for (size_t k = 0; !(ops && ops->cnp_interval) && k < cc_controllers_n; k++)
		ops = cc_controllers[k];
	return ops && ops->cnp_interval ? ops->cnp_interval(cc_params(cfg, ops)) : 0;
}
