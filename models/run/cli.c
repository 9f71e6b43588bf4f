/*
 * cli.c — the command line of `sim` (cli.h, docs/scenario.md "Command line").
 *
 * One declarative table (cli_opts) holds every option with its argument
 * name and help text; getopt_long's option array, its short-option string
 * and the --help text are all built from it, so they cannot drift apart.
 *
 * getopt_long runs in GNU permutation mode, so options may come before or
 * after the scenario. Its state is global: cli_parse resets it (optind = 0
 * forces glibc to reinitialise, permutation state included) so it can be
 * called more than once, as the tests do. argv is permuted, not modified;
 * everything kept in struct cli points into argv except the --set pieces,
 * which are malloc'd (cli_free).
 *
 * Usage errors print "sim: <what>" and the --help hint to stderr and return
 * 2 (EXIT_INPUT); nothing is left allocated then.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	/* Options with no short form get values past any char. */
	OPT_APPEND = 256,
	OPT_SEED,
	OPT_PCAP,
	OPT_FCT,
	OPT_CHECK,
	OPT_KEYS,
	OPT_SERVE,
	OPT_RANKS,
	OPT_SWEEP,
};

struct cli_opt {
	const char *name;   /* long name */
	int val;            /* short letter, or OPT_* */
	const char *arg;    /* argument name; NULL: takes none */
	const char *help;   /* '\n' continues it in the help column (80 columns) */
};

static const struct cli_opt cli_opts[] = {
	{ "output", 'o', "FILE",
	  "result database (default: [simulation] output,\nelse results/<scenario>.db)" },
	{ "append", OPT_APPEND, NULL,
	  "add this run to an existing database (next\nrun_id) instead of replacing it" },
	{ "set", 's', "SECTION.KEY=VALUE",
	  "override or add a key (repeatable); applied\nbefore validation. See below." },
	{ "seed", OPT_SEED, "N", "same as --set simulation.seed=N" },
	{ "pcap", OPT_PCAP, "DIR",
	  "capture what [pcap] taps names (every host port\nif none) into DIR" },
	{ "fct", OPT_FCT, "FILE",
	  "write the flows' completion list (HPCC ns-3's\nfct.txt, as [output] hpcc_fct) into FILE" },
	{ "sweep", OPT_SWEEP, "SECTION.KEY=V1,V2,...",
	  "run the scenario once per value (repeatable: every\ncombination, the first --sweep varying slowest)\ninto one database. See below." },
	{ "jobs", 'j', "N", "run N points of a --sweep at a time [1]" },
	{ "quiet", 'q', NULL, "no progress line" },
	{ "check", OPT_CHECK, NULL,
	  "validate, build the world, print its summary, each\njob's plan, run-time and capture estimates, write\nnothing, exit" },
	{ "ranks", OPT_RANKS, "N",
	  "with --check: also print how [parallel] partition\nsplits the fabric across N MPI ranks" },
	{ "serve", OPT_SERVE, NULL,
	  "open the fabric and answer requests, one per line\non stdin, one reply per line on stdout\n(docs/library.md); -o names the database" },
	{ "keys", OPT_KEYS, NULL,
	  "print every scenario section and key with its\ntype, default and meaning, and exit" },
	{ "help", 'h', NULL, "print this help and exit" },
	{ "version", 'V', NULL, "print the version and exit" },
};
#define N_OPTS (sizeof cli_opts / sizeof cli_opts[0])

void cli_usage(FILE *to)
{
	fputs("Usage: sim [options] SCENARIO.ini [options]\n"
	      "Simulate the RoCEv2 fabric and traffic that SCENARIO.ini describes and\n"
	      "write the results to an SQLite database.\n"
	      "\n"
	      "Options (before or after the scenario):\n", to);
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct cli_opt *o = &cli_opts[i];
		char head[64];
		int n;
		if (o->val < 256)
			n = snprintf(head, sizeof head, "  -%c, --%s%s%s", o->val, o->name,
				     o->arg ? " " : "", o->arg ? o->arg : "");
		else
			n = snprintf(head, sizeof head, "      --%s%s%s", o->name,
				     o->arg ? " " : "", o->arg ? o->arg : "");
		/* Help in column 27; a head too
		 * long for that (--set's) puts its help on the next line. */
		if (n > 25)
			fprintf(to, "%s\n%27s", head, "");
		else
			fprintf(to, "%-27s", head);
		for (const char *h = o->help; *h; ) {
			size_t len = strcspn(h, "\n");
			fprintf(to, "%.*s\n", (int)len, h);
			h += len;
			if (*h == '\n') {
				h++;
				fprintf(to, "%27s", "");
			}
		}
	}
	fputs("\n"
	      "--set splits at the first '='; the section is what precedes the last dot of\n"
	      "the left part: --set switch.pfc=off, --set job.moe.tp=8,\n"
	      "--set traffic.ws.file=/x/f.txt.\n"
	      "\n"
	      "--sweep takes the key as --set does and its values split at commas; '\\,'\n"
	      "is a comma inside a value (a list value may also use spaces). Each point\n"
	      "is validated first, then run as its own process, and all land in one\n"
	      "database in point order, each run row's `sweep` naming its values; the\n"
	      "exit status is the worst point's (docs/sweeps.md).\n"
	      "\n"
	      "Exit status:\n"
	      "  0  finished\n"
	      "  1  internal failure\n"
	      "  2  bad input (the message names file:line, section, key, value and what\n"
	      "     was expected)\n"
	      "  3  stopped by a detected PFC deadlock or stall\n", to);
}

