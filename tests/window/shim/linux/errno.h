/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim. Also reached from the C library's <errno.h>, so take the
 * numbers from the UAPI header the C library itself uses.
 */
#ifndef _SHIM_LINUX_ERRNO_H
#define _SHIM_LINUX_ERRNO_H

#include <asm/errno.h>

#endif
