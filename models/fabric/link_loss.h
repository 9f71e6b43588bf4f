/*
 * link_loss.h — lossy links: frames corrupted on the wire and dropped by
 * the receiver's FCS/ICRC check ([failure] loss, docs/protocol.md "Lossy
 * links").
 *
 * A lossy direction of a link (the frames one port sends) corrupts each
 * frame independently with probability p. Rather than one draw per frame,
 * it draws the gap to the next corrupted frame, geometric with parameter
 * p (P(gap > n) = (1-p)^n, the same law as a Bernoulli draw per frame),
 * from its own random stream (RNG_LINK_LOSS, element: the port's index in
 * fabric.ports), so a lossy link costs one decrement per frame and one
 * draw per loss, and its losses do not depend on any other link's.
 *
 * Invariants: a port's `lossy` flag (line 0, which a landing reads) is
 * false on a lossless direction, and the landing tests nothing else; on a
 * lossy one `loss` (a cold line) points here and left >= 1.
 */
#ifndef ROCESIM_LINK_LOSS_H
#define ROCESIM_LINK_LOSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

struct fabric;
struct cfg_custom;

/* One `loss = ...` line of [failure]. */
struct link_loss_entry {
	char *a, *b;               /* the link's two nodes; a = NULL: `loss = all RATE` */
	double p;                  /* frame-loss probability per traversal, [0, 1) */
	int line;                  /* scenario line, for located errors */
};

/* The [failure] loss lines, in scenario order. */
struct link_loss_cfg {
	struct link_loss_entry *e; /* n entries */
	size_t n;
};

/* The custom key type of `loss` (parse, write, free; repeated). */
extern const struct cfg_custom link_loss_key;

/* One lossy direction: the frames a port sends. */
struct link_loss {
	uint64_t left;             /* frames until the next corrupted one, that one included */
	double log_keep;           /* log(1 - p), < 0 */
	double p;                  /* frame-loss probability */
	gsl_rng *rng;              /* its stream (RNG_LINK_LOSS, the port's index) */
};

/* The gap to the next corrupted frame (>= 1), drawn from l's stream. */
uint64_t link_loss_gap(struct link_loss *l);
/* Whether the next frame over this direction is corrupted. */
static inline bool link_loss_hit(struct link_loss *l)
{
	if (--l->left)
		return false;
	l->left = link_loss_gap(l);
	return true;
}

/* Makes the links the [failure] loss lines name lossy (both directions;
 * a per-link line overrides `all`, whatever their order). 0, or -1 with
 * *err (malloc'd, located at the line) for an unknown node (with a
 * suggestion) or two nodes that share no link. */
int link_loss_build(struct fabric *f, const struct link_loss_cfg *c, char **err);
void link_loss_free(struct fabric *f);

#endif
