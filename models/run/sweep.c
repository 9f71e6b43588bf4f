/*
 * sweep.c — `sim --sweep` (sweep.h, docs/sweeps.md): load every point,
 * check every point, run them -j at a time, gather their databases into
 * one in point order, print a line per point and a summary.
 *
 * Stages and what each may leave behind:
 *   1. load   each point's scenario with its overrides (scenario_load): a
 *             bad key or value is refused here, located as --set's are,
 *             with nothing written and exit 2.
 *   2. check  each point as `sim --check` in a child (what only a built
 *             world finds: host names, memory); a refusal prints the
 *             child's message and exits 2, nothing written.
 *   3. run    the target is opened (fresh: a temporary file renamed into
 *             place at the end), each point runs as `sim -q -o
 *             WORK/point-N.db` with WORK a folder beside the target, and
 *             finished points are copied into the target in point order
 *             (point k gets the k-th new run_id whatever finished first),
 *             their temporary databases deleted. A point that left no
 *             database (it died) gets a run row alone, status 'failed'
 *             ('interrupted' when the sweep stopped it).
 * On SIGINT/SIGTERM no new point starts, the running ones are told once
 * (sweep_proc.c) and write 'interrupted', and the target is completed with
 * every point that ran.
 *
 * Under mpirun (sweep_ranks.c) every rank loads and checks every point,
 * rank 0 alone printing; rank 0 deals the points in order to whichever
 * rank has a slot free, they run into rank 0's work folder (or are sent
 * to it), and rank 0 gathers every point once all ranks are done, so the
 * database is the one a sweep without mpirun writes.
 *
 * Each point's captures and HPCC fct.txt ([pcap], --pcap, [output]
 * hpcc_fct) get a name of their own (point-N beside what was asked for),
 * so parallel points never write the same file (sweep_points.c).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autoconfig.h"
#include "cli.h"
#include "config.h"
#include "log.h"
#include "parallel.h"
#include "progress.h"
#include "results.h"
#include "run.h"
#include "sweep.h"
#include "sweep_internal.h"
#include "xalloc.h"

/* The run table's column that names a point's values (analysis/schema.sql). */
#define SWEEP_COLUMN "sweep"
/* A child's stderr shown with its point: at most this many lines. */
#define SWEEP_ERR_LINES 20

int sweep_severity(int code)
{
	return code == 0 ? 0 : code == EXIT_STALLED ? 1 : code == EXIT_INPUT ? 2 : 3;
}

static void note_exit(struct sweep *s, int code)
{
	if (sweep_severity(code) > sweep_severity(s->worst))
		s->worst = code >= 1 && code <= 3 ? code : EXIT_INTERNAL;
}

static int slot_of(pid_t pid, void *ctx)
{
	struct sweep *s = ctx;
	for (size_t i = 0; i < s->n; i++)
		if (s->pt[i].state == P_RUNNING && s->pt[i].pid == pid)
			return s->pt[i].slot;
	return -1;
}

/* Prints text (a child's stderr) indented, at most SWEEP_ERR_LINES lines. */
static void print_indented(FILE *to, const char *text)
{
	int lines = 0, total = 0;
	for (const char *t = text; *t; ) {
		size_t len = strcspn(t, "\n");
		if (lines < SWEEP_ERR_LINES) {
			fprintf(to, "  %.*s\n", (int)len, t);
			lines++;
		}
		total++;
		t += len + (t[len] == '\n');
	}
	if (total > lines)
		fprintf(to, "  (%d more lines)\n", total - lines);
}

/* Copies the finished points at the head of the order into the target. */
static void gather(struct sweep *s)
{
	while (s->next_gather < s->n && s->pt[s->next_gather].state == P_DONE) {
		struct point *p = &s->pt[s->next_gather++];
		p->state = P_GATHERED;
		if (!s->target)
			continue;   /* a write already failed: the rest is not gathered */
		char *err = NULL;
		if (access(p->db, F_OK) == 0) {
			p->run_id = results_gather_add(s->target, p->db, p->label, &err);
		} else {
			struct results_run_info info = { .scenario = s->cli->scenario, .config = p->config,
							 .seed = p->seed, .version = PACKAGE_VERSION };
			p->run_id = results_gather_add_row(s->target, &info, p->status, p->wall_s, p->label, &err);
		}
		unlink(p->db);
		if (p->run_id < 0) {
			p->run_id = 0;
			fprintf(stderr, "sim: error: %s\n", err ? err : "cannot gather a point");
			free(err);
			results_gather_abort(s->target);
			s->target = NULL;
			s->lost = true;
			s->stop = true;
			note_exit(s, EXIT_INTERNAL);
		}
	}
}

