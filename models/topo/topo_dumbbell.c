/*
 * topo_dumbbell.c — a dumbbell: two switches joined by one bottleneck link.
 *
 * sw0 ports 0..L-1 = host0..host{L-1}, port L = sw1; sw1 ports 0..R-1 =
 * host{L}..host{L+R-1}, port R = sw0: the bottleneck is the last port of
 * each switch. Host links run at host_link_rate, the bottleneck at
 * link_rate.
 */
#include <stddef.h>
#include <stdint.h>

#include "topology.h"
#include "xalloc.h"

struct dumbbell_cfg {
	int hosts_left, hosts_right;
};

static const struct cfg_key keys[] = {
	{ "hosts_left", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct dumbbell_cfg, hosts_left),
	  .help = "hosts on sw0" },
	{ "hosts_right", KT_INT, .required = true, CFG_GE(1), .off = offsetof(struct dumbbell_cfg, hosts_right),
	  .help = "hosts on sw1" },
};

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct dumbbell_cfg *o = own;
	int nl = o->hosts_left, nr = o->hosts_right;
	/* Each switch also has the bottleneck port. */
	if (nl > TOPO_MAX_PORTS - 1 || nr > TOPO_MAX_PORTS - 1)
		return err_printf(err, "[topology] hosts_left = %d, hosts_right = %d: "
				 "a switch would have more than %d ports", nl, nr, TOPO_MAX_PORTS);
	int nh = nl + nr;
	TOPO_TRY(topo_reserve(t, nh + 2, nh + 1));
	TOPO_TRY(topo_add_hosts(t, nh));
	int sw0 = topo_add_node(t, "sw0", NODE_SWITCH, 1);
	TOPO_TRY(sw0);
	int sw1 = topo_add_node(t, "sw1", NODE_SWITCH, 1);
	TOPO_TRY(sw1);
	for (int h = 0; h < nh; h++)
		TOPO_TRY(topo_add_link(t, h, h < nl ? sw0 : sw1, c->host_link_rate_bps, c->link_delay));
	TOPO_TRY(topo_add_link(t, sw0, sw1, c->link_rate_bps, c->link_delay));
	return 0;
}

const struct topo_kind topo_dumbbell = {
	.cfg = { .name = "dumbbell", .help = "two switches (sw0, sw1) joined by one bottleneck link",
		 CFG_KEYS(keys), .size = sizeof(struct dumbbell_cfg) },
	.build = build, .nics = TOPO_NICS_SAME_SWITCH,
};
