/*
 * traffic_all_to_all.c — `[traffic.NAME] type = all_to_all`: every host
 * sends `size` bytes to every other host at `start`, posted by source
 * then destination.
 */
#include <stddef.h>
#include <stdlib.h>
#include "traffic_internal.h"
#include "nic.h"

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	(void)index;
	const struct traffic_burst_cfg *ct = own;
	int *ids;
	int n = traffic_participants(w, NULL, 0, section, "all_to_all", &ids, err);
	if (n < 0)
		return NULL;
	struct static_flow *v;
	struct traffic_src *s = traffic_static_new((size_t)n * (size_t)(n - 1), &v, NULL);
	size_t k = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (i != j)
				v[k++] = (struct static_flow){ ct->start, ct->size_b, ids[i], ids[j], NULL };
	free(ids);
	return s;
}

static bool flows_known(const void *own, int n_hosts, uint64_t *n)
{
	(void)own;
	*n = (uint64_t)n_hosts * (uint64_t)(n_hosts ? n_hosts - 1 : 0);
	return true;
}

const struct traffic_kind traffic_all_to_all = {
	.cfg = { .name = "all_to_all", .help = "every host to every other host", CFG_KEYS(traffic_burst_keys),
		 .size = sizeof(struct traffic_burst_cfg) },
	.create = create, .flows_known = flows_known,
};
