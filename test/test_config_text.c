/*
 * test_config_text.c — the text a loaded scenario gives back: its resolved
 * text (run.config) loads again and resolves to itself, for a scenario of
 * every section and every traffic type, one with paths and the defaults;
 * and the key reference of `sim --keys` lists every section, type and key
 * of the schema with its type, default and help. Values are checked in
 * test_config.c.
 */
#define _GNU_SOURCE
#include "config_fixture.h"
#include "nic.h"
#include "observe.h"
#include "topology.h"
#include "traffic.h"

/* Loads text, then its resolved text: both load, and resolve to the same
 * text after the first line. */
static void roundtrip_text(const char *what, const char *text)
{
	struct config a;
	char *err = NULL;
	int rc = load_text(&a, text, NULL, 0, &err);
	if (rc)
		fprintf(stderr, "\n  %s: %s\n", what, err);
	free(err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	expect_roundtrip(what, &a);
	config_free(&a);
}

/* An hpcc topology (a path, resolved against the scenario's folder) and
 * pcap taps; and the defaults alone. */
static void test_roundtrip_paths(void)
{
	tmp_file("topo.txt", "1 1 0\n0\n");
	const char *hpcc = "[topology]\ntype = hpcc\nfile = topo.txt\n[pcap]\ntaps = sw0:1 host0\nsnaplen = 128B\n";
	roundtrip_text("hpcc and pcap", hpcc);
	struct config a;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(load_text(&a, hpcc, NULL, 0, &err), 0);
	char file_line[400];
	snprintf(file_line, sizeof file_line, "file = %s/topo.txt", tmpdir);
	CU_ASSERT(resolved_has(&a, "topology", file_line));
	CU_ASSERT_EQUAL(((const struct pcap_cfg *)cfg_get(&a, &pcap_section))->snaplen_b, 128);
	config_free(&a);
	roundtrip_text("defaults", "[topology]\ntype = star\nhosts = 2\nlink_rate = 10Gbps\nlink_delay = 1us\n");
}

/* Every section of the schema given with keys of its own, and every type of
 * [traffic.NAME]. */
static const char every[] = FULL "\n"
	"[failure]\nlink = tor0 agg0:p1 1ms 2ms\nswitch = agg1 3ms\ndetection = 10us\n"
	"mtbf = fabric 10ms\nmttr = fabric 1ms\nhorizon = 5ms\n"
	"loss = tor0 agg0 1e-4\nloss = all 0.000001\nloss = host1 tor0 0\n"
	"[pcap]\ntaps = sw0:1 host0\nsnaplen = 128B\ndir = caps\n"
	"[hpcc]\neta = 0.9\nrai = 20Mbps\nfast_react = off\n"
	"[swift]\nbase_target = 15us\nfs_range = 40us\nmax_mdf = 0.25\n"
	"[output]\nqueue_sample_interval = 10us\nlink_sample_interval = 20us\ncc_sample_interval = 5us\n"
	"sample_ports = tor0:1 tor1\nflow_paths = on\nhpcc_fct = fct.txt\n"
	"[timely]\nt_low = 40us\nrai = 10Mbps\nhai_after = 3\n"
	"[dctcp]\ng = 0.125\nrai = 615Mbps\n"
	"[parallel]\npartition = metis\n"
	"[traffic.in]\ntype = incast\nsenders = host1, host2\nreceiver = host0\nsize = 1MB\nstart = 1us\n"
	"[traffic.perm]\ntype = permutation\nsize = 10KB\n"
	"[traffic.a2a]\ntype = all_to_all\nsize = 1KiB\nstart = 2us\n"
	"[traffic.h]\ntype = hpcc\nfile = " ROCESIM_SRCDATADIR "/hpcc/flow_websearch30_5ms.txt\n"
	"[traffic.p2]\ntype = poisson\nload = 1\ncdf = websearch\nhosts = host0 host3\nstart = 1us\n";

static void test_roundtrip_every(void)
{
	/* The scenario does give every section and traffic type. */
	for (size_t s = 0; rocesim_schema.section_at(s); s++) {
		const struct cfg_section *sec = rocesim_schema.section_at(s);
		char head[64];
		snprintf(head, sizeof head, sec->named ? "\n[%s." : "\n[%s]\n", sec->name);
		CU_ASSERT_PTR_NOT_NULL(strstr(every, head));
		if (!strstr(every, head))
			fprintf(stderr, "\n  the scenario has no section [%s]\n", sec->name);
	}
	for (size_t i = 0; traffic_section.type_at(i); i++) {
		char want[64];
		snprintf(want, sizeof want, "\ntype = %s\n", traffic_section.type_at(i)->name);
		CU_ASSERT_PTR_NOT_NULL(strstr(every, want));
	}
	roundtrip_text("every section", every);

	struct config c;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(load_text(&c, every, NULL, 0, &err), 0);
	CU_ASSERT_EQUAL(cfg_count(&c, &traffic_section), 9);
	const struct pcap_cfg *pc = cfg_get(&c, &pcap_section);
	CU_ASSERT_EQUAL(pc->n_taps, 2);
	CU_ASSERT_STRING_EQUAL(pc->dir, "caps");
	const struct output_cfg *out = cfg_get(&c, &output_section);
	CU_ASSERT_EQUAL(out->link_sample_interval, 20 * SIMTIME_US);
	CU_ASSERT_EQUAL(out->n_sample_ports, 2);
	CU_ASSERT_TRUE(out->flow_paths);
	CU_ASSERT_STRING_EQUAL(out->hpcc_fct, "fct.txt");
	CU_ASSERT(resolved_has(&c, "traffic.in", "senders = host1, host2"));
	CU_ASSERT(resolved_has(&c, "traffic.in", "receiver = host0"));
	CU_ASSERT(resolved_has(&c, "traffic.a2a", "size = 1KiB"));
	CU_ASSERT(resolved_has(&c, "traffic.p2", "hosts = host0, host3"));
	CU_ASSERT(resolved_has(&c, "failure", "link = tor0 agg0:p1 1ms 2ms"));
	CU_ASSERT(resolved_has(&c, "failure", "switch = agg1 3ms"));
	CU_ASSERT(resolved_has(&c, "failure", "mtbf = fabric 10ms"));
	CU_ASSERT(resolved_has(&c, "failure", "mttr = fabric 1ms"));
	config_free(&c);
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

/* Checks the line of key k (indented by `indent`) in text [from, to): there
 * once, with its help, its default, and "; required" when it is. */
static void check_key_line(const char *from, const char *to, const char *where, const char *indent,
			   const struct cfg_key *k)
{
	char want[96];
	snprintf(want, sizeof want, "\n%s%s ", indent, k->name);
	const char *at = strstr(from, want);
	bool ok = at && at < to;
	if (!ok)
		fprintf(stderr, "\n  key %s of %s missing\n", k->name, where);
	CU_ASSERT(ok);
	if (!ok)
		return;
	const char *again = strstr(at + 1, want);
	CU_ASSERT(!again || again >= to);   /* once */
	char *line = strndup(at + 1, strcspn(at + 1, "\n"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	char tail[512];
	snprintf(tail, sizeof tail, " -- %s", k->help);
	CU_ASSERT(strlen(line) >= strlen(tail) && strcmp(line + strlen(line) - strlen(tail), tail) == 0);
	char def[256];
	if (k->def)
		snprintf(def, sizeof def, "; default %s -- ", k->def);
	else if (k->def_doc)
		snprintf(def, sizeof def, "; default: %s -- ", k->def_doc);
	else
		snprintf(def, sizeof def, "%s", k->required ? "; required -- " : "; default: unset -- ");
	CU_ASSERT_PTR_NOT_NULL(strstr(line, def));
	CU_ASSERT_EQUAL(strstr(line, "; required") != NULL, k->required);
	if (!strstr(line, def))
		fprintf(stderr, "\n  line '%s' lacks '%s'\n", line, def);
	free(line);
}

/* `sim --keys`: every section of the schema once, in its order, with every
 * key of its table on a line of its own under it; a section with types
 * lists each type of its registry with every key of the type's table under
 * it, and the section's keys it does not need; type, default and help
 * given. Nothing else is listed as a key. */
static void test_print_keys(void)
{
	FILE *f = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	config_print_keys(&rocesim_schema, f);
	char *text = read_all(f);
	fclose(f);

	size_t n_sec = 0, n_keys = 0;
	while (rocesim_schema.section_at(n_sec))
		n_sec++;
	CU_ASSERT_FATAL(n_sec >= 10);
	const char **sec_at = calloc(n_sec + 1, sizeof *sec_at);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sec_at);
	const char *prev = text;
	for (size_t s = 0; s < n_sec; s++) {
		const struct cfg_section *sec = rocesim_schema.section_at(s);
		char head[64];
		snprintf(head, sizeof head, "\n[%s%s]%s", sec->name, sec->named ? ".NAME" : "",
			 sec->help ? " -- " : "\n");
		sec_at[s] = strstr(text, head);
		if (!sec_at[s])
			fprintf(stderr, "\n  section [%s] missing\n", sec->name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sec_at[s]);
		CU_ASSERT(sec_at[s] >= prev);                          /* the schema's order */
		CU_ASSERT_PTR_NULL(strstr(sec_at[s] + 1, head));       /* once */
		prev = sec_at[s];
	}
	sec_at[n_sec] = text + strlen(text);
	for (size_t s = 0; s < n_sec; s++) {
		const struct cfg_section *sec = rocesim_schema.section_at(s);
		const char *end = sec_at[s + 1];
		/* The section's own keys, before its types (listed as "  KEY = NAME",
		 * KEY its type key: `type`, [job]'s `workload`). */
		char type_line[64];
		snprintf(type_line, sizeof type_line, "\n  type = ");
		for (size_t i = 0; i < sec->n_keys; i++)
			if (sec->keys[i].type == KT_TYPE)
				snprintf(type_line, sizeof type_line, "\n  %s = ", sec->keys[i].name);
		const char *types = strstr(sec_at[s], type_line);
		if (!types || types > end)
			types = end;
		for (size_t i = 0; i < sec->n_keys; i++)
			check_key_line(sec_at[s], types, sec->name, "  ", &sec->keys[i]);
		n_keys += sec->n_keys;
		/* Each type, in registry order, with its keys. */
		const char *tprev = sec_at[s];
		for (size_t t = 0; sec->type_at && sec->type_at(t); t++) {
			const struct cfg_type *ty = sec->type_at(t);
			char head[256], where[128];
			snprintf(head, sizeof head, "%s%s -- %s\n", type_line, ty->name, ty->help);
			snprintf(where, sizeof where, "[%s] type %s", sec->name, ty->name);
			const char *at = strstr(sec_at[s], head);
			CU_ASSERT(at && at < end && at >= tprev);
			if (!at || at >= end) {
				fprintf(stderr, "\n  %s missing\n", where);
				continue;
			}
			tprev = at;
			const char *tend = strstr(at + 1, type_line);
			if (!tend || tend > end)
				tend = end;
			for (size_t i = 0; ty->not_required && ty->not_required[i]; i++) {
				char w[96];
				snprintf(w, sizeof w, "\n    (%s: not needed)\n", ty->not_required[i]);
				const char *nr = strstr(at, w);
				CU_ASSERT(nr && nr < tend);
			}
			for (size_t i = 0; i < ty->n_keys; i++)
				check_key_line(at, tend, where, "    ", &ty->keys[i]);
			n_keys += ty->n_keys;
		}
	}
	/* Every key line is one of those. */
	size_t lines = 0;
	for (const char *l = strchr(text, '\n'); l; l = strchr(l + 1, '\n')) {
		const char *p = l + 1;
		/* p + 2 only past two spaces: the text may end right after a newline. */
		size_t w = strncmp(p, "  ", 2) == 0 ? strspn(p + 2, "abcdefghijklmnopqrstuvwxyz_") : 0;
		if (w && strncmp(p + 2 + w, " = ", 3) == 0)
			continue; /* a type's line */
		if ((strncmp(p, "  ", 2) == 0 && p[2] >= 'a' && p[2] <= 'z') ||
		    (strncmp(p, "    ", 4) == 0 && p[4] >= 'a' && p[4] <= 'z'))
			lines++;
	}
	CU_ASSERT_EQUAL(lines, n_keys);
	free(sec_at);

	/* Spot checks of the wording. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  mtu                    integer from 256 to 9000; default 1024 -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  type = fat_tree -- three-tier k-ary fat tree (Al-Fares et al.)\n"
				      "    k                    even integer >= 2; required -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  ecmp                   one of flow|packet; default flow -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  host_link_rate         rate > 0; default: link_rate -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n    cdf                  websearch|hadoop|alistorage2019|googlerpc2008 or a path;"
				      " default websearch -- "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  type = hpcc -- HPCC ns-3's topology.txt, with its links' rates and delays\n"
				      "    (link_rate: not needed)\n    (link_delay: not needed)\n"
				      "    file                 path (input file); required -- "));
	free(text);
}

TEST_MAIN("config_text",
	  { "resolved text round trip: paths, defaults", test_roundtrip_paths },
	  { "round trip of every section and type", test_roundtrip_every },
	  { "key reference (sim --keys)", test_print_keys })
