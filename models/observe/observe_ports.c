/*
 * observe_ports.c — the ports one entry of [pcap] taps or [output]
 * sample_ports names: `node` (every port of the node) or `node:port`.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "fabric.h"
#include "nic.h"
#include "observe.h"

static const struct node *node_named(const struct world *w, const char *name, size_t len)
{
	for (int i = 0; i < w->fab.n_nodes; i++)
		if (strlen(w->fab.nodes[i].name) == len && !memcmp(w->fab.nodes[i].name, name, len))
			return &w->fab.nodes[i];
	return NULL;
}

int observe_mark_ports(const struct world *w, const char *section, const char *key, const char *entry,
		       bool *sel, char **err)
{
	const char *colon = strchr(entry, ':');
	size_t len = colon ? (size_t)(colon - entry) : strlen(entry);
	const struct node *n = node_named(w, entry, len);
	if (!n || n->n_ports == 0) {
		*err = cfg_error_at(w->cfg, section, key, 0, "'%.*s' is not a node of the topology with ports "
				    "(expected node or node:port, e.g. %s or %s:0)", (int)len, entry,
				    w->fab.nodes[0].name, w->fab.nodes[w->fab.n_nodes - 1].name);
		return -1;
	}
	int first = (int)(n->ports - w->fab.ports), count = n->n_ports;
	if (colon) {
		char *end = NULL;
		long p = isdigit((unsigned char)colon[1]) ? strtol(colon + 1, &end, 10) : -1;
		if (p < 0 || *end || p >= n->n_ports) {
			*err = cfg_error_at(w->cfg, section, key, 0, "'%s': %s has ports 0 to %d", entry, n->name,
					    n->n_ports - 1);
			return -1;
		}
		first += (int)p;
		count = 1;
	}
	for (int i = 0; i < count; i++)
		sel[first + i] = true;
	return 0;
}
