/*
 * topo_star.c — a star: every host on one switch, sw0 (port i = host i).
 * Host links run at host_link_rate.
 */
#include <stddef.h>
#include <stdint.h>

#include "topology.h"
#include "xalloc.h"

struct star_cfg {
	int hosts;
};

static const struct cfg_key keys[] = {
	{ "hosts", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct star_cfg, hosts), .help = "hosts" },
};

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct star_cfg *o = own;
	if (o->hosts > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] hosts = %d: sw0 would have more than %d ports",
				 o->hosts, TOPO_MAX_PORTS);
	TOPO_TRY(topo_reserve(t, o->hosts + 1, o->hosts));
	TOPO_TRY(topo_add_hosts(t, o->hosts));
	int sw = topo_add_node(t, "sw0", NODE_SWITCH, 1);
	TOPO_TRY(sw);
	return topo_link_hosts(t, sw, o->hosts, c->host_link_rate_bps, c->link_delay);
}

const struct topo_kind topo_star = {
	.cfg = { .name = "star", .help = "every host on one switch (sw0)", CFG_KEYS(keys),
		 .size = sizeof(struct star_cfg) },
	.build = build, .nics = TOPO_NICS_SAME_SWITCH,
};
