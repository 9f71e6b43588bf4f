/*
 * test_units.c — the value parsers of kernel/units.c: every unit, exact
 * integer results (no rounding through double), each class of failure and
 * the round trip of the formatters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "units.h"

static simtime_t time_ok(const char *s)
{
	simtime_t t = -1;
	char exp[UNITS_EXPECTED_MAX] = "";
	CU_ASSERT_EQUAL_FATAL(units_time(s, &t, exp), 0);
	return t;
}

static uint64_t rate_ok(const char *s)
{
	uint64_t v = 0;
	CU_ASSERT_EQUAL_FATAL(units_rate(s, &v, NULL), 0);
	return v;
}

static uint64_t size_ok(const char *s)
{
	uint64_t v = 0;
	CU_ASSERT_EQUAL_FATAL(units_size(s, &v, NULL), 0);
	return v;
}

/* Fails, and the expected text contains `want`. */
static void time_bad(const char *s, const char *want)
{
	simtime_t t = 12345;
	char exp[UNITS_EXPECTED_MAX] = "";
	CU_ASSERT_EQUAL(units_time(s, &t, exp), -1);
	CU_ASSERT_EQUAL(t, 12345);  /* untouched on failure */
	CU_ASSERT_PTR_NOT_NULL(strstr(exp, want));
}

static void rate_bad(const char *s, const char *want)
{
	uint64_t v = 0;
	char exp[UNITS_EXPECTED_MAX] = "";
	CU_ASSERT_EQUAL(units_rate(s, &v, exp), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(exp, want));
}

static void size_bad(const char *s, const char *want)
{
	uint64_t v = 0;
	char exp[UNITS_EXPECTED_MAX] = "";
	CU_ASSERT_EQUAL(units_size(s, &v, exp), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(exp, want));
}

static void test_time_units(void)
{
	CU_ASSERT_EQUAL(time_ok("7ps"), 7);
	CU_ASSERT_EQUAL(time_ok("7ns"), 7000);
	CU_ASSERT_EQUAL(time_ok("7us"), 7000000);
	CU_ASSERT_EQUAL(time_ok("7ms"), 7000000000LL);
	CU_ASSERT_EQUAL(time_ok("7s"), 7000000000000LL);
	CU_ASSERT_EQUAL(time_ok("0s"), 0);
	CU_ASSERT_EQUAL(time_ok("-0ns"), 0);
	CU_ASSERT_EQUAL(time_ok(" 2 us "), 2000000);
	CU_ASSERT_EQUAL(time_ok("+3ns"), 3000);
	CU_ASSERT_EQUAL(time_ok("1e3ns"), 1000000);
	CU_ASSERT_EQUAL(time_ok("5E-3ns"), 5);
}

static void test_time_exact(void)
{
	/* Values that are not exact in binary floating point. */
	CU_ASSERT_EQUAL(time_ok("1.5us"), 1500000);
	CU_ASSERT_EQUAL(time_ok("1.1us"), 1100000);
	CU_ASSERT_EQUAL(time_ok("0.3us"), 300000);
	CU_ASSERT_EQUAL(time_ok("0.001ns"), 1);
	CU_ASSERT_EQUAL(time_ok(".5ns"), 500);
	CU_ASSERT_EQUAL(time_ok("2.ns"), 2000);
	CU_ASSERT_EQUAL(time_ok("1.000000000000000000000000000000000000000s"), SIMTIME_S);
	CU_ASSERT_EQUAL(time_ok("0.000000000001s"), 1);
	CU_ASSERT_EQUAL(time_ok("9223372036854775807ps"), INT64_MAX);
	CU_ASSERT_EQUAL(time_ok("9223372.036854775807s"), INT64_MAX);
}

static void test_time_errors(void)
{
	time_bad("0.5ps", "whole number of picoseconds");
	time_bad("1.0001ns", "whole number of picoseconds");
	time_bad("1e-13s", "whole number of picoseconds");
	time_bad("10", "a time with a unit (ps, ns, us, ms, s)");        /* bare number */
	time_bad("10 ", "a time with a unit");
	time_bad("", "a time with a unit");
	time_bad("us", "a time with a unit");
	time_bad("10 sec", "a time with a unit");
	time_bad("10US", "a time with a unit");                          /* case matters */
	time_bad("10Ms", "a time with a unit");
	time_bad("1.2.3us", "a time with a unit");
	time_bad("0x10ns", "a time with a unit");
	time_bad("-1us", "non-negative");
	time_bad("9223372036854775808ps", "below 2^63");
	time_bad("1e30s", "below 2^63");
	time_bad("1e999999999s", "below 2^63");
	time_bad("1e-999999999s", "whole number");
	CU_ASSERT_EQUAL(units_time(NULL, &(simtime_t){ 0 }, NULL), -1);
}

