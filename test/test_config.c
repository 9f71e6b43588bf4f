/*
 * test_config.c — loading scenarios (kernel/config*.c): typed values and
 * defaults of a full scenario, per-rate maps, --set overrides, path
 * resolution, the round trip of the resolved text, and the key reference of
 * `sim --keys`. Input errors are in test_config_errors.c.
 *
 * Scenarios are written to a private temporary folder; each test loads
 * through the public config_load exactly as main.c does.
 */
#define _GNU_SOURCE
#include "config_fixture.h"
#include "config_keys.h"   /* cfg_keys[], for the key reference */

static const char full[] =
	"; a full scenario\n"                                           /* 1 */
	"[simulation]\n"
	"seed = 42\n"
	"stop = 2.5ms\n"
	"progress = off\n"                                              /* 5 */
	"\n"
	"[topology]\n"
	"type = fat_tree\n"
	"k = 4\n"
	"link_rate = 100Gbps\n"                                         /* 10 */
	"link_delay = 1.5us   ; inline comment\n"
	"host_link_rate = 50Gbps\n"
	"gpus_per_host = 8\n"
	"\n"
	"[switch]\n"                                                    /* 15 */
	"ecn_kmin = 100Gbps:400KB 50Gbps:200KB\n"
	"ecn_kmax = 100Gbps:1600KB, 50Gbps:800KB\n"
	"pfc_alpha = 1/16\n"
	"pfc_headroom = 100KiB\n"
	"ecmp = packet\n"                                               /* 20 */
	"# full-line hash comment\n"
	"[nic]\n"
	"mtu = 4096\n"
	"loss_recovery = sr\n"
	"[dcqcn]\n"                                                     /* 25 */
	"rai = 40Mbps\n"
	"byte_counter = 10MB\n"
	"[multicast]\n"
	"group = g1 host0 host1 host2\n"
	"group = g2 host3, host0\n"                                     /* 30 */
	"[job.moe]\n"
	"model = mixtral-8x7b\n"
	"tp = 4\n"
	"pp = 2\n"
	"dp = 4\n"                                                      /* 35 */
	"ep = 2\n"
	"global_batch = 64\n"
	"placement = tp dp ep pp\n"
	"hosts = host0, host1\n"
	"[job.small]\n"                                                 /* 40 */
	"model = custom\n"
	"layers = 2\n"
	"hidden = 1024\n"
	"seq_len = 512\n"
	"global_batch = 8\n"                                            /* 45 */
	"[traffic.bg]\n"
	"type = poisson\n"
	"load = 0.3\n"
	"cdf = hadoop\n"
	"stop = 1ms\n"                                                  /* 50 */
	"[traffic.fl]\n"
	"type = flows\n"
	"flow = host0 host1 1MB 0us\n"
	"flow = host2 host3 1.5KiB 1.5us\n"
	"[traffic.mc]\n"                                                /* 55 */
	"type = multicast\n"
	"group = g2\n"
	"size = 64KB\n"
	"[traffic.coll]\n"
	"type = collective\n"                                           /* 60 */
	"op = alltoall\n"
	"size = 1MiB\n"
	"gpus = host0.gpu0 host1.gpu0\n";

