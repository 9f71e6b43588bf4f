/*
 * test_cli.c — the command line (models/run/cli.c, docs/scenario.md "Command line").
 *
 * Options before and after the scenario, the --set split rule, --seed
 * validation, and every usage error: status 2 with "sim: ..." and the
 * --help hint on stderr, which the tests capture and check. cli_parse is
 * called many times in one process, which also checks that it resets
 * getopt's global state.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "testutil.h"

/* argv from a NULL-terminated list; getopt permutes the array, so each
 * call gets a fresh one. */
static char *argv_buf[32];
static int make_argv(va_list ap)
{
	int argc = 0;
	argv_buf[argc++] = "sim";
	for (char *a; (a = va_arg(ap, char *)) != NULL; )
		argv_buf[argc++] = a;
	argv_buf[argc] = NULL;
	return argc;
}

static int parse(struct cli *c, ...)
{
	va_list ap;
	va_start(ap, c);
	int argc = make_argv(ap);
	va_end(ap);
	return cli_parse(argc, argv_buf, c);
}

static char errbuf[4096];

/* Parses with stderr captured into errbuf; returns the status. */
static int parse_err(struct cli *c, ...)
{
	va_list ap;
	va_start(ap, c);
	int argc = make_argv(ap);
	va_end(ap);

	const char *path = tmp_file("stderr.txt", "");
	int saved = fd_to(STDERR_FILENO, path);
	int rc = cli_parse(argc, argv_buf, c);
	fd_restore(STDERR_FILENO, saved);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	size_t n = fread(errbuf, 1, sizeof errbuf - 1, f);
	errbuf[n] = '\0';
	fclose(f);
	return rc;
}

/* A usage error: status 2, "sim: " + what, the hint, nothing kept. */
#define CHECK_USAGE_ERROR(c, needle, ...) do { \
	int rc_ = parse_err(&(c), __VA_ARGS__, NULL); \
	CU_ASSERT_EQUAL(rc_, 2); \
	CU_ASSERT(strncmp(errbuf, "sim: ", 5) == 0); \
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "Try 'sim --help' for more information.\n")); \
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, (needle))); \
	if (!strstr(errbuf, (needle))) fprintf(stderr, "stderr was: %s", errbuf); \
	CU_ASSERT_EQUAL((c).n_sets, 0); \
	CU_ASSERT_PTR_NULL((c).sets); \
	cli_free(&(c)); } while (0)

static void check_set(const struct cli *c, size_t i, const char *section, const char *key,
		      const char *value)
{
	CU_ASSERT_FATAL(i < c->n_sets);
	CU_ASSERT_STRING_EQUAL(c->sets[i].section, section);
	CU_ASSERT_STRING_EQUAL(c->sets[i].key, key);
	CU_ASSERT_STRING_EQUAL(c->sets[i].value, value);
}

static void test_defaults(void)
{
	struct cli c;
	CU_ASSERT_EQUAL(parse(&c, "scen.ini", NULL), 0);
	CU_ASSERT_STRING_EQUAL(c.scenario, "scen.ini");
	CU_ASSERT_PTR_NULL(c.output);
	CU_ASSERT_PTR_NULL(c.pcap_dir);
	CU_ASSERT_FALSE(c.append || c.quiet || c.check || c.help || c.version || c.keys);
	CU_ASSERT_EQUAL(c.n_sets, 0);
	cli_free(&c);
	cli_free(&c);   /* harmless twice */
}

