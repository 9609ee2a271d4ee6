// SPDX-License-Identifier: MIT
/*
 * User half: the machine the kernel half runs on. The direct map and the
 * vmemmap are reserved at fixed addresses (so that every run of a layout
 * puts every structure at the same address, and two runs compare word by
 * word); each CPU has a copy of the kernel's per-CPU section that %gs
 * points at; threads run on CPUs of their own. The kernel's cli and sti
 * fault in user space: the first time each one runs it is patched into a
 * nop, as no interrupt can come here anyway.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "lxt.h"
#include "u_host.h"

/*
 * What the kernel half calls: its code keeps the stack 8-byte aligned
 * (-mpreferred-stack-boundary=3), the C library wants 16.
 */
#define FROM_KERNEL __attribute__((force_align_arg_pointer))

#define PHYS_AT 0x100000000000UL	/* 16 TiB: the direct map */
#define VMEMMAP_AT 0x200000000000UL	/* 32 TiB: the struct pages */
#define PERCPU_AT 0x300000000000UL	/* 48 TiB: one area a CPU */
#define PERCPU_STRIDE (1UL << 32)

unsigned long lxt_phys_base, lxt_phys_bytes, lxt_vmemmap_base, lxt_vmemmap_bytes;
extern char __per_cpu_start[], __per_cpu_end[], __executable_start[], __etext[];

int host_verbose;
static void (*fail_hook)(const char *);
static __thread int this_cpu = -1;
static __thread unsigned long rand_state = 0x9e3779b97f4a7c15UL;

static void *map_fixed(unsigned long at, unsigned long bytes)
{
	void *p = mmap((void *)at, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != (void *)at) {
		fprintf(stderr, "linuxmm: cannot reserve %lu bytes at %#lx: %s\n", bytes, at,
			p == MAP_FAILED ? strerror(errno) : "taken");
		exit(2);
	}
	return p;
}

FROM_KERNEL void lxt_host_fail(const char *what)
{
	if (fail_hook)
		fail_hook(what);
	fprintf(stderr, "linuxmm: %s\n", what);
	_exit(3);
}

void lxt_trap_hit(const char *name);
FROM_KERNEL void lxt_trap_hit(const char *name)
{
	static char msg[160];

	snprintf(msg, sizeof(msg), "the real code called %s(), which the tester answers with a trap", name);
	lxt_host_fail(msg);
}

/*
 * A fault: a cli or sti of the kernel's becomes a nop and runs on;
 * anything else ends the run, naming where (a BUG() is a ud2).
 */
static void on_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	unsigned char *ip = (unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
	static char msg[160];

	if (sig == SIGSEGV && (ip[0] == 0xfa || ip[0] == 0xfb) &&
	    ip >= (unsigned char *)__executable_start && ip < (unsigned char *)__etext) {
		ip[0] = 0x90;
		return;
	}
	if (sig == SIGILL && ip[0] == 0x0f && ip[1] == 0x0b)
		snprintf(msg, sizeof(msg), "BUG() (ud2) at %p", (void *)ip);
	else
		snprintf(msg, sizeof(msg), "%s at %p, address %p", strsignal(sig), (void *)ip, si->si_addr);
	lxt_host_fail(msg);
}

static void load_cpu(int cpu)
{
	unsigned long area = PERCPU_AT + cpu * PERCPU_STRIDE;

	if (syscall(SYS_arch_prctl, ARCH_SET_GS, area)) {
		perror("linuxmm: arch_prctl(ARCH_SET_GS)");
		_exit(2);
	}
	this_cpu = cpu;
	lxt_cpu_init(cpu, area);
}