static void check_full(const struct config *c)
{
	CU_ASSERT_EQUAL(c->simulation.seed, 42);
	CU_ASSERT_EQUAL(c->simulation.stop, 2500 * SIMTIME_US);
	CU_ASSERT_EQUAL(c->simulation.progress, CFG_PROGRESS_OFF);
	CU_ASSERT_EQUAL(c->simulation.watchdog, SIMTIME_MS);
	CU_ASSERT_PTR_NULL(c->simulation.output);

	CU_ASSERT_EQUAL(c->topology.type, TOPO_FAT_TREE);
	CU_ASSERT_EQUAL(c->topology.k, 4);
	CU_ASSERT_EQUAL(c->topology.oversubscription, 1.0);
	CU_ASSERT_EQUAL(c->topology.link_rate_bps, 100000000000ULL);
	CU_ASSERT_EQUAL(c->topology.host_link_rate_bps, 50000000000ULL);
	CU_ASSERT_EQUAL(c->topology.link_delay, 1500000);
	CU_ASSERT_EQUAL(c->topology.switch_latency, 0);
	CU_ASSERT_EQUAL(c->topology.gpus_per_host, 8);
	CU_ASSERT_EQUAL(c->topology.nics_per_host, 1);
	CU_ASSERT_EQUAL(c->topology.nvlink_rate_bps, 3600000000000ULL);  /* 450GBps */
	CU_ASSERT_EQUAL(c->topology.nvlink_delay, 200000);

	CU_ASSERT_EQUAL(c->sw.buffer_b, 32u << 20);
	CU_ASSERT_TRUE(c->sw.pfc);
	CU_ASSERT_FALSE(c->sw.pfc_alpha.is_map);
	CU_ASSERT_EQUAL(c->sw.pfc_alpha.scalar, 0.0625);
	CU_ASSERT_FALSE(c->sw.headroom_auto);
	CU_ASSERT_EQUAL(c->sw.headroom_b, 102400);
	CU_ASSERT_FALSE(c->sw.ecn_kmin_default);
	CU_ASSERT_TRUE(c->sw.ecn_kmin.is_map);
	CU_ASSERT_EQUAL(c->sw.ecn_kmin.n, 2);
	CU_ASSERT_EQUAL(c->sw.ecn_kmax.n, 2);
	CU_ASSERT_FALSE(c->sw.ecn_pmax.is_map);
	CU_ASSERT_EQUAL(c->sw.ecn_pmax.scalar, 0.2);
	CU_ASSERT_EQUAL(c->sw.ecmp, ECMP_PACKET);

	CU_ASSERT_EQUAL(c->nic.mtu, 4096);
	CU_ASSERT_EQUAL(c->nic.cc, CC_DCQCN);
	CU_ASSERT_EQUAL(c->nic.ack_every, 1);
	CU_ASSERT_EQUAL(c->nic.rto, SIMTIME_MS);
	CU_ASSERT_EQUAL(c->nic.priority, 3);
	CU_ASSERT_EQUAL(c->nic.loss_recovery, LR_SR);
	CU_ASSERT_EQUAL(c->nic.qps_per_pair, 1);

	CU_ASSERT_EQUAL(c->dcqcn.variant, DCQCN_HPCC);
	CU_ASSERT_EQUAL(c->dcqcn.g, 1.0 / 256);
	CU_ASSERT_FALSE(c->dcqcn.rai_default);
	CU_ASSERT_EQUAL(c->dcqcn.rai_bps, 40000000);
	CU_ASSERT_TRUE(c->dcqcn.rhai_default);
	CU_ASSERT_EQUAL(c->dcqcn.rhai_bps, 100000000);  /* 50Mbps x 50G/25G */
	CU_ASSERT_EQUAL(c->dcqcn.t_alpha, SIMTIME_US);
	CU_ASSERT_EQUAL(c->dcqcn.t_dec, 4 * SIMTIME_US);
	CU_ASSERT_EQUAL(c->dcqcn.t_inc, 300 * SIMTIME_US);
	CU_ASSERT_FALSE(c->dcqcn.byte_counter_off);
	CU_ASSERT_EQUAL(c->dcqcn.byte_counter_b, 10000000);
	CU_ASSERT_EQUAL(c->dcqcn.fast_recovery_times, 1);
	CU_ASSERT_EQUAL(c->dcqcn.min_rate_bps, 1000000000);
	CU_ASSERT_EQUAL(c->dcqcn.cnp_interval, 0);
	CU_ASSERT_EQUAL(c->dcqcn.rate_on_first_cnp, 1.0);
	CU_ASSERT_FALSE(c->dcqcn.clamp_target_rate);

	CU_ASSERT_TRUE(c->multicast.enabled);
	CU_ASSERT_TRUE(c->multicast.reliable);
	CU_ASSERT_EQUAL_FATAL(c->multicast.n_groups, 2);
	CU_ASSERT_STRING_EQUAL(c->multicast.groups[0].name, "g1");
	CU_ASSERT_STRING_EQUAL(c->multicast.groups[0].src, "host0");
	CU_ASSERT_EQUAL(c->multicast.groups[0].n_dst, 2);
	CU_ASSERT_STRING_EQUAL(c->multicast.groups[1].dst[0], "host0");

	CU_ASSERT_EQUAL(c->pcap.n_taps, 0);
	CU_ASSERT_EQUAL(c->pcap.snaplen_b, 0);
	CU_ASSERT_PTR_NULL(c->pcap.dir);
	CU_ASSERT_EQUAL(c->output.queue_sample_interval, 0);
	CU_ASSERT_FALSE(c->output.flow_paths);
	CU_ASSERT_PTR_NULL(c->output.hpcc_fct);

	CU_ASSERT_EQUAL_FATAL(c->n_jobs, 2);
	const struct cfg_job *j = &c->jobs[0];
	CU_ASSERT_STRING_EQUAL(j->name, "moe");
	CU_ASSERT_STRING_EQUAL(j->model, "mixtral-8x7b");
	CU_ASSERT_EQUAL(j->layers, 0);  /* from the preset */
	CU_ASSERT_EQUAL(j->tp, 4);
	CU_ASSERT_EQUAL(j->pp, 2);
	CU_ASSERT_EQUAL(j->dp, 4);
	CU_ASSERT_EQUAL(j->ep, 2);
	CU_ASSERT_EQUAL(j->global_batch, 64);
	CU_ASSERT_EQUAL(j->micro_batch, 1);
	CU_ASSERT_EQUAL(j->zero, 0);
	CU_ASSERT_STRING_EQUAL(j->gpu, "h100");
	CU_ASSERT_EQUAL(j->mfu, 0.5);
	CU_ASSERT_EQUAL(j->grad_bytes, 2);
	CU_ASSERT_EQUAL(j->n_hosts, 2);
	CU_ASSERT_EQUAL_FATAL(j->n_placement, 4);
	CU_ASSERT_STRING_EQUAL(j->placement[1], "dp");
	CU_ASSERT_STRING_EQUAL(j->allreduce, "ring");
	CU_ASSERT_STRING_EQUAL(j->alltoall, "direct");
	CU_ASSERT_EQUAL(j->chunk_b, 512 * 1024);
	CU_ASSERT_EQUAL(j->channels, 2);
	CU_ASSERT_EQUAL(j->capacity_factor, 1.0);
	CU_ASSERT_EQUAL(c->jobs[1].layers, 2);
	CU_ASSERT_EQUAL(c->jobs[1].hidden, 1024);
	CU_ASSERT_EQUAL(c->jobs[1].seq_len, 512);
	CU_ASSERT_EQUAL(c->jobs[1].placement[0][0], 't');

	CU_ASSERT_EQUAL_FATAL(c->n_traffic, 4);
	const struct cfg_traffic *t = &c->traffic[0];
	CU_ASSERT_STRING_EQUAL(t->name, "bg");
	CU_ASSERT_EQUAL(t->type, TRAFFIC_POISSON);
	CU_ASSERT_EQUAL(t->load, 0.3);
	CU_ASSERT_STRING_EQUAL(t->cdf, "hadoop");
	CU_ASSERT_EQUAL(t->start, 0);
	CU_ASSERT_EQUAL(t->stop, SIMTIME_MS);
	t = &c->traffic[1];
	CU_ASSERT_EQUAL(t->type, TRAFFIC_FLOWS);
	CU_ASSERT_EQUAL_FATAL(t->n_flows, 2);
	CU_ASSERT_STRING_EQUAL(t->flows[1].src, "host2");
	CU_ASSERT_STRING_EQUAL(t->flows[1].dst, "host3");
	CU_ASSERT_EQUAL(t->flows[1].size_b, 1536);
	CU_ASSERT_EQUAL(t->flows[1].start, 1500000);
	t = &c->traffic[2];
	CU_ASSERT_STRING_EQUAL(t->group, "g2");
	CU_ASSERT_EQUAL(t->size_b, 64000);
	t = &c->traffic[3];
	CU_ASSERT_STRING_EQUAL(t->op, "alltoall");
	CU_ASSERT_STRING_EQUAL(t->algorithm, "direct");  /* the op's default */
	CU_ASSERT_EQUAL(t->n_gpus, 2);
	CU_ASSERT_EQUAL(t->repeat, 1);
}

