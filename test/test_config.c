/*
 * test_config.c — loading and validating scenarios (kernel/config*.c):
 * typed values and defaults of a full scenario, each class of input error
 * with its exact location, section, key, value and expectation, --set
 * overrides, path resolution, per-rate maps, located errors after loading,
 * the round trip of the resolved text, continuation lines, and the key
 * reference of `sim --keys`.
 *
 * Scenarios are written to a private temporary folder; each test loads
 * through the public config_load exactly as main.c does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "config_keys.h"   /* cfg_keys[], for the key reference */
#include "testutil.h"

static char tmpdir[256];
static char scen_path[300];

static void remove_tmpdir(void)
{
	const char *names[] = { "scen.ini", "topo.txt", "sizes.cdf", "resolved.ini", "resolved2.ini" };
	char p[400];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

/* The private folder, made on first use and removed at exit. */
static void ensure_tmpdir(void)
{
	if (tmpdir[0])
		return;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_config.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(scen_path, sizeof scen_path, "%s/scen.ini", tmpdir);
	atexit(remove_tmpdir);
}

static void write_file(const char *path, const char *text)
{
	ensure_tmpdir();
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static const char *tmp_file(const char *name, const char *text)
{
	static char p[400];
	ensure_tmpdir();
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	write_file(p, text);
	return p;
}

/* Loads text as scen.ini; returns the config_load status. */
static int load_text(struct config *cfg, const char *text, const struct cfg_override *ov, size_t n_ov,
		     char **err)
{
	ensure_tmpdir();
	write_file(scen_path, text);
	*err = NULL;
	return config_load(cfg, scen_path, ov, n_ov, err);
}

/* The load fails, the config is left zeroed, and the message holds every
 * fragment in `want` (NULL-terminated). */
static void expect_error_v(const char *text, const struct cfg_override *ov, size_t n_ov,
			   const char *const *want)
{
	struct config cfg;
	char *err = NULL;
	CU_ASSERT_EQUAL(load_text(&cfg, text, ov, n_ov, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));  /* one line */
	CU_ASSERT_PTR_NULL(cfg.path);
	CU_ASSERT_PTR_NULL(cfg.text);
	for (; *want; want++) {
		bool ok = strstr(err, *want) != NULL;
		if (!ok)
			fprintf(stderr, "\n  message: %s\n  missing: %s\n", err, *want);
		CU_ASSERT(ok);
	}
	free(err);
}

#define EXPECT_ERROR(text, ...) \
	expect_error_v((text), NULL, 0, (const char *const[]){ __VA_ARGS__, NULL })
#define EXPECT_ERROR_SET(text, ov, n, ...) \
	expect_error_v((text), (ov), (n), (const char *const[]){ __VA_ARGS__, NULL })

#define STAR "[topology]\ntype = star\nhosts = 4\nlink_rate = 100Gbps\nlink_delay = 1us\n"

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

static void test_error_classes(void)
{
	EXPECT_ERROR(STAR "[foo]\n", "scen.ini:6: unknown section [foo]: expected one of simulation, topology,",
		     "job.NAME, traffic.NAME");
	EXPECT_ERROR(STAR "[switch]\nbuffer = 1MB\npfx = on\n",
		     "scen.ini:8: [switch] unknown key 'pfx': expected one of buffer, pfc, ");
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
	EXPECT_ERROR("[topology]\ntype = ring\n", "scen.ini:2: [topology] type = 'ring': expected one of fat_tree, "
		     "leaf_spine, rail_optimized, dumbbell, star or hpcc");
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
	CU_ASSERT_EQUAL(config_load(&c, "/nonexistent/x.ini", NULL, 0, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/x.ini: cannot read: No such file or directory");
	free(err);
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
	m = cfg_error_at(&c, "traffic.f", "flow", c.traffic[0].flows[1].line, "unknown host 'nobody'");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:9: [traffic.f] flow = 'host0 nobody 1KB 0us': unknown host"));
	free(m);
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
	CU_ASSERT_STRING_EQUAL(cfg_topo_type_name(TOPO_LEAF_SPINE), "leaf_spine");
	CU_ASSERT_STRING_EQUAL(cfg_traffic_type_name(TRAFFIC_ALL_TO_ALL), "all_to_all");
	config_free(&c);
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
	struct config c, c2;
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
	CU_ASSERT_EQUAL_FATAL(c.traffic[0].n_senders, 62);
	for (int i = 0; i < 62; i++) {
		char want[16];
		snprintf(want, sizeof want, "host%d", i);
		CU_ASSERT_STRING_EQUAL(c.traffic[0].senders[i], want);
	}
	CU_ASSERT_STRING_EQUAL(c.traffic[0].receiver, "host63");
	/* The entry keeps the key's line; later lines keep their numbers. */
	char *m = cfg_error_at(&c, "traffic.in", "senders", 0, "x");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:8: [traffic.in] senders = 'host0, host1,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "host8, host9 host10, host11,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "host59 host60 host61': x"));
	free(m);
	m = cfg_error_at(&c, "traffic.in", "receiver", 0, "x");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "scen.ini:16: [traffic.in] receiver"));
	free(m);

	/* The resolved text wraps the list too, and loads back. */
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, "\nsenders = host0, host1,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.resolved, ",\n    host"));
	for (const char *l = c.resolved; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0'))
		CU_ASSERT(strcspn(l, "\n") <= 197);
	const char *p = tmp_file("resolved.ini", c.resolved);
	CU_ASSERT_EQUAL_FATAL(config_load(&c2, p, NULL, 0, &err), 0);
	CU_ASSERT_EQUAL(c2.traffic[0].n_senders, 62);
	CU_ASSERT_STRING_EQUAL(strchr(c.resolved, '\n'), strchr(c2.resolved, '\n'));
	config_free(&c2);
	config_free(&c);

	/* A continued flow is one flow; a continued map one map. An indented
	 * line right after a section header is an ordinary key. */
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR "[switch]\n  ecn_kmin = 100Gbps:400KB\n    400Gbps:1600KB\n"
					"[traffic.f]\ntype = flows\nflow = host0 host1\n  1MB 10us\n"
					"flow = host2 host3 1KB 0us\n", NULL, 0, &err), 0);
	CU_ASSERT_EQUAL(c.sw.ecn_kmin.n, 2);
	CU_ASSERT_EQUAL(c.sw.ecn_kmin.rate_bps[1], 400000000000ULL);
	CU_ASSERT_EQUAL_FATAL(c.traffic[0].n_flows, 2);
	CU_ASSERT_STRING_EQUAL(c.traffic[0].flows[0].dst, "host1");
	CU_ASSERT_EQUAL(c.traffic[0].flows[0].size_b, 1000000);
	CU_ASSERT_EQUAL(c.traffic[0].flows[0].start, 10 * SIMTIME_US);
	CU_ASSERT_EQUAL(c.traffic[0].flows[0].line, 11);
	CU_ASSERT_EQUAL(c.traffic[0].flows[1].line, 13);
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
	  { "error classes", test_error_classes },
	  { "long line, unreadable file", test_long_line_and_unreadable },
	  { "--set overrides", test_overrides },
	  { "paths", test_paths },
	  { "errors after loading", test_error_at },
	  { "resolved text round trip", test_roundtrip },
	  { "continuation lines", test_continuation },
	  { "key reference (sim --keys)", test_print_keys })
