/*
 * sweep_internal.h — what sweep.c (the sweep's stages) and sweep_proc.c
 * (its child processes and signals) share. Internal to models/run/sweep*.c.
 *
 * Children run in their own process group, so a terminal's Ctrl-C reaches
 * the parent alone, which forwards it once to every child it runs: each
 * then stops as `sim` stops on its first signal (writing its database
 * with status 'interrupted'), never killed by a second copy of it. On
 * Linux a child also gets SIGTERM when the parent dies.
 */
#ifndef ROCESIM_SWEEP_INTERNAL_H
#define ROCESIM_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Installs the parent's SIGINT/SIGTERM handler: the first signal is
 * forwarded to every running child and remembered; the second takes the
 * default action (as for `sim`, main.c). restore puts the default back. */
void sweep_signals_install(void);
void sweep_signals_restore(void);
/* The first signal received (SIGINT or SIGTERM), 0 when none. */
int sweep_interrupted(void);

/* Starts exe with argv (NULL-terminated) in slot (0 .. CLI_MAX_JOBS-1, at
 * most one child per slot): its own process group, stdin and stdout on
 * /dev/null, stderr into *err (an unlinked temporary file, rewound by
 * sweep_wait's caller to read it). A signal already received is forwarded
 * to it at once. Returns its pid, or -1 with errno (nothing started). */
pid_t sweep_spawn(const char *exe, char *const argv[], int slot, FILE **err);
/* Waits for any child and frees its slot. Returns its pid with *code its
 * exit status, or 128 + the signal that killed it and *signalled true;
 * -1 when there is no child. */
pid_t sweep_wait(int slot_of(pid_t, void *), void *ctx, int *code, bool *signalled);
/* The whole of a child's stderr file (malloc'd, NUL-terminated) and closes it. */
char *sweep_slurp(FILE *f);
/* The path of the running binary (/proc/self/exe, else self), malloc'd. */
char *sweep_self_exe(const char *self);

#endif