/* A finished point's line (rank 0, without -q). */
static void point_line(const struct sweep *s, const struct point *p)
{
	if (s->quiet || s->rank)
		return;
	printf("sweep: point %zu/%zu %s: %s, exit %d%s, %.2f s\n", (size_t)(p - s->pt) + 1, s->n, p->label,
	       p->status, p->code, p->signalled ? " (killed by a signal)" : "", p->wall_s);
	fflush(stdout);
}

/* A point's child ended: its status and line, then what can be gathered
 * (rank 0: the other ranks' points wait for sweep_ranks_collect). */
static void point_done(struct sweep *s, struct point *p, bool check)
{
	p->wall_s = wall_seconds() - p->t0;
	p->state = P_DONE;
	char *text = sweep_slurp(p->err);
	p->err = NULL;
	size_t i = (size_t)(p - s->pt);
	if (check) {
		/* A check the sweep's interruption stopped refuses nothing. */
		if (p->code != 0 && !(sweep_interrupted() && p->signalled) && s->rank == 0) {
			fprintf(stderr, "sim: sweep point %zu/%zu (%s) is refused:\n", i + 1, s->n, p->label);
			print_indented(stderr, *text ? text : "(no message)\n");
		}
		if (p->code != 0 && !(sweep_interrupted() && p->signalled))
			note_exit(s, p->code == EXIT_INPUT ? EXIT_INPUT : EXIT_INTERNAL);
		if (p->code != 0)
			s->stop = true;
		free(text);
		return;
	}
	p->status = results_run_status(p->db);
	p->no_db = !p->status;
	if (!p->status)
		p->status = xstrdup(sweep_interrupted() ? "interrupted" : "failed");
	note_exit(s, p->code);
	point_line(s, p);
	/* Under mpirun the rank that ran the point shows its warnings. */
	if (*text) {
		fprintf(stderr, "sim: sweep point %zu/%zu (%s) said:\n", i + 1, s->n, p->label);
		print_indented(stderr, text);
	}
	free(text);
	if (s->rank == 0)
		gather(s);
}

/* Checks every point, or runs this rank's (every point when alone; under
 * mpirun those rank 0 deals it, sweep_ranks.c), s->jobs at a time, until
 * all have ended or s->stop / a signal stops new ones from starting. */
static void run_all(struct sweep *s, bool check)
{
	size_t next = 0, running = 0;
	bool dealt = !check && s->ranks > 1, out = false;
	bool *slot_used = xcalloc((size_t)s->jobs, sizeof *slot_used);
	for (;;) {
		while (!out && !s->stop && !sweep_interrupted() && running < (size_t)s->jobs) {
			long i = dealt ? sweep_ranks_next(s) : next < s->n ? (long)next++ : -1;
			if (i < 0) {
				out = true;
				break;
			}
			struct point *p = &s->pt[i];
			int slot = 0;
			while (slot_used[slot])
				slot++;
			char **argv = sweep_point_argv(s, (size_t)i, check);
			p->t0 = wall_seconds();
			p->pid = sweep_spawn(s->exe, argv, slot, &p->err);
			sweep_free_argv(argv);
			if (p->pid < 0) {
				fprintf(stderr, "sim: error: cannot start sweep point %ld/%zu: %s\n", i + 1, s->n,
					strerror(errno));
				note_exit(s, EXIT_INTERNAL);
				s->stop = true;
				break;
			}
			p->slot = slot;
			slot_used[slot] = true;
			p->state = P_RUNNING;
			running++;
		}
		if (!running)
			break;
		int code;
		bool signalled;
		pid_t pid = sweep_wait(slot_of, s, &code, &signalled, dealt && s->rank == 0 ? sweep_ranks_serve : NULL);
		if (pid < 0)
			break;
		for (size_t i = 0; i < s->n; i++) {
			struct point *p = &s->pt[i];
			if (p->state != P_RUNNING || p->pid != pid)
				continue;
			slot_used[p->slot] = false;
			running--;
			p->code = code;
			p->signalled = signalled;
			point_done(s, p, check);
			break;
		}
	}
	if (dealt)
		sweep_ranks_done(s);
	free(slot_used);
}

/* Removes the work folder and what a killed point may have left in it. */
void sweep_remove_work(const char *work)
{
	DIR *d = opendir(work);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "point-", 6) == 0) {
			char *f = str_printf("%s/%s", work, e->d_name);
			unlink(f);
			free(f);
		}
	closedir(d);
	rmdir(work);
}

/* The summary: a row per point (its run_id, status, exit, wall time and
 * each axis's value), aligned. */
