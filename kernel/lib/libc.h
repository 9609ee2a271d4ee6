/* SPDX-License-Identifier: MIT */
/*
 * The C library subset that the parsers and mm/ share between the kernel and
 * the host unit tests: strings and snprintf. Host builds define
 * BOOTHEAP_HOST and get the system's versions.
 */
#ifndef KERNEL_LIB_LIBC_H
#define KERNEL_LIB_LIBC_H

#ifdef BOOTHEAP_HOST
#include <stdio.h>
#include <string.h>
#else
#include "kernel/console/printk.h"
#include "kernel/lib/string.h"
#endif

#endif
