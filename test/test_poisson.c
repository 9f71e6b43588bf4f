/*
 * test_poisson.c — the Poisson background source (models/traffic/traffic_poisson.c),
 * run on the recording world of traffic_harness.h: its stop time and CDF
 * errors, determinism per seed, the `hosts` and `start`/`stop` bounds, and
 * offered load, flow counts and exponential gaps against their laws, with
 * stated statistical bounds (fixed seeds: deterministic; the bounds say
 * how unlikely a failure would be for a correct generator under a fresh
 * seed).
 */
#define _GNU_SOURCE /* asprintf */
#include <math.h>
#include <unistd.h>
#include "cdf.h"
#include "traffic_harness.h"

static char *websearch_path(void)
{
	char *p = NULL;
	const char *srcdir = getenv("SRCDIR");
	int rc = srcdir ? asprintf(&p, "%s/data/cdf/websearch.cdf", srcdir)
			: asprintf(&p, "%s/cdf/websearch.cdf", ROCESIM_SRCDATADIR);
	return rc < 0 ? NULL : p;
}

/* A [traffic.bg] section of type poisson (lines 1 to 4: header, type,
 * load, cdf), then start, stop and hosts when given (NULL: unset), into
 * buf. */
static const char *poisson_text(char *buf, size_t size, double load, const char *cdf, const char *start,
				const char *stop, const char *hosts)
{
	int n = snprintf(buf, size, "[traffic.bg]\ntype = poisson\nload = %.17g\ncdf = %s\n%s%s%s%s%s%s%s%s%s",
			 load, cdf, start ? "start = " : "", start ? start : "", start ? "\n" : "",
			 stop ? "stop = " : "", stop ? stop : "", stop ? "\n" : "",
			 hosts ? "hosts = " : "", hosts ? hosts : "", hosts ? "\n" : "");
	CU_ASSERT_FATAL(n > 0 && (size_t)n < size);
	return buf;
}

static void test_poisson_errors(void)
{
	struct harness h;
	char buf[1024];
	char *ws = websearch_path();
	h_init(&h, 4, 1, poisson_text(buf, sizeof buf, 0.3, ws, NULL, NULL, NULL));
	CU_ASSERT_EQUAL(h.sim.stop_at, SIMTIME_NEVER);
	expect_setup_error(&h, "test.ini:2",
			   "poisson traffic needs a stop time ([traffic.bg] stop or [simulation] stop)");
	h_free(&h);

	/* [simulation] stop is enough. */
	h_init_sim(&h, 4, 1, "stop = 10ms\n",
		   poisson_text(buf, sizeof buf, 0.3, "websearch", NULL, NULL, NULL)); /* a built-in name */
	CU_ASSERT_EQUAL(h.sim.stop_at, 10 * SIMTIME_MS);
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(h.tr), 0);
	CU_ASSERT(n_recs > 0); /* ≈ 4 × 10 ms × 2191/s = 88 expected */
	for (size_t k = 0; k < n_recs; k++)
		CU_ASSERT(recs[k].t < 10 * SIMTIME_MS);
	h_free(&h);

	/* A CDF that cannot be read is the loader's error, at its line; one
	 * that reads but is no CDF is traffic setup's, at the same line. */
	expect_load_error(4, poisson_text(buf, sizeof buf, 0.3, "/nonexistent/flows.cdf", NULL, "1ms", NULL),
			  "test.ini:4: [traffic.bg] cdf", "a readable file");
	const char *bad = tmp_file("bad.cdf", "this is not a table of sizes\n");
	h_init(&h, 4, 1, poisson_text(buf, sizeof buf, 0.3, bad, NULL, "1ms", NULL));
	expect_setup_error(&h, "test.ini:4", "cdf");
	h_free(&h);

	/* One host has no peer (traffic_participants, located at hosts). */
	h_init(&h, 4, 1, poisson_text(buf, sizeof buf, 0.3, "websearch", NULL, "1ms", "host2"));
	expect_setup_error(&h, "test.ini:6", "poisson traffic needs at least 2 hosts, got 1");
	h_free(&h);
	free(ws);
}

