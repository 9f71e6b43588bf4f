/*
 * traffic_hpcc.c — `[traffic.NAME] type = hpcc`: the flows of an HPCC ns-3
 * flow.txt (`file`), posted at their start times as written (HPCC's own
 * files start at 2 s; nothing happens before, and skipping idle time costs
 * no events).
 *
 * Ids in the file are HPCC node ids. With `[topology] type = hpcc` they map
 * through topo.hpcc_id to our hosts (topology.h); with any other
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
#include "lex.h"
#include "traffic_internal.h"
#include "nic.h"
#include "xalloc.h"

/* Our host id of HPCC node id `id`, or -1 (a switch, or no such node). */
static int hpcc_host(const struct world *w, const int *host_of, int id)
{
	if (!w->fab.topo.hpcc_id)
		return id < w->fab.topo.n_hosts ? id : -1;
	return id < w->fab.topo.n_nodes ? host_of[id] : -1;
}

/* "2.000000962" -> 2000000962000 ps, exactly: seconds as a decimal with at
 * most 12 fractional digits (a ps), no sign, no exponent. */
static int parse_seconds(const char *s, simtime_t *out)
{
	/* 9223371 s: with up to 0.999999999999 s added it still fits int64 ps. */
	const simtime_t max_s = INT64_MAX / 1000000000000LL - 1;
	simtime_t whole = 0, frac = 0;
	int digits = 0, frac_digits = 0;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > (max_s - (*s - '0')) / 10)
			return -1;
		whole = whole * 10 + (*s - '0');
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (++frac_digits > 12)
				return -1;
			frac = frac * 10 + (*s - '0');
		}
	if (*s || !digits)
		return -1;
	for (int i = frac_digits; i < 12; i++)
		frac *= 10;
	*out = whole * 1000000000000LL + frac;
	return 0;
}

struct pair_key { int src, dst; size_t i; };

static int pair_cmp(const void *a, const void *b)
{
	const struct pair_key *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int hpcc_flows_parse(const char *name, const char *text, size_t len, struct hpcc_flow **flows,
		     size_t *n, char **err)
{
	struct lex lx;
	lex_init(&lx, name, text, len, err);
	*flows = NULL;
	*n = 0;
	*err = NULL;
	uint64_t count;
	struct hpcc_flow *v = NULL;
	/* A flow line ("0 1 3 1 1 0\n") takes >= 12 bytes; 6 keeps memory
	 * O(len) and the message for a truncated file "the file ends". */
	if (lex_uint(&lx, "the flow count", UINT32_MAX, &count) < 0)
		return -1;
	if (count > len / 6) {
		lex_err(&lx, "%llu flows declared, more than the %zu bytes of the file can hold",
			(unsigned long long)count, len);
		return -1;
	}
	v = xcalloc(count ? (size_t)count : 1, sizeof *v);
	for (uint64_t i = 0; i < count; i++) {
		struct hpcc_flow *f = &v[i];
		uint64_t src, dst, pg, dport, size;
		if (lex_uint(&lx, "a flow's source node id", TOPO_MAX_NODES - 1, &src) < 0)
			goto fail;
		f->line = lx.tok_line;
		if (lex_uint(&lx, "a flow's destination node id", TOPO_MAX_NODES - 1, &dst) < 0 ||
		    lex_uint(&lx, "a flow's priority", 7, &pg) < 0 ||
		    lex_uint(&lx, "a flow's destination port", 65535, &dport) < 0 ||
		    lex_uint(&lx, "a flow's size in bytes", UINT64_MAX / 2, &size) < 0)
			goto fail;
		if (src == dst) {
			lex_err(&lx, "flow from node %llu to itself; expected two distinct hosts",
				(unsigned long long)src);
			goto fail;
		}
		if (size == 0) {
			lex_err(&lx, "flow of 0 bytes; expected a size of at least 1 byte");
			goto fail;
		}
		if (lex_need(&lx, "a flow's start time in seconds") < 0)
			goto fail;
		if (parse_seconds(lx.tok, &f->start_ps) < 0) {
			lex_err(&lx, "start time '%s': expected seconds as a decimal number "
				"(at most 12 decimals, below 9223372 s)", lx.tok);
			goto fail;
		}
		if (i > 0 && f->start_ps < v[i - 1].start_ps) {
			lex_err(&lx, "start time %s is before the previous flow's; expected flows "
				"in ascending start time (as HPCC's ns-3 reads them)", lx.tok);
			goto fail;
		}
		f->src = (int)src;
		f->dst = (int)dst;
		f->priority = (int)pg;
		f->dport = (uint32_t)dport;
		f->size_b = size;
	}
	if (lex_end(&lx, "the last flow") < 0)
		goto fail;
	/* HPCC's source ports: each (src, dst) pair counts from 10000 in file
	 * order (third.cc portNumder). A stable sort by pair groups them. */
	if (count) {
		struct pair_key *k = xmalloc((size_t)count * sizeof *k);
		for (size_t i = 0; i < count; i++)
			k[i] = (struct pair_key){ v[i].src, v[i].dst, i };
		qsort(k, (size_t)count, sizeof *k, pair_cmp);
		uint32_t next = 10000;
		for (size_t i = 0; i < count; i++) {
			if (i == 0 || k[i].src != k[i - 1].src || k[i].dst != k[i - 1].dst)
				next = 10000;
			v[k[i].i].sport = next++;
		}
		free(k);
	}
	*flows = v;
	*n = (size_t)count;
	return 0;
fail:
	free(v);
	return -1;
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
	if (lex_read_file(ct->file, &text, &len, &msg) < 0 ||
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
