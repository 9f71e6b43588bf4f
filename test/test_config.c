/*
 * test_config.c — loading scenarios (kernel/config*.c): typed values and
 * defaults of a full scenario, per-rate maps, --set overrides, path
 * resolution, and the values of the resolved text loaded again. The resolved
 * text's round trip and `sim --keys` are in test_config_text.c, input
 * errors in test_config_errors.c.
 *
 * Scenarios are written to a private temporary folder; each test loads
 * through scenario_load exactly as main.c does. Each part reads its
 * sections' structs through its own header (scenario_sim, topology_cfg,
 * nic_cfg_of, cfg_get with a section); the keys of one topology or traffic
 * type fill a struct private to that type's file, so they are checked in
 * the resolved text, the built topology or a --check run instead.
 */
#define _GNU_SOURCE
#include "config_fixture.h"
#include "cc_dcqcn.h"
#include "fabric.h"
#include "job.h"
#include "nic.h"
#include "observe.h"
#include "topology.h"
#include "traffic.h"

static const char full[] = FULL;

static void check_full(const struct config *c)
{
	const struct sim_cfg *sim = scenario_sim(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL(sim->seed, 42);
	CU_ASSERT_EQUAL(sim->stop, 2500 * SIMTIME_US);
	CU_ASSERT_EQUAL(sim->progress, PROGRESS_OFF);
	CU_ASSERT_EQUAL(sim->watchdog, SIMTIME_MS);
	CU_ASSERT_PTR_NULL(sim->output);

	const struct topo_cfg *top = topology_cfg(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(top);
	CU_ASSERT_STRING_EQUAL(topology_type_name(c), "fat_tree");
	CU_ASSERT_EQUAL(top->link_rate_bps, 100000000000ULL);
	CU_ASSERT_EQUAL(top->host_link_rate_bps, 50000000000ULL);
	CU_ASSERT_EQUAL(top->link_delay, 1500000);
	CU_ASSERT_EQUAL(top->switch_latency, 0);
	CU_ASSERT_EQUAL(top->gpus_per_host, 8);
	CU_ASSERT_EQUAL(top->nics_per_host, 1);
	CU_ASSERT_EQUAL(top->nvlink_rate_bps, 3600000000000ULL);  /* 450GBps */
	CU_ASSERT_EQUAL(top->nvlink_delay, 200000);
	/* fat_tree's own keys: k as given, oversubscription's default. */
	CU_ASSERT(resolved_has(c, "topology", "k = 4"));
	CU_ASSERT(resolved_has(c, "topology", "oversubscription = 1"));
	struct topo t;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(topology_build(c, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 16);                 /* k^3/4 */
	CU_ASSERT_EQUAL(t.n_nodes, 16 + 8 + 8 + 4);     /* ToRs, aggregation, core */
	CU_ASSERT_EQUAL(t.n_links, 16 + 16 + 16);       /* 1:1: as many up links as hosts */
	for (int i = 0; i < t.n_links; i++) {
		CU_ASSERT_EQUAL(t.links[i].rate_bps, t.links[i].a < t.n_hosts ? 50000000000ULL : 100000000000ULL);
		CU_ASSERT_EQUAL(t.links[i].delay_ps, 1500000);
	}
	topology_free(&t);

	const struct switch_cfg *sw = cfg_get(c, &switch_section);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sw);
	CU_ASSERT_EQUAL(sw->buffer_b, 32u << 20);
	CU_ASSERT_TRUE(sw->pfc);
	CU_ASSERT_FALSE(sw->pfc_alpha.is_map);
	CU_ASSERT_EQUAL(sw->pfc_alpha.scalar, 0.0625);
	CU_ASSERT_FALSE(sw->headroom_auto);
	CU_ASSERT_EQUAL(sw->headroom_b, 102400);
	CU_ASSERT_FALSE(sw->ecn_kmin_default);
	CU_ASSERT_TRUE(sw->ecn_kmin.is_map);
	CU_ASSERT_EQUAL(sw->ecn_kmin.n, 2);
	CU_ASSERT_EQUAL(sw->ecn_kmax.n, 2);
	CU_ASSERT_FALSE(sw->ecn_pmax.is_map);
	CU_ASSERT_EQUAL(sw->ecn_pmax.scalar, 0.2);
	CU_ASSERT_EQUAL(sw->ecmp, ECMP_PACKET);

	const struct nic_cfg *nic = nic_cfg_of(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nic);
	CU_ASSERT_EQUAL(nic->mtu, 4096);
	const struct cc_ops *cc = cc_lookup(nic->cc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cc);
	CU_ASSERT_STRING_EQUAL(cc->name, "dcqcn");
	CU_ASSERT_PTR_EQUAL(cc->section, &dcqcn_section);
	CU_ASSERT_EQUAL(nic->ack_every, 1);
	CU_ASSERT_EQUAL(nic->rto, SIMTIME_MS);
	CU_ASSERT_EQUAL(nic->priority, 3);
	CU_ASSERT_EQUAL(nic->loss_recovery, LR_SR);
	CU_ASSERT_EQUAL(nic->qps_per_pair, 1);

	const struct dcqcn_cfg *dc = cfg_get(c, &dcqcn_section);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dc);
	CU_ASSERT_PTR_EQUAL(cc_params(c, cc), dc);
	CU_ASSERT_EQUAL(dc->variant, DCQCN_HPCC);
	CU_ASSERT_EQUAL(dc->g, 1.0 / 256);
	CU_ASSERT_FALSE(dc->rai_default);
	CU_ASSERT_EQUAL(dc->rai_bps, 40000000);
	CU_ASSERT_TRUE(dc->rhai_default);
	/* A rate-scaled default is applied by the controller at the host link
	 * rate (50Gbps here), and shown so in the resolved text. */
	struct dcqcn st;
	cc_dcqcn.init(&st, dc, &(struct cc_env){ .line_bps = top->host_link_rate_bps }, 0);
	CU_ASSERT_EQUAL(st.rai_bps, 40000000);
	CU_ASSERT_EQUAL(st.rhai_bps, 100000000);  /* 50Mbps x 50G/25G */
	CU_ASSERT(resolved_has(c, "dcqcn", "; rhai = 100Mbps at 50Gbps (default: 50Mbps per 25Gbps of host link "
			       "rate, as HPCC)"));
	CU_ASSERT_EQUAL(dc->t_alpha, SIMTIME_US);
	CU_ASSERT_EQUAL(dc->t_dec, 4 * SIMTIME_US);
	CU_ASSERT_EQUAL(dc->t_inc, 300 * SIMTIME_US);
	CU_ASSERT_FALSE(dc->byte_counter_off);
	CU_ASSERT_EQUAL(dc->byte_counter_b, 10000000);
	CU_ASSERT_EQUAL(dc->fast_recovery_times, 1);
	CU_ASSERT_EQUAL(dc->min_rate_bps, 1000000000);
	CU_ASSERT_EQUAL(dc->cnp_interval, 0);
	CU_ASSERT_EQUAL(dc->rate_on_first_cnp, 1.0);
	CU_ASSERT_FALSE(dc->clamp_target_rate);

	const struct mcast_cfg *mc = mcast_cfg_of(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mc);
	CU_ASSERT_TRUE(mc->enabled);
	CU_ASSERT_TRUE(mc->reliable);
	CU_ASSERT_EQUAL_FATAL(mc->n_groups, 2);
	CU_ASSERT_STRING_EQUAL(mc->groups[0].name, "g1");
	CU_ASSERT_STRING_EQUAL(mc->groups[0].src, "host0");
	CU_ASSERT_EQUAL(mc->groups[0].n_dst, 2);
	CU_ASSERT_STRING_EQUAL(mc->groups[1].dst[0], "host0");

	const struct pcap_cfg *pc = cfg_get(c, &pcap_section);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pc);
	CU_ASSERT_EQUAL(pc->n_taps, 0);
	CU_ASSERT_EQUAL(pc->snaplen_b, 0);
	CU_ASSERT_PTR_NULL(pc->dir);
	const struct output_cfg *out = cfg_get(c, &output_section);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(out->queue_sample_interval, 0);
	CU_ASSERT_FALSE(out->flow_paths);
	CU_ASSERT_PTR_NULL(out->hpcc_fct);

	CU_ASSERT_EQUAL_FATAL(cfg_count(c, &job_section), 2);
	const struct cfg_inst *ji = cfg_next(c, &job_section, NULL);
	CU_ASSERT_STRING_EQUAL(ji->name, "moe");
	CU_ASSERT_STRING_EQUAL(ji->title, "job.moe");
	const struct job_cfg *j = ji->data;
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
	CU_ASSERT_EQUAL(j->grad_bytes, 4); /* zero 0: grad_reduce_dtype fp32, Megatron-LM's */
	CU_ASSERT_EQUAL(j->n_hosts, 2);
	/* placement = tp,dp,ep,pp, a rank order: it becomes rank_order. */
	CU_ASSERT_EQUAL_FATAL(j->n_rank_order, 4);
	CU_ASSERT_STRING_EQUAL(j->rank_order[1], "dp");
	CU_ASSERT_EQUAL(j->n_placement, 0);
	CU_ASSERT_STRING_EQUAL(j->allreduce, "ring");
	CU_ASSERT_STRING_EQUAL(j->alltoall, "direct");
	CU_ASSERT_EQUAL(j->chunk_b, 512 * 1024);
	CU_ASSERT_EQUAL(j->channels, 2);
	CU_ASSERT_EQUAL(j->capacity_factor, 0);   /* unset: dropless */
	CU_ASSERT_EQUAL(j->etp, 0);               /* unset: tp */
	ji = cfg_next(c, &job_section, ji);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ji);
	CU_ASSERT_STRING_EQUAL(ji->name, "small");
	j = ji->data;
	CU_ASSERT_EQUAL(j->layers, 2);
	CU_ASSERT_EQUAL(j->hidden, 1024);
	CU_ASSERT_EQUAL(j->seq_len, 512);
	CU_ASSERT_EQUAL(j->rank_order[0][0], 't');
	CU_ASSERT_PTR_NULL(cfg_next(c, &job_section, ji));

	/* Traffic: the sections in file order with their types; each type's
	 * keys as the resolved text writes them back from the typed values. */
	static const char *const tr[][2] = {
		{ "bg", "poisson" }, { "fl", "flows" }, { "mc", "multicast" }, { "coll", "collective" },
	};
	CU_ASSERT_EQUAL_FATAL(cfg_count(c, &traffic_section), 4);
	const struct cfg_inst *ti = NULL;
	for (int i = 0; i < 4; i++) {
		ti = cfg_next(c, &traffic_section, ti);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ti);
		CU_ASSERT_STRING_EQUAL(ti->name, tr[i][0]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ti->type);
		CU_ASSERT_STRING_EQUAL(ti->type->name, tr[i][1]);
	}
	CU_ASSERT_PTR_NULL(cfg_next(c, &traffic_section, ti));
	CU_ASSERT(resolved_has(c, "traffic.bg", "type = poisson"));
	CU_ASSERT(resolved_has(c, "traffic.bg", "load = 0.3"));
	CU_ASSERT(resolved_has(c, "traffic.bg", "cdf = hadoop"));
	CU_ASSERT(resolved_has(c, "traffic.bg", "start = 0s"));
	CU_ASSERT(resolved_has(c, "traffic.bg", "stop = 1ms"));
	CU_ASSERT_EQUAL(resolved_count(c, "traffic.fl", "flow = "), 2);
	CU_ASSERT(resolved_has(c, "traffic.fl", "flow = host0 host1 1MB 0s"));
	CU_ASSERT(resolved_has(c, "traffic.fl", "flow = host2 host3 1536B 1500ns"));
	CU_ASSERT(resolved_has(c, "traffic.mc", "group = g2"));
	CU_ASSERT(resolved_has(c, "traffic.mc", "size = 64KB"));
	CU_ASSERT(resolved_has(c, "traffic.coll", "op = alltoall"));
	CU_ASSERT(resolved_has(c, "traffic.coll", "algorithm = direct"));  /* the op's default */
	CU_ASSERT(resolved_has(c, "traffic.coll", "gpus = host0.gpu0, host1.gpu0"));
	CU_ASSERT(resolved_has(c, "traffic.coll", "repeat = 1"));
}

