// SPDX-License-Identifier: MIT
// printk and a small vsnprintf. Output goes through kernel/console/console.c; panic()
// lives in kernel/panic.c.
#include "kernel/console/printk.h"

#include "kernel/console/console.h"
#include "kernel/lib/string.h"

bool printk_verbose;

struct out {
    char *buf;
    size_t size;
    size_t len;     /* characters produced so far, stored or not */
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void put_repeat(struct out *o, char c, int n)
{
    while (n-- > 0)
        put(o, c);
}

enum {
    F_LEFT = 1, F_PLUS = 2, F_SPACE = 4, F_ALT = 8, F_ZERO = 16,
};

/* Emits one integer with sign, prefix, precision and padding applied. */
static void put_number(struct out *o, uint64_t v, bool negative, unsigned base,
                       bool upper, int flags, int width, int prec)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[24];
    int n = 0;
    const char *prefix = "";

    if (prec < 0)
        prec = 1;
    else
        flags &= ~F_ZERO;
    while (v) {
        tmp[n++] = digits[v % base];
        v /= base;
    }
    if (negative)
        prefix = "-";
    else if (flags & F_PLUS)
        prefix = "+";
    else if (flags & F_SPACE)
        prefix = " ";
    if ((flags & F_ALT) && n) {
        if (base == 16)
            prefix = upper ? "0X" : "0x";
        else if (base == 8 && prec <= n)
            prec = n + 1;
    }
    int zeros = prec > n ? prec - n : 0;
    int total = (int)strlen(prefix) + zeros + n;
    int pad = width > total ? width - total : 0;

    if (!(flags & (F_LEFT | F_ZERO)))
        put_repeat(o, ' ', pad);
    for (const char *p = prefix; *p; p++)
        put(o, *p);
    if (flags & F_ZERO)
        put_repeat(o, '0', pad);
    put_repeat(o, '0', zeros);
    while (n)
        put(o, tmp[--n]);
    if (flags & F_LEFT)
        put_repeat(o, ' ', pad);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size, 0 };

    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        int flags = 0, width = 0, prec = -1, lng = 0;

        for (;; fmt++) {
            char c = fmt[1];
            if (c == '-') flags |= F_LEFT;
            else if (c == '+') flags |= F_PLUS;
            else if (c == ' ') flags |= F_SPACE;
            else if (c == '#') flags |= F_ALT;
            else if (c == '0') flags |= F_ZERO;
            else break;
        }
        fmt++;
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                flags |= F_LEFT;
                width = -width;
            }
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    prec = prec * 10 + (*fmt++ - '0');
            }
        }
        /* lng: -2 hh, -1 h, 0 int, 1 long, 2 long long; size_t etc. are 64-bit. */
        for (;; fmt++) {
            if (*fmt == 'h') lng--;
            else if (*fmt == 'l') lng++;
            else if (*fmt == 'z' || *fmt == 't' || *fmt == 'j') lng = 2;
            else break;
        }
        if (flags & F_LEFT)
            flags &= ~F_ZERO;

        char conv = *fmt;
        uint64_t u;
        int64_t s;

        switch (conv) {
        case 'd':
        case 'i':
            if (lng >= 1)
                s = lng == 1 ? va_arg(ap, long) : va_arg(ap, long long);
            else
                s = va_arg(ap, int);
            if (lng == -1)
                s = (short)s;
            else if (lng <= -2)
                s = (signed char)s;
            u = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
            put_number(&o, u, s < 0, 10, false, flags, width, prec);
            break;
        case 'u':
        case 'x':
        case 'X':
        case 'o':
            if (lng >= 1)
                u = lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned long long);
            else
                u = va_arg(ap, unsigned int);
            if (lng == -1)
                u = (unsigned short)u;
            else if (lng <= -2)
                u = (unsigned char)u;
            put_number(&o, u, false, conv == 'o' ? 8 : conv == 'u' ? 10 : 16,
                       conv == 'X', flags & ~(F_PLUS | F_SPACE), width, prec);
            break;
        case 'p':
            u = (uintptr_t)va_arg(ap, void *);
            put_number(&o, u, false, 16, false, F_ALT | (flags & F_LEFT), width, prec);
            break;
        case 'c': {
            char c = (char)va_arg(ap, int);
            if (!(flags & F_LEFT))
                put_repeat(&o, ' ', width - 1);
            put(&o, c);
            if (flags & F_LEFT)
                put_repeat(&o, ' ', width - 1);
            break;
        }
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            int len = (int)strnlen(str, prec < 0 ? (size_t)-1 : (size_t)prec);
            if (!(flags & F_LEFT))
                put_repeat(&o, ' ', width - len);
            for (int i = 0; i < len; i++)
                put(&o, str[i]);
            if (flags & F_LEFT)
                put_repeat(&o, ' ', width - len);
            break;
        }
        case '%':
            put(&o, '%');
            break;
        case '\0':
            fmt--;          /* a lone '%' at the end: stop cleanly */
            break;
        default:            /* unknown conversion: print it as written */
            put(&o, '%');
            put(&o, conv);
            break;
        }
    }
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

static void vprint_to(unsigned sinks, const char *fmt, va_list ap)
{
    char buf[512];
    va_list ap2;

    va_copy(ap2, ap);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    if ((size_t)n < sizeof(buf)) {
        console_write(sinks, buf, (size_t)n);
    } else {
        /* Too long for the stack buffer: format again in pieces is not
         * possible with va_list, so use a larger static buffer. Boot is
         * single-threaded, so one buffer is enough. */
        static char big[16384];
        n = vsnprintf(big, sizeof(big), fmt, ap2);
        console_write(sinks, big, MIN((size_t)n, sizeof(big) - 1));
    }
    va_end(ap2);
}

void vprintk(const char *fmt, va_list ap)
{
    vprint_to(CON_ALL, fmt, ap);
}

void printk(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprint_to(CON_ALL, fmt, ap);
    va_end(ap);
}

void serial_printk(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprint_to(CON_SERIAL, fmt, ap);
    va_end(ap);
}

char *fmt_size(char *buf, size_t size, uint64_t bytes)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    unsigned i = 0;

    while (i + 1 < ARRAY_SIZE(unit) && bytes >= ((uint64_t)1024 << (10 * i)))
        i++;
    if (i == 0 || (bytes & ((1ull << (10 * i)) - 1)) == 0) {
        snprintf(buf, size, "%llu %s", (unsigned long long)(bytes >> (10 * i)), unit[i]);
    } else {
        /* Two decimals, rounded to nearest. */
        uint64_t whole = bytes >> (10 * i);
        uint64_t frac = bytes & ((1ull << (10 * i)) - 1);
        uint64_t hundredths = (frac * 100 + (1ull << (10 * i)) / 2) >> (10 * i);
        if (hundredths == 100) {
            whole++;
            hundredths = 0;
        }
        snprintf(buf, size, "%llu.%02llu %s", (unsigned long long)whole,
                 (unsigned long long)hundredths, unit[i]);
    }
    return buf;
}
