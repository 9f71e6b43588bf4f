/*
 * fuzz_hpcc_topology.c — libFuzzer target: HPCC ns-3 topology.txt
 * (models/topo/topo_hpcc.c, hpcc_topology_parse from a memory buffer).
 *
 * Beyond "no crash, no leak": what topology.h promises of hpcc_topology_parse. On failure, a
 * message "NAME:..." and an empty topology; on success, hosts first then
 * switches (tier 1), hpcc_id a permutation of the file's ids, every host
 * on exactly one link, links between two distinct nodes with rate > 0 and
 * delay >= 0, and port tables that match the links. A violation aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_hpcc_topology: %s\n", what);
	abort();
}

static void check(const struct topo *t)
{
	if (t->n_nodes < 1 || t->n_hosts < 1 || t->n_hosts > t->n_nodes || t->nics_per_host != 1 || !t->hpcc_id)
		fail("counts");
	char *seen = calloc((size_t)t->n_nodes, 1);
	if (!seen)
		abort();
	for (int u = 0; u < t->n_nodes; u++) {
		const struct topo_node *n = &t->nodes[u];
		if (u < t->n_hosts ? n->kind != NODE_HOST || n->tier != 0 : n->kind != NODE_SWITCH || n->tier != 1)
			fail("hosts first (tier 0), then switches (tier 1)");
		int id = t->hpcc_id[u];
		if (id < 0 || id >= t->n_nodes || seen[id]++)
			fail("hpcc_id is not a permutation of the file's ids");
		int ports = t->port_off[u + 1] - t->port_off[u];
		if (u < t->n_hosts && ports != 1)
			fail("a host not on exactly one link");
		for (int p = t->port_off[u]; p < t->port_off[u + 1]; p++) {
			const struct topo_port *q = &t->ports[p];
			if (q->link < 0 || q->link >= t->n_links || q->peer < 0 || q->peer >= t->n_nodes)
				fail("port out of range");
			const struct topo_link *l = &t->links[q->link];
			if (!((l->a == u && l->b == q->peer) || (l->b == u && l->a == q->peer)))
				fail("port does not match its link");
			const struct topo_port *back = &t->ports[t->port_off[q->peer] + q->peer_port];
			if (back->peer != u || back->link != q->link)
				fail("peer port does not point back");
		}
	}
	free(seen);
	for (int i = 0; i < t->n_links; i++) {
		const struct topo_link *l = &t->links[i];
		if (l->a < 0 || l->b < 0 || l->a >= t->n_nodes || l->b >= t->n_nodes || l->a == l->b ||
		    l->rate_bps == 0 || l->delay_ps < 0)
			fail("bad link");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo t;
	char *err = NULL;
	if (hpcc_topology_parse("fuzz.txt", (const char *)data, size, &t, &err) == 0) {
		if (err)
			fail("success with a message");
		check(&t);
		topology_free(&t);
		return 0;
	}
	if (!err || strncmp(err, "fuzz.txt:", 9) != 0)
		fail("error not located at the file");
	if (t.nodes || t.links || t.ports || t.port_off || t.hpcc_id || t.n_nodes || t.n_links)
		fail("a failed parse left a topology");
	free(err);
	return 0;
}