void cli_free(struct cli *c)
{
	for (size_t i = 0; i < c->n_sets; i++) {
		free(c->sets[i].section);
		free(c->sets[i].key);
		free(c->sets[i].value);
	}
	free(c->sets);
	free(c->sweeps);
	/* Zeroed so a second cli_free (or one after a failed parse) is harmless. */
	memset(c, 0, sizeof *c);
}

static int usage_error(struct cli *out, const char *what, const char *arg)
{
	if (arg)
		fprintf(stderr, "sim: %s '%s'\n", what, arg);
	else
		fprintf(stderr, "sim: %s\n", what);
	fputs("Try 'sim --help' for more information.\n", stderr);
	cli_free(out);
	return 2;
}

/* Appends an override; -1 when out of memory. Takes copies. */
static int add_set(struct cli *c, const char *section, size_t section_len,
		   const char *key, size_t key_len, const char *value)
{
	struct cfg_override *s = realloc(c->sets, (c->n_sets + 1) * sizeof *s);
	if (!s)
		return -1;
	c->sets = s;
	struct cfg_override *o = &c->sets[c->n_sets];
	o->section = strndup(section, section_len);
	o->key = strndup(key, key_len);
	o->value = strdup(value);
	if (!o->section || !o->key || !o->value) {
		free(o->section);
		free(o->key);
		free(o->value);
		return -1;
	}
	c->n_sets++;
	return 0;
}

int cli_split_set(const char *arg, struct cfg_override *out)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		return 2;
	const char *dot = NULL;
	for (const char *p = arg; p < eq; p++)
		if (*p == '.')
			dot = p;
	if (!dot || dot == arg || dot + 1 == eq)
		return 2;
	struct cli c = { 0 };
	if (add_set(&c, arg, (size_t)(dot - arg), dot + 1, (size_t)(eq - dot - 1), eq + 1) < 0)
		return -1;
	*out = c.sets[0];
	free(c.sets);
	return 0;
}

/* SECTION.KEY=VALUE (cli_split_set). Returns 0, 2 (usage error, printed)
 * or -1 (out of memory). */
static int parse_set(struct cli *c, const char *arg)
{
	struct cfg_override o;
	int rc = cli_split_set(arg, &o);
	if (rc)
		return rc;
	struct cfg_override *s = realloc(c->sets, (c->n_sets + 1) * sizeof *s);
	if (!s) {
		free(o.section);
		free(o.key);
		free(o.value);
		return -1;
	}
	c->sets = s;
	c->sets[c->n_sets++] = o;
	return 0;
}

/* "-o" or "--seed" for an option value; 0 when it is one of ours, -1 (with
 * "-z" written) when not. */
static int opt_name(int val, char *buf, size_t len)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (cli_opts[i].val == val) {
			if (val < 256)
				snprintf(buf, len, "-%c", val);
			else
				snprintf(buf, len, "--%s", cli_opts[i].name);
			return 0;
		}
	snprintf(buf, len, "-%c", val > 32 && val < 127 ? val : '?');
	return -1;
}

/* A non-negative decimal integer that fits in 64 bits (the seed's type). */
static bool valid_seed(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	strtoull(s, NULL, 10);
	return errno != ERANGE;
}

/* --ranks: a decimal integer in [1, CLI_MAX_RANKS]; 0 when not. */
#define CLI_MAX_RANKS 1000000
static int parse_ranks(const char *s)
{
	if (!*s || strlen(s) > 7)
		return 0;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	long v = strtol(s, NULL, 10);
	return v >= 1 && v <= CLI_MAX_RANKS ? (int)v : 0;
}

