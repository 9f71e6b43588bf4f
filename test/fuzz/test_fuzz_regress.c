/*
 * test_fuzz_regress.c — findings of the fuzz targets that need more than
 * "the input no longer crashes" (test/fuzz/replay.sh replays every
 * crashing input; errors.sh and test_cdf check the located errors).
 *
 * fuzz_scenario found resolved text (run.config) that did not load back to
 * the same config: a list word that the resolver wrapped to the start of a
 * continuation line was read as a comment ('#') or as a misplaced key
 * ("dir = ..." in a group), and a value holding ';' ("a,;b", or any
 * --set value) was cut at the ';' on reading back: values may no longer
 * hold ';'; and a word near the line limit, written on an indented line
 * with its comma, passed it. Each case here puts one such word at every
 * position of a long value, so some land at line starts whatever the wrap
 * width, and checks that the scenario as written has the words, and that
 * its resolved text loads back to the same resolved text (a word lost or
 * cut on reading back would change it).
 *
 * An incast's senders fill a struct private to traffic_incast.c: the words
 * are those of the value as read (the key's origin), split as the list key
 * splits it (units_list).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "job.h"
#include "nic.h"
#include "run.h"
#include "test/config_fixture.h"
#include "units.h"

#define WORDS 24

/* "w,w,...": n copies of word, on lines of 4 continued by indentation. */
static void words_text(char *buf, size_t n, const char *first, const char *word)
{
	size_t len = (size_t)snprintf(buf, n, "%s", first);
	for (int i = 0; i < WORDS; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i % 4 ? "," : "\n    host1,", word);
	snprintf(buf + len, n - len, "\n");
}

/* The words of a list in a loaded config: a malloc'd array of malloc'd
 * strings (units_list_free). */
typedef char **(*pick_fn)(const struct config *, size_t *);

/* Loads text: it must load and round-trip through its resolved text, and
 * the list at `pick` must be WORDS copies of word after each "host1" (one
 * per 4). */
static void roundtrip(const char *text, const char *word, pick_fn pick)
{
	struct config a;
	char *err = NULL;
	if (scenario_load_text(&a, "r.ini", text, strlen(text), NULL, 0, &err) < 0)
		fprintf(stderr, "\n  %s\n", err);
	CU_ASSERT_PTR_NULL_FATAL(err);
	expect_roundtrip(word, &a);
	size_t n;
	char **v = pick(&a, &n);
	size_t words = 0, hosts = 0;
	for (size_t i = 0; i < n; i++) {
		words += strcmp(v[i], word) == 0;
		hosts += strcmp(v[i], "host1") == 0;
	}
	CU_ASSERT_EQUAL(words, WORDS);
	CU_ASSERT_EQUAL(hosts, WORDS / 4);
	units_list_free(v, n);
	config_free(&a);
}

