/*
 * tap.c — choosing, opening and closing the capture files (see tap.h).
 *
 * Invariants: a port's `tap` is non-NULL exactly between tap_open and
 * tap_close/tap_discard; taps are kept in port order, so files are opened
 * in the same order on every run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "observe.h"
#include "log.h"
#include "mkdirs.h"
#include "pcap.h"
#include "fabric.h"
#include "frame.h"
#include "tap.h"
#include "nic.h"
#include "xalloc.h"

/* One tapped port: the hook the port calls, and its file. */
struct tap {
	struct port_tap hook;      /* first: what the port calls (port.h) */
	struct pcapw *file;
	struct frame_hop out;      /* this port -> its peer */
	struct frame_hop in;       /* its peer -> this port */
	uint8_t *buf;              /* scratch frame of FRAME_MAX_B bytes, shared by the taps of a run */
};

struct taps {
	struct world *w;
	const char *cli_dir;       /* --pcap DIR, or NULL */
	char *dir;                 /* the folder in use (after tap_open) */
	int *ports;                /* indices into w->fab.ports, ascending */
	struct tap *tap;           /* [n] */
	int n;
	char **made;               /* folders and files tap_open created, in order */
	size_t n_made;
	uint8_t *buf;              /* FRAME_MAX_B */
};

int tap_setup(struct world *w, const char *cli_dir, struct taps **out, char **err)
{
	const struct pcap_cfg *pc = cfg_get(w->cfg, &pcap_section);
	*out = NULL;
	if (!cli_dir && !pc->dir && !pc->n_taps)
		return 0;
	bool *want = xcalloc((size_t)w->fab.n_ports, sizeof *want);
	for (size_t i = 0; i < pc->n_taps; i++) {
		if (observe_mark_ports(w, "pcap", "taps", pc->taps[i], want, err) < 0) {
			free(want);
			return -1;
		}
	}
	if (!pc->n_taps)           /* every host port */
		for (int i = 0; i < w->fab.n_ports; i++)
			want[i] = fabric_port_at_host(&w->fab, i);
	struct taps *t = xcalloc(1, sizeof *t);
	t->w = w;
	t->cli_dir = cli_dir;
	t->ports = xcalloc((size_t)w->fab.n_ports, sizeof *t->ports);
	for (int i = 0; i < w->fab.n_ports; i++)
		if (want[i])
			t->ports[t->n++] = i;
	free(want);
	*out = t;
	return 0;
}

/* A file tap_open created, to remove if the run never starts. */
static void remember(struct taps *t, const char *path)
{
	t->made = xrealloc(t->made, (t->n_made + 1) * sizeof *t->made);
	t->made[t->n_made++] = xstrdup(path);
}

/* "[pcap] dir = 'x': ", "--pcap 'x': " or the derived folder: who chose it. */
static char *open_error(const struct taps *t, const char *what)
{
	if (t->cli_dir)
		return str_printf("--pcap '%s': %s", t->cli_dir, what);
	if (((const struct pcap_cfg *)cfg_get(t->w->cfg, &pcap_section))->dir)
		return cfg_error_at(t->w->cfg, "pcap", "dir", 0, "%s", what);
	return cfg_error_at(t->w->cfg, "pcap", "taps", 0, "capture folder %s (the database path "
			    "without extension; set [pcap] dir): %s", t->dir, what);
}

static void hop_of(const struct port *from, const struct port *to, struct frame_hop *h)
{
	frame_port_mac(from->node->id, from->idx, h->src_mac);
	frame_port_mac(to->node->id, to->idx, h->dst_mac);
	h->to_host = to->node->kind == NODE_HOST;
}

/* The port's hooks: the frame as its wire bytes, into the port's file. */
static void tap_tx(struct port_tap *hook, simtime_t now, const struct packet *pkt)
{
	struct tap *t = (struct tap *)hook;
	size_t len = frame_build(pkt, &t->out, t->buf);
	pcapw_write(t->file, now, t->buf, (uint32_t)len);
}

