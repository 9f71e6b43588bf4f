/*
 * test_routing.c — forwarding tables (models/fabric/routing.c).
 *
 * Checks the next-hop sets of fat tree, dumbbell, leaf-spine and
 * rail-optimised fabrics against their known structure, walks every
 * equal-cost path, checks that a dragonfly is routed minimally (its link
 * costs), that tables are per endpoint (traffic for NIC i of a host enters
 * on its port i), checks the unreachable and multi-homed-host cases, and
 * times k=16. Random graphs against a reference: test_routing_reference.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "routing.h"
#include "routing_fixture.h"
#include "testutil.h"
#include "topo_fixture.h"

/* Every path from switch u to host d following the tables: counts them
 * and checks each has `hops_left` more links. */
static long count_paths(const struct net *n, int u, int d, int hops_left)
{
	if (u == d) {
		CU_ASSERT_EQUAL(hops_left, 0);
		return hops_left == 0;
	}
	if (hops_left <= 0 || u < n->t.n_hosts) {
		CU_FAIL("path too long or through a host");
		return 0;
	}
	long total = 0;
	const uint16_t *p = route_ports(&n->rt[u], d);
	for (int i = 0; i < route_n(&n->rt[u], d); i++)
		total += count_paths(n, peer_of(&n->t, u, p[i]), d, hops_left - 1);
	return total;
}

static void test_fat_tree_k4(void)
{
	const int k = 4, half = 2;
	char keys[64];
	snprintf(keys, sizeof keys, "type = fat_tree\nk = %d", k);
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, keys), 0);
	check_tables(&n);
	int nh = n.t.n_hosts, tor0 = topo_find(&n.t, "tor0"), agg0 = topo_find(&n.t, "agg0"),
	    core0 = topo_find(&n.t, "core0");
	for (int s = 0; s < k * half; s++) {
		const struct route_table *tor = &n.rt[tor0 + s], *agg = &n.rt[agg0 + s];
		int pod = s / half;
		CU_ASSERT_EQUAL(tor->n_sets, 2);   /* its local marker, the uplinks */
		for (int d = 0; d < nh; d++) {
			int d_tor = d / half, d_pod = d_tor / half;
			if (d_tor == s) {     /* own host: the one port facing it */
				CU_ASSERT_EQUAL(route_n(tor, d), 1);
				CU_ASSERT_EQUAL(route_ports(tor, d)[0], d % half);
			} else {              /* everything else: all k/2 uplinks */
				CU_ASSERT_EQUAL_FATAL(route_n(tor, d), half);
				for (int i = 0; i < half; i++)
					CU_ASSERT_EQUAL(route_ports(tor, d)[i], half + i);
			}
			if (d_pod == pod) {   /* down to the host's ToR */
				CU_ASSERT_EQUAL(route_n(agg, d), 1);
				CU_ASSERT_EQUAL(route_ports(agg, d)[0], d_tor % half);
			} else {              /* up to all k/2 cores */
				CU_ASSERT_EQUAL_FATAL(route_n(agg, d), half);
				for (int i = 0; i < half; i++)
					CU_ASSERT_EQUAL(route_ports(agg, d)[i], half + i);
			}
		}
	}
	for (int cc = 0; cc < half * half; cc++) {
		const struct route_table *core = &n.rt[core0 + cc];
		CU_ASSERT_EQUAL(core->n_sets, k);
		for (int d = 0; d < nh; d++) {
			CU_ASSERT_EQUAL(route_n(core, d), 1);
			CU_ASSERT_EQUAL(route_ports(core, d)[0], d / (half * half));
		}
	}
	/* host -> host: 2 links under one ToR, 4 within a pod, 6 across pods;
	 * paths: 1, k/2, (k/2)^2. */
	for (int s = 0; s < nh; s++)
		for (int d = 0; d < nh; d++) {
			if (s == d)
				continue;
			int same_tor = s / half == d / half, same_pod = s / (half * half) == d / (half * half);
			int hops = same_tor ? 2 : same_pod ? 4 : 6;
			long want = same_tor ? 1 : same_pod ? half : half * half;
			CU_ASSERT_EQUAL(count_paths(&n, peer_of(&n.t, s, 0), d, hops - 1), want);
		}
	net_free(&n);
}

