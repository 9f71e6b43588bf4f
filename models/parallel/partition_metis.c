/*
 * partition_metis.c — partition = metis: METIS's multilevel k-way
 * partitioning (Karypis and Kumar, "A Fast and High Quality Multilevel
 * Scheme for Partitioning Irregular Graphs", SIAM J. Sci. Comput. 1998;
 * METIS_PartGraphKway of METIS 5) of the node graph, for fabrics without
 * pods, leaves or rails (rings, dragonflies, HPCC topology files).
 *
 * The graph: one vertex per node; one edge per pair of linked nodes, the
 * parallel links of a host's several NICs on one switch merged into one
 * edge. Edge weight: the links' rate in Gb/s (at least 1), so METIS keeps
 * the fastest links inside a rank, times the longest link delay over this
 * link's (at most DELAY_FACTOR_MAX; a link without delay gets it): the
 * lookahead is the least delay of any cut link, so a short link is dear
 * to cut (a dragonfly's long global links are cut rather than its local
 * ones). With every link of one delay the factor is 1. Vertex weight: a switch's ports, twice
 * a host's ports (a host port carries the NIC's work — queue pairs,
 * acknowledgements, congestion control — besides the port's), the load a
 * node puts on its rank at about one event per frame and port. METIS
 * balances the weights within its default 3% (ufactor 30) and minimises
 * the weight of the cut edges.
 *
 * partition_metis_grouped partitions groups of nodes instead: a group is
 * one vertex, weighing what its nodes weigh, with the edges of its nodes
 * to other groups; nodes of no group (partition = hosts: the hosts) are
 * left out, with their links.
 *
 * Determinism: METIS draws random numbers; its seed option is fixed
 * (METIS_SEED), so a partition is a pure function of the graph and the
 * rank count for a given METIS build. METIS may leave a part empty on
 * tiny graphs; such a rank then takes the highest-numbered node of the
 * largest rank, so every rank owns a node.
 */
#include <stdint.h>
#include <stdlib.h>
#include "autoconfig.h"
#include "partition.h"
#include "xalloc.h"

#ifdef HAVE_METIS
#include <metis.h>

/* METIS_OPTION_SEED: any fixed value; this one is the year of METIS 5.1. */
#define METIS_SEED 2013
/* Heaviest edge weight: keeps the summed weights within idx_t. */
#define METIS_MAX_EDGE_W 100000
/* Largest weight factor of a short link. */
#define DELAY_FACTOR_MAX 64

const int partition_have_metis = 1;

/* Gives every empty rank the highest-numbered vertex of the then largest
 * rank. */
static void fill_empty(idx_t nv, int n_parts, idx_t *where)
{
	int *size = xcalloc((size_t)n_parts, sizeof *size);
	for (idx_t v = 0; v < nv; v++)
		size[where[v]]++;
	for (int r = 0; r < n_parts; r++) {
		if (size[r] > 0)
			continue;
		int big = 0;
		for (int q = 1; q < n_parts; q++)
			if (size[q] > size[big])
				big = q;
		for (idx_t v = nv - 1; v >= 0; v--)
			if (where[v] == big) {
				where[v] = r;
				size[big]--;
				size[r]++;
				break;
			}
	}
	free(size);
}