static void tap_rx(struct port_tap *hook, simtime_t at, const struct packet *pkt)
{
	struct tap *t = (struct tap *)hook;
	size_t len = frame_build(pkt, &t->in, t->buf);
	pcapw_write(t->file, at, t->buf, (uint32_t)len);
}

int tap_open(struct taps *t, const char *db_path, const char *here, char **err)
{
	struct world *w = t->w;
	const struct pcap_cfg *pc = cfg_get(w->cfg, &pcap_section);
	const char *dir = here ? here : t->cli_dir ? t->cli_dir : pc->dir;
	if (dir) {
		t->dir = xstrdup(dir);
	} else {
		const char *slash = strrchr(db_path, '/'), *dot = strrchr(db_path, '.');
		size_t n = dot && dot > (slash ? slash + 1 : db_path) ? (size_t)(dot - db_path) : strlen(db_path);
		t->dir = str_printf("%.*s%s", (int)n, db_path, n == strlen(db_path) ? "-pcap" : "");
	}
	size_t dl = strlen(t->dir);
	while (dl > 1 && t->dir[dl - 1] == '/')
		t->dir[--dl] = '\0';
	char *where = NULL, *why = NULL;
	int e = 0;
	if (!*t->dir) {
		why = xstrdup("expected a folder name");
		goto fail;
	}
	if ((e = mkdirs(t->dir, &t->made, &t->n_made, &where)) != 0) {
		why = str_printf("cannot create folder %s: %s", where, strerror(e));
		free(where);
		goto fail;
	}
	t->buf = xmalloc(FRAME_MAX_B);
	t->tap = xcalloc((size_t)t->n, sizeof *t->tap);
	uint32_t snap = pc->snaplen_b > PCAPW_MAX_SNAPLEN ? 0 : (uint32_t)pc->snaplen_b;
	for (int i = 0; i < t->n; i++) {
		if (!fabric_port_own(&w->fab, t->ports[i]))
			continue;   /* another rank's port: that rank captures it */
		struct port *p = &w->fab.ports[t->ports[i]];
		char *path = str_printf("%s/%s-p%d.pcap", t->dir, p->node->name, p->idx);
		char *e2 = NULL;
		t->tap[i].file = pcapw_open(path, snap, &e2);
		if (!t->tap[i].file) {
			free(path);
			why = e2;
			goto fail;
		}
		remember(t, path);
		free(path);
		hop_of(p, p->peer, &t->tap[i].out);
		hop_of(p->peer, p, &t->tap[i].in);
		t->tap[i].buf = t->buf;
		t->tap[i].hook = (struct port_tap){ .tx = tap_tx, .rx = tap_rx };
		port_set_tap(p, &t->tap[i].hook);
	}
	return 0;
fail:
	*err = open_error(t, why);
	free(why);
	tap_discard(t);
	return -1;
}

static void release(struct taps *t, bool discard)
{
	if (!t)
		return;
	for (int i = 0; t->tap && i < t->n; i++) {
		if (!t->tap[i].file)
			continue;
		port_set_tap(&t->w->fab.ports[t->ports[i]], NULL);
		char *err = NULL;
		if (pcapw_close(t->tap[i].file, &err) < 0 && !discard)
			warnx_sim("%s", err);
		free(err);
	}
	for (size_t i = t->n_made; i-- > 0; ) {
		if (discard)
			remove(t->made[i]);   /* files, then the folders that held them */
		free(t->made[i]);
	}
	free(t->made);
	free(t->tap);
	free(t->ports);
	free(t->buf);
	free(t->dir);
	free(t);
}

const char *tap_dir(const struct taps *t) { return t->dir; }
void tap_close(struct taps *t) { release(t, false); }
void tap_discard(struct taps *t) { release(t, true); }

