// SPDX-License-Identifier: MIT
/*
 * Kernel half: CPUs and locks as the real mm code meets them (threads:
 * k_thread.c). Each tester thread runs as one CPU of its own: %gs points at that CPU's
 * copy of the per-CPU section (the user half maps the copies and loads
 * %gs), and `current` is that CPU's task_struct. Spinlocks are real locks
 * on the kernel's own lock words, so that two threads in one zone without
 * its lock corrupt its lists as two CPUs would.
 */
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#include <asm/current.h>
#include <asm/percpu.h>
#include <asm/preempt.h>

#include "lxt.h"

/*
 * The per-CPU offsets and this CPU's own (arch/x86/kernel/setup_percpu.c),
 * and the CPU's hot data: one struct pcpu_hot until 6.15, variables of
 * their own since.
 */
unsigned long __per_cpu_offset[NR_CPUS] __read_mostly;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0)
DEFINE_PER_CPU_READ_MOSTLY(unsigned long, this_cpu_off);
DEFINE_PER_CPU_ALIGNED(struct pcpu_hot, pcpu_hot);
#define lxt_set_hot(cpu, task) do {					\
	this_cpu_write(pcpu_hot.cpu_number, cpu);			\
	this_cpu_write(pcpu_hot.current_task, task);			\
} while (0)
#else
DEFINE_PER_CPU_CACHE_HOT(unsigned long, this_cpu_off);
DEFINE_PER_CPU_CACHE_HOT(struct task_struct *, current_task);
DEFINE_PER_CPU_CACHE_HOT(int, cpu_number);
DEFINE_PER_CPU_CACHE_HOT(int, __preempt_count);
/* The stack protector's canary: %gs:__ref_stack_chk_guard, the alias lxt.ld gives. */
DEFINE_PER_CPU_CACHE_HOT(unsigned long, __stack_chk_guard);
#define lxt_set_hot(cpu, task) do {					\
	this_cpu_write(cpu_number, cpu);				\
	this_cpu_write(current_task, task);				\
	this_cpu_write(__preempt_count, PREEMPT_ENABLED);		\
	this_cpu_write(__stack_chk_guard, 0x5a17ed0c0ffee000UL + (cpu)); \
} while (0)

void set_cpu_possible(unsigned int cpu, bool possible)
{
	if (possible)
		cpumask_set_cpu(cpu, &__cpu_possible_mask);
	else
		cpumask_clear_cpu(cpu, &__cpu_possible_mask);
}
#endif

/* The CPU masks (kernel/cpu.c); the tester's CPUs are all possible and online. */
struct cpumask __cpu_possible_mask __read_mostly;
struct cpumask __cpu_online_mask __read_mostly;
struct cpumask __cpu_present_mask __read_mostly;
atomic_t __num_online_cpus __read_mostly;
unsigned int nr_cpu_ids __read_mostly = NR_CPUS;
cpumask_var_t node_to_cpumask_map[MAX_NUMNODES];

static struct task_struct lxt_tasks[NR_CPUS];

void set_cpu_online(unsigned int cpu, bool online)
{
	if (online && !cpumask_test_and_set_cpu(cpu, &__cpu_online_mask))
		atomic_inc(&__num_online_cpus);
	else if (!online && cpumask_test_and_clear_cpu(cpu, &__cpu_online_mask))
		atomic_dec(&__num_online_cpus);
}

void lxt_cpu_init(int cpu, unsigned long offset)
{
	__per_cpu_offset[cpu] = offset;
	this_cpu_write(this_cpu_off, offset);
	lxt_set_hot(cpu, &lxt_tasks[cpu]);
	lxt_tasks[cpu].flags = PF_KTHREAD;
	set_cpu_possible(cpu, true);
	set_cpu_present(cpu, true);
	set_cpu_online(cpu, true);
}

/*
 * Spinlocks: the queued lock's word, taken by compare and exchange. Each
 * CPU also keeps the locks it holds with interrupts saved, whose unlock
 * comes here too (a plain spin_unlock() is inline), to check what the
 * kernel's lock debugging checks: that a lock is held where
 * lockdep_assert_held() says it must be, and that an unlock releases a
 * lock this CPU took (spinlock_debug.c).
 */
