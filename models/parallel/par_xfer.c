/*
 * par_xfer.c — frames crossing ranks (par_internal.h).
 *
 * A frame a port sends toward another rank's node is written, with its
 * landing time and the index of the sending port, into that rank's buffer
 * for the window; a data frame also carries its message's id, size and
 * ends, and a frame with a side record (telemetry, pkt_tel.h) carries the
 * record. At the window's end the ranks trade buffers and each frame
 * received is put on the receiving rank's copy of the sending port's link
 * (port_inject), in the order sent: it lands with the key the sequential
 * run gives it (the link's own sequence, port.h), so equal-time events
 * order alike.
 * Ranks on one machine trade through memory they share: a rank writes
 * the frames for each other rank straight into its slot for that rank,
 * and after the window's collective each lands what the others wrote for
 * it, read in place (two slots per receiver, used in turn, so a slot is
 * rewritten only after its reader is done). A window whose buffers
 * overflow a slot or in which a rank paused, and every trade across
 * machines, is messages: MPI_Alltoall of the sizes (unless told),
 * MPI_Alltoallv of the bytes.
 * Message records: a rank that a data frame reaches keeps a copy of its
 * record (par_shadow). At the receiver's rank the copy sends the
 * receiver's half (recv_end, CE marks) to the sender's rank when the
 * message is whole there; when the message ends with no frame sent twice,
 * the sender's rank tells every rank to drop its copy (par_flow_forget).
 * Both ride in the window's buffers as records of their own.
 * Link failures run on every rank alike; a frame carries the count of its
 * link's failures when it left, so the receiving rank knows it was on the
 * wire when the link went down (lost on landing, as in the sequential run)
 * even if the failure came after the frame left but before it arrived here.
 * Under partition = hosts every message is rank 0's: the frame keeps its
 * record's address, which only rank 0 reads; when other ranks read records
 * too (a capture, par_share_records), data frames also carry a copy, and
 * the other ranks' copies keep the address for the way back. A multicast tree made during
 * the run (by a collective on rank 0) goes to every rank in the same
 * buffers, ahead of any frame of its group: the other ranks' switches
 * make the same tree, with the same id.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include "fabric.h"
#include "log.h"
#include "nic.h"
#include "par_internal.h"
#include "sim.h"
#include "xalloc.h"

#ifdef HAVE_MPI

/* A frame in a buffer; a wire_flow and a struct pkt_tel follow when the
 * flags say so. */
struct wire_frame {
	int64_t arrive_at;
	uint32_t port;             /* the sending port: its index in fabric.ports */
	uint8_t has_flow, has_tel;
	uint16_t went_down;        /* its link's failure count when sent (failure.h) */
	struct packet pkt;         /* header fields; its pointers mean nothing here */
};
struct wire_flow {
	uint64_t id, size_b;
	int32_t src, dst;
	uint64_t handle;           /* partition = hosts: the record's address on rank 0 */
};

static void *buf_grow(struct par_buf *b, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = b->cap ? 2 * b->cap : 65536;
		while (b->n + n > b->cap)
			b->cap *= 2;
		if (b->in_slot) { /* the slot overflows: this window trades as messages */
			uint8_t *h = xmalloc(b->cap);
			memcpy(h, b->b, b->n);
			b->b = h;
			b->in_slot = false;
		} else {
			b->b = xrealloc(b->b, b->cap);
		}
	}
	void *at = b->b + b->n;
	b->n += n;
	return at;
}

/* Bytes a rank may stage per window: its slots (n receivers x 2 parities)
 * share them, each at least SHM_SLOT_MIN. A window whose frames do not fit
 * trades as messages. A debug build (SIM_DEBUG, as CI's sanitizer build)
 * has tiny slots, so that its runs mix both kinds of trade. */
#ifdef SIM_DEBUG
#define SHM_BUDGET ((size_t)16 << 10)
#define SHM_SLOT_MIN ((size_t)2 << 10)
#else
#define SHM_BUDGET ((size_t)4 << 20)
#define SHM_SLOT_MIN ((size_t)256 << 10)
#endif

