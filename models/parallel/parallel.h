/*
 * parallel.h — the parallel part's public header: partitioning a fabric
 * across MPI ranks, the ranks' conservative synchronisation, and sweeps
 * (many scenario points run at once).
 */
#ifndef ROCESIM_PARALLEL_H
#define ROCESIM_PARALLEL_H

#endif
