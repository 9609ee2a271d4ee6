// SPDX-License-Identifier: MIT
/*
 * Kernel half: CPUs, threads and locks as the real mm code meets them.
 * Each tester thread runs as one CPU of its own: %gs points at that CPU's
 * copy of the per-CPU section (the user half maps the copies and loads
 * %gs), and `current` is that CPU's task_struct. Spinlocks are real locks
 * on the kernel's own lock words, so that two threads in one zone without
 * its lock corrupt its lists as two CPUs would.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/padata.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
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

/* Completions: a count the waiter sleeps on. */
void __init_waitqueue_head(struct wait_queue_head *wq_head, const char *name,
			   struct lock_class_key *key)
{
}

void complete(struct completion *x)
{
	__atomic_add_fetch(&x->done, 1, __ATOMIC_RELEASE);
	lxt_host_wake(&x->done);
}

void wait_for_completion(struct completion *x)
{
	unsigned int done;

	while (!(done = __atomic_load_n(&x->done, __ATOMIC_ACQUIRE)))
		lxt_host_sleep(&x->done, 0);
	__atomic_sub_fetch(&x->done, 1, __ATOMIC_RELAXED);
}

/*
 * CPUs for threads: CPU 0 is the boot's own thread; every other thread
 * takes a free CPU when it starts and gives it back when it is joined.
 */
static unsigned long lxt_busy_cpus = 1;

static int lxt_cpu_take(void)
{
	unsigned long busy = __atomic_load_n(&lxt_busy_cpus, __ATOMIC_RELAXED);
	int cpu;

	do {
		cpu = ffz(busy);
		if (cpu >= LXT_MAX_CPUS || cpu >= NR_CPUS)
			lxt_host_fail("more threads at once than the tester has CPUs");
	} while (!__atomic_compare_exchange_n(&lxt_busy_cpus, &busy, busy | BIT(cpu), false,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return cpu;
}

static void *lxt_start(int (*fn)(void *), void *arg)
{
	return lxt_host_thread(lxt_cpu_take(), fn, arg);
}

static void lxt_join(void *thread)
{
	int cpu = lxt_host_join(thread);

	__atomic_and_fetch(&lxt_busy_cpus, ~BIT(cpu), __ATOMIC_RELEASE);
}

/*
 * Kernel threads: a tester thread each, started by wake_up_process() as
 * the kernel starts them; lxt_threads_join() waits for all of them.
 */
struct lxt_kthread {
	int (*fn)(void *);
	void *arg;
	void *thread;
	bool made;
};
static struct lxt_kthread lxt_kthreads[NR_CPUS];
static struct task_struct lxt_ktasks[NR_CPUS];

struct task_struct *kthread_create_on_node(int (*threadfn)(void *data), void *data, int node,
					   const char namefmt[], ...)
{
	int i;

	for (i = 0; i < NR_CPUS && lxt_kthreads[i].made; i++)
		;
	if (i == NR_CPUS)
		lxt_host_fail("more kernel threads than the tester keeps");
	lxt_kthreads[i] = (struct lxt_kthread){ .fn = threadfn, .arg = data, .made = true };
	lxt_ktasks[i].flags = PF_KTHREAD;
	return &lxt_ktasks[i];
}

int wake_up_process(struct task_struct *tsk)
{
	struct lxt_kthread *k = &lxt_kthreads[tsk - lxt_ktasks];

	k->thread = lxt_start(k->fn, k->arg);
	return 1;
}

void lxt_threads_join(void);
void lxt_threads_join(void)
{
	int i;

	for (i = 0; i < NR_CPUS; i++) {
		if (lxt_kthreads[i].thread)
			lxt_join(lxt_kthreads[i].thread);
		lxt_kthreads[i] = (struct lxt_kthread){};
	}
}

int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *new_mask)
{
	return 0;
}

/*
 * cond_resched(): now and then a yield, so that threads interleave. A
 * preemptible kernel without dynamic preemption has no call to answer.
 */
int lxt_yield_every;
#if !defined(CONFIG_PREEMPTION) || defined(CONFIG_PREEMPT_DYNAMIC)
static DEFINE_PER_CPU(unsigned long, lxt_resched_calls);

int __cond_resched(void)
{
	if (lxt_yield_every && !(this_cpu_inc_return(lxt_resched_calls) % lxt_yield_every))
		lxt_host_yield();
	return 0;
}
#endif

/*
 * padata_do_multithreaded(), modelled on kernel/padata.c: the job cut
 * into chunks of at least min_chunk, aligned, about four a thread, taken
 * in turn under a lock by the caller and up to max_threads - 1 helpers.
 */
struct lxt_padata {
	struct padata_mt_job *job;
	spinlock_t lock;
	unsigned long chunk;
};

static int lxt_padata_helper(void *data)
{
	struct lxt_padata *ps = data;
	struct padata_mt_job *job = ps->job;
	unsigned long start, end;

	spin_lock(&ps->lock);
	while (job->size) {
		start = job->start;
		end = min(roundup(start + 1, ps->chunk), start + job->size);
		job->size -= end - start;
		job->start = end;
		spin_unlock(&ps->lock);
		job->thread_fn(start, end, job->fn_arg);
		spin_lock(&ps->lock);
	}
	spin_unlock(&ps->lock);
	return 0;
}

void __init padata_do_multithreaded(struct padata_mt_job *job)
{
	void *helpers[NR_CPUS];
	struct lxt_padata ps;
	unsigned long works;
	int i;

	if (!job->size)
		return;
	works = max(job->size / max(job->min_chunk, job->align), 1UL);
	works = min_t(unsigned long, works, job->max_threads);
	if (works == 1) {
		job->thread_fn(job->start, job->start + job->size, job->fn_arg);
		return;
	}
	ps.job = job;
	spin_lock_init(&ps.lock);
	ps.chunk = max3(job->size / (works * 4), job->min_chunk, 1UL);
	ps.chunk = roundup(ps.chunk, job->align) ?: 1;
	for (i = 1; i < works; i++)
		helpers[i] = lxt_start(lxt_padata_helper, &ps);
	lxt_padata_helper(&ps);
	for (i = 1; i < works; i++)
		lxt_join(helpers[i]);
}
