/*
 * partition.c — giving the nodes of a fabric to ranks (parallel.h): the
 * methods' registry, `auto`, round robin, and the cut that a partition
 * makes (cut links, lookahead, per-rank counts).
 *
 * Invariants of a partition this file hands out: part_of_node[u] is in
 * [0, n_parts) for every node; every rank owns at least one node; the
 * result depends only on the graph (nodes' kinds and tiers, links, port
 * order), the method and n_parts, never on names or a seed, so every rank
 * of a run computes the same partition.
 *
 * `auto` tries every method the build has and keeps the best partition:
 * balanced first (the busiest rank has at most AUTO_MAX_PORT_IMBALANCE
 * times the mean ports), then the larger lookahead, then the fewer cut
 * links; among unbalanced ones, the best balanced. Ties go to the method
 * the graph's shape suggests, tried first: pod with a switch of tier >= 3
 * (a fat tree), leaf with two tiers and every host on one switch (a
 * leaf-spine), rail with two tiers and hosts on several switches (a
 * rail-optimised fabric); then pod, leaf, rail, metis, round_robin (not
 * hosts, which serves models that need it: partition_scenario). So a
 * fat tree whose pods divide among the ranks goes by pod, and one whose
 * pods do not (8 pods on 3 ranks) by METIS, which cuts about as much with
 * even ranks. Tiers are the methods' (partition_tiers): a graph read
 * from a file gets them from its hop distances to the hosts.
 */
#include <stdlib.h>
#include <string.h>
#include "partition.h"
#include "xalloc.h"

/* One method of the registry. */
struct method_entry {
	const char *name;          /* its word in [parallel] partition */
	/* Fills part (partition.h); NULL for auto, which runs others. */
	int (*run)(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err);
};

static int run_groups(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	return partition_groups(t, method, n_parts, part, n_groups, err);
}

static int run_metis(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	(void)method;
	*n_groups = 0;
	return partition_metis(t, n_parts, part, err);
}

static int run_rr(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	(void)method;
	*n_groups = 0;
	return partition_round_robin(t, n_parts, part, err);
}

static int run_hosts(const struct topo *t, int method, int n_parts, int *part, int *n_groups, char **err)
{
	(void)method;
	*n_groups = 0;
	return partition_hosts(t, n_parts, part, err);
}

/* The registry: enum partition_method order. */
static const struct method_entry methods[PART_N_METHODS] = {
	[PART_AUTO] = { "auto", NULL },
	[PART_POD] = { "pod", run_groups },
	[PART_LEAF] = { "leaf", run_groups },
	[PART_RAIL] = { "rail", run_groups },
	[PART_METIS] = { "metis", run_metis },
	[PART_ROUND_ROBIN] = { "round_robin", run_rr },
	[PART_HOSTS] = { "hosts", run_hosts },
};

const char *partition_method_name(int method)
{
	return method >= 0 && method < PART_N_METHODS ? methods[method].name : "?";
}

const char *partition_method_at(const void *arg, size_t i)
{
	(void)arg;
	return i < PART_N_METHODS ? methods[i].name : NULL;
}

int *partition_tiers(const struct topo *t)
{
	int n = t->n_nodes, lo = -1, hi = -1;
	int *tier = xmalloc((size_t)(n ? n : 1) * sizeof *tier);
	for (int u = 0; u < n; u++) {
		tier[u] = t->nodes[u].kind == NODE_HOST ? 0 : t->nodes[u].tier;
		if (t->nodes[u].kind != NODE_HOST) {
			lo = lo < 0 || tier[u] < lo ? tier[u] : lo;
			hi = tier[u] > hi ? tier[u] : hi;
		}
	}
	if (lo != hi)
		return tier;
	/* One tier of switches: hop distance from the hosts (breadth-first
	 * from all of them at once). */
	int *queue = xmalloc((size_t)(n ? n : 1) * sizeof *queue);
	int head = 0, tail = 0;
	for (int u = 0; u < n; u++) {
		tier[u] = t->nodes[u].kind == NODE_HOST ? 0 : -1;
		if (tier[u] == 0)
			queue[tail++] = u;
	}
	while (head < tail) {
		int u = queue[head++];
		for (int i = t->port_off[u]; i < t->port_off[u + 1]; i++) {
			int v = t->ports[i].peer;
			if (tier[v] < 0) {
				tier[v] = tier[u] + 1;
				queue[tail++] = v;
			}
		}
	}
	for (int u = 0; u < n; u++)
		if (tier[u] < 0)
			tier[u] = 1;
	free(queue);
	return tier;
}

int partition_top_tier(const struct topo *t, const int *tiers)
{
	int top = 0;
	for (int u = 0; u < t->n_nodes; u++)
		if (t->nodes[u].kind != NODE_HOST && tiers[u] > top)
			top = tiers[u];
	return top;
}

