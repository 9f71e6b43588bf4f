/*
 * sweep_ranks.c — a sweep spread over the ranks of an MPI job
 * (sweep_internal.h, docs/sweeps.md "Under MPI").
 *
 * Every rank loads and checks every point (each finds the same, so a bad
 * point stops them all before anything is written), rank 0 deals the
 * points in point order to whichever rank asks (par_deal.c: a rank asks
 * when one of its -j slots is free; rank 0 answers while its own points
 * run), each rank runs its points as local children, and rank 0
 * gathers every point in point order once all the ranks have finished:
 * the database is the one a sweep on one machine writes, whichever rank
 * ran a point. The ranks meet three times, each time combining a few
 * integers (par_combine, which waits asleep): after the check (the worst
 * exit status and a signal), before the runs (the work folder rank 0
 * made, which every rank must be able to write into) and after them (each
 * point's outcome). The points write their databases into that folder,
 * which the ranks must then share; or, when the ranks send their parts
 * ([parallel] parts: auto when some rank is on another machine than rank
 * 0, parallel.h), rank r > 0 writes its points' databases, captures and
 * fct.txt into a private folder of its own and sends them to rank 0 after
 * the runs, point by point in point order, and rank 0 puts each where its
 * own points' go.
 * Alone (no mpirun, or one rank) each step does nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "parallel.h"
#include "results.h"
#include "sweep.h"
#include "sweep_internal.h"
#include "xalloc.h"

int sweep_ranks_agree(int worst, int *sig)
{
	if (par_size() == 1)
		return worst;
	int64_t v[2] = { sweep_severity(worst), *sig };
	par_combine(v, 2, true);
	*sig = (int)v[1];
	/* sweep_severity's order back to exit statuses */
	static const int code_of[] = { 0, EXIT_STALLED, EXIT_INPUT, EXIT_INTERNAL };
	return code_of[v[0]];
}

/* A rank r > 0 sending its points' files: its private folder. 0, or -1
 * (said). */
static int private_work(struct sweep *s)
{
	char *err = NULL;
	s->work = par_private_folder(&err);
	if (!s->work) {
		fprintf(stderr, "sim: rank %d: %s\n", s->rank, err);
		free(err);
		return -1;
	}
	return 0;
}

/* ... and a point dealt to it: its captures and fct.txt in that folder
 * (its run row keeps the names rank 0 gives them: --pcap and --fct are
 * not in a configuration). */
static void private_point(struct sweep *s, size_t i)
{
	struct point *p = &s->pt[i];
	if (p->pcap) {
		free(p->pcap);
		p->pcap = str_printf("%s/point-%zu-pcap", s->work, i + 1);
	}
	if (p->fct || p->fct_at) {
		free(p->fct_at);
		p->fct_at = str_printf("%s/point-%zu.fct", s->work, i + 1);
	}
}

/* Rank 0: the next point, dealt to rank; -1 when none is left or the
 * sweep stops starting points. */
static int deal_next(void *ctx, int rank)
{
	struct sweep *s = ctx;
	if (s->stop || sweep_interrupted() || s->deal >= s->n)
		return -1;
	s->owner[s->deal] = rank;
	return (int)s->deal++;
}

long sweep_ranks_next(struct sweep *s)
{
	if (s->rank == 0)
		return deal_next(s, 0);
	if (s->asked_out)
		return -1;
	int i = par_deal_ask(false);
	if (i < 0) {
		s->asked_out = true;
		return -1;
	}
	s->owner[i] = s->rank;
	if (s->send)
		private_point(s, (size_t)i);
	return i;
}

void sweep_ranks_serve(void *ctx)
{
	struct sweep *s = ctx;
	s->dealt_out += par_deal_serve(deal_next, s);
}

void sweep_ranks_done(struct sweep *s)
{
	if (s->rank) {
		if (!s->asked_out)
			par_deal_ask(true);
		s->asked_out = true;
		return;
	}
	while (s->dealt_out < s->ranks - 1) {
		sweep_ranks_serve(s);
		nanosleep(&(struct timespec){ .tv_nsec = SWEEP_POLL_NS }, NULL);
	}
}