/* Runs poisson over n hosts and returns the recorded flows in recs. */
static void run_poisson(struct harness *h, int n, uint64_t seed, double load, const char *start,
			const char *stop, const char *hosts, const char *cdf)
{
	char buf[1024];
	h_init(h, n, seed, poisson_text(buf, sizeof buf, load, cdf, start, stop, hosts));
	setup_and_run(h);
}

/* The same flows (time, endpoints, size) in the same order. */
static bool same_flows(const struct rec *a, size_t na, const struct rec *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t k = 0; k < na; k++)
		if (a[k].t != b[k].t || a[k].src != b[k].src || a[k].dst != b[k].dst ||
		    a[k].size_b != b[k].size_b)
			return false;
	return true;
}

static struct rec *copy_recs(size_t *n)
{
	*n = n_recs;
	struct rec *a = malloc((n_recs ? n_recs : 1) * sizeof *a);
	CU_ASSERT_FATAL(a != NULL);
	memcpy(a, recs, n_recs * sizeof *a);
	return a;
}

/* The arrivals of host src (times and sizes, in order) in a and b are the
 * same, and there are some. */
static bool same_arrivals(const struct rec *a, size_t na, const struct rec *b, size_t nb, int src)
{
	size_t i = 0, j = 0, seen = 0;
	for (;;) {
		while (i < na && a[i].src != src)
			i++;
		while (j < nb && b[j].src != src)
			j++;
		if (i == na || j == nb)
			return i == na && j == nb && seen > 0;
		if (a[i].t != b[j].t || a[i].size_b != b[j].size_b)
			return false;
		seen++;
		i++;
		j++;
	}
}

static void test_poisson_deterministic(void)
{
	struct harness h;
	char *ws = websearch_path();
	run_poisson(&h, 8, 1, 0.5, NULL, "5ms", NULL, ws);
	size_t n1;
	struct rec *a = copy_recs(&n1);
	CU_ASSERT(n1 > 50); /* ≈ 8 × 5 ms × 3652/s = 146 expected */
	for (size_t k = 0; k < n1; k++) {
		CU_ASSERT_STRING_EQUAL(recs[k].par, "bg");
		CU_ASSERT_STRING_EQUAL(recs[k].source, "traffic.bg");
		CU_ASSERT(k == 0 || recs[k].t >= recs[k - 1].t);
	}
	h_free(&h);

	run_poisson(&h, 8, 1, 0.5, NULL, "5ms", NULL, ws);
	h_free(&h);
	CU_ASSERT(same_flows(a, n1, recs, n_recs));

	run_poisson(&h, 8, 2, 0.5, NULL, "5ms", NULL, ws);
	h_free(&h);
	CU_ASSERT(!same_flows(a, n1, recs, n_recs));

	/* Streams are the source's own: another section after it changes none
	 * of its flows. */
	char buf[1024];
	poisson_text(buf, sizeof buf, 0.5, ws, NULL, "5ms", NULL);
	size_t len = strlen(buf);
	snprintf(buf + len, sizeof buf - len, "[traffic.in]\ntype = incast\nsenders = all\n"
		 "receiver = host0\nsize = 1000B\n");
	h_init(&h, 8, 1, buf);
	setup_and_run(&h);
	size_t n2 = 0;
	struct rec *b = malloc(n_recs * sizeof *b);
	for (size_t k = 0; k < n_recs; k++)
		if (strcmp(recs[k].source, "traffic.bg") == 0)
			b[n2++] = recs[k];
	CU_ASSERT_EQUAL(n_recs - n2, 7);
	CU_ASSERT(same_flows(a, n1, b, n2));
	free(b);
	h_free(&h);
	free(a);

	/* `hosts` and `start`: only the listed hosts, only in [start, stop). */
	run_poisson(&h, 8, 1, 0.5, "2ms", "12ms", "host6 host1 host4", ws);
	CU_ASSERT(n_recs > 10);
	for (size_t k = 0; k < n_recs; k++) {
		int s = recs[k].src, d = recs[k].dst;
		CU_ASSERT((s == 1 || s == 4 || s == 6) && (d == 1 || d == 4 || d == 6) && s != d);
		CU_ASSERT(recs[k].t >= 2 * SIMTIME_MS && recs[k].t < 12 * SIMTIME_MS);
	}
	a = copy_recs(&n1);
	h_free(&h);

	/* Each host draws from its own stream: its arrival times and sizes
	 * depend neither on the order of `hosts` nor on the other hosts. */
	run_poisson(&h, 8, 1, 0.5, "2ms", "12ms", "host4 host6 host1", ws);
	static const int listed[] = { 1, 4, 6 };
	for (int i = 0; i < 3; i++)
		CU_ASSERT(same_arrivals(a, n1, recs, n_recs, listed[i]));
	h_free(&h);
	run_poisson(&h, 8, 1, 0.5, "2ms", "12ms", "host1 host4", ws);
	CU_ASSERT(same_arrivals(a, n1, recs, n_recs, 1));
	CU_ASSERT(same_arrivals(a, n1, recs, n_recs, 4));
	h_free(&h);
	free(a);
	free(ws);
}