static void test_dumbbell(void)
{
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = dumbbell\nhosts_left = 3\nhosts_right = 4"), 0);
	check_tables(&n);
	int sw0 = topo_find(&n.t, "sw0"), sw1 = topo_find(&n.t, "sw1");
	for (int d = 0; d < 7; d++) {
		const struct route_table *r0 = &n.rt[sw0], *r1 = &n.rt[sw1];
		CU_ASSERT_EQUAL(route_n(r0, d), 1);
		CU_ASSERT_EQUAL(route_n(r1, d), 1);
		/* Right hosts go through sw0's bottleneck (its last port, 3). */
		CU_ASSERT_EQUAL(route_ports(r0, d)[0], d < 3 ? d : 3);
		CU_ASSERT_EQUAL(route_ports(r1, d)[0], d < 3 ? 4 : d - 3);
	}
	net_free(&n);
}

static void test_leaf_spine(void)
{
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = leaf_spine\nleaves = 5\nspines = 3\nhosts_per_leaf = 4"), 0);
	check_tables(&n);
	int leaf0 = topo_find(&n.t, "leaf0"), spine0 = topo_find(&n.t, "spine0");
	for (int d = 0; d < n.t.n_hosts; d++) {
		for (int i = 0; i < 5; i++) {
			const struct route_table *r = &n.rt[leaf0 + i];
			if (d / 4 == i) {
				CU_ASSERT_EQUAL(route_n(r, d), 1);
				CU_ASSERT_EQUAL(route_ports(r, d)[0], d % 4);
			} else {
				CU_ASSERT_EQUAL_FATAL(route_n(r, d), 3);
				for (int s = 0; s < 3; s++)
					CU_ASSERT_EQUAL(route_ports(r, d)[s], 4 + s);
			}
		}
		for (int s = 0; s < 3; s++) {
			CU_ASSERT_EQUAL(route_n(&n.rt[spine0 + s], d), 1);
			CU_ASSERT_EQUAL(route_ports(&n.rt[spine0 + s], d)[0], d / 4);
		}
	}
	net_free(&n);
}

/* Every path from switch u to endpoint e (NIC e % nics of host e / nics)
 * following the tables: counts them, checks each has `hops_left` more links
 * and enters the host on the endpoint's own port. */
static long count_ep_paths(const struct net *n, int u, int e, int hops_left)
{
	int nics = n->t.nics_per_host, d = e / nics;
	if (hops_left <= 0 || u < n->t.n_hosts) {
		CU_FAIL("path too long or through a host");
		return 0;
	}
	long total = 0;
	const uint16_t *p = route_ports(&n->rt[u], e);
	for (int i = 0; i < route_n(&n->rt[u], e); i++) {
		const struct topo_port *tp = &n->t.ports[n->t.port_off[u] + p[i]];
		if (tp->peer == d) {
			CU_ASSERT_EQUAL(tp->peer_port, e % nics);
			CU_ASSERT_EQUAL(hops_left, 1);
			total += tp->peer_port == e % nics && hops_left == 1;
		} else {
			total += count_ep_paths(n, tp->peer, e, hops_left - 1);
		}
	}
	return total;
}

/* Rails: NIC j of host h is endpoint h x N + j on leaf j. From leaf i,
 * same-rail traffic goes straight down (the one hop up was the sender's);
 * cross-rail traffic climbs to any of the S spines, then leaf j. */
