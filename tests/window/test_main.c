// SPDX-License-Identifier: GPL-2.0
/*
 * Host test runner: the unit tests, then the model checker over every
 * parameter set and a few seeds. Prints KTAP (Documentation/dev-tools/
 * ktap.rst in the kernel tree): one result per unit test and per model
 * run, a failed CHECK as a diagnostic line before its test's result, and
 * "# Totals:" at the end; exits non-zero if anything failed.
 *
 * Usage: test_window [--ops N] [--seed S] [--seeds K] [--tag NAME]
 * (N model operations per run, K seeds from S; NAME prefixes the test
 * names, e.g. "asan/unit/...")
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int harness_failed_checks;

int main(int argc, char **argv)
{
	const struct harness_case *cases[128];
	unsigned long long seed = 1;
	long ops = 200000;
	int nr, i, c, s, n = 0, passed = 0, failed = 0;
	const char *tag = "", *sep;
	int seeds = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
			seeds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
	}
	sep = *tag ? "/" : "";
	/* the model's messages go to stderr: keep both in order */
	setvbuf(stdout, NULL, _IOLBF, 0);

	unit_tests(cases, &nr);
	printf("KTAP version 1\n1..%d\n", nr + seeds * model_configs());
	printf("# window%s%s: %d unit tests; model: %d configs x %d seeds from %llu, %ld ops\n",
	       *tag ? " " : "", tag, nr, model_configs(), seeds, seed, ops);
	for (i = 0; i < nr; i++) {
		int before = harness_failed_checks;

		cases[i]->fn();
		if (harness_failed_checks == before) {
			passed++;
			printf("ok %d %s%sunit/%s\n", ++n, tag, sep,
			       cases[i]->name);
		} else {
			failed++;
			printf("not ok %d %s%sunit/%s\n", ++n, tag, sep,
			       cases[i]->name);
		}
	}

	for (s = 0; s < seeds; s++) {
		for (c = 0; c < model_configs(); c++) {
			fflush(stdout);
			if (model_check(seed + s, ops, c)) {
				failed++;
				printf("not ok %d %s%smodel/config_%d_seed_%llu\n",
				       ++n, tag, sep, c, seed + s);
			} else {
				passed++;
				printf("ok %d %s%smodel/config_%d_seed_%llu\n",
				       ++n, tag, sep, c, seed + s);
			}
		}
	}

	printf("# Totals: pass:%d fail:%d skip:0\n", passed, failed);
	return failed ? 1 : 0;
}
