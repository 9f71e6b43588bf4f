/*
 * test_derate.c — [topology] derate = HOST[:NIC] RATE
 * (models/topo/topology_derate.c), from whole runs on a 100G star:
 *   - a 1 MB flow alone from a host derated to 25G finishes after its
 *     frames' serialisation at 25G (payload plus 58 B of headers and ICRC
 *     per frame, 16 B more in the first, 24 B of preamble, gap and FCS)
 *     plus the propagation, the last frame at 100G on the switch's side
 *     and the ACK's return, within 0.5%, and the flow row's ideal FCT is
 *     that (the ideal uses the derated rate); a flow into the host has the
 *     same ideal FCT and takes longer (a 100G sender into a 25G link: the
 *     switch queue, ECN and DCQCN); the link row shows 25G;
 *   - a ring all-reduce over four hosts, one of them derated to 25G, runs
 *     at the derated link's bus bandwidth: busbw = S/t × 2(n − 1)/n at
 *     most 25G × payload/frame (1024/1106) and at least 85% of a quarter
 *     of the same ring's busbw on the underated fabric (which carries the
 *     ring's own pipeline and step overheads; the rest of the gap is the
 *     100G neighbour's sends into the 25G link, slowed by DCQCN and PFC);
 *   - errors: unknown host (with a suggestion), a switch, a NIC the host
 *     lacks, a rate above the link's, a bad rate.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include "run_fixture.h"
#include "sqlutil.h"
#include "testutil.h"

static const char star_fmt[] =
	"[simulation]\nprogress = off\n"
	"[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n%s"
	"[traffic.t]\n%s";

/* Frame bytes on the wire of a size_b message in mtu-byte packets: 58 B
 * of headers and ICRC per frame (Ethernet, IPv4, UDP, BTH, ICRC), RETH's
 * 16 B in the first, 24 B of preamble, gap and FCS. */
static double wire_b(double size_b, int mtu, int *n_pkts)
{
	int n = (int)ceil(size_b / mtu);
	*n_pkts = n;
	return size_b + n * (58.0 + 24.0) + 16;
}

static void test_flow_at_derated_rate(void)
{
	char text[1024];
	snprintf(text, sizeof text, star_fmt, "derate = host1 25Gbps\n",
		 "type = flows\nflow = host1 host2 1MB 0us\nflow = host3 host1 1MB 2ms\nflow = host0 host3 1MB 4ms\n");
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	int np;
	double wire = wire_b(1e6, 1024, &np);
	/* serialisation at 25G, the last frame again at 100G, 2 x 1 us
	 * there, an ACK frame (62 + 24 B) at 100G and 25G and 2 x 1 us back */
	double want = wire * 8 / 25e9 + 1106.0 * 8 / 100e9 + 2e-6 + 86.0 * 8 / 100e9 + 86.0 * 8 / 25e9 + 2e-6;
	double out = q_int(db, "SELECT fct_ps FROM flow WHERE src = 'host1'") * 1e-12;
	double in = q_int(db, "SELECT fct_ps FROM flow WHERE dst = 'host1'") * 1e-12;
	double full = q_int(db, "SELECT fct_ps FROM flow WHERE src = 'host0'") * 1e-12;
	printf("\n    %d frames, %.0f B on the wire: from host1 %.3f us, into host1 %.3f us, closed form %.3f us; "
	       "at 100G %.3f us (ratio %.3f)", np, wire, out * 1e6, in * 1e6, want * 1e6, full * 1e6, out / full);
	double in_ideal = q_int(db, "SELECT ideal_fct_ps FROM flow WHERE dst = 'host1'") * 1e-12;
	CU_ASSERT(fabs(out / want - 1) < 0.005);
	CU_ASSERT(fabs(in_ideal / want - 1) < 0.005);
	CU_ASSERT(in >= in_ideal);
	CU_ASSERT(out / full > 3.8 && out / full < 4.0);
	/* the ideal FCT uses the derated rate: alone, sent at 25G, the flow is ideal */
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM flow WHERE fct_ps = ideal_fct_ps AND dst != 'host1'"), 2);
	CU_ASSERT_EQUAL(q_int(db, "SELECT rate_bps FROM link l JOIN node n ON n.node_id = l.node_a AND "
			      "n.run_id = l.run_id WHERE n.name = 'host1'"), 25000000000LL);
	CU_ASSERT_EQUAL(q_int(db, "SELECT COUNT(*) FROM link WHERE rate_bps = 100000000000"), 3);
	sqlite3_close(db);
}

/* busbw of an 8 MB ring all-reduce over the four hosts, with derate. */
static double ring_busbw(const char *derate)
{
	char text[1024];
	snprintf(text, sizeof text, star_fmt, derate, "type = collective\nop = allreduce\nalgorithm = ring\nsize = 8MB\n");
	sqlite3 *db = run_text(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	double t = (double)q_int(db, "SELECT end_ps - start_ps FROM collective") * 1e-12;
	sqlite3_close(db);
	double n = 4;
	return 8e6 * 8 / t * 2 * (n - 1) / n;
}

static void test_ring_at_derated_busbw(void)
{
	double full = ring_busbw(""), slow = ring_busbw("derate = host2 25Gbps\n");
	double goodput = 25e9 * 1024 / 1106;
	printf("\n    all-reduce 8 MB over 4 hosts: busbw %.2f Gb/s at 100G; host2 at 25G: %.2f Gb/s "
	       "(25G payload rate %.2f Gb/s; %.1f%% of a quarter of the 100G ring's)", full / 1e9, slow / 1e9,
	       goodput / 1e9, 100 * slow / (full / 4));
	CU_ASSERT(slow <= goodput);
	CU_ASSERT(slow >= 0.85 * full / 4);
}

static void test_errors(void)
{
	char text[1024];
	const char *flows = "type = flows\nflow = host1 host2 1MB 0us\n";
	snprintf(text, sizeof text, star_fmt, "derate = hots1 25Gbps\n", flows);
	run_expect_error(text, "[topology] derate = 'hots1 25Gbps': unknown host 'hots1'", "did you mean 'host1'");
	snprintf(text, sizeof text, star_fmt, "derate = sw0 25Gbps\n", flows);
	run_expect_error(text, "derate", "not a host: 'sw0'");
	snprintf(text, sizeof text, star_fmt, "derate = host1:1 25Gbps\n", flows);
	run_expect_error(text, "host1 has NICs 0..0", "not 1");
	snprintf(text, sizeof text, star_fmt, "derate = host1 200Gbps\n", flows);
	run_expect_error(text, "host1 runs at 100Gbps", "at most that, not 200Gbps");
	snprintf(text, sizeof text, star_fmt, "derate = host1 25\n", flows);
	run_expect_error(text, "derate = 'host1 25'", "RATE");
	snprintf(text, sizeof text, star_fmt, "derate = host1\n", flows);
	run_expect_error(text, "derate = 'host1'", "HOST[:NIC] RATE");
}

TEST_MAIN("derate",
	  { "a flow from or to a derated host: serialisation at the derated rate", test_flow_at_derated_rate },
	  { "a ring all-reduce through a derated NIC runs at its busbw", test_ring_at_derated_busbw },
	  { "errors: unknown host, switch, NIC, rate above the link's", test_errors })