static void test_full_scenario(void)
{
	struct config c;
	char *err;
	int rc = load_text(&c, full, NULL, 0, &err);
	if (rc)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_EQUAL(c.schema, &rocesim_schema);
	check_full(&c);
	CU_ASSERT_STRING_EQUAL(c.name, "scen");
	CU_ASSERT_STRING_EQUAL(c.dir, tmpdir);
	CU_ASSERT_STRING_EQUAL(c.text, full);
	CU_ASSERT_PTR_NOT_NULL(c.resolved);
	/* Line numbers counted by the reader (inih's Debian build has none). */
	const struct cfg_origin *o = origin_of(&c, "traffic.fl", "flow", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(o->line, 53);
	CU_ASSERT_STRING_EQUAL(o->value, "host0 host1 1MB 0us");
	o = origin_of(&c, "traffic.fl", "flow", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(o->line, 54);
	CU_ASSERT_STRING_EQUAL(o->value, "host2 host3 1.5KiB 1.5us");
	CU_ASSERT_PTR_NULL(origin_of(&c, "traffic.fl", "flow", 2));
	CU_ASSERT_EQUAL(mcast_cfg_of(&c)->groups[1].line, 30);
	config_free(&c);
	CU_ASSERT_PTR_NULL(c.path);
}

static void test_defaults(void)
{
	struct config c;
	char *err;
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR, NULL, 0, &err), 0);
	const struct sim_cfg *sim = scenario_sim(&c);
	CU_ASSERT_EQUAL(sim->seed, 1);
	CU_ASSERT_EQUAL(sim->stop, SIMTIME_NEVER);
	CU_ASSERT_EQUAL(sim->progress, PROGRESS_AUTO);
	CU_ASSERT_EQUAL(topology_cfg(&c)->host_link_rate_bps, topology_cfg(&c)->link_rate_bps);
	const struct switch_cfg *sw = cfg_get(&c, &switch_section);
	CU_ASSERT_TRUE(sw->headroom_auto);
	CU_ASSERT_TRUE(sw->ecn);
	CU_ASSERT_TRUE(sw->ecn_kmin_default);
	CU_ASSERT_TRUE(sw->ecn_kmax_default);
	CU_ASSERT_EQUAL(sw->pfc_alpha.scalar, 0.125);
	CU_ASSERT_EQUAL(sw->ecmp, ECMP_FLOW);
	CU_ASSERT_EQUAL(nic_cfg_of(&c)->mtu, 1024);
	CU_ASSERT_EQUAL(nic_cfg_of(&c)->loss_recovery, LR_GBN);
	const struct dcqcn_cfg *dc = cfg_get(&c, &dcqcn_section);
	CU_ASSERT_EQUAL(dc->g, 0.00390625);
	CU_ASSERT_TRUE(dc->rai_default);
	CU_ASSERT_TRUE(dc->rhai_default);
	struct dcqcn st;
	cc_dcqcn.init(&st, dc, &(struct cc_env){ .line_bps = topology_cfg(&c)->host_link_rate_bps }, 0);
	CU_ASSERT_EQUAL(st.rai_bps, 20000000);     /* 5Mbps x 100G/25G */
	CU_ASSERT_EQUAL(st.rhai_bps, 200000000);
	CU_ASSERT(resolved_has(&c, "dcqcn", "; rai = 20Mbps at 100Gbps (default: 5Mbps per 25Gbps of host link "
			       "rate, as HPCC)"));
	CU_ASSERT_TRUE(dc->byte_counter_off);
	CU_ASSERT_EQUAL(cfg_count(&c, &job_section), 0);
	CU_ASSERT_EQUAL(cfg_count(&c, &traffic_section), 0);
	CU_ASSERT_PTR_NULL(cfg_next(&c, &traffic_section, NULL));
	CU_ASSERT_EQUAL(c.n_origins, 4);
	/* Every section that is not named is there, with its defaults. */
	for (size_t s = 0; rocesim_schema.section_at(s); s++) {
		const struct cfg_section *sec = rocesim_schema.section_at(s);
		CU_ASSERT_EQUAL(cfg_inst(&c, sec) != NULL, !sec->named);
		if (!sec->named)
			CU_ASSERT_PTR_NOT_NULL(cfg_get(&c, sec));
	}
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
	const struct switch_cfg *sw = cfg_get(&c, &switch_section);
	CU_ASSERT_EQUAL(cfg_rate_map_get(&sw->ecn_kmin, 400000000000ULL, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 1600000);
	CU_ASSERT_EQUAL(cfg_rate_map_get(&sw->ecn_pmax, 40000000000ULL, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 0.2);
	CU_ASSERT_EQUAL(cfg_rate_map_get(&sw->ecn_kmax, 40000000000ULL, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 640000);  /* HPCC's default: 400KB x 40/25 */
	CU_ASSERT_EQUAL(cfg_rate_map_get(&sw->ecn_kmin, 40000000000ULL, &v, &err), -1);
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
	CU_ASSERT_FALSE(((const struct switch_cfg *)cfg_get(&c, &switch_section))->pfc);
	/* star's hosts: in the resolved text and in the built star. */
	CU_ASSERT(resolved_has(&c, "topology", "hosts = 16"));
	struct topo t;
	CU_ASSERT_EQUAL_FATAL(topology_build(&c, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_hosts, 16);
	topology_free(&t);
	CU_ASSERT_EQUAL(scenario_sim(&c)->seed, 9);
	CU_ASSERT_EQUAL_FATAL(cfg_count(&c, &job_section), 1);
	CU_ASSERT_STRING_EQUAL(cfg_next(&c, &job_section, NULL)->name, "new");
	/* A repeated key adds an entry, located at --set (line 0). */
	CU_ASSERT_EQUAL(resolved_count(&c, "traffic.f", "flow = "), 2);
	CU_ASSERT(resolved_has(&c, "traffic.f", "flow = host0 host1 1KB 0s"));
	CU_ASSERT(resolved_has(&c, "traffic.f", "flow = host3 host4 2KB 1us"));
	const struct cfg_origin *o = origin_of(&c, "traffic.f", "flow", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(o->line, 0);
	CU_ASSERT_STRING_EQUAL(o->file, "--set");
	/* Its source finds both flows on 16 hosts. */
	uint64_t flows = 0;
	CU_ASSERT_EQUAL(check_run(&c, &flows, &err), EXIT_SUCCESS);
	if (err)
		fprintf(stderr, "\n  %s\n", err);
	free(err);
	CU_ASSERT_EQUAL(flows, 2);
	/* Origins say where the effective value came from. */
	char *m = cfg_error_at(&c, "switch", "pfc", 0, "test");
	CU_ASSERT_STRING_EQUAL(m, "--set: [switch] pfc = 'off': test");
	free(m);
	config_free(&c);
	/* An error in the flow given with --set is located there. */
	struct cfg_override bad_flow[] = { { "traffic.f", "flow", "host3 nobody 2KB 1us" } };
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, bad_flow, 1, &err), 0);
	CU_ASSERT_EQUAL(check_run(&c, NULL, &err), EXIT_INPUT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "--set: [traffic.f] flow = 'host3 nobody 2KB 1us': unknown host 'nobody'"));
	free(err);
	config_free(&c);

	struct cfg_override bad[] = { { "switch", "pfc", "maybe" } };
	EXPECT_ERROR_SET(STAR, bad, 1, "--set: [switch] pfc = 'maybe': expected a boolean (on/off, true/false, yes/no)");
	struct cfg_override unk[] = { { "switch", "pfx", "1" } };
	EXPECT_ERROR_SET(STAR, unk, 1, "--set: [switch] unknown key 'pfx' (did you mean 'pfc'?): expected one of buffer, pfc");
	struct cfg_override sec[] = { { "swtch", "pfc", "1" } };
	EXPECT_ERROR_SET(STAR, sec, 1, "--set: unknown section [swtch] (did you mean 'switch'?): expected one of simulation");
	struct cfg_override fix[] = { { "nic", "mtu", "2048" } };
	CU_ASSERT_EQUAL_FATAL(load_text(&c, STAR "[nic]\nmtu = 99999\n", fix, 1, &err), 0);  /* before validation */
	CU_ASSERT_EQUAL(nic_cfg_of(&c)->mtu, 2048);
	config_free(&c);
	struct cfg_override typ[] = { { "topology", "type", "dumbbell" } };
	EXPECT_ERROR_SET(STAR, typ, 1, "scen.ini:3: [topology] hosts = '4': expected a key of type dumbbell");
	struct cfg_override miss[] = { { "job.x", "tp", "2" } };
	EXPECT_ERROR_SET(STAR, miss, 1, "--set: [job.x] missing required key 'model'");
}

static void test_paths(void)
{
	struct config c;
	char *err = NULL, path[600], line[700], *cwd = getcwd(NULL, 0);
	tmp_file("topo.txt", "1 1 0\n0\n");
	tmp_file("sizes.cdf", "1 0\n2 100\n");
	const char *text = "[topology]\ntype = hpcc\nfile = topo.txt\nlink_rate = 100Gbps\nlink_delay = 1us\n"
			   "[simulation]\noutput = out/r.db\n"
			   "[traffic.p]\ntype = poisson\nload = 0.5\ncdf = sizes.cdf\n";
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, NULL, 0, &err), 0);
	snprintf(line, sizeof line, "file = %s/topo.txt", tmpdir);
	CU_ASSERT(resolved_has(&c, "topology", line));         /* relative to the scenario */
	snprintf(path, sizeof path, "%s/sizes.cdf", tmpdir);
	snprintf(line, sizeof line, "cdf = %s", path);
	CU_ASSERT(resolved_has(&c, "traffic.p", line));
	CU_ASSERT_STRING_EQUAL(scenario_sim(&c)->output, "out/r.db");  /* outputs: relative to the cwd */
	/* poisson's cdf: a built-in name or a path (KT_DATA), the key found in
	 * the loaded section's type. */
	const struct cfg_type *poisson = cfg_next(&c, &traffic_section, NULL)->type;
	const struct cfg_key *cdf = poisson->keys;
	while (cdf < poisson->keys + poisson->n_keys && strcmp(cdf->name, "cdf") != 0)
		cdf++;
	CU_ASSERT_FATAL(cdf < poisson->keys + poisson->n_keys);
	CU_ASSERT_EQUAL(cdf->type, KT_DATA);
	char *found = cfg_find_data(&c, cdf, path);
	CU_ASSERT_PTR_NOT_NULL(found);
	if (found)
		CU_ASSERT_STRING_EQUAL(found, path);
	free(found);
	found = cfg_find_data(&c, cdf, "websearch");
	CU_ASSERT_PTR_NOT_NULL(found);
	if (found)
		CU_ASSERT_PTR_NOT_NULL(strstr(found, "cdf/websearch.cdf"));
	free(found);
	CU_ASSERT_PTR_NULL(cfg_find_data(&c, cdf, "no-such-file.cdf"));
	config_free(&c);

	/* With --set, a relative input path is relative to the current folder. */
	struct cfg_override ov[] = { { "topology", "file", "topo.txt" } };
	CU_ASSERT_EQUAL_FATAL(chdir("/"), 0);
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, ov, 1, &err), -1);  /* / has no topo.txt */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "--set: [topology] file = 'topo.txt': expected a readable file"));
	free(err);
	CU_ASSERT_EQUAL_FATAL(chdir(tmpdir), 0);
	CU_ASSERT_EQUAL_FATAL(load_text(&c, text, ov, 1, &err), 0);
	snprintf(line, sizeof line, "file = %s/topo.txt", tmpdir);  /* the cwd's topo.txt */
	CU_ASSERT(resolved_has(&c, "topology", line));
	config_free(&c);
	CU_ASSERT_EQUAL(chdir(cwd), 0);
	free(cwd);

	EXPECT_ERROR("[topology]\ntype = hpcc\nfile = missing.txt\nlink_rate = 1Gbps\nlink_delay = 1us\n",
		     "scen.ini:3: [topology] file = 'missing.txt': expected a readable file", "No such file");
}

