/*
 * failure_keys.c — the [failure] section: what goes wrong with the fabric.
 * Each model's keys are its own rows and its own member of struct
 * failure_cfg (frame loss: link_loss.c); the fabric reads the section
 * when it builds.
 */
#include <stddef.h>
#include "config.h"
#include "fabric.h"

#define FAIL(f) offsetof(struct failure_cfg, f)

static const struct cfg_key failure_keys[] = {
	{ "loss", KT_CUSTOM, .def_doc = "none", .custom = &link_loss_key, .off = FAIL(loss),
	  .help = "repeated: NODE NODE RATE (that link, both directions) or all RATE (every link; a "
		  "link's own line wins): probability that a frame crossing it is corrupted and "
		  "dropped by the receiver" },
};

const struct cfg_section failure_section = {
	.name = "failure", .help = "faults of the fabric: lossy links",
	CFG_KEYS(failure_keys), .size = sizeof(struct failure_cfg),
};