static void print_summary(const struct sweep *s)
{
	size_t cols = 5 + s->n_ax, rows = s->n + 1;
	char **cell = xcalloc(cols * rows, sizeof *cell);
	cell[0] = xstrdup("point");
	cell[1] = xstrdup("run_id");
	cell[2] = xstrdup("status");
	cell[3] = xstrdup("exit");
	cell[4] = xstrdup("wall_s");
	for (size_t a = 0; a < s->n_ax; a++)
		cell[5 + a] = str_printf("%s.%s", s->ax[a].section, s->ax[a].key);
	for (size_t i = 0; i < s->n; i++) {
		const struct point *p = &s->pt[i];
		char **c = &cell[(i + 1) * cols];
		bool ran = p->state == P_GATHERED;
		c[0] = str_printf("%zu/%zu", i + 1, s->n);
		c[1] = p->run_id ? str_printf("%d", p->run_id) : xstrdup("-");
		c[2] = xstrdup(ran ? p->status : "not run");
		c[3] = ran ? str_printf("%d", p->code) : xstrdup("-");
		c[4] = ran ? str_printf("%.2f", p->wall_s) : xstrdup("-");
		for (size_t a = 0; a < s->n_ax; a++)
			c[5 + a] = xstrdup(s->ax[a].values[sweep_value_at(s->ax, s->n_ax, i, a)]);
	}
	size_t *w = xcalloc(cols, sizeof *w);
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			if (strlen(cell[r * cols + c]) > w[c])
				w[c] = strlen(cell[r * cols + c]);
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < cols; c++) {
			/* numbers right-aligned, words left */
			bool right = c == 0 || c == 1 || c == 3 || c == 4;
			/* the last column unpadded: no trailing blanks */
			printf("  ");
			printf(right ? "%*s" : "%-*s", c + 1 < cols ? (int)w[c] : 0, cell[r * cols + c]);
		}
		printf("\n");
	}
	for (size_t k = 0; k < cols * rows; k++)
		free(cell[k]);
	free(cell);
	free(w);
}

static void free_sweep(struct sweep *s)
{
	for (size_t i = 0; i < s->n_ax; i++)
		sweep_axis_free(&s->ax[i]);
	free(s->ax);
	for (size_t i = 0; s->pt && i < s->n; i++) {
		struct point *p = &s->pt[i];
		free(p->label);
		free(p->config);
		free(p->pcap);
		free(p->fct);
		free(p->fct_at);
		free(p->db);
		free(p->status);
		if (p->err)
			fclose(p->err);
	}
	free(s->pt);
	free(s->owner);
	free(s->exe);
	free(s->output);
	free(s->work);
}

/* The axes from the command line: 0, or EXIT_INPUT (printed). */
static int parse_axes(struct sweep *s)
{
	const struct cli *cli = s->cli;
	s->ax = xcalloc(cli->n_sweeps, sizeof *s->ax);
	for (size_t i = 0; i < cli->n_sweeps; i++) {
		char *why = NULL;
		int rc = sweep_axis_parse(cli->sweeps[i], &s->ax[i], &why);
		if (rc) {
			if (par_leader())
				fprintf(stderr, "sim: %s\n", why ? why : "out of memory");
			free(why);
			return rc < 0 ? EXIT_INTERNAL : EXIT_INPUT;
		}
		s->n_ax++;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->ax[j].section, s->ax[i].section) && !strcmp(s->ax[j].key, s->ax[i].key)) {
				if (par_leader())
					fprintf(stderr, "sim: --sweep %s.%s is given twice: give all its values in one "
						"--sweep\n", s->ax[i].section, s->ax[i].key);
				return EXIT_INPUT;
			}
		if (!strcmp(s->ax[i].section, "simulation") && !strcmp(s->ax[i].key, "output")) {
			if (par_leader())
				fprintf(stderr, "sim: --sweep simulation.output: a sweep writes one database (-o); "
					"sweep other keys\n");
			return EXIT_INPUT;
		}
	}
	s->n = sweep_n_points(s->ax, s->n_ax);
	if (!s->n) {
		if (par_leader())
			fprintf(stderr, "sim: the --sweep values make more than %d points\n", SWEEP_MAX_POINTS);
		return EXIT_INPUT;
	}
	return 0;
}

