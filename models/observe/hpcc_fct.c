/*
 * hpcc_fct.c — HPCC ns-3's fct.txt writer (see hpcc_fct.h).
 */
#include "hpcc_fct.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nic.h"
#include "path.h"
#include "traffic.h"
#include "xalloc.h"

#define ROCEV2_UDP_DPORT 4791      /* docs/protocol.md "Frames on the wire" */

struct hpcc_fct *hpcc_fct_open(const char *path, const char *who, bool keyed, char **err)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		err_printf(err, "%s '%s': cannot write: %s", who, path, strerror(errno));
		return NULL;
	}
	struct hpcc_fct *h = xcalloc(1, sizeof *h);
	h->f = f;
	h->path = xstrdup(path);
	h->who = who;
	h->keyed = keyed;
	return h;
}

int hpcc_fct_close(struct hpcc_fct *h, char **err)
{
	int bad = ferror(h->f);
	if (fclose(h->f) != 0)
		bad = 1;
	int rc = 0;
	if (bad) {
		rc = err_printf(err, "%s '%s': write error", h->who, h->path);
		unlink(h->path);   /* nothing half-written */
	}
	free(h->path);
	free(h);
	return rc;
}

void hpcc_fct_abort(struct hpcc_fct *h)
{
	fclose(h->f);
	unlink(h->path);
	free(h->path);
	free(h);
}

/* ps to ns, rounded to nearest (HPCC's clock ticks in ns). */
static uint64_t ps_to_ns(simtime_t ps)
{
	return (uint64_t)((ps + 500) / 1000);
}

static void fct_line(void *ctx, const struct world *w, const struct flow *f)
{
	struct hpcc_fct *h = ctx;
	uint32_t qpn;
	uint16_t qp_sport;
	uint8_t prio;
	if (!flow_qp_info(f, &qpn, &qp_sport, &prio) || f->end < 0 || f->dst_name)
		return;  /* NVLink, unfinished, a multicast sender's record */
	int src = w->eps[f->src].host->id, dst = w->eps[f->dst].host->id;
	const int *hid = w->fab.topo.hpcc_id;
	uint32_t sip = host_ip(hid ? hid[src] : src);
	uint32_t dip = host_ip(hid ? hid[dst] : dst);
	uint32_t sport = qp_sport, dport = ROCEV2_UDP_DPORT;
	if (f->hpcc) {
		sport = f->hpcc->sport;
		dport = f->hpcc->dport;
	}
	if (h->keyed)
		fprintf(h->f, "%" PRId64 " %" PRIu64 " ", (int64_t)f->end, w->sim->key_now);
	fprintf(h->f, "%08" PRIx32 " %08" PRIx32 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 "\n", sip, dip, sport, dport, f->size_b, ps_to_ns(f->start),
		ps_to_ns(f->end - f->start), ps_to_ns(f->ideal));
}

void hpcc_fct_attach(struct hpcc_fct *h, struct world *w)
{
	world_add_flow_sink(w, fct_line, h);
}

/* One part being merged: its next line, and that line's (end, key). */
struct part_in {
	FILE *f;
	char *line;
	size_t cap;
	int64_t end;
	uint64_t key;
	const char *body;   /* the line after "END KEY " */
	bool more;
};

static int part_next(struct part_in *p, const char *name, char **err)
{
	p->more = getline(&p->line, &p->cap, p->f) > 0;
	if (!p->more)
		return ferror(p->f) ? err_printf(err, "%s: read error", name) : 0;
	int n = 0;
	if (sscanf(p->line, "%" SCNd64 " %" SCNu64 " %n", &p->end, &p->key, &n) != 2 || !n)
		return err_printf(err, "%s: a line without its end and key: '%s'", name, p->line);
	p->body = p->line + n;
	return 0;
}

int hpcc_fct_merge(const char *path, const char *who, char *const *parts, int n, char **err)
{
	struct part_in *in = xcalloc((size_t)(n > 0 ? n : 1), sizeof *in);
	FILE *out = fopen(path, "w");
	int rc = 0;
	if (!out)
		rc = err_printf(err, "%s '%s': cannot write: %s", who, path, strerror(errno));
	for (int i = 0; !rc && i < n; i++) {
		if (!(in[i].f = fopen(parts[i], "r")))
			rc = err_printf(err, "%s: cannot read a rank's part: %s", parts[i], strerror(errno));
		else
			rc = part_next(&in[i], parts[i], err);
	}
	while (!rc) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (in[i].more && (best < 0 || in[i].end < in[best].end ||
					   (in[i].end == in[best].end && in[i].key < in[best].key)))
				best = i;
		if (best < 0)
			break;
		fputs(in[best].body, out);
		rc = part_next(&in[best], parts[best], err);
	}
	for (int i = 0; i < n; i++) {
		if (in[i].f)
			fclose(in[i].f);
		free(in[i].line);
		unlink(parts[i]);
	}
	free(in);
	if (out) {
		bool bad = ferror(out) != 0;
		bad |= fclose(out) != 0;
		if (bad && !rc)
			rc = err_printf(err, "[output] hpcc_fct = '%s': write error", path);
	}
	if (rc && out)
		unlink(path);   /* nothing half-written */
	return rc;
}
