/*
 * topo_dragonfly.c — the dragonfly of Kim, Dally, Scott and Abts,
 * "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008.
 *
 * `groups` groups of a = `routers_per_group` routers; the routers of a
 * group are fully connected by local links; each router has p =
 * `hosts_per_router` hosts and h = `global_links` global links, and every
 * pair of groups is joined by exactly one global link, so a group has
 * a x h global ports and at most a x h + 1 groups fit (the default, the
 * largest dragonfly of those routers). With fewer groups some global
 * ports stay unconnected.
 *
 * Global links: Kim et al. leave their arrangement open; this one is
 * consecutive: group i's global port k (k = 0 .. groups - 2) leads to
 * group k (k < i) or k + 1 (k >= i), and sits on router k / h of the
 * group. So the link between groups i < j leaves router (j - 1) / h of
 * group i and enters router i / h of group j.
 *
 * Numbering (topology.h): hosts first, host x on router x / p, routers
 * group-major (group g's routers are g*a .. g*a + a-1), named gGrR, all of
 * tier 1 (the graph has no up and down). Links: hosts, then each group's
 * local links (r < s), then the global links (i < j), which gives a
 * router ports 0..p-1 = its hosts, then its local links, then its global
 * ones. Host and local links run at host_link_rate and link_rate with
 * link_delay; global links at link_rate with `global_link_delay` (the
 * long cables between cabinets).
 *
 * Routing is minimal: at most one local, one global and one local hop
 * between routers. Fewest hops would not give it: through a third group
 * (two global links) a router of group i may reach group j in as few hops
 * as through its group's own link to j, or fewer (g0r1, g3r0, g1r1 with
 * a = 4, h = 2). So global links get routing cost GLOBAL_COST, above twice a
 * local link's 1: a path with two global links (cost >= 6) then always
 * costs more than local, global, local (5), and the fabric's least-cost
 * routing (routing.h) takes exactly one global link between groups and
 * none inside a group. With one global link per pair of groups that path
 * is unique, so a dragonfly has no equal-cost choices. There is no Valiant
 * or adaptive (UGAL) routing, so adversarial patterns load single global
 * links; and minimal routing on a dragonfly has cyclic buffer dependencies
 * between groups, so under PFC a heavy pattern can deadlock (the watchdog
 * reports the cycle).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "topology.h"
#include "xalloc.h"

/* Routing cost of a global link; local and host links cost 1. */
#define GLOBAL_COST 3

struct dragonfly_cfg {
	int groups;                /* [routers_per_group x global_links + 1] */
	int routers_per_group;     /* a */
	int hosts_per_router;      /* p */
	int global_links;          /* h, per router */
	simtime_t global_link_delay; /* [link_delay] */
};

#define DF(f) offsetof(struct dragonfly_cfg, f)

static const struct cfg_key keys[] = {
	{ "groups", KT_INT, .def_doc = "routers_per_group x global_links + 1", CFG_GE(2), .off = DF(groups),
	  .help = "groups, each pair joined by one global link" },
	{ "routers_per_group", KT_INT, .required = true, CFG_GE(1), .off = DF(routers_per_group),
	  .help = "routers of a group, fully connected by local links" },
	{ "hosts_per_router", KT_INT, .required = true, CFG_GE(1), .off = DF(hosts_per_router),
	  .help = "hosts under each router" },
	{ "global_links", KT_INT, .required = true, CFG_GE(1), .off = DF(global_links),
	  .help = "global links per router" },
	{ "global_link_delay", KT_TIME, .def_doc = "link_delay", .off = DF(global_link_delay),
	  .help = "propagation delay of global links" },
};

/* Every pair of groups needs its own global port in each: at most
 * routers_per_group x global_links + 1 groups (the default). */
static int rules(struct cfg_check *c)
{
	const struct dragonfly_cfg *o = c->type_data;
	int64_t max_groups = (int64_t)o->routers_per_group * o->global_links + 1;
	if (cfg_given(c, "groups") && o->groups > max_groups)
		return cfg_fail(c, "groups", "at most %lld groups: routers_per_group x global_links = "
				"%d x %d global ports per group, one for each other group",
				(long long)max_groups, o->routers_per_group, o->global_links);
	return 0;
}

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct dragonfly_cfg *o = own;
	int a = o->routers_per_group, p = o->hosts_per_router, h = o->global_links;
	int64_t g = o->groups > 0 ? o->groups : (int64_t)a * h + 1;
	simtime_t gdelay = o->global_link_delay != SIMTIME_NEVER ? o->global_link_delay : c->link_delay;
	if ((int64_t)p + (a - 1) + h > TOPO_MAX_PORTS)
		return err_printf(err, "[topology] hosts_per_router = %d, routers_per_group = %d, "
				 "global_links = %d: a router would have %lld ports (p + a - 1 + h); at "
				 "most %d are supported", p, a, h, (long long)p + (a - 1) + h, TOPO_MAX_PORTS);
	int64_t routers = g * a, n_host = routers * p;
	TOPO_TRY(topo_reserve_checked(t, n_host + routers, n_host + g * a * (a - 1) / 2 + g * (g - 1) / 2,
				      err, "routers_per_group = %d, hosts_per_router = %d, global_links = %d, "
				      "groups = %lld", a, p, h, (long long)g));
	TOPO_TRY(topo_add_hosts(t, (int)n_host));
	int r0 = t->n_nodes, ng = (int)g;   /* the counts fit int from here */
	for (int gi = 0; gi < ng; gi++) {
		char prefix[TOPO_NAME_MAX];
		snprintf(prefix, sizeof prefix, "g%dr", gi);
		for (int r = 0; r < a; r++)
			TOPO_TRY(topo_add_named(t, prefix, r, NODE_SWITCH, 1));
	}
	TOPO_TRY(topo_link_hosts(t, r0, p, c->host_link_rate_bps, c->link_delay));
	for (int gi = 0; gi < ng; gi++)
		for (int r = 0; r < a; r++)
			for (int s = r + 1; s < a; s++)
				TOPO_TRY(topo_add_link(t, r0 + gi * a + r, r0 + gi * a + s, c->link_rate_bps,
						       c->link_delay));
	for (int i = 0; i < ng; i++)
		for (int j = i + 1; j < ng; j++) {
			int l = topo_add_link(t, r0 + i * a + (j - 1) / h, r0 + j * a + i / h, c->link_rate_bps,
					      gdelay);
			TOPO_TRY(l);
			t->links[l].cost = GLOBAL_COST;
		}
	return 0;
}

const struct topo_kind topo_dragonfly = {
	.cfg = { .name = "dragonfly", .help = "groups of fully connected routers, one global link "
		 "between each pair of groups (Kim et al., ISCA 2008)", CFG_KEYS(keys),
		 .size = sizeof(struct dragonfly_cfg), .rules = rules },
	.build = build, .nics = TOPO_NICS_SAME_SWITCH,
};
