/* SPDX-License-Identifier: MIT */
/* Compiler attributes and small arithmetic helpers shared by kernel and host builds. */
#ifndef KERNEL_LIB_COMPILER_H
#define KERNEL_LIB_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define __packed        __attribute__((packed))
#define __aligned(n)    __attribute__((aligned(n)))
#define __noreturn      __attribute__((noreturn))
#define __unused        __attribute__((unused))
#define __used          __attribute__((used))
#define __section(s)    __attribute__((section(s)))
#define __printf(a, b)  __attribute__((format(printf, a, b)))
#define likely(x)       __builtin_expect(!!(x), 1)
#define unlikely(x)     __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a)   (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)       ((a) < (b) ? (a) : (b))
#define MAX(a, b)       ((a) > (b) ? (a) : (b))

/* Round x up or down to a multiple of a, a power of two. */
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define ALIGN_UP(x, a)   ALIGN_DOWN((x) + ((__typeof__(x))(a) - 1), (a))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)

#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)
#define TiB(x) ((uint64_t)(x) << 40)

/* Index of the highest set bit, 1-based; 0 for 0 (Xen's flsl). */
static inline unsigned int fls64(uint64_t x)
{
    return x ? 64 - (unsigned int)__builtin_clzll(x) : 0;
}

/* Index of the lowest set bit, 1-based; 0 for 0 (Xen's ffsl). */
static inline unsigned int ffs64(uint64_t x)
{
    return (unsigned int)__builtin_ffsll((long long)x);
}

#endif
