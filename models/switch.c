/*
 * switch.c — forwarding, ECMP and buffer admission of a switch (see switch.h).
 */
#include "config.h"
#include "hash.h"
#include "log.h"
#include "port.h"
#include "routing.h"
#include "switch.h"
#include "world.h"

uint32_t switch_ecmp_hash(uint32_t seed, int src, int dst, uint16_t sport, int64_t psn)
{
	uint32_t w[4] = { host_ip(src), host_ip(dst), (uint32_t)sport | ((uint32_t)ROCE_UDP_PORT << 16),
			  (uint32_t)psn };
	return murmur3_32(w, psn < 0 ? 3 : 4, seed);
}

int switch_route(const struct node *sw, int src, int dst, uint16_t sport, int64_t psn)
{
	int n = route_n(sw->rt, dst);
	const uint16_t *ports = route_ports(sw->rt, dst);
	if (n == 1)
		return ports[0];
	return ports[switch_ecmp_hash(sw->ecmp_seed, src, dst, sport, psn) % (uint32_t)n];
}

void switch_setup(struct world *w, struct node *sw)
{
	(void)w; (void)sw;
}

void switch_receive(struct sim *sim, struct node *sw, struct port *in, struct packet *pkt)
{
	struct world *w = sw->w;
	int64_t psn = (w->cfg->sw.ecmp == ECMP_PACKET && pkt->type == PKT_DATA) ? (int64_t)pkt->psn : -1;
	struct port *out = &sw->ports[switch_route(sw, pkt->src, pkt->dst, pkt->sport, psn)];
	pkt->ttl--;
	if (sw->buf_used + pkt->frame_b > sw->buf_size) {
		out->drops++;
		if (pkt->type == PKT_DATA)
			sim->packets_dropped++;
		pool_put(&w->pkt_pool, pkt);
		return;
	}
	sw->buf_used += pkt->frame_b;
	pkt->in_port = (uint16_t)in->idx;
	port_enqueue(sim, out, pkt);
}

void switch_dequeued(struct node *sw, const struct packet *pkt)
{
	SIM_DEBUG_ASSERT(sw->w->sim, &sw->elem, sw->buf_used >= pkt->frame_b,
			 "buffer count %llu below a %u-byte frame", (unsigned long long)sw->buf_used,
			 pkt->frame_b);
	sw->buf_used -= pkt->frame_b;
}