/* Where this rank's slot for rank to, of one parity, starts in its segment. */
static size_t shm_slot(const struct par *p, int to, int parity)
{
	return ((size_t)to * 2 + (size_t)parity) * p->shm.cap;
}

void par_ship(void *ctx, struct port *pt, struct packet *pkt, simtime_t arrive_at)
{
	struct par *p = ctx;
	struct fabric *f = &p->w->fab;
	struct par_buf *b = &p->out[p->node_owner[pt->peer_node->id]];
	/* partition = hosts: every message is rank 0's, and no other rank
	 * reads a message record (switches never do), so the frame carries
	 * its record's address through the switches' ranks and back, as in
	 * the sequential run. */
	bool has_flow = pkt->type == PKT_DATA && pkt->flow && (!p->hosts_alone || p->share);
	bool has_tel = pkt->flags & PKT_F_TEL;
	size_t n = sizeof(struct wire_frame) + (has_flow ? sizeof(struct wire_flow) : 0) +
		   (has_tel ? sizeof(struct pkt_tel) : 0);
	uint8_t *at = buf_grow(b, n);
	struct wire_frame wf = { .arrive_at = arrive_at, .port = (uint32_t)(pt - f->ports),
				 .has_flow = has_flow, .has_tel = has_tel, .pkt = *pkt,
				 .went_down = f->fail ? f->fail->went_down[pt->link_id] : 0 };
	memcpy(at, &wf, sizeof wf);
	at += sizeof wf;
	if (has_flow) {
		struct wire_flow fl = { .id = pkt->flow->id, .size_b = pkt->flow->size_b,
					.src = pkt->flow->src, .dst = pkt->flow->dst };
		if (p->hosts_alone) /* rank 0's record, or the copy that holds its address */
			fl.handle = p->me == 0 ? (uint64_t)(uintptr_t)pkt->flow
					       : (uint64_t)(uintptr_t)pkt->flow->on_done_ctx;
		memcpy(at, &fl, sizeof fl);
		at += sizeof fl;
	}
	if (has_tel)
		memcpy(at, pkt_tel_at(&f->tel, pkt->aux), sizeof(struct pkt_tel));
	if (arrive_at < p->first_landing)
		p->first_landing = arrive_at;
	p->st.frames_out++;
	p->st.bytes_out += n;
	fabric_pkt_put(f, pkt);
}

/* A tree record in a buffer: a wire_frame whose port is TREE_PORT, then
 * the tree's source, member count, members and QPNs (int32 each). */
#define TREE_PORT UINT32_MAX

void par_tree_made(void *ctx, const struct mcast_tree *t)
{
	struct par *p = ctx;
	int n = mcast_tree_size(t);
	size_t len = sizeof(struct wire_frame) + (size_t)(2 + 2 * n) * sizeof(int32_t);
	for (int r = 0; r < p->n; r++) {
		if (r == p->me)
			continue;
		uint8_t *at = buf_grow(&p->out[r], len);
		struct wire_frame wf = { .port = TREE_PORT };
		memcpy(at, &wf, sizeof wf);
		int32_t *v = (int32_t *)(void *)(at + sizeof wf);
		int32_t head[2] = { mcast_tree_src(t), n };
		memcpy(v, head, sizeof head);
		for (int i = 0; i < n; i++) {
			int32_t m[2] = { mcast_tree_member(t, i), (int32_t)mcast_tree_qpn(t, i) };
			memcpy(v + 2 + i, &m[0], sizeof m[0]);
			memcpy(v + 2 + n + i, &m[1], sizeof m[1]);
		}
	}
}

/* A tree record (after its wire_frame): the same tree, made here; returns
 * the bytes after it. */
