/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the guest's test programs (blkcheck.c, absorbcheck.c) report: a
 * "MMCC RESULT pass|fail NAME [why]" line each, which the guest's /init
 * turns into a KTAP result; the program exits non-zero if any failed.
 */
#ifndef GUEST_RESULT_H
#define GUEST_RESULT_H

#include <stdio.h>

static int failures;

static void result(int ok, const char *name, const char *why)
{
	if (ok) {
		printf("MMCC RESULT pass %s\n", name);
	} else {
		printf("MMCC RESULT fail %s %s\n", name, why);
		failures++;
	}
	fflush(stdout);
}

#endif
