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
 * A rank that a data frame reaches keeps a copy of its message's record
 * (par_copies.c); the copies' own records (a receiver's half for the
 * sender's rank, a message's end for every rank) ride in the same buffers.
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
 * make the same tree, with the same id. A late message's delivery (a
 * mirrored job's, msg.h) goes to every other rank in the same buffers.
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
 * anywhere (par_flow_forget): the receiving rank drops its copy
 * (par_copies.c). */
#define END_PORT (UINT32_MAX - 1)
/* A receiver's half: a wire_frame whose port is RECV_PORT, then a
 * wire_recv, for the sender's rank (par_copies.c). */
#define RECV_PORT (UINT32_MAX - 2)
struct wire_recv {
	uint64_t id;
	int64_t recv_end;
	uint64_t ecn_marked;
};

/* A late message's delivery: a wire_frame whose port is LATE_PORT and
 * whose arrive_at is the delivery's time, then a wire_late. It lands
 * past this window (the delay is at least the lookahead), so it counts
 * among the window's landings. */
#define LATE_PORT (UINT32_MAX - 3)
struct wire_late {
	uint64_t id, key;
};

void par_send_late(struct par *p, uint64_t id, simtime_t t, uint64_t key)
{
	for (int r = 0; r < p->n; r++) {
		if (r == p->me)
			continue;
		struct wire_frame wf = { .arrive_at = t, .port = LATE_PORT };
		struct wire_late l = { .id = id, .key = key };
		uint8_t *at = buf_grow(&p->out[r], sizeof wf + sizeof l);
		memcpy(at, &wf, sizeof wf);
		memcpy(at + sizeof wf, &l, sizeof l);
	}
	if (t < p->first_landing)
		p->first_landing = t;
}

void par_send_end(struct par *p, uint64_t id)
{
	for (int r = 0; r < p->n; r++) {
		if (r == p->me)
			continue;
		struct wire_frame wf = { .arrive_at = (int64_t)id, .port = END_PORT };
		memcpy(buf_grow(&p->out[r], sizeof wf), &wf, sizeof wf);
	}
}

void par_send_recv(struct par *p, int to, uint64_t id, simtime_t recv_end, uint64_t ecn_marked)
{
	struct wire_frame wf = { .port = RECV_PORT };
	struct wire_recv r = { .id = id, .recv_end = recv_end, .ecn_marked = ecn_marked };
	uint8_t *at = buf_grow(&p->out[to], sizeof wf + sizeof r);
	memcpy(at, &wf, sizeof wf);
	memcpy(at + sizeof wf, &r, sizeof r);
}

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
			par_copy_drop(p, (uint64_t)wf.arrive_at);
			continue;
		}
		if (wf.port == LATE_PORT) {
			struct wire_late l;
			memcpy(&l, b, sizeof l);
			b += sizeof l;
			msg_late_land(p->w, l.id, wf.arrive_at, l.key);
			continue;
		}
		if (wf.port == RECV_PORT) {
			struct wire_recv r;
			memcpy(&r, b, sizeof r);
			b += sizeof r;
			par_copy_received(p, r.id, r.recv_end, r.ecn_marked);
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