int cli_parse(int argc, char **argv, struct cli *out)
{
	memset(out, 0, sizeof *out);

	struct option longopts[N_OPTS + 1];
	char shortopts[2 * N_OPTS + 2];
	char *sp = shortopts;
	*sp++ = ':';   /* report a missing argument as ':', not '?': our message */
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct cli_opt *o = &cli_opts[i];
		longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					       NULL, o->val };
		if (o->val < 256) {
			*sp++ = (char)o->val;
			if (o->arg)
				*sp++ = ':';
		}
	}
	longopts[N_OPTS] = (struct option){ 0, 0, 0, 0 };
	*sp = '\0';

	optind = 0;   /* glibc: full reinitialisation, permutation included */
	opterr = 0;   /* we print our own messages */
	const char *positional[2] = { NULL, NULL };
	size_t n_positional = 0;
	int c;
	/* A leading '-' in optstring hands positional arguments to us in
	 * order (as option 1) while options keep being parsed after them. */
	char optstring[sizeof shortopts + 1];
	optstring[0] = '-';
	strcpy(optstring + 1, shortopts);
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (n_positional < 2)
				positional[n_positional] = optarg;
			n_positional++;
			break;
		case 'o': out->output = optarg; break;
		case OPT_APPEND: out->append = true; break;
		case 's': {
			int rc = parse_set(out, optarg);
			if (rc == 2)
				return usage_error(out, "--set expects SECTION.KEY=VALUE, got", optarg);
			if (rc < 0)
				return usage_error(out, "out of memory", NULL);
			break;
		}
		case OPT_SEED:
			if (!valid_seed(optarg))
				return usage_error(out, "--seed expects a non-negative integer, got", optarg);
			if (add_set(out, "simulation", 10, "seed", 4, optarg) < 0)
				return usage_error(out, "out of memory", NULL);
			break;
		case OPT_SWEEP: {
			struct cfg_override o;
			int rc = cli_split_set(optarg, &o);
			if (rc == 2)
				return usage_error(out, "--sweep expects SECTION.KEY=V1,V2,..., got", optarg);
			if (rc < 0)
				return usage_error(out, "out of memory", NULL);
			free(o.section);
			free(o.key);
			free(o.value);
			const char **s = realloc(out->sweeps, (out->n_sweeps + 1) * sizeof *s);
			if (!s)
				return usage_error(out, "out of memory", NULL);
			out->sweeps = s;
			out->sweeps[out->n_sweeps++] = optarg;
			break;
		}
		case 'j': {
			char *end;
			errno = 0;
			long n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > CLI_MAX_JOBS)
				return usage_error(out, "-j/--jobs expects a number of processes from 1 to "
						   CLI_MAX_JOBS_TEXT ", got", optarg);
			out->jobs = (int)n;
			break;
		}
		case OPT_PCAP: out->pcap_dir = optarg; break;
		case OPT_FCT: out->fct_path = optarg; break;
		case 'q': out->quiet = true; break;
		case OPT_CHECK: out->check = true; break;
		case OPT_RANKS:
			out->ranks = parse_ranks(optarg);
			if (!out->ranks)
				return usage_error(out, "--ranks expects an integer from 1 to 1000000, got", optarg);
			break;
		case OPT_KEYS: out->keys = true; break;
		case OPT_SERVE: out->serve = true; break;
		case 'h': out->help = true; break;
		case 'V': out->version = true; break;
		case ':': {
			/* optind has moved past the option lacking its argument; name
			 * it as the user wrote it (--output, or -o out of -qo). */
			const char *typed = argv[optind - 1];
			char name[64];
			if (strncmp(typed, "--", 2) == 0)
				snprintf(name, sizeof name, "%s", typed);
			else
				opt_name(optopt, name, sizeof name);
			return usage_error(out, "missing argument to option", name);
		}
		default: {
			/* '?'. optopt is 0 for an unknown or ambiguous long option
			 * (argv[optind-1] then holds it); an option of ours when a
			 * long option that takes no argument got one (--quiet=x);
			 * else the unknown letter, whose cluster (-zq) argv[optind-1]
			 * need not hold yet. */
			char name[64];
			bool ours = optopt != 0 && opt_name(optopt, name, sizeof name) == 0;
			if (optopt == 0 || ours) {
				const char *typed = argv[optind - 1];
				snprintf(name, sizeof name, "%.*s", (int)strcspn(typed, "="), typed);
			}
			return usage_error(out, ours ? "option takes no argument:" : "unknown option", name);
		}
		}
	}
	/* After "--" getopt stops: what is left is positional. */
	for (int i = optind; i < argc; i++) {
		if (n_positional < 2)
			positional[n_positional] = argv[i];
		n_positional++;
	}
	if (out->help || out->version || out->keys)
		return 0;   /* they need no scenario */
	if (out->jobs && !out->n_sweeps)
		return usage_error(out, "-j/--jobs sets how many points of a --sweep run at a time; "
				   "it needs --sweep", NULL);
	if (out->n_sweeps && out->serve)
		return usage_error(out, "--sweep and --serve cannot be combined", NULL);
	if (n_positional == 0)
		return usage_error(out, "no scenario given", NULL);
	if (n_positional > 1)
		return usage_error(out, "more than one scenario given: extra argument", positional[1]);
	if (out->ranks && !out->check)
		return usage_error(out, "--ranks goes with --check (a run under mpirun has mpirun's ranks)", NULL);
	out->scenario = positional[0];
	return 0;
}

void cli_catch_signals(void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
