/*
 * par_env.c — the MPI environment (parallel.h): whether this process is one
 * of several ranks started by mpirun, MPI's start and end.
 *
 * mpirun is recognised by the variables its launchers set (Open MPI's
 * OMPI_COMM_WORLD_SIZE, PMIx's and MPICH's PMI_SIZE), so a sequential run
 * never starts MPI at all (its start costs a second and maps shared memory).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "autoconfig.h"
#include "parallel.h"
#include "xalloc.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif

static int env_rank, env_size = 1;
#ifdef HAVE_MPI
static bool mpi_started;
#endif

/* The rank count the launcher announced, 1 without one. */
static int launched_size(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL };
	for (const char *const *v = vars; *v; v++) {
		const char *s = getenv(*v);
		if (s && atoi(s) > 0)
			return atoi(s);
	}
	return 1;
}

#ifndef HAVE_MPI
static int launched_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL };
	for (const char *const *v = vars; *v; v++) {
		const char *s = getenv(*v);
		if (s)
			return atoi(s);
	}
	return 0;
}
#endif

int par_init(int *argc, char ***argv, char **err)
{
	int n = launched_size();
	if (n <= 1)
		return 0;
#ifdef HAVE_MPI
	/* Open MPI's shared-memory transport sends a window's frames (tens of
	 * kilobytes) eagerly up to this size rather than by rendezvous: 2.0%
	 * off the 2-rank loop of moe_1024 (5 pairs, +-0.8%), its trades 1.67 s
	 * -> 1.39 s a rank. A value the user set stays. */
	setenv("OMPI_MCA_btl_vader_eager_limit", "65536", 0);
	/* Every rank on this machine (Open MPI's launcher says how many
	 * share it): its ob1 messaging layer over shared memory, rather than
	 * letting MPI_Init probe UCX, which is for networks between machines
	 * (0.33 s -> 0.13 s of `mpirun -np 2 ./sim --version` here). The same
	 * answer on every rank; a value the user set stays. */
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (local && atoi(local) == n)
		setenv("OMPI_MCA_pml", "ob1", 0);
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &env_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &env_size);
	mpi_started = true;
	return 0;
#else
	(void)argc;
	(void)argv;
	env_rank = launched_rank();
	*err = str_printf("started by mpirun with %d ranks, but this sim was built without MPI: "
			  "configure --with-mpi (Debian: libopenmpi-dev openmpi-bin) and rebuild, "
			  "or run it without mpirun", n);
	return -1;
#endif
}

int par_rank(void) { return env_rank; }
int par_size(void) { return env_size; }

int par_finalize(int rc)
{
#ifdef HAVE_MPI
	if (mpi_started) {
		/* Ranks that finished first (idle ones above all, while rank 0 runs
		 * a scenario alone) wait here without spinning a core. */
		MPI_Request req;
		MPI_Ibarrier(MPI_COMM_WORLD, &req);
		for (int flag = 0;;) {
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
			if (flag)
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
		}
		int worst = rc;
		MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		MPI_Finalize();
		mpi_started = false;
		return worst;
	}
#endif
	return rc;
}

void par_combine(int64_t *v, size_t n, bool max)
{
#ifdef HAVE_MPI
	if (mpi_started && env_size > 1) {
		/* Non-blocking, tested every 2 ms: a blocking MPI_Allreduce polls
		 * its peers without pause, taking a core from the points. */
		MPI_Request req;
		MPI_Iallreduce(MPI_IN_PLACE, v, (int)n, MPI_INT64_T, max ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD, &req);
		for (int flag = 0;;) {
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
			if (flag)
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
		}
	}
#else
	(void)v;
	(void)n;
	(void)max;
#endif
}