/* The node every port of host h leads to; -1 when they lead to several
 * (a rail-optimised host's NICs, each on its rail's leaf) or there is none. */
static int host_home(const struct topo *t, int h)
{
	int home = topo_n_ports(t, h) > 0 ? t->ports[t->port_off[h]].peer : -1;
	for (int i = t->port_off[h] + 1; i < t->port_off[h + 1]; i++)
		if (t->ports[i].peer != home)
			return -1;
	return home;
}

int partition_single_homed(const struct topo *t)
{
	for (int h = 0; h < t->n_hosts; h++)
		if (topo_n_ports(t, h) > 1 && host_home(t, h) < 0)
			return 0;
	return 1;
}

/* Round robin: units are the nodes in id order, a host whose ports all
 * lead to one switch going with that switch; unit i goes to rank
 * i mod n_parts. So a ToR goes with its hosts, and the hosts of a
 * rail-optimised fabric, whose NICs are on as many leaves, are dealt in
 * turn themselves (with their rail-0 leaf, every host of a leaf group
 * would land on one rank). Balanced in units, blind to locality: the
 * baseline, `auto`'s last resort without METIS and its choice for a
 * job on every rank (parallel_keys.c). */
int partition_round_robin(const struct topo *t, int n_parts, int *part, char **err)
{
	int units = 0;
	for (int u = 0; u < t->n_nodes; u++) {
		int home = u < t->n_hosts ? host_home(t, u) : -1;
		part[u] = home >= t->n_hosts ? -1 : units++ % n_parts;
	}
	if (units < n_parts)
		return err_printf(err, "%d ranks but round_robin has only %d switch%s (with their hosts) "
				  "to deal; use fewer ranks", n_parts, units, units == 1 ? "" : "es");
	for (int h = 0; h < t->n_hosts; h++)
		if (part[h] < 0)
			part[h] = part[host_home(t, h)];
	return 0;
}

/* The candidates `auto` tries, in order, for this graph (file comment);
 * at most 5, each method once, into c[PART_N_METHODS]. */
static int auto_candidates(const struct topo *t, int *c)
{
	int *tiers = partition_tiers(t);
	int n = 0, top = partition_top_tier(t, tiers);
	free(tiers);
	if (top >= 3)
		c[n++] = PART_POD;
	if (top >= 2)
		c[n++] = partition_single_homed(t) ? PART_LEAF : PART_RAIL;
	for (int m = PART_POD; m < PART_N_METHODS; m++) {
		/* hosts only when a model needs it (partition_scenario) */
		bool listed = (m == PART_METIS && !partition_have_metis) || m == PART_HOSTS;
		for (int i = 0; i < n; i++)
			listed |= c[i] == m;
		if (!listed)
			c[n++] = m;
	}
	return n;
}

/* The cut and the counts of a complete assignment. */
static void count(const struct topo *t, struct partition *p)
{
	int np = p->n_parts;
	p->nodes_of_part = xcalloc((size_t)np, sizeof *p->nodes_of_part);
	p->hosts_of_part = xcalloc((size_t)np, sizeof *p->hosts_of_part);
	p->switches_of_part = xcalloc((size_t)np, sizeof *p->switches_of_part);
	p->ports_of_part = xcalloc((size_t)np, sizeof *p->ports_of_part);
	p->cut_of_part = xcalloc((size_t)np, sizeof *p->cut_of_part);
	for (int u = 0; u < t->n_nodes; u++) {
		int r = p->part_of_node[u];
		p->nodes_of_part[r]++;
		if (t->nodes[u].kind == NODE_HOST)
			p->hosts_of_part[r]++;
		else
			p->switches_of_part[r]++;
		p->ports_of_part[r] += (uint64_t)topo_n_ports(t, u);
	}
	p->n_links = t->n_links;
	p->n_cut_links = 0;
	p->lookahead_ps = SIMTIME_NEVER;
	p->cut_rate_bps = p->total_rate_bps = 0;
	for (int l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];
		int ra = p->part_of_node[k->a], rb = p->part_of_node[k->b];
		p->total_rate_bps += k->rate_bps;
		if (ra == rb)
			continue;
		p->n_cut_links++;
		p->cut_rate_bps += k->rate_bps;
		p->cut_of_part[ra]++;
		p->cut_of_part[rb]++;
		if (k->delay_ps < p->lookahead_ps)
			p->lookahead_ps = k->delay_ps;
	}
	p->cut_delay_ps = p->lookahead_ps;
}

/* auto's notion of balance: the busiest rank has at most this many times
 * the mean ports (METIS keeps within about 1.09 of it with its own 3% on
 * weights in which a host port counts twice; 5 pods on 4 ranks give 1.55). */
#define AUTO_MAX_PORT_IMBALANCE 1.10