#define LXT_HELD 8
static DEFINE_PER_CPU(raw_spinlock_t *, lxt_held[LXT_HELD]);

static void lxt_held_prune(void)
{
	int i;

	for (i = 0; i < LXT_HELD; i++) {
		raw_spinlock_t *l = this_cpu_read(lxt_held[i]);

		if (l && !atomic_read(&l->raw_lock.val))
			this_cpu_write(lxt_held[i], NULL);
	}
}

bool lxt_lock_held(raw_spinlock_t *lock);
bool lxt_lock_held(raw_spinlock_t *lock)
{
	int i;

	lxt_held_prune();
	for (i = 0; i < LXT_HELD; i++)
		if (this_cpu_read(lxt_held[i]) == lock)
			return true;
	return false;
}

static __always_inline void lxt_lock(raw_spinlock_t *lock, bool keep)
{
	atomic_t *val = &lock->raw_lock.val;
	int i;

	for (;;) {
		int old = 0;

		if (atomic_try_cmpxchg_acquire(val, &old, _Q_LOCKED_VAL))
			break;
		while (atomic_read(val))
			cpu_relax();
	}
	if (!keep)
		return;
	lxt_held_prune();
	for (i = 0; i < LXT_HELD && this_cpu_read(lxt_held[i]); i++)
		;
	if (i == LXT_HELD)
		lxt_host_fail("a CPU holds more spinlocks than the tester keeps");
	this_cpu_write(lxt_held[i], lock);
}

void __lockfunc _raw_spin_lock(raw_spinlock_t *lock)
{
	preempt_disable();
	lxt_lock(lock, false);
}

static atomic_long_t lxt_irqsave_locks;

/* Locks taken with interrupts saved: the zone locks of the hand-over, and how many. */
unsigned long lxt_zone_locks(void);
unsigned long lxt_zone_locks(void)
{
	return atomic_long_read(&lxt_irqsave_locks);
}

unsigned long __lockfunc _raw_spin_lock_irqsave(raw_spinlock_t *lock)
{
	unsigned long flags;

	atomic_long_inc(&lxt_irqsave_locks);
	local_irq_save(flags);
	preempt_disable();
	lxt_lock(lock, true);
	return flags;
}

int __lockfunc _raw_spin_trylock(raw_spinlock_t *lock)
{
	int old = 0;

	preempt_disable();
	if (atomic_try_cmpxchg_acquire(&lock->raw_lock.val, &old, _Q_LOCKED_VAL))
		return 1;
	preempt_enable();
	return 0;
}

#ifdef CONFIG_UNINLINE_SPIN_UNLOCK
void __lockfunc _raw_spin_unlock(raw_spinlock_t *lock)
{
	smp_store_release(&lock->raw_lock.locked, 0);
	preempt_enable();
}
#endif

void __lockfunc _raw_spin_unlock_irqrestore(raw_spinlock_t *lock, unsigned long flags)
{
	int i;

	lxt_held_prune();
	for (i = 0; i < LXT_HELD && this_cpu_read(lxt_held[i]) != lock; i++)
		;
	if (i == LXT_HELD)
		lxt_host_fail("spin_unlock_irqrestore() of a lock this CPU does not hold");
	this_cpu_write(lxt_held[i], NULL);
	smp_store_release(&lock->raw_lock.locked, 0);
	local_irq_restore(flags);
	preempt_enable();
}

/* Mutexes: the owner word as a lock, enough for boot's uncontended users. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
void __mutex_init(struct mutex *lock, const char *name, struct lock_class_key *key)
#else
void mutex_init_generic(struct mutex *lock)
#endif
{
	atomic_long_set(&lock->owner, 0);
}

void mutex_lock(struct mutex *lock)
{
	long old;

	do {
		old = 0;
	} while (!atomic_long_try_cmpxchg_acquire(&lock->owner, &old, (long)current));
}

void mutex_unlock(struct mutex *lock)
{
	atomic_long_set_release(&lock->owner, 0);
}
