// SPDX-License-Identifier: GPL-2.0
/*
 * Host test runner: the unit tests, then the model checker over every
 * parameter set and a few seeds. Prints one final "N passed, N failed" line
 * and exits non-zero if anything failed.
 *
 * Usage: test_window [--ops N] [--seed S] [--seeds K] [--tag NAME]
 * (N model operations per run, K seeds from S)
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
	int nr, i, c, s, passed = 0, failed = 0;
	const char *tag = "";
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

	unit_tests(cases, &nr);
	for (i = 0; i < nr; i++) {
		int before = harness_failed_checks;

		cases[i]->fn();
		if (harness_failed_checks == before) {
			passed++;
		} else {
			failed++;
			fprintf(stderr, "FAIL unit %s\n", cases[i]->name);
		}
	}

	for (s = 0; s < seeds; s++) {
		for (c = 0; c < model_configs(); c++) {
			if (model_check(seed + s, ops, c)) {
				failed++;
				fprintf(stderr, "FAIL model config %d seed %llu\n",
					c, seed + s);
			} else {
				passed++;
			}
		}
	}

	printf("%s%s%d passed, %d failed\n", tag, *tag ? ": " : "",
	       passed, failed);
	return failed ? 1 : 0;
}
