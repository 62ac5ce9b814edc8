/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: no readers run concurrently on the host, a store will do. */
#ifndef _SHIM_LINUX_RCUPDATE_H
#define _SHIM_LINUX_RCUPDATE_H

#include <linux/compiler.h>

#define rcu_assign_pointer(p, v)	WRITE_ONCE(p, v)

#endif
