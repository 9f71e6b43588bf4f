/*
 * partition_describe.c — what `sim --check --ranks N` prints of a
 * partition (parallel.h): the method, the cut and the lookahead, each
 * rank's share, the balance, and a bound on the traffic that crosses
 * ranks.
 *
 * The traffic figure is exact for what it states: under uniform traffic
 * between hosts (every ordered pair of distinct hosts alike), the share of
 * flows whose two hosts are on different ranks, 1 - sum_r h_r (h_r - 1) /
 * (H (H - 1)). Each of those flows crosses at least one cut link each way;
 * flows between hosts of one rank may cross too (through a switch placed
 * elsewhere), so it is a lower bound on the flows that cross, not a count
 * of crossings.
 */
#include <inttypes.h>
#include <stdio.h>
#include "parallel.h"
#include "topology.h"
#include "units.h"

/* Per-rank lines are printed up to this many ranks; past it, the range. */
#define DESCRIBE_MAX_RANKS 64

void partition_describe(const struct partition *p, const struct topo *t, FILE *to)
{
	char la[32], rate[32], cd[32], md[32];
	if (p->lookahead_ps == SIMTIME_NEVER)
		snprintf(la, sizeof la, "none (no link is cut)");
	else
		units_format_time(p->lookahead_ps, la, sizeof la);
	units_format_time(p->cut_delay_ps, cd, sizeof cd);
	units_format_time(p->mirror_ps, md, sizeof md);
	units_format_rate(p->cut_rate_bps, rate, sizeof rate);
	const char *name = partition_method_name(p->method);
	fprintf(to, "partition: %d rank%s by %s", p->n_parts, p->n_parts == 1 ? "" : "s", name);
	if (p->requested == PART_AUTO)
		fprintf(to, " (auto)");
	if (p->n_groups > 0)
		fprintf(to, ", %d %s dealt in blocks", p->n_groups,
			p->method == PART_POD ? "pods" : p->method == PART_LEAF ? "leaf groups" : "hosts");
	fprintf(to, "; %d of %d links cut (%s, %.1f%% of the link capacity); lookahead %s\n",
		p->n_cut_links, p->n_links, rate,
		p->total_rate_bps ? 100.0 * (double)p->cut_rate_bps / (double)p->total_rate_bps : 0.0, la);
	uint64_t most = 0, least = UINT64_MAX, ports = 0;
	for (int r = 0; r < p->n_parts; r++) {
		ports += p->ports_of_part[r];
		if (p->ports_of_part[r] > most)
			most = p->ports_of_part[r];
		if (p->ports_of_part[r] < least)
			least = p->ports_of_part[r];
		if (p->n_parts <= DESCRIBE_MAX_RANKS)
			fprintf(to, "partition: rank %d: %" PRIu64 " nodes (%" PRIu64 " hosts, %" PRIu64
				" switches), %" PRIu64 " ports, %" PRIu64 " cut links; builds %" PRIu64 " ports\n", r,
				p->nodes_of_part[r], p->hosts_of_part[r], p->switches_of_part[r], p->ports_of_part[r],
				p->cut_of_part[r], p->ports_of_part[r] + p->cut_of_part[r]);
	}
	double mean = (double)ports / p->n_parts;
	if (p->lookahead_ps == 0)
		fprintf(to, "partition: a cut link has no propagation delay, so the ranks cannot run ahead of "
			"one another: give links a delay ([topology] link_delay) for a parallel run\n");
	fprintf(to, "partition: ports per rank %" PRIu64 " to %" PRIu64 "; the busiest rank has %.2fx the mean%s\n",
		least, most, mean > 0 ? (double)most / mean : 1.0,
		p->n_parts > DESCRIBE_MAX_RANKS ? " (per-rank lines up to 64 ranks)" : "");
	if (p->method == PART_HOSTS) {
		fprintf(to, "partition: every host is rank 0's, with the jobs and collectives; every frame "
			"a host sends or receives crosses ranks on its host link\n");
		if (p->mirror_ps > 0)
			fprintf(to, "partition: the jobs see a piece %s after it arrived (endpoint_delay), under half "
				"the delay of the links spreading them would cut: windows that short cost more than "
				"spreading saves (name a method to spread them all the same)\n", md);
		return;
	}
	if (p->mirrored) {
		fprintf(to, "partition: the jobs and collectives run on every rank, each rank posting its own "
			"hosts' messages; they see a piece %s after it arrived (endpoint_delay)", md);
		if (p->lookahead_ps < p->cut_delay_ps)
			fprintf(to, ", sooner than the shortest cut link's %s, so the ranks synchronise every %s\n",
				cd, md);
		else
			fprintf(to, ", at least the lookahead\n");
	}
	double h = t->n_hosts, same = 0;
	for (int r = 0; r < p->n_parts; r++)
		same += (double)p->hosts_of_part[r] * ((double)p->hosts_of_part[r] - 1);
	double cross = h > 1 ? 1.0 - same / (h * (h - 1)) : 0.0;
	fprintf(to, "partition: under uniform host-to-host traffic at least %.1f%% of the flows cross ranks\n",
		100.0 * cross);
}
