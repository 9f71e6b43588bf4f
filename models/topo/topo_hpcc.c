/*
 * topo_hpcc.c — `[topology] type = hpcc`: the graph of an HPCC ns-3
 * topology.txt (`file`), with that file's per-link rates and delays.
 *
 * The file (its format: topology.h, hpcc_topology_parse; HPCC's ns-3 reads
 * it with C++ `>>`, so only the order of whitespace-separated tokens
 * matters, and so do we, reporting the line of the offending token).
 * Naming: hosts keep their relative HPCC id order as
 * host0.., switches follow as sw0.. in HPCC id order (all tier 1); the HPCC
 * id of node u stays in topo.hpcc_id[u]. The graph has no tiers, so
 * routing is shortest-path ECMP over it (every link costs 1; routing.c
 * searches from each switch that has hosts and needs no tiers). [topology] link_rate and link_delay
 * are not used by this type: every link has the file's values.
 */
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "topology.h"
#include "units.h"
#include "xalloc.h"

int hpcc_topology_parse(const char *name, const char *text, size_t len, struct topo *t,
			char **err)
{
	struct lex lx;
	lex_init(&lx, name, text, len, err);
	memset(t, 0, sizeof *t);
	*err = NULL;
	uint64_t n_nodes, n_sw, n_links;
	unsigned char *is_sw = NULL;
	int *our_id = NULL, *deg = NULL;

	if (lex_uint(&lx, "the node count", TOPO_MAX_NODES, &n_nodes) < 0 ||
	    lex_uint(&lx, "the switch count", TOPO_MAX_NODES, &n_sw) < 0 ||
	    lex_uint(&lx, "the link count", INT32_MAX / 2, &n_links) < 0)
		goto fail;
	/* What the text can hold: a switch id takes >= 2 bytes, a link line
	 * ("0 1 1bps 0s 0\n") >= 14 (8 keeps the message for a truncated file
	 * "the file ends" while memory stays O(len)), and every host needs a
	 * link. */
	if (n_sw > n_nodes) {
		lex_err(&lx, "%llu switches among %llu nodes; expected at most as many switches as nodes",
			(unsigned long long)n_sw, (unsigned long long)n_nodes);
		goto fail;
	}
	if (n_sw > len / 2 || n_links > len / 8) {
		lex_err(&lx, "%llu switches and %llu links declared, more than the %zu bytes of "
			"the file can hold", (unsigned long long)n_sw, (unsigned long long)n_links, len);
		goto fail;
	}
	if (n_nodes - n_sw > 2 * n_links) {
		lex_err(&lx, "%llu hosts but %llu links: expected every host on a link",
			(unsigned long long)(n_nodes - n_sw), (unsigned long long)n_links);
		goto fail;
	}
	if (n_nodes == n_sw) {
		lex_err(&lx, "%llu nodes, all switches: expected at least one host",
			(unsigned long long)n_nodes);
		goto fail;
	}
	int nn = (int)n_nodes;
	is_sw = xcalloc((size_t)nn, 1);
	for (uint64_t i = 0; i < n_sw; i++) {
		uint64_t id;
		if (lex_uint(&lx, "a switch id", n_nodes - 1, &id) < 0)
			goto fail;
		if (is_sw[id]) {
			lex_err(&lx, "switch id %llu is listed twice", (unsigned long long)id);
			goto fail;
		}
		is_sw[id] = 1;
	}

	/* Our ids: hosts in HPCC id order, then switches in HPCC id order. */
	int n_hosts = nn - (int)n_sw;
	our_id = xmalloc((size_t)nn * sizeof *our_id);
	if (topo_reserve(t, nn, (int)n_links) < 0)
		goto oom;
	t->hpcc_id = malloc((size_t)nn * sizeof *t->hpcc_id);
	if (!t->hpcc_id)
		goto oom;
	for (int pass = 0; pass < 2; pass++)
		for (int id = 0, h = 0, s = 0; id < nn; id++) {
			if (is_sw[id] != pass)
				continue;
			int u = pass ? topo_add_named(t, "sw", s++, NODE_SWITCH, 1)
				     : topo_add_named(t, "host", h++, NODE_HOST, 0);
			if (u < 0)
				goto oom;
			our_id[id] = u;
			t->hpcc_id[u] = id;
		}
	t->n_hosts = n_hosts;
	t->nics_per_host = 1;

	deg = xcalloc((size_t)nn, sizeof *deg);
	for (uint64_t i = 0; i < n_links; i++) {
		uint64_t a, b;
		uint64_t rate;
		simtime_t delay;
		double loss;
		char expected[UNITS_EXPECTED_MAX];
		if (lex_uint(&lx, "a link's first node id", n_nodes - 1, &a) < 0 ||
		    lex_uint(&lx, "a link's second node id", n_nodes - 1, &b) < 0)
			goto fail;
		if (a == b) {
			lex_err(&lx, "link from node %llu to itself; expected two distinct nodes",
				(unsigned long long)a);
			goto fail;
		}
		if (!is_sw[a] && !is_sw[b]) {
			lex_err(&lx, "link between hosts %llu and %llu; expected a host to link to a switch",
				(unsigned long long)a, (unsigned long long)b);
			goto fail;
		}
		if (lex_need(&lx, "a link rate") < 0)
			goto fail;
		if (units_rate(lx.tok, &rate, expected) < 0) {
			lex_err(&lx, "link rate '%s': expected %s", lx.tok, expected);
			goto fail;
		}
		if (rate == 0) {
			lex_err(&lx, "link rate '%s': expected a rate greater than 0", lx.tok);
			goto fail;
		}
		if (lex_need(&lx, "a link delay") < 0)
			goto fail;
		if (units_time(lx.tok, &delay, expected) < 0) {
			lex_err(&lx, "link delay '%s': expected %s", lx.tok, expected);
			goto fail;
		}
		if (delay < 0) {
			lex_err(&lx, "link delay '%s': expected a delay that is not negative", lx.tok);
			goto fail;
		}
		if (lex_need(&lx, "a link error rate") < 0)
			goto fail;
		if (units_number(lx.tok, &loss, expected) < 0 || loss != 0.0) {
			lex_err(&lx, "link error rate '%s': expected 0 (rocesim models no random link loss)",
				lx.tok);
			goto fail;
		}
		/* The host end is `a` (topology.h); switch-switch links keep the
		 * file's order, and ports are numbered in file order. */
		int ua = our_id[a], ub = our_id[b];
		if (!is_sw[b]) {
			int x = ua;
			ua = ub;
			ub = x;
		}
		if (ua < n_hosts && ++deg[ua] > 1) {
			lex_err(&lx, "host %d (%s) has a second link; expected one link per host",
				t->hpcc_id[ua], t->nodes[ua].name);
			goto fail;
		}
		if (topo_add_link(t, ua, ub, rate, delay) < 0)
			goto oom;
	}
	if (lex_end(&lx, "the last link") < 0)
		goto fail;
	for (int u = 0; u < n_hosts; u++)
		if (!deg[u]) {
			lex_err(&lx, "host %d (%s) has no link; expected every host on one link",
				t->hpcc_id[u], t->nodes[u].name);
			goto fail;
		}
	topo_finalize(t);
	if (!t->port_off)
		goto oom;
	free(is_sw);
	free(our_id);
	free(deg);
	return 0;
oom:
	err_printf(err, "%s: out of memory for %llu nodes and %llu links", name,
		   (unsigned long long)n_nodes, (unsigned long long)n_links);
fail:
	free(is_sw);
	free(our_id);
	free(deg);
	topology_free(t);
	return -1;
}


