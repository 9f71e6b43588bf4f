/*
 * sweep_proc.c — a sweep's child processes and the signals that stop them
 * (sweep_internal.h).
 *
 * Invariants:
 *   - children[slot] holds the pid of every running child; it is written
 *     with SIGINT and SIGTERM blocked, so the handler, which reads it,
 *     never misses a child that fork has created.
 *   - A child receives at most one forwarded signal: the handler forwards
 *     the first signal only, and a child started after it gets that signal
 *     once, from sweep_spawn. `sim` takes its first signal as "finish the
 *     event and write what you have"; a second would kill it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli.h"
#include "sweep_internal.h"
#include "xalloc.h"

static volatile pid_t children[CLI_MAX_JOBS];   /* 0: slot free */
static volatile sig_atomic_t first_signal;

static void on_signal(int sig)
{
	if (!first_signal) {
		first_signal = sig;
		for (int i = 0; i < CLI_MAX_JOBS; i++)
			if (children[i] > 0)
				kill(children[i], sig);
	}
	/* A second signal takes the default action (main.c does the same). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

void sweep_signals_install(void)
{
	/* The wait goes on after the handler; the handler itself forwards
	 * the signal, so the loop need not wake to do it. */
	cli_catch_signals(on_signal);
}

void sweep_signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

int sweep_interrupted(void)
{
	return first_signal;
}

/* Under mpirun a rank's environment holds its launcher's variables (Open
 * MPI's OMPI_*, PMIx's PMIX_*, MPICH's PMI_*): a point that saw them would
 * take itself for a rank of the sweep's job (par_init) and start MPI. The
 * child drops them from its copy of environ, in place: no allocation
 * between fork and exec. */
static void scrub_launcher_env(void)
{
	char **w = environ;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "OMPI_", 5) && strncmp(*e, "PMIX_", 5) && strncmp(*e, "PMI_", 4))
			*w++ = *e;
	*w = NULL;
}

pid_t sweep_spawn(const char *exe, char *const argv[], int slot, FILE **err)
{
	*err = tmpfile();
	if (!*err)
		return -1;
	fflush(NULL);   /* nothing buffered is written twice */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		/* The parent's handler must not run here: defaults first, with
		 * the signals still blocked. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		setpgid(0, 0);
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
#else
		(void)parent;
#endif
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(fileno(*err), 2) < 0)
			_exit(127);
		sigprocmask(SIG_SETMASK, &old, NULL);
		scrub_launcher_env();
		execv(exe, argv);
		dprintf(2, "sim: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	int e = errno;
	if (pid > 0) {
		children[slot] = pid;
		if (first_signal)
			kill(pid, first_signal);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		fclose(*err);
		*err = NULL;
		errno = e;
	}
	return pid;
}

pid_t sweep_wait(int slot_of(pid_t, void *), void *ctx, int *code, bool *signalled, void (*poll)(void *))
{
	int st;
	pid_t pid;
	for (;;) {
		pid = waitpid(-1, &st, poll ? WNOHANG : 0);
		if (pid > 0 || (pid < 0 && errno != EINTR))
			break;
		if (pid == 0) { /* children running, none ended: what poll does, then a pause */
			poll(ctx);
			nanosleep(&(struct timespec){ .tv_nsec = SWEEP_POLL_NS }, NULL);
		}
	}
	if (pid < 0)
		return -1;
	int slot = slot_of(pid, ctx);
	if (slot >= 0 && slot < CLI_MAX_JOBS) {
		sigset_t block, old;
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigprocmask(SIG_BLOCK, &block, &old);
		children[slot] = 0;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	*signalled = WIFSIGNALED(st);
	*code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return pid;
}

char *sweep_slurp(FILE *f)
{
	size_t n = 0, cap = 256;
	char *s = xmalloc(cap);
	if (f) {
		rewind(f);
		size_t got;
		while ((got = fread(s + n, 1, cap - n - 1, f)) > 0) {
			n += got;
			if (cap - n - 1 == 0)
				s = xrealloc(s, cap *= 2);
		}
		fclose(f);
	}
	s[n] = '\0';
	return s;
}

char *sweep_self_exe(const char *self)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = '\0';
		return xstrdup(buf);
	}
	return xstrdup(self);
}
