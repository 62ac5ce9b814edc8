/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the kernel's atomic_t calls the engine makes, fully ordered. */
#ifndef _SHIM_LINUX_ATOMIC_H
#define _SHIM_LINUX_ATOMIC_H

typedef struct {
	int counter;
} atomic_t;

#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_inc(v)		__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_RELAXED)
#define atomic_add(i, v)	__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_xchg(v, i)	__atomic_exchange_n(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_dec_and_test(v)	(__atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST) == 0)

#endif
