/*
 * test_config_errors.c — each class of scenario input error with its exact
 * location, section, key, value and expectation (unknown section or key,
 * key of another type, missing key, missing unit, out of range, duplicate,
 * bad per-rate map, --set located as such), over-long lines and unreadable
 * files, located errors raised after loading, continuation lines, and the
 * "did you mean" suggestions with their edit distance.
 */
#define _GNU_SOURCE
#include "config_fixture.h"
#include "config_internal.h"
#include "fabric.h"
#include "units.h"

static void test_error_classes(void)
{
	EXPECT_ERROR(STAR "[foo]\n", "scen.ini:6: unknown section [foo]: expected one of simulation, topology,",
		     "job.NAME, traffic.NAME");
	EXPECT_ERROR(STAR "[switch]\nbuffer = 1MB\npfx = on\n",
		     "scen.ini:8: [switch] unknown key 'pfx' (did you mean 'pfc'?): expected one of buffer, pfc, ");
	/* A key of another topology or traffic type. */
	EXPECT_ERROR(STAR "k = 4\n", "scen.ini:6: [topology] k = '4': expected a key of type star", "hosts");
	EXPECT_ERROR(STAR "[traffic.in]\ntype = incast\nload = 0.5\n",
		     "scen.ini:8: [traffic.in] load = '0.5': expected a key of type incast");
	/* Missing required keys: named with the section's line. */
	EXPECT_ERROR("\n[topology]\ntype = star\nhosts = 2\nlink_delay = 1us\n",
		     "scen.ini:2: [topology] missing required key 'link_rate'");
	EXPECT_ERROR("[topology]\ntype = fat_tree\nlink_rate = 1Gbps\nlink_delay = 1us\n",
		     "scen.ini:1: [topology] missing required key 'k' for type fat_tree");
	EXPECT_ERROR(STAR "[traffic.x]\ntype = incast\nsenders = host0 host1\nreceiver = host2\n",
		     "scen.ini:6: [traffic.x] missing required key 'size' for type incast");
	EXPECT_ERROR(STAR "[job.j]\nmodel = custom\nlayers = 2\nglobal_batch = 4\n",
		     "scen.ini:6: [job.j] missing required key 'hidden' for model custom");
	EXPECT_ERROR(STAR "[job.j]\nmodel = llama2-7b\n", "[job.j] missing required key 'global_batch'");
	EXPECT_ERROR("[simulation]\nseed = 3\n", "scen.ini: missing required section [topology]");
	/* Bad type or unit. */
	EXPECT_ERROR("[topology]\ntype = star\nhosts = 2\nlink_rate = 100\nlink_delay = 1us\n",
		     "scen.ini:4: [topology] link_rate = '100': expected a rate with a unit "
		     "(bps, Kbps, Mbps, Gbps, Tbps, GBps)");
	EXPECT_ERROR(STAR "[nic]\nrto = 0.5ps\n", "scen.ini:7: [nic] rto = '0.5ps': expected a whole number of picoseconds");
	EXPECT_ERROR(STAR "[switch]\npfc = maybe\n",
		     "scen.ini:7: [switch] pfc = 'maybe': expected a boolean (on/off, true/false, yes/no)");
	EXPECT_ERROR("[topology]\ntype = torus\n", "scen.ini:2: [topology] type = 'torus': expected one of fat_tree, "
		     "leaf_spine, ");
	/* Out of range. */
	EXPECT_ERROR(STAR "[nic]\nmtu = 100\n", "scen.ini:7: [nic] mtu = '100': expected an integer from 256 to 9000");
	EXPECT_ERROR(STAR "[nic]\npriority = 8\n", "[nic] priority = '8': expected an integer from 0 to 7");
	EXPECT_ERROR("[topology]\ntype = fat_tree\nk = 5\nlink_rate = 1Gbps\nlink_delay = 1us\n",
		     "scen.ini:3: [topology] k = '5': expected an even integer >= 2");
	EXPECT_ERROR(STAR "[traffic.p]\ntype = poisson\nload = 1.5\n",
		     "scen.ini:8: [traffic.p] load = '1.5': expected a number in (0, 1]");
	EXPECT_ERROR(STAR "[simulation]\nseed = -1\n", "[simulation] seed = '-1': expected a non-negative integer");
	EXPECT_ERROR(STAR "[job.j]\nmodel = bert-large\nglobal_batch = 8\ndp = 4\nep = 3\n",
		     "scen.ini:10: [job.j] ep = '3': expected a divisor of dp (4)");
	EXPECT_ERROR(STAR "[job.j]\nmodel = bert-large\nglobal_batch = 8\nplacement = tp,dp,pp\n",
		     "[job.j] placement = 'tp,dp,pp': expected a permutation of tp, ep, dp, pp");
	EXPECT_ERROR(STAR "[job.j]\nmodel = bert-large\nglobal_batch = 8\nzero = 4\n",
		     "[job.j] zero = '4': expected an integer from 0 to 3");
	EXPECT_ERROR(STAR "[job.j]\nmodel = bert-large\nglobal_batch = 8\ngpu = v100\n",
		     "[job.j] gpu = 'v100': expected one of a100, h100 or h200");
	/* Duplicates name both lines; repeated keys are lists. */
	EXPECT_ERROR(STAR "[switch]\npfc = on\n\npfc = off\n",
		     "scen.ini:9: [switch] pfc = 'off': key given twice (first at line 7)");
	EXPECT_ERROR(STAR "[switch]\n[switch]\n", "scen.ini:7: section [switch] given twice (first at line 6)");
	/* Per-rate maps. */
	EXPECT_ERROR(STAR "[switch]\necn_kmin = 100Gbps:400KB 100Gbps:1MB\n",
		     "scen.ini:7: [switch] ecn_kmin = '100Gbps:400KB 100Gbps:1MB': expected each rate once");
	EXPECT_ERROR(STAR "[switch]\necn_kmin = 100Gbps:400\n",
		     "[switch] ecn_kmin = '100Gbps:400': expected a size or a per-rate map", "a size with a unit");
	EXPECT_ERROR(STAR "[switch]\necn_kmin = 100:400KB\n",
		     "[switch] ecn_kmin = '100:400KB': expected a size or a per-rate map", "with RATE a rate with a unit");
	EXPECT_ERROR(STAR "[switch]\necn_pmax = 100Gbps:0.2 400Gbps\n",
		     "[switch] ecn_pmax = '100Gbps:0.2 400Gbps': expected a number or a per-rate map");
	EXPECT_ERROR(STAR "[switch]\necn_pmax = 100Gbps:1.2\n", "expected a number in [0, 1] at every rate");
	EXPECT_ERROR(STAR "[switch]\necn_kmin = 1MB\necn_kmax = 100KB\n",
		     "scen.ini:8: [switch] ecn_kmax = '100KB': expected a size >= ecn_kmin");
	EXPECT_ERROR(STAR "[pcap]\ntaps = sw0:1 host0 sw0:x\n",
		     "scen.ini:7: [pcap] taps = 'sw0:1 host0 sw0:x': expected a list of node or node:port");
	EXPECT_ERROR(STAR "[traffic.c]\ntype = collective\nop = allgather\nsize = 1MB\nalgorithm = tree\n",
		     "scen.ini:10: [traffic.c] algorithm = 'tree': expected ring or multicast for op allgather");
	EXPECT_ERROR(STAR "[traffic.c]\ntype = collective\nop = allreduce\nsize = 1MB\ngpus = a\nhosts = b\n",
		     "scen.ini:10: [traffic.c] gpus = 'a': expected either gpus or hosts, not both");
	EXPECT_ERROR(STAR "[job.j]\nmodel = bert-large\nglobal_batch = 6\ndp = 4\n",
		     "[job.j] global_batch = '6': expected a multiple of micro_batch x dp (4)");
	EXPECT_ERROR(STAR "[multicast]\nenabled = off\n[job.j]\nmodel = bert-large\nglobal_batch = 8\n"
		     "broadcast = multicast\n", "scen.ini:11: [job.j] broadcast = 'multicast': expected ring");
	EXPECT_ERROR(STAR "[traffic.p]\ntype = poisson\nload = 0.5\nstart = 1ms\nstop = 1ms\n",
		     "scen.ini:10: [traffic.p] stop = '1ms': expected a time after start (1ms)");
	EXPECT_ERROR(STAR "[traffic.i]\ntype = incast\nsenders = host0 host1\nreceiver = host1\nsize = 1MB\n",
		     "scen.ini:9: [traffic.i] receiver = 'host1': expected a host that is not one of the senders");
	EXPECT_ERROR(STAR "[multicast]\ngroup = g1 host0 host1\ngroup = g1 host2 host3\n",
		     "scen.ini:8: [multicast] group = 'g1 host2 host3': expected a group name not used before");
	EXPECT_ERROR(STAR "[multicast]\ngroup = g1 host0\n", "[multicast] group = 'g1 host0': expected NAME SRC DST");
	/* Syntax. */
	EXPECT_ERROR(STAR "just words\n", "scen.ini:6: 'just words': expected [section], key = value");
	EXPECT_ERROR(STAR "[switch\n", "scen.ini:6: '[switch': expected a section header [NAME]");
	EXPECT_ERROR(STAR "[switch] pfc = off\n", "scen.ini:6: '[switch] pfc = off': expected nothing but a comment");
	EXPECT_ERROR("seed = 1\n" STAR, "scen.ini:1: seed = '1' outside any section");
	EXPECT_ERROR(STAR "[job.]\n", "scen.ini:6: section [job.]: expected a NAME");
	/* Flows. */
	EXPECT_ERROR(STAR "[traffic.f]\ntype = flows\nflow = host0 host1 1MB 0us\nflow = host0 host1 1MB\n",
		     "scen.ini:9: [traffic.f] flow = 'host0 host1 1MB': expected SRC DST SIZE START");
	EXPECT_ERROR(STAR "[traffic.f]\ntype = flows\nflow = host0 host1 1000 0us\n",
		     "[traffic.f] flow = 'host0 host1 1000 0us': expected SRC DST SIZE START", "with SIZE a size with a unit");
	EXPECT_ERROR(STAR "[traffic.m]\ntype = multicast\ngroup = nope\nsize = 1MB\n",
		     "scen.ini:8: [traffic.m] group = 'nope': expected the NAME of a `group");
}

