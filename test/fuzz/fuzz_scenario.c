/*
 * fuzz_scenario.c — libFuzzer target: scenario text (INI) → validated
 * config, through the loader main.c uses with rocesim's schema
 * (scenario_load_text is scenario_load from memory), then the config
 * freed: any crash, leak, hang or UBSan report in kernel/config*.c,
 * kernel/units.c or a model's keys and rules is a finding.
 *
 * Beyond "no crash", two properties of the contract (docs/scenario.md, config.h):
 * a failed load returns one message that starts with the scenario's name
 * (file:line or file:), and a loaded scenario's resolved text — what
 * run.config stores, every key with defaults filled — loads again and
 * resolves to the same text. A violation aborts, which libFuzzer records
 * as a crash.
 *
 * The input is named "fuzz.ini" in the current folder, so relative input
 * paths resolve against the folder the fuzzer runs in; the loader only
 * stat()s and access()es them, it writes nothing.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "run.h"

#define NAME "fuzz.ini"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_scenario: %s\n%s\n", what, detail ? detail : "");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg, again;
	char *err = NULL;
	if (scenario_load_text(&cfg, NAME, (const char *)data, size, NULL, 0, &err) < 0) {
		if (!err || strncmp(err, NAME, strlen(NAME)) != 0)
			fail("error message not located at the scenario", err);
		free(err);
		return 0;
	}
	if (!cfg.resolved)
		fail("loaded without resolved text", NULL);
	if (scenario_load_text(&again, NAME, cfg.resolved, strlen(cfg.resolved), NULL, 0, &err) < 0) {
		fprintf(stderr, "resolved text:\n%s\n", cfg.resolved);
		fail("the resolved text does not load again", err);
	}
	if (strcmp(again.resolved, cfg.resolved) != 0) {
		fprintf(stderr, "first:\n%s\nsecond:\n%s\n", cfg.resolved, again.resolved);
		fail("the resolved text does not resolve to itself", NULL);
	}
	config_free(&again);
	config_free(&cfg);
	return 0;
}