int partition_metis_grouped(const struct topo *t, const int *group, int n_groups, int host_weight, int n_parts,
			    int *part, char **err)
{
	idx_t nv = n_groups, ncon = 1, np = n_parts, cut = 0;
	size_t n_adj = (size_t)t->port_off[t->n_nodes];
	idx_t *xadj = xmalloc(((size_t)nv + 1) * sizeof *xadj);
	idx_t *adj = xmalloc((n_adj ? n_adj : 1) * sizeof *adj);
	idx_t *adjw = xmalloc((n_adj ? n_adj : 1) * sizeof *adjw);
	idx_t *vw = xmalloc(((size_t)nv ? (size_t)nv : 1) * sizeof *vw);
	idx_t *where = xmalloc(((size_t)nv ? (size_t)nv : 1) * sizeof *where);
	/* seen[v] == u: v already has an edge from u, at pos[v]. */
	int *seen = xmalloc(((size_t)nv ? (size_t)nv : 1) * sizeof *seen);
	size_t *pos = xmalloc(((size_t)nv ? (size_t)nv : 1) * sizeof *pos);
	for (idx_t u = 0; u < nv; u++)
		seen[u] = -1;
	simtime_t longest = 0;
	for (int l = 0; l < t->n_links; l++)
		if (t->links[l].delay_ps > longest)
			longest = t->links[l].delay_ps;
	/* Nodes in vertex order: a group's nodes one after the other. */
	int *order = xmalloc(((size_t)t->n_nodes ? (size_t)t->n_nodes : 1) * sizeof *order);
	int *first = xcalloc((size_t)nv + 1, sizeof *first);
	int n_in = 0;   /* nodes in some group */
	for (int u = 0; u < t->n_nodes; u++)
		if (group[u] >= 0) {
			first[group[u] + 1]++;
			n_in++;
		}
	for (idx_t g = 0; g < nv; g++)
		first[g + 1] += first[g];
	for (int u = 0; u < t->n_nodes; u++)
		if (group[u] >= 0)
			order[first[group[u]]++] = u;
	size_t e = 0;
	for (int k = 0, g = -1; k <= n_in; k++) {
		int u = k < n_in ? order[k] : -1;
		while (g < (u >= 0 ? group[u] : (int)nv - 1)) { /* the next vertex starts */
			g++;
			xadj[g] = (idx_t)e;
			vw[g] = 0;
		}
		if (u < 0)
			break;
		int ports = topo_n_ports(t, u);
		vw[g] += (idx_t)(ports > 0 ? ports : 1) * (t->nodes[u].kind == NODE_HOST ? host_weight : 1);
		for (int i = t->port_off[u]; i < t->port_off[u + 1]; i++) {
			int v = group[t->ports[i].peer];
			if (v < 0)
				continue;
			const struct topo_link *lk = &t->links[t->ports[i].link];
			uint64_t gb = lk->rate_bps / 1000000000u;
			uint64_t f = lk->delay_ps > 0 ? (uint64_t)(longest / lk->delay_ps) : DELAY_FACTOR_MAX;
			f = f < 1 ? 1 : f > DELAY_FACTOR_MAX ? DELAY_FACTOR_MAX : f;
			gb = (gb < 1 ? 1 : gb) * f;
			idx_t w = (idx_t)(gb > METIS_MAX_EDGE_W ? METIS_MAX_EDGE_W : gb);
			if (v == g)
				continue;
			if (seen[v] == g) {
				adjw[pos[v]] += w;
				continue;
			}
			seen[v] = g;
			pos[v] = e;
			adj[e] = v;
			adjw[e] = w;
			e++;
		}
	}
	free(first);
	free(order);
	xadj[nv] = (idx_t)e;
	idx_t opt[METIS_NOPTIONS];
	METIS_SetDefaultOptions(opt);
	opt[METIS_OPTION_SEED] = METIS_SEED;
	opt[METIS_OPTION_NUMBERING] = 0;
	int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, vw, NULL, adjw, &np, NULL, NULL, opt, &cut, where);
	if (rc == METIS_OK) {
		fill_empty(nv, n_parts, where);
		for (int u = 0; u < t->n_nodes; u++)
			if (group[u] >= 0)
				part[u] = (int)where[group[u]];
	}
	free(pos);
	free(seen);
	free(where);
	free(vw);
	free(adjw);
	free(adj);
	free(xadj);
	if (rc != METIS_OK)
		return err_printf(err, "METIS could not partition the fabric's %d nodes (%d groups) into %d parts (%s)",
				  t->n_nodes, n_groups, n_parts,
				  rc == METIS_ERROR_MEMORY ? "out of memory" :
				  rc == METIS_ERROR_INPUT ? "it refused the graph" : "METIS error");
	return 0;
}

int partition_metis(const struct topo *t, int n_parts, int *part, char **err)
{
	int *one = xmalloc(((size_t)t->n_nodes ? (size_t)t->n_nodes : 1) * sizeof *one);
	for (int u = 0; u < t->n_nodes; u++)
		one[u] = u;
	int rc = partition_metis_grouped(t, one, t->n_nodes, 2, n_parts, part, err);
	free(one);
	return rc;
}

#else

const int partition_have_metis = 0;

int partition_metis_grouped(const struct topo *t, const int *group, int n_groups, int host_weight, int n_parts,
			    int *part, char **err)
{
	(void)t;
	(void)group;
	(void)n_groups;
	(void)host_weight;
	(void)n_parts;
	(void)part;
	return err_printf(err, "METIS is not in this build");
}

int partition_metis(const struct topo *t, int n_parts, int *part, char **err)
{
	(void)t;
	(void)n_parts;
	(void)part;
	return err_printf(err, "partition = metis needs METIS, and this sim was built without it: install "
			  "the Debian package libmetis-dev and run configure again, or use partition = auto, "
			  "which does without it");
}

#endif
