/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim: just enough of the kernel's basic types to build the reorder
 * window engine and lib/rbtree.c as ordinary user-space C.
 */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef u64 sector_t;

struct list_head {
	struct list_head *next, *prev;
};

#endif
