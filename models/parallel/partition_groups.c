/*
 * partition_groups.c — the methods that deal groups of the fabric to
 * ranks: pod, leaf and rail (partition.h).
 *
 * 1. Some switches are set aside: pod sets aside the top tier (a fat
 *    tree's cores), leaf every switch above tier 1, rail every switch.
 *    Tiers are partition_tiers': the topology's, or hop distances from
 *    the hosts in a graph whose switches all share one tier (a file's).
 * 2. The connected components of what is left, found over the links whose
 *    two ends are both left, are the groups if they hold a host: a fat
 *    tree's pods (ToRs, aggs, hosts), a leaf-spine's leaves with their
 *    hosts, single hosts for rail. Components without a host join the
 *    set-aside switches. Groups are found from the graph (kinds, tiers,
 *    links), never from names, and numbered by their lowest node id, so
 *    by their first host (hosts are numbered first, left to right).
 * 3. Groups are dealt to ranks in contiguous blocks holding about the same
 *    number of hosts: group g goes to the rank in which the middle of its
 *    hosts falls, floor(n_parts x (hosts before g + hosts of g / 2) /
 *    hosts). With equal groups each rank gets floor or ceil(groups /
 *    n_parts) of them; if unequal groups would leave a rank empty, the
 *    groups are dealt by count instead.
 * 4. The set-aside switches are placed tier by tier from the bottom, in id
 *    order, each on the rank holding most of its links to nodes already
 *    placed, among the ranks that hold fewer than ceil(switches of that
 *    tier / n_parts) of its tier (so each tier is spread evenly: those
 *    switches forward the traffic between groups); ties go to the rank
 *    with fewest of that tier, then the lowest.
 *
 * Cut of a fat tree by pod with n_parts dividing k: every core has one
 * link to each pod and k / n_parts pods on its rank, so the cut is
 * (k^2 / 4) x k x (1 - 1 / n_parts) agg-core links and no other. With
 * rail on a rail-optimised fabric and hosts dealt evenly, the host-leaf
 * links cut are hosts x leaves x (1 - 1 / n_parts) wherever the leaves
 * go (each host keeps the links to the leaves of its own rank, and the
 * ranks' leaves add up to all of them), so the leaves are spread for
 * balance, one rail per rank in turn.
 */
#include <stdlib.h>
#include <string.h>
#include "partition.h"
#include "xalloc.h"

/* The groups of a topology (step 2), every array malloc'd. */
struct groups {
	int *of;            /* [n_nodes]: each node's group, -1 when set aside
			     * or in a component without a host */
	int n;              /* groups */
	int *hosts;         /* [n]: hosts in each */
	int *switches;      /* [n]: switches in each */
	int *first_switch;  /* [n]: lowest switch id in each, -1 when none */
	int *second_switch; /* [n]: another switch in it, -1 when none */
};

static bool set_aside(const struct topo *t, const int *tiers, int method, int top, int u)
{
	if (t->nodes[u].kind == NODE_HOST)
		return false;
	switch (method) {
	case PART_POD: return tiers[u] >= top;
	case PART_LEAF: return tiers[u] >= 2;
	default: return true;   /* rail */
	}
}