static void test_long_line_and_unreadable(void)
{
	char text[600];
	snprintf(text, sizeof text, STAR "[pcap]\ntaps = %0300d\n", 0);
	EXPECT_ERROR(text, "scen.ini:7: line of 307 characters: expected at most 197 characters per line; "
		     "continue a long value on indented lines");

	struct config c;
	char *err = NULL;
	CU_ASSERT_EQUAL(scenario_load(&c, "/nonexistent/x.ini", NULL, 0, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/x.ini: cannot read: No such file or directory");
	free(err);
}

static void test_error_at(void)
{
	struct config c;
	char *err = NULL;
	const char *text = STAR "[traffic.f]\ntype = flows\nflow = host0 host1 1KB 0us\nflow = host0 nobody 1KB 0us\n";
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, NULL, 0, &err), 0);
	char *m = cfg_error_at(&c, "topology", "hosts", 0, "expected at least %d hosts", 8);
	CU_ASSERT_STRING_EQUAL(m + strlen(m) - strlen("scen.ini:3: [topology] hosts = '4': expected at least 8 hosts"),
			       "scen.ini:3: [topology] hosts = '4': expected at least 8 hosts");
	free(m);
	m = cfg_error_at(&c, "traffic.f", "flow", 9, "unknown host 'nobody'");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:9: [traffic.f] flow = 'host0 nobody 1KB 0us': unknown host"));
	free(m);
	m = cfg_error_at(&c, "traffic.f", "flow", 8, "x");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:8: [traffic.f] flow = 'host0 host1 1KB 0us': x"));
	free(m);
	/* The flows source raises it so, at the flow's own line, once the
	 * world is built. */
	CU_ASSERT_EQUAL(check_run(&c, NULL, &err), EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "scen.ini:9: [traffic.f] flow = 'host0 nobody 1KB 0us': unknown host 'nobody'"));
	free(err);
	err = NULL;
	m = cfg_error_at(&c, "topology", "switch_latency", 0, "too slow");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:1: [topology] switch_latency (default): too slow"));
	free(m);
	CU_ASSERT_EQUAL_FATAL(c.n_origins, 7);
	CU_ASSERT_STRING_EQUAL(c.origins[4].section, "traffic.f");
	CU_ASSERT_STRING_EQUAL(c.origins[4].key, "type");
	CU_ASSERT_STRING_EQUAL(c.origins[4].value, "flows");
	CU_ASSERT_EQUAL(c.origins[4].line, 7);
	CU_ASSERT_STRING_EQUAL(c.origins[4].file, c.path);
	CU_ASSERT_EQUAL_FATAL(c.n_section_origins, 2);
	CU_ASSERT_EQUAL(c.section_origins[1].line, 6);
	config_free(&c);
}