static const uint8_t *land_tree(struct par *p, const uint8_t *b)
{
	int32_t head[2];
	memcpy(head, b, sizeof head);
	int n = head[1];
	int32_t *dst = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *dst);
	memcpy(dst, b + sizeof head, (size_t)n * sizeof *dst);
	char *err = NULL;
	struct mcast_tree *t = mcast_tree_build(&p->w->fab, head[0], dst, n, &err);
	if (!t)
		die_internal("a multicast tree made on another rank could not be made here: %s", err);
	for (int i = 0; i < n; i++) {
		int32_t q;
		memcpy(&q, b + sizeof head + (size_t)(n + i) * sizeof q, sizeof q);
		mcast_tree_set_qpn(t, i, (uint32_t)q);
	}
	free(dst);
	return b + sizeof head + (size_t)(2 * n) * sizeof(int32_t);
}

/* An end record: a wire_frame whose port is END_PORT and whose arrive_at
 * is the id of a message that ended without a copy of its frames left
 * anywhere (par_flow_forget): the receiving rank drops its copy. */
#define END_PORT (UINT32_MAX - 1)
/* A receiver's half: a wire_frame whose port is RECV_PORT, then a
 * wire_recv, for the sender's rank (shadow_received). */
#define RECV_PORT (UINT32_MAX - 2)
struct wire_recv {
	uint64_t id;
	int64_t recv_end;
	uint64_t ecn_marked;
};

static void land_end(struct par *p, uint64_t id);
static void land_recv(struct par *p, const struct wire_recv *r);

/* The frames of one rank's buffer, onto the local copies of their links. */
static void land_all(struct par *p, const uint8_t *b, size_t n)
{
	struct fabric *f = &p->w->fab;
	const uint8_t *end = b + n;
	while (b < end) {
		struct wire_frame wf;
		memcpy(&wf, b, sizeof wf);
		b += sizeof wf;
		if (wf.port == TREE_PORT) {
			b = land_tree(p, b);
			continue;
		}
		if (wf.port == END_PORT) {
			land_end(p, (uint64_t)wf.arrive_at);
			continue;
		}
		if (wf.port == RECV_PORT) {
			struct wire_recv r;
			memcpy(&r, b, sizeof r);
			b += sizeof r;
			land_recv(p, &r);
			continue;
		}
		struct packet *pkt = pool_get(&f->pkt_pool);
		*pkt = wf.pkt;
		if (!p->hosts_alone)
			pkt->flow = NULL;
		if (wf.has_flow) {
			struct wire_flow fl;
			memcpy(&fl, b, sizeof fl);
			b += sizeof fl;
			if (p->hosts_alone && p->me == 0) {
				pkt->flow = (struct flow *)(uintptr_t)fl.handle;
			} else {
				pkt->flow = par_shadow(p, fl.id, fl.size_b, fl.src, fl.dst);
				if (p->hosts_alone)
					pkt->flow->on_done_ctx = (void *)(uintptr_t)fl.handle;
			}
		}
		if (wf.has_tel) {
			uint32_t idx = pkt_tel_new(&f->tel);
			memcpy(pkt_tel_at(&f->tel, idx), b, sizeof(struct pkt_tel));
			b += sizeof(struct pkt_tel);
			pkt->aux = idx;
		}
		struct port *src = &f->ports[wf.port];
		src->tx_bytes += pkt->frame_b; /* what the peer's rx_bytes counts (port_rx_bytes) */
		/* Its link went down since it was sent (this rank ran every
		 * event before the window's end, and the failures' events are
		 * every rank's): it was on the wire then. */
		bool doomed = f->fail && (uint16_t)(f->fail->went_down[src->link_id] - wf.went_down);
		port_inject(p->sim, src, pkt, wf.arrive_at, doomed);
	}
}

void par_out_reset(struct par *p)
{
	struct par_shm *s = &p->shm;
	for (int r = 0; r < p->n; r++) {
		struct par_buf *b = &p->out[r];
		b->n = 0;
		if (!s->on || r == p->me)
			continue;
		if (!b->in_slot)
			free(b->b);
		b->b = s->base[p->me] + shm_slot(p, r, s->parity);
		b->cap = s->cap;
		b->in_slot = true;
	}
	p->first_landing = SIMTIME_NEVER;
}

