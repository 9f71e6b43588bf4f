/*
 * traffic_hpcc.c — `[traffic.NAME] type = hpcc`: the flows of an HPCC ns-3
 * flow.txt (`file`), posted at their start times as written (HPCC's own
 * files start at 2 s; nothing happens before, and skipping idle time costs
 * no events).
 *
 * Ids in the file are HPCC node ids. With `[topology] type = hpcc` they map
 * through topo.hpcc_id to our hosts (hpcc_format.h); with any other
 * topology, HPCC id i is our host i (HPCC's own generator numbers hosts
 * 0..n-1 first, as we do). A flow naming a switch or an unknown node is a
 * located error. The file's priority is not used: every flow runs at
 * [nic] priority (HPCC's files always carry 3, our default).
 *
 * The flows become a static source's list (traffic_static_new), in file
 * order, which is ascending start (so equal starts post in file order);
 * each posted flow points at its line (flow.hpcc), so fct.txt can give it
 * HPCC's ports.
 */
#include <stddef.h>
#include <stdlib.h>

#include "config.h"
#include "hpcc_format.h"
#include "traffic_internal.h"
#include "world.h"
#include "xalloc.h"

/* Our host id of HPCC node id `id`, or -1 (a switch, or no such node). */
static int hpcc_host(const struct world *w, const int *host_of, int id)
{
	if (!w->fab.topo.hpcc_id)
		return id < w->fab.topo.n_hosts ? id : -1;
	return id < w->fab.topo.n_nodes ? host_of[id] : -1;
}

struct hpcc_traffic_cfg {
	char *file;                    /* resolved path, required */
};

static const struct cfg_key keys[] = {
	{ "file", KT_PATH_IN, .required = true, .off = offsetof(struct hpcc_traffic_cfg, file),
	  .help = "HPCC ns-3 flow.txt" },
};

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	const struct hpcc_traffic_cfg *ct = own;
	(void)index;
	char *text = NULL, *msg = NULL;
	size_t len, n = 0;
	int *host_of = NULL;
	struct hpcc_flow *hv = NULL;
	int32_t *ends = NULL;          /* [2n]: our source and destination host of each line */
	struct traffic_src *src = NULL;
	if (!ct->file) {
		*err = cfg_error_at(w->cfg, section, "file", 0, "type hpcc needs the path of an HPCC flow.txt");
		goto out;
	}
	if (hpcc_file_read(ct->file, &text, &len, &msg) < 0 ||
	    hpcc_flows_parse(ct->file, text, len, &hv, &n, &msg) < 0) {
		*err = cfg_error_at(w->cfg, section, "file", 0, "%s", msg);
		goto out;
	}
	const struct topo *t = &w->fab.topo;
	if (t->hpcc_id) {
		/* Inverse of hpcc_id, for hosts only (switches stay -1). */
		host_of = xmalloc((size_t)t->n_nodes * sizeof *host_of);
		for (int u = 0; u < t->n_nodes; u++)
			host_of[u] = -1;
		for (int h = 0; h < t->n_hosts; h++)
			host_of[t->hpcc_id[h]] = h;
	}
	ends = xmalloc((2 * n + 1) * sizeof *ends);
	for (size_t i = 0; i < n; i++) {
		const struct hpcc_flow *f = &hv[i];
		int a = hpcc_host(w, host_of, f->src), b = hpcc_host(w, host_of, f->dst);
		if (a < 0 || b < 0) {
			*err = cfg_error_at(w->cfg, section, "file", 0,
					    "%s:%d: node %d is not a host of the topology (%d hosts%s)",
					    ct->file, f->line, a < 0 ? f->src : f->dst, t->n_hosts,
					    t->hpcc_id ? ", HPCC ids of [topology] file"
						       : "; HPCC id i is host i");
			goto out;
		}
		ends[2 * i] = a;
		ends[2 * i + 1] = b;
	}
	struct static_flow *v;
	src = traffic_static_new(n, &v, hv); /* the source keeps the lines */
	for (size_t i = 0; i < n; i++)
		v[i] = (struct static_flow){ hv[i].start_ps, hv[i].size_b, ends[2 * i], ends[2 * i + 1], &hv[i] };
	hv = NULL;
out:
	free(hv);
	free(ends);
	free(host_of);
	free(text);
	free(msg);
	return src;
}

const struct traffic_kind traffic_hpcc = {
	.cfg = { .name = "hpcc", .help = "HPCC ns-3's flow.txt, start times as written", CFG_KEYS(keys),
		 .size = sizeof(struct hpcc_traffic_cfg) },
	.create = create,
};