struct hpcc_topo_cfg {
	char *file;                /* resolved path */
};

static const struct cfg_key keys[] = {
	{ "file", KT_PATH_IN, .required = true, .off = offsetof(struct hpcc_topo_cfg, file),
	  .help = "HPCC ns-3 topology.txt" },
};

/* The file gives every link its rate and delay. */
static const char *const not_required[] = { "link_rate", "link_delay", NULL };

static int build(const struct topo_cfg *c, const void *own, struct topo *t, char **err)
{
	const struct hpcc_topo_cfg *o = own;
	char *text, *msg = NULL;
	size_t len;
	if (!o->file)
		return err_printf(err, "[topology] file: type hpcc needs the path of an HPCC topology.txt");
	if (lex_read_file(o->file, &text, &len, &msg) < 0 ||
	    hpcc_topology_parse(o->file, text, len, t, &msg) < 0) {
		free(text);
		err_printf(err, "%s ([topology] file)", msg);
		free(msg);
		return -1;
	}
	free(text);
	return 0;
}

const struct topo_kind topo_hpcc = {
	.cfg = { .name = "hpcc", .help = "HPCC ns-3's topology.txt, with its links' rates and delays", CFG_KEYS(keys),
		 .size = sizeof(struct hpcc_topo_cfg),
		 .not_required = not_required },
	.build = build, .nics = TOPO_NICS_ONE, .own_links = true,
};