static void test_full_scenario(void)
{
	struct config c;
	char *err;
	int rc = load_text(&c, full, NULL, 0, &err);
	if (rc)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	check_full(&c);
	CU_ASSERT_STRING_EQUAL(c.name, "scen");
	CU_ASSERT_STRING_EQUAL(c.dir, tmpdir);
	CU_ASSERT_STRING_EQUAL(c.text, full);
	CU_ASSERT_PTR_NOT_NULL(c.resolved);
	/* Line numbers counted by the reader (inih's Debian build has none). */
	CU_ASSERT_EQUAL(c.traffic[1].flows[0].line, 53);
	CU_ASSERT_EQUAL(c.traffic[1].flows[1].line, 54);
	CU_ASSERT_EQUAL(c.multicast.groups[1].line, 30);
	config_free(&c);
	CU_ASSERT_PTR_NULL(c.path);
}

static void test_defaults(void)
{
	struct config c;
	char *err;
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR, NULL, 0, &err), 0);
	CU_ASSERT_EQUAL(c.simulation.seed, 1);
	CU_ASSERT_EQUAL(c.simulation.stop, SIMTIME_NEVER);
	CU_ASSERT_EQUAL(c.simulation.progress, CFG_PROGRESS_AUTO);
	CU_ASSERT_EQUAL(c.topology.host_link_rate_bps, c.topology.link_rate_bps);
	CU_ASSERT_TRUE(c.sw.headroom_auto);
	CU_ASSERT_TRUE(c.sw.ecn);
	CU_ASSERT_TRUE(c.sw.ecn_kmin_default);
	CU_ASSERT_TRUE(c.sw.ecn_kmax_default);
	CU_ASSERT_EQUAL(c.sw.pfc_alpha.scalar, 0.125);
	CU_ASSERT_EQUAL(c.sw.ecmp, ECMP_FLOW);
	CU_ASSERT_EQUAL(c.nic.mtu, 1024);
	CU_ASSERT_EQUAL(c.nic.loss_recovery, LR_GBN);
	CU_ASSERT_EQUAL(c.dcqcn.g, 0.00390625);
	CU_ASSERT_TRUE(c.dcqcn.rai_default);
	CU_ASSERT_EQUAL(c.dcqcn.rai_bps, 20000000);     /* 5Mbps x 100G/25G */
	CU_ASSERT_EQUAL(c.dcqcn.rhai_bps, 200000000);
	CU_ASSERT_TRUE(c.dcqcn.byte_counter_off);
	CU_ASSERT_EQUAL(c.n_jobs, 0);
	CU_ASSERT_EQUAL(c.n_traffic, 0);
	CU_ASSERT_EQUAL(c.n_origins, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, "\n[dcqcn]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, "\nbuffer = 32MiB\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, "\ng = 0.00390625\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, "; ecn_kmin = 400KB at 100Gbps"));
	config_free(&c);
}