/* [traffic.in] senders: its value as read, as a list. */
static char **senders(const struct config *c, size_t *n)
{
	const struct cfg_origin *o = origin_of(c, "traffic.in", "senders", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	char **v;
	*n = units_list(o->value, &v);
	return v;
}

/* A copy of words[0..n), as units_list makes (units_list_free). */
static char **dup_words(char *const *words, size_t n)
{
	char **v = calloc(n ? n : 1, sizeof *v);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (size_t i = 0; i < n; i++) {
		v[i] = strdup(words[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(v[i]);
	}
	return v;
}

/* The destinations of the first [multicast] group. */
static char **group_dsts(const struct config *c, size_t *n)
{
	const struct mcast_cfg *m = mcast_cfg_of(c);
	CU_ASSERT_FATAL(m && m->n_groups > 0);
	*n = m->groups[0].n_dst;
	return dup_words(m->groups[0].dst, *n);
}

/* [job.j] hosts, a list the job's struct holds. */
static char **job_hosts(const struct config *c, size_t *n)
{
	const struct cfg_inst *i = cfg_next(c, &job_section, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(i);
	const struct job_cfg *j = i->data;
	*n = j->n_hosts;
	return dup_words(j->hosts, *n);
}

static const char *const tricky[] = { "#a", "size", "dir:1", "receiver=x", "dir", "=" };

#define INCAST STAR "[traffic.in]\ntype = incast\nreceiver = host2\nsize = 1KB\n"

/* Each tricky word, repeated in the value that starts `first`, after the
 * scenario text `head`. */
static void each_tricky(const char *head, const char *first, pick_fn pick)
{
	char buf[4096], text[4608];
	for (size_t i = 0; i < sizeof tricky / sizeof tricky[0]; i++) {
		words_text(buf, sizeof buf, first, tricky[i]);
		snprintf(text, sizeof text, "%s%s", head, buf);
		roundtrip(text, tricky[i], pick);
	}
}

static void test_list_words(void)
{
	each_tricky(INCAST, "senders = host0", senders);
	/* The same list parser, into a struct the test can read. */
	each_tricky(STAR "[job.j]\nmodel = bert-large\nglobal_batch = 8\n", "hosts = host0", job_hosts);
}

static void test_group_words(void)
{
	each_tricky(STAR "[multicast]\n", "group = g host0", group_dsts);
}

/* A comment-like word first on the key's line stays a word. */
static void test_first_word(void)
{
	char buf[4096], text[4608];
	words_text(buf, sizeof buf, "senders = #a,host1,host1,#a", "#a");
	snprintf(text, sizeof text, INCAST "%s", buf);
	struct config a;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(scenario_load_text(&a, "r.ini", text, strlen(text), NULL, 0, &err), 0);
	size_t n;
	char **v = senders(&a, &n);
	CU_ASSERT_EQUAL(n, 4 + WORDS + WORDS / 4);
	CU_ASSERT_STRING_EQUAL(v[0], "#a");
	units_list_free(v, n);
	config_free(&a);
}

/* Words as long as a scenario's lines allow (197 characters): 189 after
 * "senders=", 196 alone on a continuation line, a '#' word of 195 after
 * " ,". Their resolved text keeps every line within 197 characters and
 * loads back to itself (fuzz_scenario found a 193-character word written
 * on a 4-blank continuation line with its comma: 198). */
static void test_longest_words(void)
{
	char first[190], alone[197], hash[196], text[1024];
	memset(first, 'f', sizeof first - 1);
	memset(alone, 'a', sizeof alone - 1);
	memset(hash, 'h', sizeof hash - 1);
	first[sizeof first - 1] = alone[sizeof alone - 1] = hash[sizeof hash - 1] = '\0';
	hash[0] = '#';
	snprintf(text, sizeof text, INCAST "senders=%s\n %s\n ,%s\n %s\n host1\n", first, alone, hash, alone);
	struct config a;
	char *err = NULL;
	CU_ASSERT_EQUAL_FATAL(scenario_load_text(&a, "r.ini", text, strlen(text), NULL, 0, &err), 0);
	for (const char *l = a.resolved; *l; ) {
		size_t n = strcspn(l, "\n");
		CU_ASSERT(n <= 197);
		l += n + (l[n] == '\n');
	}
	expect_roundtrip("the longest words", &a);
	const char *want[] = { first, alone, hash, alone, "host1" };
	size_t n;
	char **v = senders(&a, &n);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(v[i], want[i]);
	units_list_free(v, n);
	config_free(&a);
}

/* ';' in a value is refused, located (inih reads "a, ;b" as "a,"). */
static void test_semicolon(void)
{
	const char *text = INCAST "senders = host0,;b\n";
	struct config a;
	char *err = NULL;
	CU_ASSERT_EQUAL(scenario_load_text(&a, "r.ini", text, strlen(text), NULL, 0, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(err, "r.ini:10: [traffic.in] senders = 'host0,;b': "
			       "expected a value without ';' (a comment starts at ';')");
	free(err);
	err = NULL;
	struct cfg_override ov = { "simulation", "output", ";x.db" };
	CU_ASSERT_EQUAL(scenario_load_text(&a, "r.ini", STAR, strlen(STAR), &ov, 1, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(err, "--set: [simulation] output = ';x.db': "
			       "expected a value without ';' (a comment starts at ';')");
	free(err);
}

TEST_MAIN("fuzz_regress",
	  { "a comment-like first word", test_first_word },
	  { "';' in a value is a located error", test_semicolon },
	  { "resolved lists keep comment-like and key-like words", test_list_words },
	  { "resolved multicast groups keep them", test_group_words },
	  { "resolved lines keep the longest words within the limit", test_longest_words })
