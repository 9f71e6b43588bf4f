/*
 * mcast.c — multicast groups (see mcast.h). Stub: groups are refused until
 * the implementation lands.
 */
#include "mcast.h"

#include <stdlib.h>
#include "world.h"
#include "xalloc.h"

struct mcast_group *mcast_group_create(struct world *w, const char *name, int src_ep,
				       const int *dst_eps, int n_dst, char **err)
{
	(void)w; (void)name; (void)src_ep; (void)dst_eps; (void)n_dst;
	*err = xstrdup("multicast groups are not implemented yet");
	return NULL;
}

struct mcast_group *mcast_group_find(struct world *w, int src_ep, const int *dst_eps, int n_dst)
{
	(void)w; (void)src_ep; (void)dst_eps; (void)n_dst;
	return NULL;
}

void mcast_post(struct world *w, struct mcast_group *g, const struct mcast_msg *m)
{
	(void)w; (void)g; (void)m;
	abort();
}

uint32_t mcast_group_ip(const struct mcast_group *g) { (void)g; return 0; }
int mcast_group_id(const struct mcast_group *g) { (void)g; return -1; }
const char *mcast_group_name(const struct mcast_group *g) { (void)g; return ""; }
int mcast_group_size(const struct mcast_group *g) { (void)g; return 0; }
struct mcast_group *mcast_group_by_id(const struct world *w, int gid) { (void)w; (void)gid; return NULL; }
void mcast_free(struct world *w) { (void)w; }