void host_setup(unsigned long phys_bytes, unsigned long vmemmap_bytes, int vmemmap_fd,
		void (*hook)(const char *))
{
	unsigned long len = (unsigned long)__per_cpu_end, text = (unsigned long)__executable_start;
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
	int cpu;

	fail_hook = hook;
	lxt_phys_base = (unsigned long)map_fixed(PHYS_AT, phys_bytes);
	lxt_phys_bytes = phys_bytes;
	madvise((void *)lxt_phys_base, phys_bytes, MADV_HUGEPAGE);
	if (vmemmap_fd >= 0) {
		/* Shared with the parent, which compares the struct pages where they lie. */
		if (mmap((void *)VMEMMAP_AT, vmemmap_bytes, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED_NOREPLACE, vmemmap_fd, 0) != (void *)VMEMMAP_AT) {
			perror("linuxmm: mmap of the vmemmap");
			_exit(2);
		}
		lxt_vmemmap_base = VMEMMAP_AT;
	} else {
		lxt_vmemmap_base = (unsigned long)map_fixed(VMEMMAP_AT, vmemmap_bytes);
		/* A section's struct pages are 2 MiB: a huge page each, one fault. */
		madvise((void *)lxt_vmemmap_base, vmemmap_bytes, MADV_HUGEPAGE);
	}
	lxt_vmemmap_bytes = vmemmap_bytes;
	/*
	 * %gs:x is this CPU's copy of the per-CPU variable linked at x, at
	 * area + x; %gs:0x28 is the stack protector's canary.
	 */
	for (cpu = 0; cpu < LXT_MAX_CPUS; cpu++) {
		unsigned long area = (unsigned long)map_fixed(PERCPU_AT + cpu * PERCPU_STRIDE, len);

		memcpy((void *)(area + (unsigned long)__per_cpu_start), __per_cpu_start,
		       __per_cpu_end - __per_cpu_start);
		*(unsigned long *)(area + 0x28) = 0x5a17ed0c0ffee000UL + cpu;
	}
	if (mprotect((void *)(text & ~4095UL), (unsigned long)__etext - (text & ~4095UL),
		     PROT_READ | PROT_WRITE | PROT_EXEC)) {
		perror("linuxmm: mprotect of the text");
		_exit(2);
	}
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	load_cpu(0);
}

struct thread {
	pthread_t t;
	int cpu;
	int (*fn)(void *);
	void *arg;
	unsigned long cpu_ns;
};

unsigned long host_threads_cpu_ns;

static void *thread_main(void *p)
{
	struct thread *th = p;

	load_cpu(th->cpu);
	th->fn(th->arg);
	th->cpu_ns = lxt_host_thread_ns();
	return NULL;
}

FROM_KERNEL void *lxt_host_thread(int cpu, int (*fn)(void *), void *arg)
{
	struct thread *th = calloc(1, sizeof(*th));

	th->cpu = cpu;
	th->fn = fn;
	th->arg = arg;
	if (!th || pthread_create(&th->t, NULL, thread_main, th))
		lxt_host_fail("pthread_create() failed");
	return th;
}

FROM_KERNEL int lxt_host_join(void *p)
{
	struct thread *th = p;
	int cpu = th->cpu;

	pthread_join(th->t, NULL);
	__atomic_add_fetch(&host_threads_cpu_ns, th->cpu_ns, __ATOMIC_RELAXED);
	free(th);
	return cpu;
}

FROM_KERNEL void lxt_host_yield(void)
{
	sched_yield();
}

/* A futex on the kernel half's word: sleep while it holds while_is, wake all. */
FROM_KERNEL void lxt_host_sleep(unsigned int *word, unsigned int while_is)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, while_is, NULL, NULL, 0);
}

FROM_KERNEL void lxt_host_wake(unsigned int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

static unsigned long xorshift(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

FROM_KERNEL unsigned long lxt_host_rand(void)
{
	return xorshift(&rand_state);
}

/* Garbage: random words from seed, or the same 8-byte pattern throughout. */
/*
 * Memory about to be written, its pages taken in one call rather than a
 * fault each (faults are dear in a virtual machine).
 */
FROM_KERNEL void lxt_host_prepare(void *at, unsigned long bytes)
{
	unsigned long from = (unsigned long)at & ~4095UL, to = ((unsigned long)at + bytes + 4095) & ~4095UL;

	madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}

FROM_KERNEL void lxt_host_fill(void *at, unsigned long bytes, unsigned long seed, int kind)
{
	unsigned long *w = at, n = bytes / sizeof(long), s = seed | 1, i;

	lxt_host_prepare(at, bytes);

	if (kind == 1) {
		for (i = 0; i < n; i++)
			w[i] = 0xa5a5a5a5deadbeefUL;
		return;
	}
	for (i = 0; i < n; i++)
		w[i] = xorshift(&s);
}

static unsigned long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000UL + ts.tv_nsec;
}

FROM_KERNEL unsigned long lxt_host_thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

FROM_KERNEL unsigned long lxt_host_wall_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* printk: shown with -v only, its level mark taken off. */
FROM_KERNEL void lxt_host_vlog(const char *fmt, va_list ap)
{
	if (!host_verbose)
		return;
	if (fmt[0] == '\001' && fmt[1])
		fmt += 2;
	vfprintf(stderr, fmt, ap);
}

FROM_KERNEL int lxt_host_vformat(char *buf, unsigned long size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	return n < 0 ? 0 : (unsigned long)n >= size ? (int)size - 1 : n;
}

FROM_KERNEL void lxt_host_log(const char *text)
{
	if (host_verbose)
		fputs(text, stderr);
}
