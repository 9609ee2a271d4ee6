/* SPDX-License-Identifier: MIT */
/*
 * A ticket spinlock, like Xen's: lock takes a ticket with an atomic
 * fetch-and-add and waits for it to be served; unlock serves the next one.
 * bootheap runs on one CPU, but the heap takes the lock anyway, so that its
 * cost is in every measurement exactly where Xen pays it. These are the
 * inline forms; Xen's out-of-line ones are in mm/xen_costs.c.
 */
#ifndef KERNEL_LIB_SPINLOCK_H
#define KERNEL_LIB_SPINLOCK_H

#include <stdint.h>

typedef union {
    struct {
        volatile uint16_t head; /* ticket being served */
        volatile uint16_t tail; /* next ticket to hand out */
    };
    uint32_t head_tail;         /* both, for Xen's one locked add (mm/xen_costs.c) */
} spinlock_t;

#define SPINLOCK_INIT { { 0, 0 } }

static inline void spin_lock(spinlock_t *l)
{
    uint16_t ticket = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);

    while (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != ticket)
        __asm__ volatile("pause" ::: "memory");
}

static inline void spin_unlock(spinlock_t *l)
{
    __atomic_store_n(&l->head, (uint16_t)(l->head + 1), __ATOMIC_RELEASE);
}

static inline int spin_is_locked(const spinlock_t *l)
{
    return l->head != l->tail;
}

#endif