static void test_rail(void)
{
	const int H = 5, N = 4, S = 3;
	char keys[128];
	snprintf(keys, sizeof keys, "type = rail_optimized\nhosts = %d\nspines = %d\nnics_per_host = %d", H, S, N);
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, keys), 0);
	check_tables(&n);
	int leaf0 = topo_find(&n.t, "leaf0"), spine0 = topo_find(&n.t, "spine0");
	for (int e = 0; e < H * N; e++) {
		int h = e / N, j = e % N;
		for (int i = 0; i < N; i++) {
			const struct route_table *r = &n.rt[leaf0 + i];
			if (i == j) {
				CU_ASSERT_EQUAL(route_n(r, e), 1);
				CU_ASSERT_EQUAL(route_ports(r, e)[0], h);
				CU_ASSERT_EQUAL(count_ep_paths(&n, leaf0 + i, e, 1), 1);
			} else {
				CU_ASSERT_EQUAL_FATAL(route_n(r, e), S);
				for (int s = 0; s < S; s++)
					CU_ASSERT_EQUAL(route_ports(r, e)[s], H + s);
				CU_ASSERT_EQUAL(count_ep_paths(&n, leaf0 + i, e, 3), S);
			}
		}
		for (int s = 0; s < S; s++) {
			CU_ASSERT_EQUAL(route_n(&n.rt[spine0 + s], e), 1);
			CU_ASSERT_EQUAL(route_ports(&n.rt[spine0 + s], e)[0], j);
			CU_ASSERT_EQUAL(count_ep_paths(&n, spine0 + s, e, 2), 1);
		}
	}
	/* A leaf holds its local marker (the hosts of its rail), plus "up". */
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(n.rt[leaf0 + i].n_sets, 2);
	net_free(&n);
}

/* Hosts multi-homed to one switch: each NIC is its own destination, so
 * traffic for NIC i arrives on host port i even though every NIC of the
 * host is equally close. */
static void test_multi_nic_endpoints(void)
{
	const int N = 3;
	char keys[128];
	snprintf(keys, sizeof keys, "type = star\nhosts = 4\nnics_per_host = %d", N);
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, keys), 0);
	check_tables(&n);
	int sw0 = topo_find(&n.t, "sw0");
	const struct route_table *r = &n.rt[sw0];
	CU_ASSERT_EQUAL(r->n_eps, 4 * N);
	for (int e = 0; e < 4 * N; e++) {
		CU_ASSERT_EQUAL(route_n(r, e), 1);
		CU_ASSERT_EQUAL(route_ports(r, e)[0], e);   /* sw0 port e = endpoint e */
		CU_ASSERT_EQUAL(count_ep_paths(&n, sw0, e, 1), 1);
	}
	net_free(&n);

	/* Fat tree k=4 with two NICs per host: the path counts of one NIC per
	 * host (ToR: 1 to its own hosts, 2 within the pod, 4 across pods;
	 * core: 1), every path ending on the endpoint's own port. */
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = fat_tree\nk = 4\nnics_per_host = 2"), 0);
	check_tables(&n);
	int tor0 = topo_find(&n.t, "tor0"), core0 = topo_find(&n.t, "core0");
	for (int e = 0; e < 32; e++) {
		int h = e / 2;
		/* tor0 holds host0 and host1: ports 0..3 = (host, NIC). */
		if (h < 2) {
			CU_ASSERT_EQUAL(route_n(&n.rt[tor0], e), 1);
			CU_ASSERT_EQUAL(route_ports(&n.rt[tor0], e)[0], e);
		} else {
			CU_ASSERT_EQUAL(route_n(&n.rt[tor0], e), 2);
		}
		CU_ASSERT_EQUAL(count_ep_paths(&n, tor0, e, h < 2 ? 1 : h < 4 ? 3 : 5), h < 2 ? 1 : h < 4 ? 2 : 4);
		CU_ASSERT_EQUAL(count_ep_paths(&n, core0, e, 3), 1);
	}
	net_free(&n);
}

/* Every path from router u to endpoint e following the tables (a
 * dragonfly: routers r0.., a per group): how many there are, and in *bad
 * how many cross more than one global link (between groups) or more than
 * three router-to-router links. */
static long dragonfly_paths(const struct net *n, int r0, int a, int u, int e, int globals, int links,
			    long *bad)
{
	long total = 0;
	const uint16_t *p = route_ports(&n->rt[u], e);
	for (int i = 0; i < route_n(&n->rt[u], e); i++) {
		int q = peer_of(&n->t, u, p[i]);
		if (q < r0) {             /* down to the host */
			total++;
			*bad += globals > 1 || links > 3;
			continue;
		}
		if (links >= 8) {         /* a loop: the tables are broken */
			CU_FAIL("a path of more than 8 router links");
			continue;
		}
		total += dragonfly_paths(n, r0, a, q, e, globals + ((q - r0) / a != (u - r0) / a), links + 1,
					 bad);
	}
	return total;
}

/* Router pairs (u, v) of the dragonfly of n for which some path from u to
 * v's first host crosses two global links or more than three router links,
 * and in *all_bad those for which every path does. */
