/*
 * cc.c — the registry of congestion controls (see cc.h): one line per
 * controller, indexed by [nic] cc.
 */
#include <stddef.h>
#include "cc.h"
#include "cc_dcqcn.h"

static const struct cc_ops *const cc_table[] = {
	[CC_NONE] = NULL,               /* send at line rate */
	[CC_DCQCN] = &cc_dcqcn_ops,
};

const struct cc_ops *cc_lookup(enum cfg_cc cc)
{
	if ((size_t)cc >= sizeof cc_table / sizeof cc_table[0])
		return NULL;
	return cc_table[cc];
}