static void test_rate_maps(void)
{
	struct config c;
	char *err = NULL;
	double v;
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR "[switch]\necn_kmin = 100Gbps:400KB 400Gbps:1600KB\n"
					"ecn_pmax = 0.2\n", NULL, 0, &err), 0);
	CU_ASSERT_EQUAL(cfg_rate_map_get(&c.sw.ecn_kmin, 400000000000ULL, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 1600000);
	CU_ASSERT_EQUAL(cfg_rate_map_get(&c.sw.ecn_pmax, 40000000000ULL, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 0.2);
	CU_ASSERT_EQUAL(cfg_rate_map_get(&c.sw.ecn_kmax, 40000000000ULL, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 640000);  /* HPCC's default: 400KB x 40/25 */
	CU_ASSERT_EQUAL(cfg_rate_map_get(&c.sw.ecn_kmin, 40000000000ULL, &v, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "scen.ini:7: [switch] ecn_kmin has no entry for 40Gbps"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "100Gbps, 400Gbps"));
	free(err);
	config_free(&c);
}

static void test_overrides(void)
{
	struct config c;
	char *err = NULL;
	struct cfg_override ov[] = {
		{ "switch", "pfc", "off" },
		{ "topology", "hosts", "16" },
		{ "job.new", "model", "llama2-7b" },
		{ "job.new", "global_batch", "16" },
		{ "traffic.f", "flow", "host3 host4 2KB 1us" },
		{ "simulation", "seed", "9" },
	};
	const char *text = STAR "[switch]\npfc = on\n[traffic.f]\ntype = flows\nflow = host0 host1 1KB 0us\n";
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, ov, 6, &err), 0);
	CU_ASSERT_FALSE(c.sw.pfc);
	CU_ASSERT_EQUAL(c.topology.hosts, 16);
	CU_ASSERT_EQUAL(c.simulation.seed, 9);
	CU_ASSERT_EQUAL_FATAL(c.n_jobs, 1);
	CU_ASSERT_STRING_EQUAL(c.jobs[0].name, "new");
	CU_ASSERT_EQUAL_FATAL(c.traffic[0].n_flows, 2);  /* a repeated key adds an entry */
	CU_ASSERT_EQUAL(c.traffic[0].flows[1].size_b, 2000);
	CU_ASSERT_EQUAL(c.traffic[0].flows[1].line, 0);
	/* Origins say where the effective value came from. */
	char *m = cfg_error_at(&c, "switch", "pfc", 0, "test");
	CU_ASSERT_STRING_EQUAL(m, "--set: [switch] pfc = 'off': test");
	free(m);
	config_free(&c);

	struct cfg_override bad[] = { { "switch", "pfc", "maybe" } };
	EXPECT_ERROR_SET(STAR, bad, 1, "--set: [switch] pfc = 'maybe': expected a boolean (on/off, true/false, yes/no)");
	struct cfg_override unk[] = { { "switch", "pfx", "1" } };
	EXPECT_ERROR_SET(STAR, unk, 1, "--set: [switch] unknown key 'pfx': expected one of buffer, pfc");
	struct cfg_override sec[] = { { "swtch", "pfc", "1" } };
	EXPECT_ERROR_SET(STAR, sec, 1, "--set: unknown section [swtch]: expected one of simulation");
	struct cfg_override fix[] = { { "nic", "mtu", "2048" } };
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR "[nic]\nmtu = 99999\n", fix, 1, &err), 0);  /* before validation */
	CU_ASSERT_EQUAL(c.nic.mtu, 2048);
	config_free(&c);
	struct cfg_override typ[] = { { "topology", "type", "dumbbell" } };
	EXPECT_ERROR_SET(STAR, typ, 1, "scen.ini:3: [topology] hosts = '4': expected a key of type dumbbell");
	struct cfg_override miss[] = { { "job.x", "tp", "2" } };
	EXPECT_ERROR_SET(STAR, miss, 1, "--set: [job.x] missing required key 'model'");
}