/* The busiest rank's ports over the mean. */
static double port_imbalance(const struct partition *p)
{
	uint64_t most = 0, sum = 0;
	for (int r = 0; r < p->n_parts; r++) {
		sum += p->ports_of_part[r];
		if (p->ports_of_part[r] > most)
			most = p->ports_of_part[r];
	}
	return sum ? (double)most * p->n_parts / (double)sum : 1.0;
}

/* auto: whether a beats b (both complete): balanced first; among balanced
 * ones the larger lookahead, then fewer cut links; among unbalanced ones
 * the better balance. Ties keep b, the earlier candidate. */
static bool better(const struct partition *a, const struct partition *b)
{
	double ia = port_imbalance(a), ib = port_imbalance(b);
	bool ba = ia <= AUTO_MAX_PORT_IMBALANCE, bb = ib <= AUTO_MAX_PORT_IMBALANCE;
	if (ba != bb)
		return ba;
	if (!ba)
		return ia < ib;
	if (a->lookahead_ps != b->lookahead_ps)
		return a->lookahead_ps > b->lookahead_ps;
	return a->n_cut_links < b->n_cut_links;
}

/* Every node on a rank in range and every rank non-empty: a method's
 * promise, checked once here; an internal failure if broken. */
static int verify(const struct topo *t, const struct partition *p, const char *method, char **err)
{
	for (int u = 0; u < t->n_nodes; u++)
		if (p->part_of_node[u] < 0 || p->part_of_node[u] >= p->n_parts)
			return err_printf(err, "partition %s left node %s without a rank (an internal error)",
					  method, t->nodes[u].name);
	for (int r = 0; r < p->n_parts; r++)
		if (p->nodes_of_part[r] == 0)
			return err_printf(err, "partition %s left rank %d without a node (an internal error)",
					  method, r);
	return 0;
}

/* One method into *out (counted), or -1 with *err and *out empty. */
static int run_one(const struct topo *t, int method, int n_parts, struct partition *out, char **err)
{
	memset(out, 0, sizeof *out);
	int *part = xmalloc((size_t)(t->n_nodes > 0 ? t->n_nodes : 1) * sizeof *part);
	int n_groups = 0;
	const struct method_entry *m = &methods[method];
	/* One rank owns everything, whatever the method; but a method the
	 * build lacks is refused all the same, so a scenario that says metis
	 * fails alike on 1 and 8 ranks. */
	if (n_parts == 1 && !(method == PART_METIS && !partition_have_metis)) {
		memset(part, 0, (size_t)t->n_nodes * sizeof *part);
	} else if (m->run(t, method, n_parts, part, &n_groups, err) < 0) {
		free(part);
		return -1;
	}
	out->n_parts = n_parts;
	out->requested = method;
	out->method = method;
	out->n_nodes = t->n_nodes;
	out->part_of_node = part;
	out->n_groups = n_parts > 1 ? n_groups : 0;
	count(t, out);
	return 0;
}

int partition_compute(const struct topo *t, int method, int n_parts, struct partition *out, char **err)
{
	memset(out, 0, sizeof *out);
	if (method < 0 || method >= PART_N_METHODS)
		return err_printf(err, "no partition method %d", method);
	if (n_parts < 1)
		return err_printf(err, "%d ranks: at least 1 is needed", n_parts);
	if (n_parts > t->n_nodes)
		return err_printf(err, "%d ranks but the fabric has only %d nodes (hosts and switches); "
				  "use at most %d ranks", n_parts, t->n_nodes, t->n_nodes);
	int cand[PART_N_METHODS], n_cand;   /* auto_candidates: at most 5 */
	if (method == PART_AUTO) {
		n_cand = auto_candidates(t, cand);
	} else {
		cand[0] = method;
		n_cand = 1;
	}
	struct partition best = { 0 };
	int found = 0;
	char *why = NULL;
	for (int i = 0; i < n_cand; i++) {
		struct partition c;
		char *e = NULL;
		if (run_one(t, cand[i], n_parts, &c, &e) < 0) {
			free(why);
			why = e;
			continue;
		}
		c.requested = method;
		if (!found || better(&c, &best)) {
			partition_free(&best);
			best = c;
			found = 1;
		} else {
			partition_free(&c);
		}
		if (n_parts == 1)
			break;   /* every method gives the same */
	}
	if (!found) {
		*err = why;
		return -1;
	}
	free(why);
	if (verify(t, &best, methods[best.method].name, err) < 0) {
		partition_free(&best);
		return -1;
	}
	*out = best;
	return 0;
}

void partition_free(struct partition *p)
{
	free(p->part_of_node);
	free(p->nodes_of_part);
	free(p->hosts_of_part);
	free(p->switches_of_part);
	free(p->ports_of_part);
	free(p->cut_of_part);
	memset(p, 0, sizeof *p);
}
