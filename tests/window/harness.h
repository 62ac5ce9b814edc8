/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny test harness shared by the host unit tests and the model checker:
 * each test is a function, a failed CHECK marks the current test failed and
 * prints where as a KTAP diagnostic line ("# file:line: ..."), and the
 * runner (test_main.c) prints KTAP: a result line per test.
 */
#ifndef _RWIN_HARNESS_H
#define _RWIN_HARNESS_H

#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

extern int harness_failed_checks;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			harness_failed_checks++;			\
			printf("# %s:%d: CHECK(%s) failed\n",		\
				__FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

#define CHECK_STR(got, want)						\
	do {								\
		const char *_g = (got), *_w = (want);			\
		if (strcmp(_g, _w)) {					\
			harness_failed_checks++;			\
			printf("# %s:%d: got \"%s\" want \"%s\"\n",	\
				__FILE__, __LINE__, _g, _w);		\
		}							\
	} while (0)

struct harness_case {
	const char *name;
	void (*fn)(void);
};

void unit_tests(const struct harness_case **cases, int *nr);
int model_check(unsigned long long seed, long ops, int config);
int model_configs(void);

#endif
