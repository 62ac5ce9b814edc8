/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: max() and min() without the kernel's type checks. */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

#define max(x, y) ({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); \
		     _x > _y ? _x : _y; })
#define min(x, y) ({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); \
		     _x < _y ? _x : _y; })

#endif
