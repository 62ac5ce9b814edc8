/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H

/* Module metadata means nothing on the host. */
#define MODULE_DESCRIPTION(text)
#define MODULE_LICENSE(text)

#endif