int sweep_ranks_work(struct sweep *s, bool ready)
{
	if (s->ranks == 1)
		return ready ? 0 : -1;
	s->send = s->parts == PAR_PARTS_MESSAGES || (s->parts == PAR_PARTS_AUTO && !par_all_share_folder(s->output));
	/* Rank 0's pid names the folder (the others add 0); -1: no folder. */
	int64_t pid = s->rank ? 0 : ready ? (int64_t)getpid() : -1;
	par_combine(&pid, 1, false);
	if (pid < 0)
		return -1;
	int64_t cannot = 0;
	if (s->rank && s->send)
		cannot = private_work(s) < 0;
	else if (s->rank) {
		s->work = str_printf("%s.sweep-%lld", s->output, (long long)pid);
		if (access(s->work, W_OK | X_OK) != 0) {
			fprintf(stderr, "sim: rank %d cannot write into the sweep's work folder %s (%s): under mpirun "
				"the output's folder must be shared by the ranks, or set [parallel] parts = messages\n",
				s->rank, s->work, strerror(errno));
			cannot = 1;
		}
	}
	par_combine(&cannot, 1, true);
	if (cannot && s->rank && s->send && s->work)
		sweep_remove_work(s->work);
	return cannot ? -1 : 0;
}

/* What rank 0 learns of each point of another rank. */
enum { F_RAN, F_CODE, F_SIGNALLED, F_NO_DB, F_INTERRUPTED, F_WALL_US, N_F };

/* The points that ran on ranks r > 0 (v[i * N_F + F_RAN]): each owner
 * sends its database, fct.txt and captures, in point order, and rank 0
 * writes them where its own points' go; then the owners' private folders
 * are removed. */
static void send_points(struct sweep *s, const int64_t *v)
{
	for (size_t i = 0; i < s->n; i++) {
		int owner = s->owner[i];
		struct point *p = &s->pt[i];
		if (owner <= 0 || !v[i * N_F + F_RAN] || (s->rank && s->rank != owner))
			continue;
		if (s->rank) {
			par_send_file(p->db);
			if (p->fct_at)
				par_send_file(p->fct_at);
			if (p->pcap)
				par_send_folder(p->pcap);
			continue;
		}
		par_recv_file(owner, p->db);
		if (p->fct || p->fct_at)
			par_recv_file(owner, p->fct_at ? p->fct_at : p->fct);
		if (p->pcap)
			par_recv_folder(owner, p->pcap);
	}
	if (s->rank)
		sweep_remove_work(s->work);
}

int sweep_ranks_collect(struct sweep *s)
{
	if (s->ranks == 1)
		return 0;
	int64_t *v = xcalloc(s->n * N_F, sizeof *v);
	for (size_t i = 0; s->rank && i < s->n; i++) {
		const struct point *p = &s->pt[i];
		if (s->owner[i] != s->rank)
			continue;
		if (p->state != P_DONE)
			continue;   /* never started: a signal, or a failure to start one */
		int64_t *f = &v[i * N_F];
		f[F_RAN] = 1;
		f[F_CODE] = p->code;
		f[F_SIGNALLED] = p->signalled;
		f[F_NO_DB] = p->no_db;
		f[F_INTERRUPTED] = p->no_db && !strcmp(p->status, "interrupted");
		f[F_WALL_US] = (int64_t)(p->wall_s * 1e6 + 0.5);
	}
	/* Each point has one owner: the sum is the owner's figures. */
	par_combine(v, s->n * N_F, false);
	if (s->send)
		send_points(s, v);
	int rc = 0;
	for (size_t i = 0; s->rank == 0 && i < s->n; i++) {
		const int64_t *f = &v[i * N_F];
		struct point *p = &s->pt[i];
		if (s->owner[i] <= 0 || !f[F_RAN])
			continue;
		p->code = (int)f[F_CODE];
		p->signalled = f[F_SIGNALLED];
		p->wall_s = (double)f[F_WALL_US] / 1e6;
		p->state = P_DONE;
		p->status = results_run_status(p->db);
		p->no_db = !p->status;
		if (!p->status && !f[F_NO_DB] && !rc) {
			fprintf(stderr, "sim: sweep point %zu/%zu ran on rank %d into %s, which rank 0 cannot read: "
				"%s\n", i + 1, s->n, s->owner[i], p->db,
				s->send ? "it did not arrive whole" : "under mpirun the output's folder must be "
				"shared by the ranks, or set [parallel] parts = messages");
			rc = -1;
		}
		if (!p->status)
			p->status = xstrdup(f[F_INTERRUPTED] ? "interrupted" : "failed");
	}
	free(v);
	return rc;
}