static void test_paths(void)
{
	struct config c;
	char *err = NULL, path[600], *cwd = getcwd(NULL, 0);
	tmp_file("topo.txt", "1 1 0\n0\n");
	tmp_file("sizes.cdf", "1 0\n2 100\n");
	const char *text = "[topology]\ntype = hpcc\nfile = topo.txt\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			   "[simulation]\noutput = out/r.db\n"
			   "[traffic.p]\ntype = poisson\nload = 0.5\ncdf = sizes.cdf\n";
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, NULL, 0, &err), 0);
	snprintf(path, sizeof path, "%s/topo.txt", tmpdir);
	CU_ASSERT_STRING_EQUAL(c.topology.file, path);        /* relative to the scenario */
	snprintf(path, sizeof path, "%s/sizes.cdf", tmpdir);
	CU_ASSERT_STRING_EQUAL(c.traffic[0].cdf, path);
	CU_ASSERT_STRING_EQUAL(c.simulation.output, "out/r.db");  /* outputs: relative to the cwd */
	char *found = cfg_find_cdf(&c, c.traffic[0].cdf);
	CU_ASSERT_STRING_EQUAL(found, path);
	free(found);
	found = cfg_find_cdf(&c, "websearch");
	CU_ASSERT_PTR_NOT_NULL(found);
	if (found)
		CU_ASSERT_PTR_NOT_NULL(strstr(found, "cdf/websearch.cdf"));
	free(found);
	CU_ASSERT_PTR_NULL(cfg_find_cdf(&c, "no-such-file.cdf"));
	config_free(&c);

	/* With --set, a relative input path is relative to the current folder. */
	struct cfg_override ov[] = { { "topology", "file", "topo.txt" } };
	CU_ASSERT_EQUAL_FATAL(chdir("/"), 0);
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, ov, 1, &err), -1);  /* / has no topo.txt */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "--set: [topology] file = 'topo.txt': expected a readable file"));
	free(err);
	CU_ASSERT_EQUAL_FATAL(chdir(tmpdir), 0);
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, ov, 1, &err), 0);
	CU_ASSERT_STRING_EQUAL(c.topology.file, "topo.txt");
	config_free(&c);
	CU_ASSERT_EQUAL(chdir(cwd), 0);
	free(cwd);

	EXPECT_ERROR("[topology]\ntype = hpcc\nfile = missing.txt\nlink_rate = 1Gbps\nlink_delay = 1us\n",
		     "scen.ini:3: [topology] file = 'missing.txt': expected a readable file", "No such file");
}
/* The resolved text is itself a scenario that loads to the same values and
 * resolves to the same text. */
