// SPDX-License-Identifier: GPL-2.0
/*
 * The host driver's esdhc_soc_quirks() (drivers/mmc/host/esdhc-soc.c),
 * run on the host for tests/esdhc-dt-tests.sh. Each line of stdin:
 *   SVR VENDOR QUIRKS QUIRKS2 COMPATIBLE...
 * (numbers in hex, QUIRKS and QUIRKS2 what the host has on entry), each
 * line of stdout:
 *   QUIRKS QUIRKS2 IO_FLAGS FLAGS P1010_CLOCK_CAPS(0 or 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esdhc-clk.h"
#include "esdhc-soc.h"

/* only its address is compared */
const struct esdhc_clk_caps esdhc_clk_caps_p1010;

int main(void)
{
	char line[1024];

	while (fgets(line, sizeof(line), stdin)) {
		struct esdhc_soc_quirks q = { 0 };
		const char *compat[16];
		unsigned int n = 0, svr, vendor;
		char *tok;

		tok = strtok(line, " \n");
		if (!tok)
			continue;
		svr = strtoul(tok, NULL, 16);
		vendor = strtoul(strtok(NULL, " \n"), NULL, 16);
		q.quirks = strtoul(strtok(NULL, " \n"), NULL, 16);
		q.quirks2 = strtoul(strtok(NULL, " \n"), NULL, 16);
		while (n < 16 && (tok = strtok(NULL, " \n")))
			compat[n++] = tok;
		esdhc_soc_quirks(compat, n, svr, vendor, &q);
		printf("%08x %08x %x %x %d\n", q.quirks, q.quirks2, q.io_flags,
		       q.flags, q.clk_caps == &esdhc_clk_caps_p1010);
		fflush(stdout);
	}
	return 0;
}