void par_exchange(struct par *p, const int *rc_known, bool none)
{
	int n = p->n;
	int *sc = xcalloc((size_t)n * 4, sizeof *sc);
	int *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n;
	size_t total = 0;
	for (int r = 0; r < n; r++) {
		if (p->out[r].n > (size_t)1 << 30)
			die_internal("more than 1 GiB of frames for one rank in one window");
		sc[r] = (int)p->out[r].n;
		sd[r] = (int)total;
		total += p->out[r].n;
	}
	if (rc_known) {
		memcpy(rc, rc_known, (size_t)n * sizeof *rc);
	} else {
		double t0 = par_wall();
		MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, p->comm);
		p->st.trade_s += par_wall() - t0;
	}
	size_t rtotal = 0;
	for (int r = 0; r < n; r++) {
		rd[r] = (int)rtotal;
		rtotal += (size_t)rc[r];
	}
	if (!none) { /* a collective: every rank calls it, or none */
		/* The buffers stay from window to window: no page faults of
		 * fresh large allocations at every trade. */
		struct par_buf *sb = &p->send, *rb = &p->recv;
		sb->n = rb->n = 0;
		uint8_t *send = buf_grow(sb, total ? total : 1);
		for (int r = 0; r < n; r++)
			if (p->out[r].n)
				memcpy(send + sd[r], p->out[r].b, p->out[r].n);
		uint8_t *recv = buf_grow(rb, rtotal ? rtotal : 1);
		double t0 = par_wall();
		MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, p->comm);
		double t1 = par_wall();
		for (int r = 0; r < n; r++)
			land_all(p, recv + rd[r], (size_t)rc[r]);
		p->st.trade_s += t1 - t0;
		p->st.land_s += par_wall() - t1;
	}
	par_out_reset(p);
	free(sc);
}

/* ---- Trades through shared memory ---- */

/* Open MPI backs shared windows with files in this folder (its MCA
 * parameter osc_sm_backing_directory); a container's /dev/shm may be
 * small, and a segment larger than the room left would fault when
 * touched, so the ranks trade as messages unless it has room for every
 * rank's segment twice over. */
static bool shm_room(size_t segment, int n)
{
	const char *dir = getenv("OMPI_MCA_osc_sm_backing_directory");
	struct statvfs v;
	if (statvfs(dir && *dir ? dir : "/dev/shm", &v) != 0)
		return false;
	return (double)v.f_bavail * (double)v.f_frsize >= 2.0 * (double)segment * n;
}

void par_shm_open(struct par *p)
{
	const struct parallel_cfg *pc = cfg_get(p->w->cfg, &parallel_section);
	if (p->solo || (pc && pc->trade == PAR_TRADE_MESSAGES))
		return;
	MPI_Comm node;
	int local;
	MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &local);
	struct par_shm *s = &p->shm;
	s->cap = SHM_BUDGET / (2 * (size_t)p->n);
	if (s->cap < SHM_SLOT_MIN)
		s->cap = SHM_SLOT_MIN;
	size_t segment = 2 * (size_t)p->n * s->cap;
	/* Every rank on this machine (the same answer on each), and room on
	 * every rank's view of the folder. */
	int ok = local == p->n && shm_room(segment, p->n), all_ok;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, p->comm);
	if (!all_ok) {
		MPI_Comm_free(&node);
		return;
	}
	uint8_t *mine;
	MPI_Win_allocate_shared((MPI_Aint)segment, 1, MPI_INFO_NULL, node, &mine, &s->win);
	MPI_Comm_free(&node);
	s->base = xcalloc((size_t)p->n, sizeof *s->base);
	for (int r = 0; r < p->n; r++) {
		MPI_Aint size;
		int unit;
		MPI_Win_shared_query(s->win, r, &size, &unit, &s->base[r]);
	}
	MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win);
	s->on = true;
	/* Frames already shipped (none yet: the ranks have not run) would move. */
	for (int r = 0; r < p->n; r++)
		if (p->out[r].n)
			die_internal("shared-memory trades set up with frames waiting");
	par_out_reset(p);
}

