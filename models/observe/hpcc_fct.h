/*
 * hpcc_fct.h — `[output] hpcc_fct = PATH`: the flow completions also as
 * HPCC ns-3's fct.txt, so a run compares row by row with that simulator's.
 *
 * One line per finished network flow, written when the sender sees it
 * complete (so, like HPCC's, the file is in completion order):
 *   sip dip sport dport size start_ns fct_ns standalone_fct_ns
 * as HPCC's third.cc qp_finish prints it ("%08x %08x %u %u %lu %lu %lu %lu"):
 *   sip, dip   HPCC's address of the host (host_ip, path.h) by its HPCC id
 *              (topo.hpcc_id with `[topology] type = hpcc`, else our host id);
 *   sport      flows of `[traffic.X] type = hpcc`: HPCC's 10000 + k per
 *              (src, dst) pair (traffic.h, struct hpcc_flow), so rows join on
 *              (sip, dip, sport, dport); other flows: our UDP source port;
 *   dport      hpcc flows: the file's; others: 4791 (RoCEv2);
 *   start_ns, fct_ns   our start and fct (end - start), ps rounded to ns;
 *   standalone_fct_ns  our ideal FCT (flow.ideal: the message alone on the
 *              idle fabric with our real framing, ACK included), NOT HPCC's
 *              48 B-per-packet formula, so fct/standalone is our slowdown.
 * NVLink messages (no QP) are not network flows and are not written.
 * Under MPI each rank writes its part, keyed, and rank 0 merges the parts
 * into the sequential run's order (hpcc_fct_merge).
 * Cost: one predictable branch per finished flow when off; nothing per packet.
 */
#ifndef ROCESIM_HPCC_FCT_H
#define ROCESIM_HPCC_FCT_H

#include <stdbool.h>
#include <stdio.h>

struct flow;
struct world;

struct hpcc_fct {
	FILE *f;
	char *path;
	const char *who;   /* what named the file: HPCC_FCT_KEY or HPCC_FCT_OPTION */
	bool keyed;
};

/* What names the file, as errors say it: the key or sim's option. */
#define HPCC_FCT_KEY "[output] hpcc_fct ="
#define HPCC_FCT_OPTION "--fct"

/* Opens (creates or truncates) path for writing; NULL with *err
 * "WHO 'PATH': cannot write: REASON" (who: HPCC_FCT_KEY or
 * HPCC_FCT_OPTION, kept by reference). keyed: one rank's part of a
 * partitioned run, each line led by the flow's end (ps) and the key of
 * the event that ended it, "END KEY ", for hpcc_fct_merge. */
struct hpcc_fct *hpcc_fct_open(const char *path, const char *who, bool keyed, char **err);
/* Flushes and closes; 0, or -1 with *err on a write error (the file is
 * removed: nothing half-written). */
int hpcc_fct_close(struct hpcc_fct *h, char **err);
/* Closes and removes the file (the run wrote no results). */
void hpcc_fct_abort(struct hpcc_fct *h);
/* Writes a line for each flow the world reports finished (an observer of
 * its flow records, world.h); a flow posted from a flow.txt line (f->hpcc)
 * gets that line's ports. */
void hpcc_fct_attach(struct hpcc_fct *h, struct world *w);
/* The ranks' keyed parts (each in completion order) into path, in the
 * order of the sequential run: by end, then by key (one event ends flows
 * on one rank only, in its part's order). The parts are removed. 0, or -1
 * with *err and nothing at path. */
int hpcc_fct_merge(const char *path, const char *who, char *const *parts, int n, char **err);

#endif
