/*
 * failure.h — links and switches that go down and come back: the
 * [failure] section's schedule (failure_keys.c) and its model
 * (failure.c), reached through fabric.h.
 *
 * A failure takes down one link (both directions) or every link of one
 * switch, from down_ps until up_ps (never, when up_ps < 0). While a link
 * is down, every frame put on it is lost, as is every frame that was on
 * the wire when it went down (port.down, port.fly_doomed); the queues of
 * its two ports are emptied at once, their buffer bytes released, and the
 * pauses either end received are lifted (a pause sent over a dead link is
 * void). Routing learns of a change `detection` later: every switch at
 * once recomputes its least-cost equal-cost sets over the links it knows
 * to be up (routing.h); a destination it can no longer reach gets the
 * empty set, and frames to it are dropped at that switch. Links come back
 * carrying frames at up_ps and into the sets at up_ps + detection.
 *
 * Invariants: a link is down while at least one failure holding it is in
 * its interval (link_down > 0); routing excludes it while at least one
 * such failure's detection has passed and its repair's has not
 * (route_down > 0). Each lost frame is counted once: on the failure that
 * last took its link down, or, dropped for want of a route, on the failure
 * whose detection last changed routing.
 */
#ifndef ROCESIM_FAILURE_H
#define ROCESIM_FAILURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "config.h"
#include "link_loss.h"
#include "sim.h"

struct fabric;
struct packet;
struct port;
struct node;
struct results;

/* Link classes of the random form (mtbf, mttr). */
enum fail_class { FAIL_HOST_LINKS, FAIL_FABRIC_LINKS, FAIL_CLASSES };

/* One `link = NODE[:PORT] NODE[:PORT] DOWN [UP]` or `switch = NODE DOWN
 * [UP]` line. */
struct fail_line {
	char *a, *b;               /* node names (b: NULL for a switch) */
	int port_a, port_b;        /* NODE:PORT, else -1 */
	simtime_t down_ps, up_ps;  /* up_ps < 0: down for good */
	int line;                  /* scenario line, for located errors */
};
struct fail_lines {
	struct fail_line *v;
	size_t n;
};

/* [failure] */
struct failure_cfg {
	struct fail_lines links;       /* repeated `link` */
	struct fail_lines switches;    /* repeated `switch` */
	simtime_t detection_ps;        /* [50us] */
	simtime_t mtbf_ps[FAIL_CLASSES]; /* 0: no random failures of that class */
	simtime_t mttr_ps[FAIL_CLASSES];
	simtime_t horizon_ps;          /* random failures start before this; 0: [simulation] stop */
	struct link_loss_cfg loss;     /* repeated `loss` (link_loss.h) */
};
extern const struct cfg_section failure_section;

enum fail_kind { FAIL_LINK, FAIL_SWITCH };

/* One failure interval as the results record it. */
struct failure {
	enum fail_kind kind;
	bool random;               /* drawn from mtbf/mttr */
	int node_a, port_a;        /* link: end a; switch: the switch, port -1 */
	int node_b, port_b;        /* link: end b; switch: -1 */
	int link;                  /* link id, -1 for a switch */
	simtime_t down_ps, up_ps;  /* up_ps < 0: never repaired */
	uint64_t frames_lost;      /* frames lost on its links or for want of a route */
};

/* Called for every frame a failure loses (data or control), before the
 * frame returns to the pool: whoever watches flows (the NICs' world)
 * counts a data frame against its flow. */
typedef void (*fail_lost_fn)(void *ctx, int failure_id, const struct packet *pkt);

struct fail_model {
	struct fabric *fab;
	struct sim_elem elem;      /* schedules the failures' events */
	struct failure *v;         /* failures, in schedule order (their failure_id) */
	int n;
	int *links_of;             /* a switch failure's links: links_off[i] .. links_off[i+1] */
	int *links_off;
	uint16_t *link_down;       /* [n_links]: failures holding the link down now */
	uint16_t *route_down;      /* [n_links]: failures routing has detected and not the repair */
	uint16_t *went_down;       /* [n_links]: times the link went down, modulo 2^16: a frame
				    * sent to another rank carries its link's count, and is lost
				    * on landing if the count moved while it flew (par_xfer.c) */
	uint8_t *mask;             /* [n_links]: route_down > 0, as routing takes it */
	simtime_t detection_ps;
	int route_fail_id;         /* the failure whose detection last changed routing, -1 */
	uint64_t unreachable_drops; /* frames dropped at a switch with no route */
	int reroutes;              /* routing recomputations done */
	fail_lost_fn lost;
	void *lost_ctx;
	struct results_table *table; /* the `failure` rows' insert */
};

/* Reads [failure] against the built fabric (names, adjacency, times),
 * draws the random failures and schedules every event. Returns 0 with
 * f->fail NULL when the section schedules nothing, 0 with the model, or -1
 * with *err (malloc'd, located). */
int failure_build(struct fabric *f, char **err);
void failure_free(struct fabric *f);

/* A frame lost on a down link (port p's, or in flight on it). */
void failure_lose(struct sim *sim, struct port *p, struct packet *pkt);
/* A frame dropped at switch sw, which has no route to its destination. */
void failure_unreachable(struct sim *sim, struct node *sw, struct packet *pkt);

/* The schedule, one line per failure (--check). */
void failure_print(const struct fabric *f, FILE *out);
/* Prepares the `failure` insert (with the fabric's other tables). */
int failure_results_prepare(struct fabric *f, struct results *res);
/* Writes a row per failure (end of the run). */
void failure_write(const struct fabric *f, struct results *res);

#endif