void par_shm_close(struct par *p)
{
	struct par_shm *s = &p->shm;
	if (!s->on)
		return;
	for (int r = 0; r < p->n; r++)
		if (p->out[r].in_slot)
			p->out[r] = (struct par_buf){ 0 };
	MPI_Win_unlock_all(s->win);
	MPI_Win_free(&s->win);
	free(s->base);
	s->on = false;
}

void par_stage(struct par *p)
{
	struct par_shm *s = &p->shm;
	s->staged = false;
	if (!s->on)
		return;
	for (int r = 0; r < p->n; r++)
		if (r != p->me && !p->out[r].in_slot)
			return;
	MPI_Win_sync(s->win); /* the slots' bytes are seen by the readers after the next collective */
	s->staged = true;
}

void par_exchange_staged(struct par *p, const int *rc)
{
	struct par_shm *s = &p->shm;
	if (!s->staged)
		die_internal("a shared-memory trade of frames this rank did not stage");
	MPI_Win_sync(s->win);
	double t0 = par_wall();
	/* Each sender's slot for this rank, read in place. A sender writes
	 * these slots again two staged windows on, after every rank has
	 * passed the collective of the window between, so after this. */
	for (int r = 0; r < p->n; r++)
		if (r != p->me && rc[r])
			land_all(p, s->base[r] + shm_slot(p, p->me, s->parity), (size_t)rc[r]);
	p->st.land_s += par_wall() - t0;
	s->parity ^= 1;
	s->staged = false;
	par_out_reset(p);
}

#endif /* HAVE_MPI */

