/*
 * par_deal.c — rank 0 dealing work items to the ranks as they ask
 * (parallel.h; a sweep's points, sweep.c).
 *
 * A rank r > 0 with room for one more item asks rank 0 (a message: next,
 * or bye when it stops asking before rank 0 said there is none) and waits
 * for the answer, an item's index or -1. Rank 0 answers between its own
 * work (par_deal_serve, which never blocks), takes its own items from the
 * same source, and is done when every other rank has had its -1 or said
 * bye. So items go out in order to whichever rank is free first, and a
 * rank that gets slow items gets fewer of them.
 */
#include <stdbool.h>
#include "autoconfig.h"
#include "parallel.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif

#ifdef HAVE_MPI

#define DEAL_TAG 0xdea
enum { ASK_NEXT, ASK_BYE };

int par_deal_ask(bool bye)
{
	int ask = bye ? ASK_BYE : ASK_NEXT, item = -1;
	MPI_Send(&ask, 1, MPI_INT, 0, DEAL_TAG, MPI_COMM_WORLD);
	if (!bye)
		MPI_Recv(&item, 1, MPI_INT, 0, DEAL_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return item;
}

int par_deal_serve(int (*next)(void *ctx, int rank), void *ctx)
{
	int done = 0;
	for (;;) {
		int flag = 0;
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, DEAL_TAG, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			return done;
		int ask;
		MPI_Recv(&ask, 1, MPI_INT, st.MPI_SOURCE, DEAL_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (ask == ASK_BYE) {
			done++;
			continue;
		}
		int item = next(ctx, st.MPI_SOURCE);
		MPI_Send(&item, 1, MPI_INT, st.MPI_SOURCE, DEAL_TAG, MPI_COMM_WORLD);
		done += item < 0;
	}
}

#else /* no MPI: one rank, nothing to deal to */

int par_deal_ask(bool bye)
{
	(void)bye;
	return -1;
}
int par_deal_serve(int (*next)(void *ctx, int rank), void *ctx)
{
	(void)next;
	(void)ctx;
	return 0;
}

#endif