static void test_rate_units(void)
{
	CU_ASSERT_EQUAL(rate_ok("100Gbps"), 100000000000ULL);
	CU_ASSERT_EQUAL(rate_ok("1bps"), 1);
	CU_ASSERT_EQUAL(rate_ok("25Kbps"), 25000);
	CU_ASSERT_EQUAL(rate_ok("40Mbps"), 40000000);
	CU_ASSERT_EQUAL(rate_ok("1.6Tbps"), 1600000000000ULL);
	CU_ASSERT_EQUAL(rate_ok("450GBps"), 3600000000000ULL);   /* bytes: x8 */
	CU_ASSERT_EQUAL(rate_ok("1GBps"), 8 * rate_ok("1Gbps"));
	CU_ASSERT_EQUAL(rate_ok("0.125GBps"), 1000000000ULL);
	CU_ASSERT_EQUAL(rate_ok("18446744073709551615bps"), UINT64_MAX);
	rate_bad("100", "a rate with a unit (bps, Kbps, Mbps, Gbps, Tbps, GBps)");
	rate_bad("100gbps", "a rate with a unit");
	rate_bad("100GBPS", "a rate with a unit");
	rate_bad("100Gb/s", "a rate with a unit");
	rate_bad("1.5bps", "whole number of bits per second");
	rate_bad("-1Gbps", "non-negative");
	rate_bad("18446744073709551616bps", "below 2^64");
}

static void test_size_units(void)
{
	CU_ASSERT_EQUAL(size_ok("1B"), 1);
	CU_ASSERT_EQUAL(size_ok("1KB"), 1000);
	CU_ASSERT_EQUAL(size_ok("1MB"), 1000000);
	CU_ASSERT_EQUAL(size_ok("1GB"), 1000000000);
	CU_ASSERT_EQUAL(size_ok("1KiB"), 1024);
	CU_ASSERT_EQUAL(size_ok("1MiB"), 1048576);
	CU_ASSERT_EQUAL(size_ok("1GiB"), 1073741824);
	CU_ASSERT_EQUAL(size_ok("32MiB"), 33554432);
	CU_ASSERT_EQUAL(size_ok("1.5KB"), 1500);
	CU_ASSERT_EQUAL(size_ok("0.5KiB"), 512);
	CU_ASSERT_EQUAL(size_ok("400KB"), 400000);
	size_bad("1.5B", "whole number of bytes");
	size_bad("0.1KiB", "whole number of bytes");
	size_bad("1024", "a size with a unit (B, KB, MB, GB, KiB, MiB, GiB)");
	size_bad("1kb", "a size with a unit");
	size_bad("1kB", "a size with a unit");
	size_bad("1Kib", "a size with a unit");
	size_bad("1TB", "a size with a unit");
	size_bad("-5B", "non-negative");
}

static void test_bool(void)
{
	const char *yes[] = { "on", "true", "yes", "ON", "True", " yes " };
	const char *no[] = { "off", "false", "no", "OFF", "False", "NO" };
	for (int i = 0; i < 6; i++) {
		bool b = false;
		CU_ASSERT_EQUAL(units_bool(yes[i], &b, NULL), 0);
		CU_ASSERT_TRUE(b);
		CU_ASSERT_EQUAL(units_bool(no[i], &b, NULL), 0);
		CU_ASSERT_FALSE(b);
	}
	char exp[UNITS_EXPECTED_MAX];
	bool b;
	CU_ASSERT_EQUAL(units_bool("maybe", &b, exp), -1);
	CU_ASSERT_STRING_EQUAL(exp, "a boolean (on/off, true/false, yes/no)");
	CU_ASSERT_EQUAL(units_bool("1", &b, NULL), -1);
	CU_ASSERT_EQUAL(units_bool("", &b, NULL), -1);
	CU_ASSERT_EQUAL(units_bool("onn", &b, NULL), -1);
}

static void test_int(void)
{
	long long v;
	char exp[UNITS_EXPECTED_MAX];
	CU_ASSERT_EQUAL(units_int("42", &v, NULL), 0);
	CU_ASSERT_EQUAL(v, 42);
	CU_ASSERT_EQUAL(units_int("-7", &v, NULL), 0);
	CU_ASSERT_EQUAL(v, -7);
	CU_ASSERT_EQUAL(units_int(" +8 ", &v, NULL), 0);
	CU_ASSERT_EQUAL(v, 8);
	CU_ASSERT_EQUAL(units_int("9223372036854775807", &v, NULL), 0);
	CU_ASSERT_EQUAL(v, INT64_MAX);
	CU_ASSERT_EQUAL(units_int("1.0", &v, exp), -1);
	CU_ASSERT_STRING_EQUAL(exp, "an integer");
	CU_ASSERT_EQUAL(units_int("1e3", &v, NULL), -1);
	CU_ASSERT_EQUAL(units_int("0x10", &v, NULL), -1);
	CU_ASSERT_EQUAL(units_int("4KB", &v, NULL), -1);
	CU_ASSERT_EQUAL(units_int("", &v, NULL), -1);
	CU_ASSERT_EQUAL(units_int("-", &v, NULL), -1);
	CU_ASSERT_EQUAL(units_int("9223372036854775808", &v, exp), -1);
}