int sweep_main(const struct cli *cli, const char *self)
{
	/* Under mpirun the ranks share the points (sweep_ranks.c; a build
	 * without MPI has refused in par_init). Every rank loads and checks
	 * every point; rank 0 alone says what is wrong. */
	struct sweep s = { .cli = cli, .jobs = cli->jobs ? cli->jobs : 1, .quiet = cli->quiet,
			   .rank = par_rank(), .ranks = par_size() };
	int rc = parse_axes(&s);
	if (!rc) {
		s.pt = xcalloc(s.n, sizeof *s.pt);
		s.owner = xmalloc(s.n * sizeof *s.owner);
		for (size_t i = 0; i < s.n; i++)
			s.owner[i] = -1;
		rc = sweep_load_points(&s);
	}
	if (!rc) {
		s.exe = sweep_self_exe(self);
		sweep_signals_install();
		/* Stage 2: every point checked before any runs. */
		run_all(&s, true);
		rc = s.worst;
	}
	int sig = sweep_interrupted();
	rc = sweep_ranks_agree(rc, &sig);
	if (rc || sig) {
		if (!rc && s.rank == 0)
			fprintf(stderr, "sim: sweep interrupted while checking its points; nothing was run or written\n");
		rc = rc ? rc : 128 + sig;
		sweep_signals_restore();
		free_sweep(&s);
		return rc;
	}
	if (cli->check) {
		for (size_t i = 0; i < s.n && s.rank == 0; i++)
			printf("sweep: point %zu/%zu %s: valid\n", i + 1, s.n, s.pt[i].label);
		if (s.rank == 0)
			printf("sweep: %zu points valid; a run would write %s\n", s.n, s.output);
		sweep_signals_restore();
		free_sweep(&s);
		return 0;
	}

	/* Stage 3: the target and the work folder beside it (rank 0's), the
	 * runs, the gathering. */
	for (size_t i = 0; i < s.n; i++)
		s.pt[i].state = P_WAITING;
	char *err = NULL;
	bool ready = false;
	if (s.rank == 0) {
		s.target = results_gather_open(s.output, cli->append, rocesim_schema_sql, rocesim_index_sql,
					      SWEEP_COLUMN, &err);
		if (!s.target) {
			fprintf(stderr, "sim: %s\n", err);
			free(err);
		} else {
			s.work = str_printf("%s.sweep-%ld", s.output, (long)getpid());
			if (mkdir(s.work, 0777) != 0) {
				fprintf(stderr, "sim: cannot write results to %s: cannot create folder %s: %s\n",
					s.output, s.work, strerror(errno));
				results_gather_abort(s.target);
				s.target = NULL;
			} else {
				ready = true;
			}
		}
	}
	if (sweep_ranks_work(&s, ready) < 0) {
		if (ready) {
			rmdir(s.work);
			results_gather_abort(s.target);
		}
		sweep_signals_restore();
		free_sweep(&s);
		return EXIT_INPUT;
	}
	for (size_t i = 0; i < s.n; i++)
		s.pt[i].db = str_printf("%s/point-%zu.db", s.work, i + 1);
	if (!s.quiet && s.rank == 0) {
		if (s.ranks > 1)
			printf("sweep: %zu point%s over %d ranks, %d at a time on each, into %s\n", s.n,
			       s.n == 1 ? "" : "s", s.ranks, s.jobs, s.output);
		else
			printf("sweep: %zu point%s, %d at a time, into %s\n", s.n, s.n == 1 ? "" : "s", s.jobs,
			       s.output);
		fflush(stdout);
	}
	double t0 = wall_seconds();
	run_all(&s, false);
	if (sweep_ranks_collect(&s) < 0) {
		results_gather_abort(s.target);
		s.target = NULL;
		s.lost = true;
		note_exit(&s, EXIT_INPUT);
	}
	if (s.rank == 0) {
		/* The other ranks' points, their lines in point order; then every
		 * point that ran, those that did not being passed over. */
		for (size_t i = 0; i < s.n; i++)
			if (s.owner[i] > 0 && s.pt[i].state == P_DONE) {
				note_exit(&s, s.pt[i].code);
				point_line(&s, &s.pt[i]);
			}
		for (gather(&s); s.next_gather < s.n; gather(&s))
			s.next_gather++;   /* a point that never started (a signal) */
		sweep_remove_work(s.work);
	}
	if (s.target && results_gather_finish(s.target, &err) < 0) {
		fprintf(stderr, "sim: %s\n", err);
		free(err);
		note_exit(&s, EXIT_INTERNAL);
		s.lost = true;
	}
	if (s.lost) {
		for (size_t i = 0; i < s.n; i++)
			s.pt[i].run_id = 0;
	}
	s.target = NULL;
	sweep_signals_restore();
	if (s.rank == 0) {
		size_t ran = 0;
		for (size_t i = 0; i < s.n; i++)
			ran += s.pt[i].state == P_GATHERED;
		printf("sweep: %zu of %zu points run in %.2f s wall%s; results: %s\n", ran, s.n,
		       wall_seconds() - t0, sweep_interrupted() ? " (interrupted)" : "",
		       s.lost ? "not written" : s.output);
		print_summary(&s);
		/* Under mpirun stdout is a pipe: out before MPI's end, which
		 * mpirun may cut short (a signal) by killing the ranks. */
		fflush(stdout);
	}
	/* Every rank exits with the worst status of every point. */
	sig = 0;
	rc = sweep_ranks_agree(s.worst, &sig);
	free_sweep(&s);
	return rc;
}