/* Where id's search starts in a table of cap slots (a power of 2). */
static inline size_t shadow_home(uint64_t id, size_t cap)
{
	return (id * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

/* The slot of id (its own or the empty one where it would go), after
 * growing the table to keep it at most half full. */
static size_t shadow_slot(struct par_shadows *sh, uint64_t id)
{
	if (2 * (sh->n + 1) > sh->cap) {
		struct par_shadows g = { .cap = sh->cap ? 2 * sh->cap : 1024 };
		g.id = xcalloc(g.cap, sizeof *g.id);
		g.f = xcalloc(g.cap, sizeof *g.f);
		g.real = xcalloc(g.cap, sizeof *g.real);
		for (size_t i = 0; i < sh->cap; i++) {
			if (!sh->id[i])
				continue;
			size_t k = shadow_home(sh->id[i], g.cap);
			while (g.id[k])
				k = (k + 1) & (g.cap - 1);
			g.id[k] = sh->id[i];
			g.f[k] = sh->f[i];
			g.real[k] = sh->real[i];
		}
		g.n = sh->n;
		free(sh->id);
		free(sh->f);
		free(sh->real);
		*sh = g;
	}
	size_t k = shadow_home(id, sh->cap);
	while (sh->id[k] && sh->id[k] != id)
		k = (k + 1) & (sh->cap - 1);
	return k;
}

#ifdef HAVE_MPI
/* The slot holding id, or SIZE_MAX. */
static size_t shadow_find(const struct par_shadows *sh, uint64_t id)
{
	if (!sh->cap)
		return SIZE_MAX;
	size_t k = shadow_home(id, sh->cap);
	while (sh->id[k] && sh->id[k] != id)
		k = (k + 1) & (sh->cap - 1);
	return sh->id[k] ? k : SIZE_MAX;
}

/* Empties slot k, moving back the entries after it that would no longer
 * be found past the hole (deletion under linear probing). */
static void shadow_remove(struct par_shadows *sh, size_t k)
{
	size_t mask = sh->cap - 1, hole = k;
	for (size_t j = (k + 1) & mask; sh->id[j]; j = (j + 1) & mask) {
		size_t home = shadow_home(sh->id[j], sh->cap);
		/* entry j stays when its home lies cyclically in (hole, j] */
		bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
		if (stays)
			continue;
		sh->id[hole] = sh->id[j];
		sh->f[hole] = sh->f[j];
		sh->real[hole] = sh->real[j];
		hole = j;
	}
	sh->id[hole] = 0;
	sh->f[hole] = NULL;
	sh->real[hole] = false;
	sh->n--;
}

void par_flow_forget(struct par *p, const struct flow *f)
{
	size_t k = shadow_find(&p->sh, f->id);
	if (k == SIZE_MAX || p->sh.f[k] != f)
		return; /* not posted through par_post: no rank copied it */
	shadow_remove(&p->sh, k);
	/* Copies are made only of records frames carry (par_ship). */
	if (p->hosts_alone && !p->share)
		return;
	for (int r = 0; r < p->n; r++) {
		if (r == p->me)
			continue;
		struct wire_frame wf = { .arrive_at = (int64_t)f->id, .port = END_PORT };
		memcpy(buf_grow(&p->out[r], sizeof wf), &wf, sizeof wf);
	}
}

/* A message another rank posted ended: every frame of it has landed
 * wherever it went, before that end and so before this window's bound. */
static void land_end(struct par *p, uint64_t id)
{
	size_t k = shadow_find(&p->sh, id);
	if (k == SIZE_MAX || p->sh.real[k])
		return; /* its frames never came here */
	struct flow *f = p->sh.f[k];
	shadow_remove(&p->sh, k);
	free(f);
}

/* on_recv of a copy at its receiver's rank: the message is whole here, so
 * its receiving half (when the last byte came, the CE marks counted until
 * then) is final. It goes to the sender's rank with this window's frames,
 * and lands there before the sender can see the message end: the
 * acknowledgement of its last byte leaves now and crosses a cut link of at
 * least the lookahead on its way, so it lands past this window's bound.
 * The sender's row is then whole when written, as in the sequential run. */
static void shadow_received(struct sim *sim, struct flow *f, void *ctx)
{
	(void)sim;
	struct par *p = ctx;
	int to = p->node_owner[p->w->eps[f->src].host->id];
	struct wire_frame wf = { .port = RECV_PORT };
	struct wire_recv r = { .id = f->id, .recv_end = f->recv_end, .ecn_marked = f->ecn_marked };
	uint8_t *at = buf_grow(&p->out[to], sizeof wf + sizeof r);
	memcpy(at, &wf, sizeof wf);
	memcpy(at + sizeof wf, &r, sizeof r);
}

static void land_recv(struct par *p, const struct wire_recv *r)
{
	size_t k = shadow_find(&p->sh, r->id);
	if (k == SIZE_MAX || !p->sh.real[k])
		die_internal("the receiving half of message %llu reached a rank without its record",
			     (unsigned long long)r->id);
	struct flow *f = p->sh.f[k];
	f->recv_end = r->recv_end;
	f->ecn_marked += r->ecn_marked;
}
#endif

void par_flow_posted(struct par *p, struct flow *f)
{
	size_t k = shadow_slot(&p->sh, f->id);
	p->sh.id[k] = f->id;
	p->sh.f[k] = f;
	p->sh.real[k] = true;
	p->sh.n++;
}

struct flow *par_shadow(struct par *p, uint64_t id, uint64_t size_b, int32_t src, int32_t dst)
{
	struct par_shadows *sh = &p->sh;
	size_t k = shadow_slot(sh, id);
	if (!sh->id[k]) {
		struct flow *f = xcalloc(1, sizeof *f);
		*f = (struct flow){ .id = id, .src = src, .dst = dst, .size_b = size_b, .start = -1,
				    .recv_end = -1, .end = -1, .iteration = -1, .collective_id = -1,
				    .src_gpu = -1, .dst_gpu = -1 };
		sh->id[k] = id;
		sh->f[k] = f;
		sh->n++;
		p->st.copies_made++;
#ifdef HAVE_MPI
		/* This rank's host receives it: its half goes to the sender's rank. */
		if (!p->hosts_alone && p->node_owner[p->w->eps[dst].host->id] == p->me) {
			f->on_recv = shadow_received;
			f->on_recv_ctx = p;
		}
#endif
	}
	return sh->f[k];
}

void par_shadows_free(struct par_shadows *sh)
{
	for (size_t i = 0; i < sh->cap; i++)
		if (!sh->real[i])
			free(sh->f[i]);
	free(sh->id);
	free(sh->f);
	free(sh->real);
	memset(sh, 0, sizeof *sh);
}
