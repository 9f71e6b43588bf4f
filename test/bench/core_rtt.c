/*
 * core_rtt.c — how far apart two CPUs are: the round trip of one cache
 * line between a process pinned to each (a counter in shared memory that
 * each side increments when it sees the other's value), as the median of
 * 7 trials of 100,000 round trips, in nanoseconds.
 *
 * A partitioned run trades every frame that crosses ranks through lines
 * one core writes and the other reads, so its speed depends on this
 * figure; on a virtual machine the host may move the two vCPUs between
 * runs (seen here: 72 to 90 ns on one placement, 280 to 340 ns on
 * another), which is why test/bench/speedup.sh prints it with each pair.
 *
 * Usage: core_rtt [CPU_A CPU_B]   (default 0 1); prints "<ns>".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRIALS 7
#define TRIPS 100000L

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof s, &s);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int cpu_a = argc > 2 ? atoi(argv[1]) : 0, cpu_b = argc > 2 ? atoi(argv[2]) : 1;
	_Atomic long *v = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED) {
		perror("core_rtt: mmap");
		return 1;
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || cpu_a < 0 || cpu_b < 0 || cpu_a >= CPU_SETSIZE ||
	    cpu_b >= CPU_SETSIZE || cpu_a == cpu_b || !CPU_ISSET(cpu_a, &allowed) || !CPU_ISSET(cpu_b, &allowed)) {
		fprintf(stderr, "core_rtt: needs two different CPUs this process may run on (asked %d and %d)\n", cpu_a,
			cpu_b);
		return 2;
	}
	atomic_store(v, 0);
	long total = TRIALS * TRIPS;
	pid_t pid = fork();
	if (pid < 0) {
		perror("core_rtt: fork");
		return 1;
	}
	if (pid == 0) { /* the echo: answers each odd value with the next even one */
		pin(cpu_b); /* allowed: checked above */
		for (long i = 1; i < 2 * total; i += 2) {
			while (atomic_load_explicit(v, memory_order_acquire) != i)
				;
			atomic_store_explicit(v, i + 1, memory_order_release);
		}
		_exit(0);
	}
	pin(cpu_a);
	double ns[TRIALS];
	long x = 0;
	for (int t = 0; t < TRIALS; t++) {
		double t0 = now_s();
		for (long i = 0; i < TRIPS; i++, x += 2) {
			atomic_store_explicit(v, x + 1, memory_order_release);
			while (atomic_load_explicit(v, memory_order_acquire) != x + 2)
				;
		}
		ns[t] = (now_s() - t0) / TRIPS * 1e9;
	}
	waitpid(pid, NULL, 0);
	qsort(ns, TRIALS, sizeof ns[0], cmp_double);
	printf("%.0f\n", ns[TRIALS / 2]);
	return 0;
}
