// SPDX-License-Identifier: MIT
/*
 * Kernel half: the library calls of the mm code that are not memory
 * management: printing, failing, time, random numbers and strings. A
 * failure (panic, a BUG, a bad page) ends the run through the user half,
 * which names the sequence that got there.
 */
#include <linux/kernel.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/panic.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/string.h>
#include <linux/version.h>

#include "lxt.h"

asmlinkage __visible int _printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lxt_host_vlog(fmt, ap);
	va_end(ap);
	return 0;
}

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lxt_host_vlog(fmt, ap);
	va_end(ap);
	lxt_host_fail("panic()");
}

/* WARN(): its message kept for the ud2 that follows, which ends the run. */
void __warn_printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lxt_host_vlog(fmt, ap);
	va_end(ap);
}

void dump_page(const struct page *page, const char *reason)
{
	pr_err("dump_page: pfn %lx: %s\n", page_to_pfn(page), reason);
	lxt_host_fail("dump_page(): a bad page");
}

void add_taint(unsigned int flag, enum lockdep_ok lockdep_ok)
{
	pr_err("add_taint(%u)\n", flag);
	lxt_host_fail("add_taint(): the kernel tainted itself");
}

int ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	return 1;
}

/*
 * Time does not pass at boot, as far as the mm code can tell. jiffies is
 * jiffies_64, by the linker script (lxt.ld), as x86's vmlinux.lds has it.
 */
u64 __cacheline_aligned_in_smp jiffies_64 = INITIAL_JIFFIES;

#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)	/* 7.1's is inline */
unsigned int jiffies_to_msecs(const unsigned long j)
{
	return j * (MSEC_PER_SEC / HZ);
}
#endif

u64 get_random_u64(void)
{
	return lxt_host_rand();
}

unsigned long long simple_strtoull(const char *cp, char **endp, unsigned int base)
{
	unsigned long long v = 0;
	unsigned int d;

	if (!base)
		base = (cp[0] == '0' && (cp[1] | 0x20) == 'x') ? 16 : cp[0] == '0' ? 8 : 10;
	if (base == 16 && cp[0] == '0' && (cp[1] | 0x20) == 'x')
		cp += 2;
	for (;; cp++) {
		if (*cp >= '0' && *cp <= '9')
			d = *cp - '0';
		else if ((*cp | 0x20) >= 'a' && (*cp | 0x20) <= 'f')
			d = (*cp | 0x20) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * base + d;
	}
	if (endp)
		*endp = (char *)cp;
	return v;
}

unsigned long simple_strtoul(const char *cp, char **endp, unsigned int base)
{
	return simple_strtoull(cp, endp, base);
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = lxt_host_vformat(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
