/*
 * sampler.h — the time series of [output] (docs/scenario.md): queue_sample,
 * link_sample and cc_sample rows written by one periodic event.
 *
 * What a sample means (scenarios/README.md "Time series"). Samples are
 * taken at t = k × interval, k = 1, 2, ..., after every event of the
 * network, its traffic and its jobs at t (the sampler registers after all
 * of their elements, so it loses every tie with them; only the watchdog,
 * which changes nothing, registers later), as long as the run goes on:
 *   queue_sample  frame bytes waiting in the port's egress queues at t, all
 *                 classes (port.queued_bytes; the frame being serialised has
 *                 left the queue, port.h). Host ports hold only control
 *                 frames: the NIC keeps data until the link is free (nic.h).
 *   link_sample   frame bytes (port_stats' bytes: no preamble or gap) of the
 *                 frames whose first bit the port put on the wire during
 *                 (t − interval, t] (the first interval is [0, interval]).
 *   cc_sample     for every requester QP with a message not yet
 *                 acknowledged, its congestion control's rate, target rate
 *                 and α at t; the row's flow_id is the QP's oldest such
 *                 message. Only for [nic] cc = dcqcn (cc = none has no state:
 *                 nothing is written and a warning says so).
 * queue_sample and link_sample cover the ports of [output] sample_ports
 * (`node` = all its ports, `node:port` one), every port of every node when
 * the key is absent; rows = ports × duration / interval per table.
 *
 * Cost and neutrality: with every interval 0 nothing is allocated or
 * scheduled, and no packet path has a test for it. When on, the single
 * sampling event reads
 * counters the ports and QPs keep anyway; it does not count in run.events;
 * it is not scheduled when the run starts with no event, and writes nothing
 * and is not rescheduled once it is the only event left; sampler_stop takes
 * it out of the queue when the run's work is done. So the flow table, the
 * run row and the drain are those of the same run without sampling
 * (test_sampler.c checks this byte for byte). One exception: a run that
 * runs out of events with flows still unfinished (a stall; normal runs end
 * by the done hook at their last completion) reaches the next sample time
 * before the loop sees it is empty, so its sim_end_ps may lie up to one
 * interval later than without sampling.
 */
#ifndef ROCESIM_SAMPLER_H
#define ROCESIM_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include "sim.h"

struct world;
struct results;
struct results_table;
struct port;
struct cc_ops;

/* One series: a table written every `every` ps. */
struct sampler_series {
	simtime_t every;               /* interval, 0 = off */
	simtime_t next;                /* time of its next sample */
	struct results_table *t;       /* its prepared insert */
};

struct sampler {
	struct sim_elem elem;          /* registered last: loses every tie */
	struct world *w;
	struct results *res;
	struct port **ports;           /* sample_ports, in world port order: this rank's own in a
				       * partitioned run */
	int n_ports;
	int n_selected;                /* sample_ports of every rank (the warning's count) */
	uint64_t *tx_last;             /* [n_ports] tx_bytes at the previous link sample */
	struct sampler_series queue, link, cc;
	const struct cc_ops *cc_ops;   /* the QPs' controller; NULL: cc = none */
	void *cc_copy;                 /* cc_ops->state_b bytes: the state advanced to t */
	bool pending;                  /* a sampling event is in the queue ... */
	simtime_t at;                  /* ... at this time */
	/* A partitioned run: whether every rank's queue is empty, given this
	 * rank's (a collective: called alike on every rank); NULL: empty
	 * is this rank's answer. */
	bool (*all_empty)(void *ctx, bool empty);
	void *all_empty_ctx;
	bool stopped;                  /* sampler_stop was called */
};

/* After the world, traffic and jobs are built, before results_open:
 * validates [output] sample_ports against the topology (a located error,
 * *err malloc'd, return -1) and, when any series is on, allocates *out
 * (else *out = NULL). */
int sampler_setup(struct world *w, struct sampler **out, char **err);
/* After results_open: warns about what will not be written (cc = none)
 * and about a large row count when [simulation] stop bounds it; then, when
 * s is not NULL, prepares the tables and schedules the first sample. */
void sampler_start(struct world *w, struct sampler *s, struct results *res);
/* The run's work is over (before run.c's drain phase): no more samples,
 * and the pending sampling event leaves the event queue. */
void sampler_stop(struct sampler *s);
void sampler_free(struct sampler *s);

#endif