static void test_options_before_and_after(void)
{
	struct cli c;
	CU_ASSERT_EQUAL(parse(&c, "-q", "-o", "out.db", "scen.ini", "--append", "--pcap", "caps",
			      "--check", NULL), 0);
	CU_ASSERT_STRING_EQUAL(c.scenario, "scen.ini");
	CU_ASSERT_STRING_EQUAL(c.output, "out.db");
	CU_ASSERT_STRING_EQUAL(c.pcap_dir, "caps");
	CU_ASSERT_TRUE(c.quiet && c.append && c.check);
	cli_free(&c);

	/* All after, long forms, "=" forms. */
	CU_ASSERT_EQUAL(parse(&c, "scen.ini", "--output=o2.db", "--quiet", "--pcap=d", NULL), 0);
	CU_ASSERT_STRING_EQUAL(c.scenario, "scen.ini");
	CU_ASSERT_STRING_EQUAL(c.output, "o2.db");
	CU_ASSERT_STRING_EQUAL(c.pcap_dir, "d");
	CU_ASSERT_TRUE(c.quiet);
	CU_ASSERT_FALSE(c.append || c.check);
	cli_free(&c);

	/* Short options glued to their values, clustered flags; the last -o wins. */
	CU_ASSERT_EQUAL(parse(&c, "-oa.db", "x.ini", "-qo", "b.db", NULL), 0);
	CU_ASSERT_STRING_EQUAL(c.output, "b.db");
	CU_ASSERT_STRING_EQUAL(c.scenario, "x.ini");
	CU_ASSERT_TRUE(c.quiet);
	cli_free(&c);

	/* "--" ends the options: a scenario named like an option. */
	CU_ASSERT_EQUAL(parse(&c, "-q", "--", "-weird.ini", NULL), 0);
	CU_ASSERT_STRING_EQUAL(c.scenario, "-weird.ini");
	cli_free(&c);
}

static void test_set_split(void)
{
	struct cli c;
	CU_ASSERT_EQUAL(parse(&c, "--set", "switch.pfc=off", "s.ini", "-s", "job.moe.tp=8",
			      "--set=traffic.ws.file=/x/f.txt", "-snic.mtu=4096",
			      "--set", "traffic.a.b.c=x=y.z", "--set", "simulation.output=", NULL), 0);
	CU_ASSERT_STRING_EQUAL(c.scenario, "s.ini");
	CU_ASSERT_EQUAL(c.n_sets, 6);
	check_set(&c, 0, "switch", "pfc", "off");
	check_set(&c, 1, "job.moe", "tp", "8");
	check_set(&c, 2, "traffic.ws", "file", "/x/f.txt");
	check_set(&c, 3, "nic", "mtu", "4096");
	/* First '=' splits; the last dot before it. */
	check_set(&c, 4, "traffic.a.b", "c", "x=y.z");
	check_set(&c, 5, "simulation", "output", "");
	cli_free(&c);
}

static void test_seed(void)
{
	struct cli c;
	/* --seed is a --set, in command-line order with the others. */
	CU_ASSERT_EQUAL(parse(&c, "--set", "nic.mtu=1000", "s.ini", "--seed", "42", NULL), 0);
	CU_ASSERT_EQUAL(c.n_sets, 2);
	check_set(&c, 0, "nic", "mtu", "1000");
	check_set(&c, 1, "simulation", "seed", "42");
	cli_free(&c);
	CU_ASSERT_EQUAL(parse(&c, "--seed=0", "s.ini", NULL), 0);
	check_set(&c, 0, "simulation", "seed", "0");
	cli_free(&c);
	CU_ASSERT_EQUAL(parse(&c, "--seed", "18446744073709551615", "s.ini", NULL), 0);
	cli_free(&c);

	CHECK_USAGE_ERROR(c, "--seed", "--seed", "-1", "s.ini");
	CHECK_USAGE_ERROR(c, "'abc'", "--seed", "abc", "s.ini");
	CHECK_USAGE_ERROR(c, "--seed", "--seed", "12x", "s.ini");
	CHECK_USAGE_ERROR(c, "--seed", "--seed=", "s.ini");
	CHECK_USAGE_ERROR(c, "--seed", "--seed", "18446744073709551616", "s.ini");
	/* A good --set before a bad --seed: nothing kept. */
	CHECK_USAGE_ERROR(c, "--seed", "-s", "a.b=c", "--seed", "1.5", "s.ini");
}