/* "senders = host0, ..., host9\n    host10, ...": n hosts, 10 a line, the
 * continuation lines indented by `indent`. */
static void senders_text(char *buf, size_t n, int hosts, const char *indent)
{
	size_t len = (size_t)snprintf(buf, n, "senders =");
	for (int i = 0; i < hosts && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s host%d%s", i && i % 10 == 0 ? indent : "",
					i, i % 10 == 9 || i + 1 == hosts ? "\n" : ",");
}

#define STAR64 "[topology]\ntype = star\nhosts = 64\nlink_rate = 100Gbps\nlink_delay = 1us\n"

/* A value too long for one line (inih's 197 characters) goes on indented
 * lines joined with a space; the typed parser judges the joined value. */
static void test_continuation(void)
{
	struct config c;
	char *err = NULL, senders[1024], text[2048];

	/* 60 senders over six lines: indents of blanks and tabs, a comment
	 * line and an inline comment in between. */
	senders_text(senders, sizeof senders, 60, "    ");
	CU_ASSERT(strlen(senders) > 300);
	snprintf(text, sizeof text, STAR64 "[traffic.in]\ntype = incast\n%s"
		 "\t; still the list\n\thost60 host61 ; inline comment\nreceiver = host63\nsize = 1MB\n", senders);
	int rc = load_text(&c, text, NULL, 0, &err);
	if (rc)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	/* The joined value, as the list key parses it. */
	const struct cfg_origin *o = origin_of(&c, "traffic.in", "senders", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	char **v;
	size_t n = units_list(o->value, &v);
	CU_ASSERT_EQUAL_FATAL(n, 62);
	for (int i = 0; i < 62; i++) {
		char want[16];
		snprintf(want, sizeof want, "host%d", i);
		CU_ASSERT_STRING_EQUAL(v[i], want);
	}
	units_list_free(v, n);
	CU_ASSERT(resolved_has(&c, "traffic.in", "receiver = host63"));
	/* The incast source has the 62 senders: 62 flows. */
	uint64_t flows = 0;
	CU_ASSERT_EQUAL(check_run(&c, &flows, &err), EXIT_SUCCESS);
	free(err);
	err = NULL;
	CU_ASSERT_EQUAL(flows, 62);
	/* The entry keeps the key's line; later lines keep their numbers. */
	char *m = cfg_error_at(&c, "traffic.in", "senders", 0, "x");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:8: [traffic.in] senders = 'host0, host1,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "host8, host9 host10, host11,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "host59 host60 host61': x"));
	free(m);
	m = cfg_error_at(&c, "traffic.in", "receiver", 0, "x");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:16: [traffic.in] receiver"));
	free(m);

	/* The resolved text wraps the list too, within the line limit, and
	 * loads back to itself (so to the same 62 senders). */
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, "\nsenders = host0, host1,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, ",\n    host"));
	for (const char *l = c.resolved; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0'))
		CU_ASSERT(strcspn(l, "\n") <= 197);
	expect_roundtrip("continued senders", &c);
	config_free(&c);

	/* A continued flow is one flow; a continued map one map. An indented
	 * line right after a section header is an ordinary key. */
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR "[switch]\n  ecn_kmin = 100Gbps:400KB\n    400Gbps:1600KB\n"
					"[traffic.f]\ntype = flows\nflow = host0 host1\n  1MB 10us\n"
					"flow = host2 host3 1KB 0us\n", NULL, 0, &err), 0);
	const struct switch_cfg *sw = cfg_get(&c, &switch_section);
	CU_ASSERT_EQUAL(sw->ecn_kmin.n, 2);
	CU_ASSERT_EQUAL(sw->ecn_kmin.rate_bps[1], 400000000000ULL);
	CU_ASSERT_EQUAL(resolved_count(&c, "traffic.f", "flow = "), 2);
	CU_ASSERT(resolved_has(&c, "traffic.f", "flow = host0 host1 1MB 10us"));
	CU_ASSERT(resolved_has(&c, "traffic.f", "flow = host2 host3 1KB 0s"));
	o = origin_of(&c, "traffic.f", "flow", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(o->line, 11);
	CU_ASSERT_STRING_EQUAL(o->value, "host0 host1 1MB 10us");
	o = origin_of(&c, "traffic.f", "flow", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(o->line, 13);
	CU_ASSERT_EQUAL(check_run(&c, &flows, &err), EXIT_SUCCESS);
	free(err);
	err = NULL;
	CU_ASSERT_EQUAL(flows, 2);
	config_free(&c);
	/* The continued flow keeps its key's line in the source's errors. */
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR "[switch]\n[traffic.f]\ntype = flows\nflow = host0 host1 1KB 0us\n"
					"flow = host0 nobody\n  1MB 10us\n", NULL, 0, &err), 0);
	CU_ASSERT_EQUAL(check_run(&c, NULL, &err), EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "scen.ini:10: [traffic.f] flow = 'host0 nobody 1MB 10us': unknown host"));
	free(err);
	err = NULL;
	config_free(&c);

	/* A key repeated without indentation is still given twice. */
	EXPECT_ERROR(STAR "[traffic.in]\ntype = incast\nsenders = host0,\n  host1\nsenders = host2\n",
		     "scen.ini:10: [traffic.in] senders = 'host2': key given twice (first at line 8)");
	/* An indented key = value after a key is not silently swallowed. */
	EXPECT_ERROR(STAR "[nic]\nmtu = 2048\n  rto = 1ms\n",
		     "scen.ini:8: [nic] 'rto = 1ms': expected a key at the start of its line "
		     "(an indented line continues the value of mtu from line 7)");
	/* The parser judges the joined value, located at the key's line. */
	EXPECT_ERROR(STAR "[nic]\nmtu = 2048\n\t4096\n",
		     "scen.ini:7: [nic] mtu = '2048 4096': expected an integer from 256 to 9000");
	EXPECT_ERROR(STAR "[traffic.f]\ntype = flows\nflow = host0 host1 1MB\n  0us 5us\n",
		     "scen.ini:8: [traffic.f] flow = 'host0 host1 1MB 0us 5us': expected SRC DST SIZE START");
	/* Continuation lines obey the line limit too. */
	char longline[400];
	snprintf(longline, sizeof longline, STAR "[pcap]\ntaps = host0\n  %0250d\n", 0);
	EXPECT_ERROR(longline, "scen.ini:8: line of 252 characters: expected at most 197 characters per line");
}

