// SPDX-License-Identifier: MIT
// err_set(): the one place an error message is formatted (kernel/lib/errno.h).
#include "kernel/lib/errno.h"

#include <stdarg.h>

#include "kernel/lib/libc.h"

int err_set(struct err *e, int code, const char *fmt, ...)
{
    va_list ap;

    if (e) {
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}