static void test_bad_set(void)
{
	struct cli c;
	CHECK_USAGE_ERROR(c, "'nodot=1'", "--set", "nodot=1", "s.ini");
	CHECK_USAGE_ERROR(c, "'switch.pfc'", "--set", "switch.pfc", "s.ini");   /* no '=' */
	CHECK_USAGE_ERROR(c, "SECTION.KEY=VALUE", "--set", ".pfc=on", "s.ini");   /* empty section */
	CHECK_USAGE_ERROR(c, "SECTION.KEY=VALUE", "--set", "switch.=on", "s.ini"); /* empty key */
	CHECK_USAGE_ERROR(c, "SECTION.KEY=VALUE", "--set", "=on", "s.ini");
	/* The dot must be in the left part: a dotted value does not count. */
	CHECK_USAGE_ERROR(c, "SECTION.KEY=VALUE", "--set", "pfc=a.b", "s.ini");
	CHECK_USAGE_ERROR(c, "missing argument", "s.ini", "--set");
	CHECK_USAGE_ERROR(c, "'-s'", "s.ini", "-s");
}

static void test_scenario_count(void)
{
	struct cli c;
	CHECK_USAGE_ERROR(c, "no scenario", "-q");
	CHECK_USAGE_ERROR(c, "no scenario", "--set", "a.b=c");
	CHECK_USAGE_ERROR(c, "'b.ini'", "a.ini", "-q", "b.ini");
	CHECK_USAGE_ERROR(c, "more than one scenario", "a.ini", "b.ini", "c.ini");
	int rc = parse_err(&c, NULL);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "sim: no scenario given\n"));
	cli_free(&c);
}

static void test_unknown_options(void)
{
	struct cli c;
	CHECK_USAGE_ERROR(c, "unknown option '--frobnicate'", "s.ini", "--frobnicate");
	CHECK_USAGE_ERROR(c, "unknown option '--frob'", "--frob=3", "s.ini");
	CHECK_USAGE_ERROR(c, "unknown option '-z'", "-z", "s.ini");
	CHECK_USAGE_ERROR(c, "unknown option '-z'", "-qz", "s.ini");
	CHECK_USAGE_ERROR(c, "missing argument to option '-o'", "s.ini", "-o");
	CHECK_USAGE_ERROR(c, "missing argument to option '--output'", "s.ini", "--output");
	CHECK_USAGE_ERROR(c, "'--pcap'", "s.ini", "--pcap");
	CHECK_USAGE_ERROR(c, "takes no argument", "s.ini", "--quiet=yes");
	CHECK_USAGE_ERROR(c, "takes no argument", "s.ini", "--append=1");
	/* --se is ambiguous (--set, --seed). */
	CHECK_USAGE_ERROR(c, "'--se'", "--se", "x", "s.ini");
}

static void test_help_version(void)
{
	struct cli c;
	/* -h and -V need no scenario. */
	CU_ASSERT_EQUAL(parse(&c, "-h", NULL), 0);
	CU_ASSERT_TRUE(c.help);
	cli_free(&c);
	CU_ASSERT_EQUAL(parse(&c, "--version", NULL), 0);
	CU_ASSERT_TRUE(c.version);
	cli_free(&c);
	CU_ASSERT_EQUAL(parse(&c, "a.ini", "b.ini", "--help", NULL), 0);
	CU_ASSERT_TRUE(c.help);
	cli_free(&c);
	/* Abbreviated long options, as getopt_long allows. */
	CU_ASSERT_EQUAL(parse(&c, "--app", "--che", "s.ini", NULL), 0);
	CU_ASSERT_TRUE(c.append && c.check);
	cli_free(&c);

	/* The help lists every option of docs/scenario.md and the exit statuses. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cli_usage(f);
	fclose(f);
	static const char *const want[] = {
		"Usage: sim [options] SCENARIO.ini [options]",
		"-o, --output FILE", "--append", "-s, --set SECTION.KEY=VALUE", "--seed N",
		"--pcap DIR", "-q, --quiet", "--check", "-h, --help", "-V, --version",
		("      --keys               print every scenario section and key with its\n"
		 "                           type, default and meaning, and exit\n"),
		"Exit status:", "  0  finished", "  1  internal failure", "  2  bad input",
		"  3  stopped by a detected PFC deadlock or stall",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
		if (!strstr(text, want[i]))
			fprintf(stderr, "help lacks '%s'\n", want[i]);
	}
	/* No line wider than a terminal. */
	for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		CU_ASSERT(nl - line <= 80);
	free(text);
}

/* --keys prints the key reference and exits: it needs no scenario, and
 * ignores one given (as --help does); it takes no argument. */
