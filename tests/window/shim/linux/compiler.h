/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the compiler helpers rbtree and the engine rely on. */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define __maybe_unused	__attribute__((__unused__))

/* Single-threaded host use: plain volatile accesses are enough. */
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	(*(volatile __typeof__(x) *)&(x) = (val))

#endif
