/* SPDX-License-Identifier: MIT */
/*
 * Error numbers. The one convention: a function that can fail returns 0 on
 * success and one of these, negated, on failure.
 */
#ifndef KERNEL_ERRNO_H
#define KERNEL_ERRNO_H

#define EINVAL  22      /* malformed input */
#define ENOMEM  12      /* out of memory */
#define ENOSPC  28      /* a fixed-size table is full */
#define E2BIG   7       /* more entries than the documented limit */
#define ERANGE  34      /* a value outside what is supported */
#define ENOENT  2       /* nothing there */

#endif
