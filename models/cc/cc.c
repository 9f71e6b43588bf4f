/*
 * cc.c — the registry of congestion controls (see cc.h): one line per
 * controller; the position is the value stored for [nic] cc.
 */
#include <stddef.h>
#include "cc.h"
#include "cc_dcqcn.h"

/* cc = none: every QP sends at line rate (no ops are called). */
static const struct cc_ops cc_none = {
	.name = "none", .help = "no congestion control: every queue pair sends at line rate",
};

static const struct cc_ops *const registry[] = {
	&cc_none,
	&cc_dcqcn_ops,
};
#define N_CC (sizeof registry / sizeof *registry)

const struct cc_ops *cc_lookup(int index)
{
	if (index < 0 || (size_t)index >= N_CC || !registry[index]->init)
		return NULL;
	return registry[index];
}

const void *cc_params(const struct config *cfg, const struct cc_ops *ops)
{
	return ops && ops->section ? cfg_get(cfg, ops->section) : NULL;
}

const char *cc_name_at(const void *arg, size_t i)
{
	(void)arg;
	return i < N_CC ? registry[i]->name : NULL;
}

const struct cfg_section *cc_section_at(size_t i)
{
	for (size_t k = 0; k < N_CC; k++)
		if (registry[k]->section && i-- == 0)
			return registry[k]->section;
	return NULL;
}

simtime_t cc_cnp_interval(const struct config *cfg, int index)
{
	const struct cc_ops *ops = cc_lookup(index);
	return ops && ops->cnp_interval ? ops->cnp_interval(cc_params(cfg, ops)) : 0;
}
