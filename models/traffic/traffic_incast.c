/*
 * traffic_incast.c — `[traffic.NAME] type = incast`: every sender writes
 * `size` bytes to one receiver at `start` (senders in list order; `all`:
 * every host but the receiver).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "traffic_internal.h"
#include "nic.h"

struct incast_cfg {
	char **senders; size_t n_senders; /* required */
	char *receiver;                /* required */
	uint64_t size_b;               /* required */
	simtime_t start;               /* [0] */
};

#define IN(f) offsetof(struct incast_cfg, f)

static const struct cfg_key keys[] = {
	{ "start", KT_TIME, "0s", .off = IN(start), .help = "start time" },
	{ "senders", KT_LIST, .required = true, .off = IN(senders), .off2 = IN(n_senders),
	  .help = "incast senders" },
	{ "receiver", KT_NAME, .required = true, .off = IN(receiver), .help = "incast receiver" },
	{ "size", KT_SIZE, .required = true, CFG_POS, .off = IN(size_b), .help = "bytes per flow" },
};

static int rules(struct cfg_check *c)
{
	const struct incast_cfg *t = c->type_data;
	for (size_t i = 0; i < t->n_senders; i++)
		if (strcmp(t->senders[i], t->receiver) == 0)
			return cfg_fail(c, "receiver", "a host that is not one of the senders");
	return 0;
}

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	(void)index;
	const struct incast_cfg *ct = own;
	int rcv = world_host_id(w, ct->receiver);
	if (rcv < 0) {
		*err = cfg_error_at(w->cfg, section, "receiver", 0, "unknown host '%s'", ct->receiver);
		return NULL;
	}
	int *ids;
	int n = world_host_list(w, section, "senders", ct->senders, ct->n_senders, &ids, err);
	if (n < 0)
		return NULL;
	size_t k = 0;
	struct static_flow *v;
	struct traffic_src *s = traffic_static_new((size_t)n, &v, NULL);
	for (int i = 0; i < n; i++)
		if (ids[i] != rcv) /* only with `all` (the rules refuse a sender named as the receiver) */
			v[k++] = (struct static_flow){ ct->start, ct->size_b, ids[i], rcv, NULL };
	free(ids);
	if (k == 0) {
		*err = cfg_error_at(w->cfg, section, "senders", 0, "incast needs at least one sender");
		traffic_src_destroy(s);
		return NULL;
	}
	traffic_static_truncate(s, k);
	return s;
}

static bool flows_known(const void *own, int n_hosts, uint64_t *n)
{
	const struct incast_cfg *ct = own;
	bool all = ct->n_senders == 1 && strcmp(ct->senders[0], "all") == 0;
	*n = all ? (uint64_t)(n_hosts > 1 ? n_hosts - 1 : 0) : ct->n_senders;
	return true;
}

const struct traffic_kind traffic_incast = {
	.cfg = { .name = "incast", .help = "every sender to one receiver", CFG_KEYS(keys),
		 .size = sizeof(struct incast_cfg), .rules = rules },
	.create = create, .flows_known = flows_known,
};