static void test_roundtrip(void)
{
	struct config a, b;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(load_text(&a, full, NULL, 0, &err), 0);
	const char *p = tmp_file("resolved.ini", a.resolved);
	int rc = config_load(&b, p, NULL, 0, &err);
	if (rc)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	check_full(&b);
	CU_ASSERT_EQUAL(b.sw.ecn_kmin.val[1], a.sw.ecn_kmin.val[1]);
	CU_ASSERT_EQUAL(b.sw.ecn_kmin.rate_bps[1], a.sw.ecn_kmin.rate_bps[1]);
	CU_ASSERT_EQUAL(b.dcqcn.rhai_default, a.dcqcn.rhai_default);
	/* Identical after the first line (which names the scenario). */
	CU_ASSERT_STRING_EQUAL(strchr(a.resolved, '\n'), strchr(b.resolved, '\n'));
	config_free(&b);
	config_free(&a);

	/* Also for the defaults-only scenario and an hpcc one with paths. */
	tmp_file("topo.txt", "1 1 0\n0\n");
	CU_ASSERT_EQUAL_FATAL(load_text(&a, "[topology]\ntype = hpcc\nfile = topo.txt\nlink_rate = 25Gbps\n"
					"link_delay = 0.5us\n[pcap]\ntaps = sw0:1 host0\nsnaplen = 128B\n", NULL, 0, &err), 0);
	p = tmp_file("resolved2.ini", a.resolved);
	CU_ASSERT_EQUAL_FATAL(config_load(&b, p, NULL, 0, &err), 0);
	CU_ASSERT_STRING_EQUAL(strchr(a.resolved, '\n'), strchr(b.resolved, '\n'));
	CU_ASSERT_EQUAL(b.pcap.snaplen_b, 128);
	CU_ASSERT_EQUAL(b.topology.link_delay, 500000);
	config_free(&b);
	config_free(&a);
}

/* Reads a whole stream from its start; malloc'd. */
static char *read_all(FILE *f)
{
	CU_ASSERT_FATAL(fseek(f, 0, SEEK_END) == 0);
	long n = ftell(f);
	CU_ASSERT_FATAL(n > 0);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_FATAL(fread(buf, 1, (size_t)n, f) == (size_t)n);
	buf[n] = '\0';
	return buf;
}

/* `sim --keys`: every section once, in canonical order, with every key of
 * cfg_keys[] on a line of its own under its section, type and help given. */
static void test_print_keys(void)
{
	FILE *f = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	config_print_keys(f);
	char *text = read_all(f);
	fclose(f);

	const char *sec_at[SEC_N], *prev = text;
	for (int s = 0; s < SEC_N; s++) {
		char head[64];
		snprintf(head, sizeof head, "\n[%s%s]\n", cfg_sec_names[s],
			 s == SEC_JOB || s == SEC_TRAFFIC ? ".NAME" : "");
		sec_at[s] = strstr(text, head);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sec_at[s]);
		CU_ASSERT(sec_at[s] >= prev);                          /* canonical order */
		CU_ASSERT_PTR_NULL(strstr(sec_at[s] + 1, head));       /* once */
		prev = sec_at[s];
	}
	for (size_t i = 0; i < cfg_n_keys; i++) {
		const struct cfg_key *k = &cfg_keys[i];
		const char *end = k->sec + 1 < SEC_N ? sec_at[k->sec + 1] : text + strlen(text);
		char want[64];
		snprintf(want, sizeof want, "\n  %s ", k->name);
		const char *at = strstr(sec_at[k->sec], want);
		bool ok = at && at < end;
		if (!ok)
			fprintf(stderr, "\n  key %s of [%s] missing\n", k->name, cfg_sec_names[k->sec]);
		CU_ASSERT(ok);
		if (!ok)
			continue;
		size_t len = strcspn(at + 1, "\n");
		char *line = strndup(at + 1, len);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, k->help));
		if (k->def)
			CU_ASSERT_PTR_NOT_NULL(strstr(line, k->def));
		if (k->required == CFG_ALL)
			CU_ASSERT_PTR_NOT_NULL(strstr(line, "; required"));
		free(line);
	}
	/* Spot checks of the wording. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  mtu                    integer from 256 to 9000; default 1024 -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  k                      even integer >= 2; required for type fat_tree -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  ecmp                   one of flow|packet; default flow -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "; default: link_rate; every type -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  cdf                    websearch|hadoop|alistorage2019|googlerpc2008 or a path;"
				      " default websearch; type poisson -- "));
	free(text);
}

TEST_MAIN("config",
	  { "full scenario", test_full_scenario },
	  { "defaults", test_defaults },
	  { "per-rate maps", test_rate_maps },
	  { "--set overrides", test_overrides },
	  { "paths", test_paths },
	  { "resolved text round trip", test_roundtrip },
	  { "key reference (sim --keys)", test_print_keys })