static int dist(const char *a, const char *b)
{
	return cfg_edit_distance(a, strlen(a), b, strlen(b));
}

/* The optimal string alignment distance against hand-counted cases. */
static void test_edit_distance(void)
{
	/* Levenshtein's classic: kitten -> sitten -> sittin -> sitting, 3 edits. */
	CU_ASSERT_EQUAL(dist("kitten", "sitting"), 3);
	CU_ASSERT_EQUAL(dist("", "abc"), 3);          /* 3 insertions */
	CU_ASSERT_EQUAL(dist("link_rte", "link_rate"), 1);  /* 1 insertion */
	CU_ASSERT_EQUAL(dist("gtp", "gpt"), 1);       /* 1 transposition */
	CU_ASSERT_EQUAL(dist("Link_Rate", "link_rate"), 0); /* case-insensitive */
	/* OSA edits no substring twice: ca -> abc is 3 (Damerau-Levenshtein
	 * with free reuse would say 2: ca -> ac -> abc). */
	CU_ASSERT_EQUAL(dist("ca", "abc"), 3);
	CU_ASSERT_EQUAL(dist("abc", "ca"), 3);        /* symmetric */

	char out[64];
	/* Within max(1, len/3) edits: the closest, the first of a tie. */
	CU_ASSERT_TRUE(cfg_suggest("gtp", "gpt, bert", out, sizeof out));
	CU_ASSERT_STRING_EQUAL(out, "gpt");
	CU_ASSERT_TRUE(cfg_suggest("fat_tre", "fat_tree, leaf_spine or star", out, sizeof out));
	CU_ASSERT_STRING_EQUAL(out, "fat_tree");
	/* "hosts_per_lef" (13 chars) allows 4 edits: hosts_per_leaf (1) wins
	 * over hosts_per_switch (6, too far). */
	CU_ASSERT_TRUE(cfg_suggest("hosts_per_lef", "hosts_per_switch, hosts_per_leaf", out, sizeof out));
	CU_ASSERT_STRING_EQUAL(out, "hosts_per_leaf");
	/* Too far: "xyz" is 3 from "gpt", its limit is 1; "or" is a joiner. */
	CU_ASSERT_FALSE(cfg_suggest("xyz", "gpt", out, sizeof out));
	CU_ASSERT_FALSE(cfg_suggest("on", "x or y", out, sizeof out));
	/* An exact match is not a misspelling. */
	CU_ASSERT_FALSE(cfg_suggest("pfc", "pfc", out, sizeof out));
	CU_ASSERT_STRING_EQUAL(cfg_did_you_mean("dcqnc", "none or dcqcn", out, sizeof out),
			       " (did you mean 'dcqcn'?)");
	CU_ASSERT_STRING_EQUAL(cfg_did_you_mean("zzzz", "none or dcqcn", out, sizeof out), "");
}

/* The messages, exactly as a user sees them. */
static void test_suggestions(void)
{
	EXPECT_ERROR(STAR "[swtch]\n", "scen.ini:6: unknown section [swtch] (did you mean 'switch'?): expected one of");
	EXPECT_ERROR(STAR "[jobb.gpt]\n", "scen.ini:6: unknown section [jobb.gpt] (did you mean 'job.gpt'?)");
	EXPECT_ERROR(STAR "[nic]\ncc = dcqnc\n",
		     "scen.ini:7: [nic] cc = 'dcqnc': expected one of none, dcqcn, hpcc, swift, timely or dctcp (did you mean 'dcqcn'?)");
}

TEST_MAIN("config errors",
	  { "edit distance", test_edit_distance },
	  { "did you mean", test_suggestions },
	  { "error classes", test_error_classes },
	  { "long line, unreadable file", test_long_line_and_unreadable },
	  { "errors after loading", test_error_at },
	  { "continuation lines", test_continuation })
