/*
 * route_path.c — coding a QP's path (route_path.h).
 */
#include "route_path.h"
#include "switch_fwd.h"
#include "world.h"

uint32_t route_path_code(const struct world *w, int src, int dst, uint16_t sport)
{
	uint32_t code = 1u << 31;
	const struct port *p = w->eps[src].port;
	for (int n = 0;; n++) {
		const struct node *next = p->peer->node;
		if (next->kind != NODE_SWITCH)
			return p->peer == w->eps[dst].port ? code : 0;
		if (n == ROUTE_PATH_HOPS || next->ecmp_packet)
			return 0;
		int i = route_port(next, src, dst, sport, -1);
		if (i >= ROUTE_PATH_PORTS)
			return 0;
		code |= (uint32_t)i << (ROUTE_PATH_BITS * n);
		p = &next->ports[i];
	}
}
