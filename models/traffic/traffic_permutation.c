/*
 * traffic_permutation.c — `[traffic.NAME] type = permutation`: each host
 * sends `size` bytes to one other host at `start`, the pairs a uniformly
 * random derangement.
 *
 * It draws from one RNG_PERMUTATION stream per source
 * (traffic_stream_id(index, -1)), once at setup.
 */
#include <stddef.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>
#include "rng.h"
#include "traffic_internal.h"
#include "nic.h"
#include "xalloc.h"

/* Rejection sampling: shuffle until no element is fixed. Every permutation
 * is equally likely after a shuffle, so conditioning on "no fixed point"
 * gives exactly the uniform law over derangements (fix-up schemes that swap
 * fixed points away do not). The acceptance rate tends to 1/e, so about
 * 2.7 shuffles are expected whatever n. */
static void draw_derangement(gsl_rng *r, int *perm, int n)
{
	for (;;) {
		for (int i = 0; i < n; i++)
			perm[i] = i;
		gsl_ran_shuffle(r, perm, (size_t)n, sizeof *perm);
		int fixed = 0;
		for (int i = 0; i < n && !fixed; i++)
			fixed = perm[i] == i;
		if (!fixed)
			return;
	}
}

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	const struct traffic_burst_cfg *ct = own;
	int *ids;
	int n = traffic_participants(w, NULL, 0, section, "a permutation", &ids, err);
	if (n < 0)
		return NULL;
	int *perm = xmalloc((size_t)n * sizeof *perm);
	gsl_rng *r = rng_stream(w->sim->seed, RNG_PERMUTATION, traffic_stream_id(index, -1));
	draw_derangement(r, perm, n);
	gsl_rng_free(r);
	/* Participant i sends to participant perm[i]; flows post in participant
	 * order (ascending host id). */
	struct static_flow *v;
	struct traffic_src *s = traffic_static_new((size_t)n, &v, NULL);
	for (int i = 0; i < n; i++)
		v[i] = (struct static_flow){ ct->start, ct->size_b, ids[i], ids[perm[i]], NULL };
	free(perm);
	free(ids);
	return s;
}

static bool flows_known(const void *own, int n_hosts, uint64_t *n)
{
	(void)own;
	*n = (uint64_t)n_hosts;
	return true;
}

const struct traffic_kind traffic_permutation = {
	.cfg = { .name = "permutation", .help = "each host to one other (a random derangement)",
		 CFG_KEYS(traffic_burst_keys), .size = sizeof(struct traffic_burst_cfg) },
	.create = create, .flows_known = flows_known,
};
