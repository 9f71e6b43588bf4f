/*
 * test_poisson.c — the Poisson background source (models/traffic_poisson.c),
 * run on the recording world of traffic_harness.h: its stop time and CDF
 * errors, determinism per seed, the `hosts` and `start`/`stop` bounds, and
 * offered load, flow counts and exponential gaps against their laws, with
 * stated statistical bounds (fixed seeds: deterministic; the bounds say
 * how unlikely a failure would be for a correct generator under a fresh
 * seed).
 */
#define _GNU_SOURCE /* asprintf */
#include <math.h>
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

static struct cfg_traffic *h_poisson(struct harness *h, double load, simtime_t stop, char *cdf)
{
	struct cfg_traffic *t = h_traffic(h, "bg", TRAFFIC_POISSON, 3);
	t->load = load;
	t->cdf = cdf;
	t->stop = stop;
	return t;
}

static void test_poisson_errors(void)
{
	struct harness h;
	char *ws = websearch_path();
	h_init(&h, 4, 1);
	h_poisson(&h, 0.3, SIMTIME_NEVER, ws);
	expect_setup_error(&h, "test.ini:3",
			   "poisson traffic needs a stop time ([traffic.bg] stop or [simulation] stop)");
	h_free(&h);

	/* [simulation] stop is enough. */
	h_init(&h, 4, 1);
	h.cfg.simulation.stop = 10 * SIMTIME_MS;
	h_poisson(&h, 0.3, SIMTIME_NEVER, "websearch"); /* a built-in name */
	setup_and_run(&h);
	CU_ASSERT_EQUAL(traffic_flows_expected(&h.w), 0);
	CU_ASSERT(n_recs > 0); /* ≈ 4 × 10 ms × 2191/s = 88 expected */
	for (size_t k = 0; k < n_recs; k++)
		CU_ASSERT(recs[k].t < 10 * SIMTIME_MS);
	h_free(&h);

	h_init(&h, 4, 1);
	h_poisson(&h, 0.3, SIMTIME_MS, "/nonexistent/flows.cdf");
	h_origin(&h, "traffic.bg", "cdf", "/nonexistent/flows.cdf", 4);
	expect_setup_error(&h, "test.ini:4", "cdf");
	h_free(&h);
	free(ws);
}

/* Runs poisson over n hosts and returns the recorded flows in recs. */
static void run_poisson(struct harness *h, int n, uint64_t seed, double load, simtime_t start,
			simtime_t stop, char **hosts, size_t n_hosts, char *cdf)
{
	h_init(h, n, seed);
	struct cfg_traffic *t = h_poisson(h, load, stop, cdf);
	t->start = start;
	t->hosts = hosts;
	t->n_hosts = n_hosts;
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

static void test_poisson_deterministic(void)
{
	struct harness h;
	char *ws = websearch_path();
	run_poisson(&h, 8, 1, 0.5, 0, 5 * SIMTIME_MS, NULL, 0, ws);
	h_free(&h);
	size_t n1 = n_recs;
	struct rec *a = malloc(n1 * sizeof *a);
	memcpy(a, recs, n1 * sizeof *a);
	CU_ASSERT(n1 > 50); /* ≈ 8 × 5 ms × 3652/s = 146 expected */
	for (size_t k = 0; k < n1; k++) {
		CU_ASSERT_STRING_EQUAL(recs[k].par, "bg");
		CU_ASSERT(k == 0 || recs[k].t >= recs[k - 1].t);
	}

	run_poisson(&h, 8, 1, 0.5, 0, 5 * SIMTIME_MS, NULL, 0, ws);
	h_free(&h);
	CU_ASSERT(same_flows(a, n1, recs, n_recs));

	run_poisson(&h, 8, 2, 0.5, 0, 5 * SIMTIME_MS, NULL, 0, ws);
	h_free(&h);
	CU_ASSERT(!same_flows(a, n1, recs, n_recs));
	free(a);

	/* `hosts` and `start`: only the listed hosts, only in [start, stop). */
	char *hosts[] = { "host6", "host1", "host4" };
	run_poisson(&h, 8, 1, 0.5, 2 * SIMTIME_MS, 12 * SIMTIME_MS, hosts, 3, ws);
	CU_ASSERT(n_recs > 10);
	for (size_t k = 0; k < n_recs; k++) {
		int s = recs[k].src, d = recs[k].dst;
		CU_ASSERT((s == 1 || s == 4 || s == 6) && (d == 1 || d == 4 || d == 6) && s != d);
		CU_ASSERT(recs[k].t >= 2 * SIMTIME_MS && recs[k].t < 12 * SIMTIME_MS);
	}
	h_free(&h);
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
	h_init(&h, P_HOSTS, 1);
	h.w.post = stat_post;
	struct cfg_traffic *t = h_poisson(&h, load, window, ws);
	(void)t;
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
