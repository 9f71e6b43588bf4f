/*
 * route_path.c — coding a QP's path (route_path.h).
 */
#include "port.h"
#include "route_path.h"
#include "switch.h"
#include "fabric.h"

uint32_t route_path_code(const struct fabric *f, int src, int dst, uint16_t sport)
{
	struct path_hop hop[ROUTE_PATH_HOPS + 1]; /* the source's port, then the switches' */
	if (f->fail)
		return 0;   /* routes change during the run (failure.h): every frame is routed */
	int n = switch_path_ports(f, src, dst, sport, -1, hop, ROUTE_PATH_HOPS + 1);
	if (n < 0)
		return 0;
	uint32_t code = 1u << 31;
	for (int k = 1; k < n; k++) {
		if (f->nodes[hop[k].node].ecmp_packet || hop[k].port >= ROUTE_PATH_PORTS)
			return 0;
		code |= (uint32_t)hop[k].port << (ROUTE_PATH_BITS * (k - 1));
	}
	return code;
}