/* The resolved text is itself a scenario that loads to the same values
 * (that it resolves to the same text: test_config_text.c). */
static void test_resolved_values(void)
{
	struct config a, b;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(load_text(&a, full, NULL, 0, &err), 0);
	const char *p = tmp_file("resolved.ini", a.resolved);
	int rc = scenario_load(&b, p, NULL, 0, &err);
	if (rc)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	check_full(&b);
	const struct switch_cfg *sa = cfg_get(&a, &switch_section), *sb = cfg_get(&b, &switch_section);
	CU_ASSERT_EQUAL(sb->ecn_kmin.val[1], sa->ecn_kmin.val[1]);
	CU_ASSERT_EQUAL(sb->ecn_kmin.rate_bps[1], sa->ecn_kmin.rate_bps[1]);
	const struct dcqcn_cfg *da = cfg_get(&a, &dcqcn_section), *db = cfg_get(&b, &dcqcn_section);
	CU_ASSERT_EQUAL(db->rhai_default, da->rhai_default);
	config_free(&b);
	config_free(&a);
}

TEST_MAIN("config",
	  { "full scenario", test_full_scenario },
	  { "defaults", test_defaults },
	  { "per-rate maps", test_rate_maps },
	  { "--set overrides", test_overrides },
	  { "paths", test_paths },
	  { "the resolved text loads to the same values", test_resolved_values })
