/*
 * job_place.h — which hosts a job runs on: the placement policies of
 * [job.NAME] placement (docs/protocol.md "Training jobs").
 *
 * Jobs are placed one after the other on whole hosts: those with an
 * explicit `hosts` list first (in declaration order), then the others in
 * declaration order, each among the hosts that no job placed before it
 * took (and, with `hosts` given, only among those). A policy returns the
 * job's hosts in rank order (rank r runs on host r / gpus_per_host):
 *
 *   packed      fewest pods, then fewest edge switches: pods by free hosts
 *               (most first, then by number), the chosen pods' edge
 *               switches by free hosts (most first), each switch's hosts in
 *               order; on an idle fabric, hosts 0, 1, 2, ... as before
 *               policies existed.
 *   spread      one host per edge switch in turn: switches ordered so
 *               that consecutive ones lie in different pods, round after
 *               round, so n hosts use min(n, switches with free hosts)
 *               switches.
 *   random      a uniform random choice (a Fisher–Yates shuffle of the free
 *               hosts from the job's own RNG_PLACEMENT stream), in the
 *               order drawn.
 *   fragmented  a partly busy cluster: round(busy × free) of the free hosts
 *               are occupied by jobs not simulated (drawn uniformly from
 *               the job's stream); the job takes the first free hosts in
 *               host order; the busy ones stay taken for later jobs.
 *   hosts       the explicit list, in its order (its first hosts as the
 *               job needs them); a host another job holds is an error.
 *
 * An edge switch is the node at the far end of a host's first port (the
 * host itself when that is not a switch); its pod is the lowest-numbered
 * switch one tier up (fat tree: the pod's first aggregation switch; leaf
 * and spine: the first spine, one pod), or the edge switch itself.
 */
#ifndef ROCESIM_JOB_PLACE_H
#define ROCESIM_JOB_PLACE_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>

/* In the order of the `placement` vocabulary (job_place_names). */
enum job_place_policy {
	JOB_PLACE_PACKED, JOB_PLACE_SPREAD, JOB_PLACE_RANDOM, JOB_PLACE_FRAGMENTED, JOB_PLACE_HOSTS,
	JOB_PLACE_N
};
extern const char *const job_place_names[JOB_PLACE_N + 1]; /* NULL-terminated */

/* What placement knows of the fabric. */
struct job_place_fabric {
	int n_hosts;
	const int *edge;            /* [n_hosts] edge switch (node id) of each host */
	const int *pod;             /* [n_hosts] pod (node id of its key switch) of each host */
};

/* Host states while placing (taken[] of job_place). */
enum { JOB_HOST_FREE = 0, JOB_HOST_TAKEN = 1, JOB_HOST_BUSY = 2 };

/* Places a job needing `need` hosts with policy pol among pool[0..n_pool)
 * (host ids in the order given; for JOB_PLACE_HOSTS the explicit list),
 * skipping hosts whose taken[] is not FREE; busy is the fragmented
 * policy's fraction, rng the job's stream (random, fragmented). Writes the
 * hosts in rank order to out (room for need), marks them TAKEN (and the
 * busy ones BUSY) and returns 0; returns -1 when fewer than need are
 * free, with *avail the hosts that were, and *clash (explicit list only,
 * else -1) the first host of the list already taken. Nothing is marked on
 * failure. */
int job_place(const struct job_place_fabric *f, enum job_place_policy pol, const int *pool, int n_pool,
	      int need, double busy, gsl_rng *rng, unsigned char *taken, int *out, int *avail, int *clash);

#endif