static void test_keys(void)
{
	struct cli c;
	CU_ASSERT_EQUAL(parse(&c, "--keys", NULL), 0);
	CU_ASSERT_TRUE(c.keys);
	CU_ASSERT_FALSE(c.help || c.version || c.check);
	CU_ASSERT_PTR_NULL(c.scenario);
	cli_free(&c);
	CU_ASSERT_FALSE(c.keys);   /* cli_free zeroes */
	CU_ASSERT_EQUAL(parse(&c, "s.ini", "-q", "--keys", NULL), 0);
	CU_ASSERT_TRUE(c.keys && c.quiet);
	cli_free(&c);
	CU_ASSERT_EQUAL(parse(&c, "--ke", NULL), 0);   /* abbreviated */
	CU_ASSERT_TRUE(c.keys);
	cli_free(&c);
	CHECK_USAGE_ERROR(c, "option takes no argument: '--keys'", "--keys=all");
	CU_ASSERT_EQUAL(parse(&c, "s.ini", NULL), 0);
	CU_ASSERT_FALSE(c.keys);
	cli_free(&c);
}

/* --sweep (kept as given, in order; its values are the sweep's to split)
 * and -j: a number of processes, and only with --sweep. */
static void test_sweep(void)
{
	struct cli c;
	CU_ASSERT_EQUAL(parse(&c, "--sweep", "nic.cc=none,dcqcn", "s.ini", "-j", "3", "--sweep=job.moe.tp=2,4",
			      "--set", "nic.mtu=4000", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(c.n_sweeps, 2);
	CU_ASSERT_STRING_EQUAL(c.sweeps[0], "nic.cc=none,dcqcn");
	CU_ASSERT_STRING_EQUAL(c.sweeps[1], "job.moe.tp=2,4");
	CU_ASSERT_EQUAL(c.jobs, 3);
	CU_ASSERT_STRING_EQUAL(c.scenario, "s.ini");
	check_set(&c, 0, "nic", "mtu", "4000");
	cli_free(&c);
	CU_ASSERT_PTR_NULL(c.sweeps);
	CU_ASSERT_EQUAL(parse(&c, "s.ini", "--sweep", "a.b=1", "--jobs=1024", NULL), 0);
	CU_ASSERT_EQUAL(c.jobs, 1024);
	cli_free(&c);
	CU_ASSERT_EQUAL(parse(&c, "s.ini", NULL), 0);
	CU_ASSERT_EQUAL(c.jobs, 0);
	CU_ASSERT_EQUAL(c.n_sweeps, 0);
	cli_free(&c);
	CHECK_USAGE_ERROR(c, "--sweep expects SECTION.KEY=V1,V2,..., got 'nic.cc'", "s.ini", "--sweep", "nic.cc");
	CHECK_USAGE_ERROR(c, "--sweep expects SECTION.KEY=V1,V2,..., got 'cc=none'", "s.ini", "--sweep", "cc=none");
	CHECK_USAGE_ERROR(c, "-j/--jobs expects a number of processes from 1 to 1024, got '0'", "s.ini", "--sweep",
			  "a.b=1", "-j", "0");
	CHECK_USAGE_ERROR(c, "got '1025'", "s.ini", "--sweep", "a.b=1", "-j", "1025");
	CHECK_USAGE_ERROR(c, "got '2x'", "s.ini", "--sweep", "a.b=1", "-j", "2x");
	CHECK_USAGE_ERROR(c, "it needs --sweep", "s.ini", "-j", "2");
	CHECK_USAGE_ERROR(c, "--sweep and --serve cannot be combined", "s.ini", "--sweep", "a.b=1", "--serve");
	CHECK_USAGE_ERROR(c, "missing argument to option '--sweep'", "s.ini", "--sweep");
}

TEST_MAIN("cli",
	  { "defaults", test_defaults },
	  { "options before and after the scenario", test_options_before_and_after },
	  { "--set split rule", test_set_split },
	  { "--seed", test_seed },
	  { "bad --set forms", test_bad_set },
	  { "exactly one scenario", test_scenario_count },
	  { "unknown options and missing arguments", test_unknown_options },
	  { "help and version", test_help_version },
	  { "--keys", test_keys },
	  { "--sweep and -j", test_sweep })