static int dragonfly_nonminimal(const struct net *n, int a, int p, int *all_bad)
{
	int r0 = n->t.n_hosts, pairs = 0;
	*all_bad = 0;
	for (int u = r0; u < n->t.n_nodes; u++)
		for (int v = r0; v < n->t.n_nodes; v++) {
			if (u == v)
				continue;
			long bad = 0, total = dragonfly_paths(n, r0, a, u, (v - r0) * p, 0, 0, &bad);
			CU_ASSERT(total >= 1);
			pairs += bad > 0;
			*all_bad += bad == total;
		}
	return pairs;
}

/* Dragonfly (a = 4 routers per group, p = 2 hosts each, h = 2 global links,
 * 9 groups): routing is minimal, every path between routers at most
 * local, global, local, and unique (one global link per pair of groups).
 * By hop count alone (every link cost 1) it is not: 312 of the 1260 router
 * pairs have an equal-cost path over two global links, 24 only such paths. */
static void test_dragonfly_minimal(void)
{
	const int a = 4, p = 2;
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = dragonfly\nrouters_per_group = 4\nhosts_per_router = 2\n"
					"global_links = 2"), 0);
	check_tables(&n);
	int all_bad;
	CU_ASSERT_EQUAL(dragonfly_nonminimal(&n, a, p, &all_bad), 0);
	for (int u = n.t.n_hosts; u < n.t.n_nodes; u++)
		for (int e = 0; e < n.t.n_hosts; e++)
			CU_ASSERT_EQUAL(route_n(&n.rt[u], e), 1);
	/* The same graph routed by hops: the check above catches it. */
	routing_free(n.rt, n.t.n_nodes);
	for (int l = 0; l < n.t.n_links; l++)
		n.t.links[l].cost = 1;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(routing_build(&n.t, n.rt, &err), 0);
	CU_ASSERT_EQUAL(dragonfly_nonminimal(&n, a, p, &all_bad), 312);
	CU_ASSERT_EQUAL(all_bad, 24);
	net_free(&n);
}

/* Many distinct sets on one switch exercise the interning hash's growth:
 * a spine over 3000 leaves of one host each holds one set per leaf; a star's
 * switch holds only its local marker. */
static void test_star_many_sets(void)
{
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = leaf_spine\nleaves = 3000\nhosts_per_leaf = 1\nspines = 1"), 0);
	const struct route_table *r = &n.rt[topo_find(&n.t, "spine0")];
	CU_ASSERT_EQUAL(r->n_sets, 3000);
	for (int d = 0; d < 3000; d++) {
		CU_ASSERT_EQUAL(route_n(r, d), 1);
		CU_ASSERT_EQUAL(route_ports(r, d)[0], d);
	}
	check_tables(&n);
	net_free(&n);
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = star\nhosts = 3000"), 0);
	r = &n.rt[topo_find(&n.t, "sw0")];
	CU_ASSERT_EQUAL(r->n_sets, 1);
	for (int d = 0; d < 3000; d++) {
		CU_ASSERT_EQUAL(route_n(r, d), 1);
		CU_ASSERT_EQUAL(route_ports(r, d)[0], d);
	}
	net_free(&n);
}

