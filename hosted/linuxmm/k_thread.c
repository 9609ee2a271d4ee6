// SPDX-License-Identifier: MIT
/*
 * Kernel half: the kernel's threads as the memory init meets them, each a
 * tester thread on a CPU of its own (k_cpu.c): completions, the kernel
 * threads deferred init runs a node on, padata's helpers within a node,
 * and cond_resched(), which now and then yields so that threads
 * interleave.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/padata.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "lxt.h"

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