static void test_number(void)
{
	double d;
	char exp[UNITS_EXPECTED_MAX];
	CU_ASSERT_EQUAL(units_number("0.125", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, 0.125);
	CU_ASSERT_EQUAL(units_number("1/256", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, 0.00390625);
	CU_ASSERT_EQUAL(units_number(" 3 / 4 ", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, 0.75);
	CU_ASSERT_EQUAL(units_number("1e-3", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, 0.001);
	CU_ASSERT_EQUAL(units_number("2.5E2", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, 250);
	CU_ASSERT_EQUAL(units_number("-0.5", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, -0.5);
	CU_ASSERT_EQUAL(units_number("7", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, 7);
	CU_ASSERT_EQUAL(units_number("0.1", &d, NULL), 0);
	CU_ASSERT_EQUAL(d, 0.1);  /* strtod's correctly rounded value */
	const char *bad[] = { "", "abc", "nan", "inf", "0x10", "1/0", "1/", "/2", "1/-2", "1e999",
			      "1%", "0.5s", "1 2", NULL };
	for (int i = 0; bad[i]; i++) {
		exp[0] = '\0';
		CU_ASSERT_EQUAL(units_number(bad[i], &d, exp), -1);
		CU_ASSERT_NOT_EQUAL(exp[0], '\0');
	}
}

static void test_list(void)
{
	char **v;
	size_t n = units_list("host0, host1  host2,,host3\thost4 ", &v);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	CU_ASSERT_STRING_EQUAL(v[0], "host0");
	CU_ASSERT_STRING_EQUAL(v[1], "host1");
	CU_ASSERT_STRING_EQUAL(v[2], "host2");
	CU_ASSERT_STRING_EQUAL(v[3], "host3");
	CU_ASSERT_STRING_EQUAL(v[4], "host4");
	units_list_free(v, n);
	n = units_list(" , ,", &v);
	CU_ASSERT_EQUAL(n, 0);
	units_list_free(v, n);
	n = units_list("tp,ep,dp,pp", &v);
	CU_ASSERT_EQUAL(n, 4);
	units_list_free(v, n);
}

static void test_format_roundtrip(void)
{
	char b[64];
	units_format_time(1500000, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "1500ns");
	units_format_time(SIMTIME_MS, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "1ms");
	units_format_time(7, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "7ps");
	units_format_rate(100000000000ULL, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "100Gbps");
	units_format_rate(1600000000000ULL, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "1600Gbps");
	units_format_size(33554432, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "32MiB");
	units_format_size(400000, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "400KB");
	units_format_size(1500, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "1500B");
	units_format_size(0, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "0B");

	/* Every formatted value parses back to itself. */
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = i < 1000 ? x >> (x % 60) : (x % 1000) * 1000000000ULL;
		simtime_t t = (simtime_t)(v >> 1), t2;
		uint64_t r;
		units_format_time(t, b, sizeof b);
		CU_ASSERT_EQUAL(units_time(b, &t2, NULL), 0);
		CU_ASSERT_EQUAL(t2, t);
		units_format_rate(v, b, sizeof b);
		CU_ASSERT_EQUAL(units_rate(b, &r, NULL), 0);
		CU_ASSERT_EQUAL(r, v);
		units_format_size(v, b, sizeof b);
		CU_ASSERT_EQUAL(units_size(b, &r, NULL), 0);
		CU_ASSERT_EQUAL(r, v);
	}
	units_format_time(SIMTIME_NEVER, b, sizeof b);
	simtime_t t;
	CU_ASSERT_EQUAL(units_time(b, &t, NULL), 0);
	CU_ASSERT_EQUAL(t, SIMTIME_NEVER);
}

TEST_MAIN("units",
	  { "time units", test_time_units },
	  { "time exactness", test_time_exact },
	  { "time errors", test_time_errors },
	  { "rate units", test_rate_units },
	  { "size units", test_size_units },
	  { "booleans", test_bool },
	  { "integers", test_int },
	  { "numbers", test_number },
	  { "lists", test_list },
	  { "format round trip", test_format_roundtrip })