/* Components of the nodes not set aside, over links between two of them. */
static void find_groups(const struct topo *t, const int *tiers, int method, struct groups *g)
{
	int n = t->n_nodes, top = partition_top_tier(t, tiers);
	g->of = xmalloc((size_t)n * sizeof *g->of);
	int *comp = xmalloc((size_t)n * sizeof *comp);
	int *queue = xmalloc((size_t)n * sizeof *queue);
	for (int u = 0; u < n; u++)
		comp[u] = set_aside(t, tiers, method, top, u) ? -2 : -1;   /* -1: not yet reached */
	int n_comp = 0;
	int *comp_hosts = NULL;
	size_t cap = 0;
	for (int s = 0; s < n; s++) {
		if (comp[s] != -1)
			continue;
		if ((size_t)n_comp == cap) {
			cap = cap ? 2 * cap : 64;
			comp_hosts = xrealloc(comp_hosts, cap * sizeof *comp_hosts);
		}
		comp_hosts[n_comp] = 0;
		int head = 0, tail = 0;
		queue[tail++] = s;
		comp[s] = n_comp;
		while (head < tail) {
			int u = queue[head++];
			if (t->nodes[u].kind == NODE_HOST)
				comp_hosts[n_comp]++;
			for (int i = t->port_off[u]; i < t->port_off[u + 1]; i++) {
				int v = t->ports[i].peer;
				if (comp[v] == -1) {
					comp[v] = n_comp;
					queue[tail++] = v;
				}
			}
		}
		n_comp++;
	}
	/* Groups: the components with a host, in component order. */
	int *group_of_comp = xmalloc((size_t)(n_comp ? n_comp : 1) * sizeof *group_of_comp);
	g->n = 0;
	for (int c = 0; c < n_comp; c++)
		group_of_comp[c] = comp_hosts[c] > 0 ? g->n++ : -1;
	size_t ng = (size_t)(g->n ? g->n : 1);
	g->hosts = xcalloc(ng, sizeof *g->hosts);
	g->switches = xcalloc(ng, sizeof *g->switches);
	g->first_switch = xmalloc(ng * sizeof *g->first_switch);
	g->second_switch = xmalloc(ng * sizeof *g->second_switch);
	for (int i = 0; i < g->n; i++)
		g->first_switch[i] = g->second_switch[i] = -1;
	for (int u = 0; u < n; u++) {
		int gi = comp[u] >= 0 ? group_of_comp[comp[u]] : -1;
		g->of[u] = gi;
		if (gi < 0)
			continue;
		if (t->nodes[u].kind == NODE_HOST) {
			g->hosts[gi]++;
		} else {
			g->switches[gi]++;
			if (g->first_switch[gi] < 0)
				g->first_switch[gi] = u;
			else if (g->second_switch[gi] < 0)
				g->second_switch[gi] = u;
		}
	}
	free(group_of_comp);
	free(comp_hosts);
	free(queue);
	free(comp);
}

static void groups_free(struct groups *g)
{
	free(g->of);
	free(g->hosts);
	free(g->switches);
	free(g->first_switch);
	free(g->second_switch);
}

/* What the method calls its groups, for messages. */
static const char *group_word(int method)
{
	switch (method) {
	case PART_POD: return "pods";
	case PART_LEAF: return "leaf groups (an edge switch with its hosts)";
	default: return "hosts";
	}
}

/* The groups fit the method: pods and leaf groups hold a switch, a leaf
 * group exactly one. 0, or -1 with *err. */
static int check_shape(const struct topo *t, const int *tiers, int method, const struct groups *g, char **err)
{
	int top = partition_top_tier(t, tiers);
	for (int i = 0; i < g->n; i++) {
		if (method == PART_POD && (g->switches[i] == 0 || top < 2)) {
			int s = -1;
			for (int u = t->n_hosts; u < t->n_nodes && s < 0; u++)
				if (t->nodes[u].kind != NODE_HOST && tiers[u] == top)
					s = u;
			return err_printf(err, "the fabric has no pods: without its top tier (tier %d, such as "
					  "%s) its hosts are left without a switch; use partition = metis",
					  top, s >= 0 ? t->nodes[s].name : "none");
		}
		if (method == PART_LEAF && g->switches[i] != 1) {
			if (g->switches[i] == 0)
				return err_printf(err, "the fabric has no leaf groups: host %s is on no switch of "
						  "tier 1; use partition = metis", t->nodes[0].name);
			return err_printf(err, "the fabric has no leaf groups: %s and %s are joined without "
					  "a switch above tier 1 (directly or through a host on both); use "
					  "partition = %s",
					  t->nodes[g->first_switch[i]].name, t->nodes[g->second_switch[i]].name,
					  partition_single_homed(t) ? "metis" : "rail or metis");
		}
	}
	return 0;
}