/* Two switches with one host each and no link between them. */
static void test_unreachable(void)
{
	struct topo t;
	memset(&t, 0, sizeof t);
	topo_add_node(&t, "host0", NODE_HOST, 0);
	topo_add_node(&t, "host1", NODE_HOST, 0);
	topo_add_node(&t, "sw0", NODE_SWITCH, 1);
	topo_add_node(&t, "sw1", NODE_SWITCH, 1);
	t.n_hosts = 2;
	topo_add_link(&t, 0, 2, RATE, DELAY);
	topo_add_link(&t, 1, 3, RATE, DELAY);
	/* host0 is also attached to sw1: a path sw0 -> host0 -> sw1 exists only
	 * through a host, which must not forward. */
	topo_add_link(&t, 0, 3, RATE, DELAY);
	topo_finalize(&t);
	struct route_table rt[4];
	char *err = NULL;
	CU_ASSERT_EQUAL(routing_build(&t, rt, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "sw0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "host1"));
	free(err);
	for (int u = 0; u < 4; u++)
		CU_ASSERT_PTR_NULL(rt[u].set_of_grp);   /* cleaned up */
	routing_free(rt, 4);                        /* harmless after an error */

	/* Now link the switches: sw1 reaches host0 directly (1 hop), and sw0
	 * reaches host1 through sw1 only, never via host0. */
	topo_add_link(&t, 2, 3, RATE, DELAY);
	topo_finalize(&t);
	CU_ASSERT_EQUAL_FATAL(routing_build(&t, rt, &err), 0);
	CU_ASSERT_EQUAL(route_n(&rt[2], 1), 1);
	CU_ASSERT_EQUAL(route_ports(&rt[2], 1)[0], 1);  /* sw0 port 1 = sw1 */
	CU_ASSERT_EQUAL(route_n(&rt[3], 0), 1);
	CU_ASSERT_EQUAL(route_ports(&rt[3], 0)[0], 1);  /* sw1 port 1 = host0 */
	routing_free(rt, 4);
	/* A link cost out of range is refused, not searched. */
	t.links[3].cost = TOPO_MAX_COST + 1;
	CU_ASSERT_EQUAL(routing_build(&t, rt, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "the link sw0 - sw1 has cost 17; expected 1 to 16"));
	free(err);
	topology_free(&t);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The link id at port `port` of node u. */
static int link_at(const struct topo *t, int u, int port)
{
	return t->ports[t->port_off[u] + port].link;
}

/* Routing over the links that are up (failures): leaf-spine, 2 leaves, 3
 * spines, 2 hosts per leaf. leaf0's uplink to spine1 down: leaf0 sends
 * leaf1's hosts over spines 0 and 2 only, spine1 reaches leaf0's hosts
 * through nobody (every other way is longer: spine1 - leaf1 - spine -
 * leaf0, 3 links, still a path), and leaf1 no longer uses spine1 toward
 * leaf0. Then host0's link down too: leaf0 has no route to it (the empty
 * set), others still send toward leaf0. Then every link of spine0, 2 and
 * leaf1-spine1: leaf1's hosts unreachable from leaf0. */
static void test_masked(void)
{
	struct net n;
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = leaf_spine\nleaves = 2\nspines = 3\nhosts_per_leaf = 2"), 0);
	const struct topo *t = &n.t;
	int leaf0 = topo_find(t, "leaf0"), leaf1 = topo_find(t, "leaf1"), spine1 = topo_find(t, "spine1");
	uint8_t *down = calloc((size_t)t->n_links, 1);
	struct route_table *rt = calloc((size_t)t->n_nodes, sizeof *rt);
	char *err = NULL;
	/* leaf ports: 2 hosts, then spines 0..2; spine ports: leaf0, leaf1. */
	down[link_at(t, leaf0, 3)] = 1;
	CU_ASSERT_EQUAL_FATAL(routing_build_masked(t, rt, down, &err), 0);
	for (int d = 2; d < 4; d++) {   /* leaf1's hosts */
		CU_ASSERT_EQUAL_FATAL(route_n(&rt[leaf0], d), 2);
		CU_ASSERT_EQUAL(route_ports(&rt[leaf0], d)[0], 2);
		CU_ASSERT_EQUAL(route_ports(&rt[leaf0], d)[1], 4);
	}
	for (int d = 0; d < 2; d++) {   /* leaf0's hosts */
		CU_ASSERT_EQUAL_FATAL(route_n(&rt[leaf1], d), 2);
		CU_ASSERT_EQUAL(route_ports(&rt[leaf1], d)[0], 2);
		CU_ASSERT_EQUAL(route_ports(&rt[leaf1], d)[1], 4);
		CU_ASSERT_EQUAL_FATAL(route_n(&rt[spine1], d), 1);   /* the detour via leaf1 */
		CU_ASSERT_EQUAL(route_ports(&rt[spine1], d)[0], 1);
	}
	routing_free(rt, t->n_nodes);
	down[link_at(t, 0, 0)] = 1;     /* host0's only link */
	CU_ASSERT_EQUAL_FATAL(routing_build_masked(t, rt, down, &err), 0);
	CU_ASSERT_EQUAL(route_n(&rt[leaf0], 0), 0);
	CU_ASSERT_EQUAL(route_ports(&rt[leaf0], 0)[0], ROUTE_UNREACHABLE);
	CU_ASSERT_EQUAL(route_n(&rt[leaf0], 1), 1);
	CU_ASSERT_EQUAL(route_n(&rt[leaf1], 0), 2);  /* toward leaf0: it drops there */
	routing_free(rt, t->n_nodes);
	memset(down, 0, (size_t)t->n_links);
	for (int p = 2; p < 5; p++)     /* leaf0 cut from every spine */
		down[link_at(t, leaf0, p)] = 1;
	CU_ASSERT_EQUAL_FATAL(routing_build_masked(t, rt, down, &err), 0);
	for (int d = 2; d < 4; d++) {
		CU_ASSERT_EQUAL(route_n(&rt[leaf0], d), 0);
		CU_ASSERT_EQUAL(route_n(&rt[spine1], d), 1);
	}
	for (int d = 0; d < 2; d++) {
		CU_ASSERT_EQUAL(route_n(&rt[leaf1], d), 0);
		CU_ASSERT_EQUAL(route_n(&rt[spine1], d), 0);
		CU_ASSERT_EQUAL(route_n(&rt[leaf0], d), 1);
	}
	routing_free(rt, t->n_nodes);
	free(rt);
	free(down);
	free(err);
	net_free(&n);
}

static void test_fat_tree_k16(void)
{
	struct net n;
	double t0 = now_s();
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = fat_tree\nk = 16"), 0);
	double t1 = now_s();
	CU_ASSERT_EQUAL(n.t.n_hosts, 1024);
	CU_ASSERT_EQUAL(n.t.n_nodes - n.t.n_hosts, 320);
	size_t bytes = 0;
	for (int u = n.t.n_hosts; u < n.t.n_nodes; u++) {
		const struct route_table *rt = &n.rt[u];
		int tier = n.t.nodes[u].tier;
		CU_ASSERT_EQUAL(rt->n_sets, tier == 1 ? 2 : tier == 2 ? 9 : 16);
		bytes += (size_t)rt->n_grps * 2 + (size_t)rt->n_sets * sizeof *rt->sets;
		for (int s = 0; s < rt->n_sets; s++)
			bytes += rt->sets[s].n * 2;
	}
	check_tables(&n);
	printf("\n    k=16 fat tree: topology + routing in %.1f ms, tables %zu KB ",
	       (t1 - t0) * 1e3, bytes / 1024);
	net_free(&n);
}

/* A large rail fabric (1024 hosts x 8 NICs, 16 spines): 8192 endpoints,
 * one BFS each. Prints the time; the interned tables stay small. */
static void test_rail_large(void)
{
	struct net n;
	double t0 = now_s();
	CU_ASSERT_EQUAL_FATAL(net_build(&n, "type = rail_optimized\nhosts = 1024\nspines = 16\nnics_per_host = 8"), 0);
	double t1 = now_s();
	CU_ASSERT_EQUAL(topo_n_eps(&n.t), 8192);
	int leaf0 = topo_find(&n.t, "leaf0"), spine0 = topo_find(&n.t, "spine0");
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(n.rt[leaf0 + i].n_sets, 2);
	CU_ASSERT_EQUAL(n.rt[spine0].n_sets, 8);
	printf("\n    rail 1024 hosts x 8 NICs: topology + routing in %.1f ms ", (t1 - t0) * 1e3);
	net_free(&n);
}

TEST_MAIN("routing",
	  { "masked links (failures)", test_masked },
	  { "fat_tree k=4 next hops and paths", test_fat_tree_k4 },
	  { "dumbbell bottleneck", test_dumbbell },
	  { "leaf_spine next hops", test_leaf_spine },
	  { "rail_optimized: same rail down, cross rail via spines", test_rail },
	  { "dragonfly: minimal routing by link costs", test_dragonfly_minimal },
	  { "several NICs: tables per endpoint", test_multi_nic_endpoints },
	  { "star: one set per host", test_star_many_sets },
	  { "unreachable and hosts never forward", test_unreachable },
	  { "fat_tree k=16 builds fast", test_fat_tree_k16 },
	  { "rail_optimized 1024 x 8 builds", test_rail_large })