/* Aggregates posts of the long run (storing 2.8 M records is pointless). */
#define P_HOSTS 64
#define P_BINS 20
static struct {
	double bytes[P_HOSTS];
	uint64_t sent[P_HOSTS], recv[P_HOSTS];
	simtime_t last[P_HOSTS];
	uint64_t same_dst, late;
	uint64_t bin[P_BINS];
	double mean_gap_ps;             /* 1/λ */
	simtime_t stop;
} ps;

static struct flow *stat_post(struct world *w, int src, int dst, uint64_t size_b,
			      const char *source, const char *parallelism)
{
	simtime_t now = w->sim->now;
	ps.bytes[src] += (double)size_b;
	ps.sent[src]++;
	ps.recv[dst]++;
	ps.same_dst += src == dst;
	ps.late += now >= ps.stop;
	/* Equal-probability bins of Exp(1/λ): gap g falls in bin
	 * floor(P_BINS × F(g)) with F(g) = 1 − exp(−g λ). */
	double g = (double)(now - ps.last[src]);
	int b = (int)(P_BINS * (1.0 - exp(-g / ps.mean_gap_ps)));
	ps.bin[b < P_BINS ? b : P_BINS - 1]++;
	ps.last[src] = now;
	return &dummy_flow;
}

static void test_poisson_load(void)
{
	const double load = 0.3, rate_bps = 100e9;
	const simtime_t window = 20 * SIMTIME_S;
	struct harness h;
	char *ws = websearch_path();
	struct cdf c;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(cdf_load(&c, ws, &err), 0);
	double m2 = c.cum[0] * c.size[0] * c.size[0];
	for (size_t i = 1; i < c.n; i++) {
		double a = c.size[i - 1], b = c.size[i];
		m2 += (c.cum[i] - c.cum[i - 1]) * (a * a + a * b + b * b) / 3.0;
	}
	double lambda = load * rate_bps / (8.0 * c.mean);           /* flows/s per host */
	double n_exp = lambda * (double)window / SIMTIME_S;          /* flows per host */
	double bytes_exp = load * rate_bps / 8.0 * (double)window / SIMTIME_S;
	/* Bytes offered by one host in the window are compound Poisson:
	 * variance λ W E[S²]. With websearch's E[S²]/E[S]² ≈ 6.4, 20 s
	 * (≈ 43,800 flows a host) gives a 4 σ band of ≈ 4.8 % — so "within
	 * 5 %" for each of 64 hosts fails for a correct generator with
	 * probability ≈ 64 × 6e-5 ≈ 0.4 % under a fresh seed. */
	double sd_bytes = sqrt(n_exp * m2);
	CU_ASSERT_FATAL(4 * sd_bytes / bytes_exp < 0.05);

	memset(&ps, 0, sizeof ps);
	ps.mean_gap_ps = (double)SIMTIME_S / lambda;
	ps.stop = window;
	char buf[1024];
	h_init(&h, P_HOSTS, 1, poisson_text(buf, sizeof buf, load, ws, NULL, "20s", NULL));
	h.w.post = stat_post;
	setup_and_run(&h);
	h_free(&h);

	double worst_rel = 0, worst_sd = 0, worst_cnt_sd = 0, worst_recv_sd = 0;
	double tot_bytes = 0;
	uint64_t tot = 0;
	for (int i = 0; i < P_HOSTS; i++) {
		double dev = ps.bytes[i] - bytes_exp;
		worst_rel = fmax(worst_rel, fabs(dev) / bytes_exp);
		worst_sd = fmax(worst_sd, fabs(dev) / sd_bytes);
		CU_ASSERT(fabs(dev) / bytes_exp < 0.05);
		/* Flow counts sent and received are Poisson(λW): 4 σ = 4√(λW). */
		double cs = fabs((double)ps.sent[i] - n_exp) / sqrt(n_exp);
		double cr = fabs((double)ps.recv[i] - n_exp) / sqrt(n_exp);
		worst_cnt_sd = fmax(worst_cnt_sd, cs);
		worst_recv_sd = fmax(worst_recv_sd, cr);
		CU_ASSERT(cs < 4);
		CU_ASSERT(cr < 4);
		tot_bytes += ps.bytes[i];
		tot += ps.sent[i];
	}
	/* All hosts together: 64 × the flows, a 4 σ band of ≈ 0.6 %. */
	double agg_dev = (tot_bytes - P_HOSTS * bytes_exp) / (sqrt((double)P_HOSTS) * sd_bytes);
	CU_ASSERT(fabs(agg_dev) < 4);
	CU_ASSERT_EQUAL(ps.same_dst, 0);
	CU_ASSERT_EQUAL(ps.late, 0);

	/* Gaps against the exponential law: chi-square over 20 equal-probability
	 * bins, 19 degrees of freedom, 0.1 % critical value 43.82. */
	double chi2 = 0, e = (double)tot / P_BINS;
	for (int b = 0; b < P_BINS; b++)
		chi2 += ((double)ps.bin[b] - e) * ((double)ps.bin[b] - e) / e;
	CU_ASSERT(chi2 < 43.82);
	/* Mean gap: the window over the flows, per host, against 1/λ (4 σ of
	 * the mean of ≈ 2.8 M exponential gaps ≈ 0.24 %). */
	double mean_gap = (double)window * P_HOSTS / (double)tot;
	CU_ASSERT(fabs(mean_gap - ps.mean_gap_ps) / ps.mean_gap_ps < 4 / sqrt((double)tot));

	fprintf(stderr,
		"\n  poisson 64 hosts, load %.1f, 100 Gb/s, websearch, %.0f s: λ = %.1f flows/s/host, "
		"%llu flows\n"
		"  offered bytes/s per host: expected %.4g, worst host off by %.2f%% (%.2f σ), "
		"all hosts off by %.3f σ\n"
		"  flows per host: worst sent %.2f σ, worst received %.2f σ; mean gap %.4g ps vs 1/λ %.4g ps\n"
		"  gaps vs exponential: chi-square %.2f (df 19, 0.1%% critical 43.82); dst == src: %llu\n",
		load, (double)window / SIMTIME_S, lambda, (unsigned long long)tot,
		bytes_exp / ((double)window / SIMTIME_S), 100 * worst_rel, worst_sd, agg_dev,
		worst_cnt_sd, worst_recv_sd, mean_gap, ps.mean_gap_ps, chi2,
		(unsigned long long)ps.same_dst);
	cdf_free(&c);
	free(ws);
}

TEST_MAIN("poisson",
	  { "poisson: stop time and bad CDF", test_poisson_errors },
	  { "poisson: determinism, hosts, start/stop", test_poisson_deterministic },
	  { "poisson: offered load and exponential gaps", test_poisson_load })