/* Step 3: group i to rank rank_of[i]; 0, or -1 when a rank got none. */
static int deal(const struct groups *g, int n_parts, bool by_hosts, int *rank_of)
{
	int64_t total = 0, before = 0;
	for (int i = 0; i < g->n; i++)
		total += g->hosts[i];
	char *got = xcalloc((size_t)n_parts, 1);
	for (int i = 0; i < g->n; i++) {
		int64_t num = by_hosts ? 2 * before + g->hosts[i] : 2 * (int64_t)i + 1;
		int64_t den = by_hosts ? 2 * total : 2 * (int64_t)g->n;
		rank_of[i] = (int)(num * n_parts / den);
		got[rank_of[i]] = 1;
		before += g->hosts[i];
	}
	int rc = 0;
	for (int r = 0; r < n_parts; r++)
		if (!got[r])
			rc = -1;
	free(got);
	return rc;
}

/* Step 4: the nodes without a rank, placed beside their neighbours. */
static void place_rest(const struct topo *t, const int *tiers, int n_parts, int *part)
{
	int n_rest = 0, max_tier = 0;
	for (int u = 0; u < t->n_nodes; u++)
		if (part[u] < 0) {
			n_rest++;
			if (tiers[u] > max_tier)
				max_tier = tiers[u];
		}
	if (n_rest == 0)
		return;
	int *rest = xmalloc((size_t)n_rest * sizeof *rest);
	int *in_tier = xcalloc((size_t)max_tier + 1, sizeof *in_tier);
	/* By tier, then id. */
	n_rest = 0;
	for (int tier = 0; tier <= max_tier; tier++)
		for (int u = 0; u < t->n_nodes; u++)
			if (part[u] < 0 && (tiers[u] < 0 ? 0 : tiers[u]) == tier) {
				rest[n_rest++] = u;
				in_tier[tier]++;
			}
	int *links = xcalloc((size_t)n_parts, sizeof *links);
	int *used = xcalloc((size_t)n_parts, sizeof *used);
	int tier = -1, cap = 0;
	for (int i = 0; i < n_rest; i++) {
		int u = rest[i], ut = tiers[u] < 0 ? 0 : tiers[u];
		if (ut != tier) {
			tier = ut;
			cap = (in_tier[ut] + n_parts - 1) / n_parts;
			memset(used, 0, (size_t)n_parts * sizeof *used);
		}
		for (int k = t->port_off[u]; k < t->port_off[u + 1]; k++) {
			int v = t->ports[k].peer;
			if (part[v] >= 0)
				links[part[v]]++;
		}
		int best = -1;
		for (int r = 0; r < n_parts; r++) {
			if (used[r] >= cap)
				continue;
			if (best < 0 || links[r] > links[best] || (links[r] == links[best] && used[r] < used[best]))
				best = r;
		}
		part[u] = best;
		used[best]++;
		for (int k = t->port_off[u]; k < t->port_off[u + 1]; k++) {
			int v = t->ports[k].peer;
			if (part[v] >= 0)
				links[part[v]] = 0;
		}
		links[best] = 0;
	}
	free(used);
	free(links);
	free(in_tier);
	free(rest);
}

int partition_groups(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	int *tiers = partition_tiers(t);
	struct groups g;
	find_groups(t, tiers, method, &g);
	*n_groups = g.n;
	int rc = check_shape(t, tiers, method, &g, err);
	if (rc == 0 && g.n < n_parts)
		rc = err_printf(err, "%d ranks but the fabric has only %d %s; use %sfewer ranks", n_parts, g.n,
				group_word(method),
				method == PART_POD ? "partition = leaf or metis, or " :
				method == PART_LEAF ? "partition = metis or " : "");
	if (rc == 0) {
		int *rank_of = xmalloc((size_t)g.n * sizeof *rank_of);
		/* By count, with at least as many groups as ranks, every rank
		 * gets floor or ceil(groups / n_parts) of them. */
		if (deal(&g, n_parts, true, rank_of) < 0)
			deal(&g, n_parts, false, rank_of);
		for (int u = 0; u < t->n_nodes; u++)
			part[u] = g.of[u] >= 0 ? rank_of[g.of[u]] : -1;
		free(rank_of);
		place_rest(t, tiers, n_parts, part);
	}
	groups_free(&g);
	free(tiers);
	return rc;
}
