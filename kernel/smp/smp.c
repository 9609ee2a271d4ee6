// SPDX-License-Identifier: MIT
// Jobs on many CPUs: the park loop, smp_call() with its timed window, the
// barrier, and the TSC offset of every CPU against the boot CPU's.
#include "kernel/smp/smp.h"

#include "kernel/smp/apic.h"
#include "kernel/time/time.h"
#include "kernel/time/tsc.h"
#include "kernel/traps.h"

struct percpu percpus[SMP_MAX_CPUS];
unsigned smp_ncpus = 1;

/* The job being run: published by the boot CPU, generation last. */
static struct {
    smp_fn fn;
    void *arg;
    cpumask_t mask;
    struct smp_barrier start, end;
    volatile uint64_t gen;
} job;

static void wait_relax(void)
{
    /* A CPU reporting a fatal exception ends the run; nobody waits for it. */
    if (__atomic_load_n(&traps_fatal, __ATOMIC_ACQUIRE))
        for (;;)
            __asm__ volatile("cli; hlt");
    cpu_relax();
}

void smp_barrier_init(struct smp_barrier *b, unsigned n)
{
    b->count = 0;
    b->gen = 0;
    b->n = n;
}

void smp_barrier_wait(struct smp_barrier *b)
{
    unsigned gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);

    if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
        /* The last one in opens the next round: count first, then gen. */
        __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
        wait_relax();
}

/* Runs the job of generation gen if this CPU is in it. */
static void run_job(unsigned cpu)
{
    if (!(job.mask & (1ull << cpu)))
        return;
    smp_barrier_wait(&job.start);
    job.fn(cpu, job.arg);
    smp_barrier_wait(&job.end);
}

/*
 * Between jobs an AP sleeps in HLT with interrupts on only inside STI;HLT:
 * STI takes effect after the next instruction, so a wake-up sent after the
 * check below still ends the HLT. Under emulation a halted vCPU costs the
 * host nothing, where a spinning one would take a host core.
 */
__noreturn void smp_park(void)
{
    unsigned cpu = smp_processor_id();
    /* The generation before this CPU says it is up: any job after that is its. */
    uint64_t seen = __atomic_load_n(&job.gen, __ATOMIC_ACQUIRE);

    __atomic_store_n(&this_cpu()->online, 1, __ATOMIC_RELEASE);

    for (;;) {
        __asm__ volatile("cli");
        while (__atomic_load_n(&job.gen, __ATOMIC_ACQUIRE) == seen)
            __asm__ volatile("sti; hlt; cli" ::: "memory");
        seen = job.gen;
        run_job(cpu);
    }
}

void smp_call(cpumask_t mask, smp_fn fn, void *arg, uint64_t window[2])
{
    unsigned n = 0;

    mask &= smp_online_mask();
    for (unsigned c = 0; c < smp_ncpus; c++)
        n += (mask >> c) & 1;
    /* The boot CPU passes both barriers whether it works or not. */
    job.fn = fn;
    job.arg = arg;
    job.mask = mask | 1;
    /* Only the sizes change: every round leaves count at 0, and a CPU still
     * leaving the last job's end barrier must see its generation move on. */
    job.start.n = n + !(mask & 1);
    job.end.n = n + !(mask & 1);
    __atomic_store_n(&job.gen, job.gen + 1, __ATOMIC_RELEASE);
    for (unsigned c = 1; c < smp_ncpus; c++)
        if (mask & (1ull << c))
            apic_send_ipi(percpus[c].apic_id, APIC_WAKE_VECTOR);

    smp_barrier_wait(&job.start);
    if (window)
        window[0] = tsc_now();
    if (mask & 1)
        fn(0, arg);
    smp_barrier_wait(&job.end);
    if (window)
        window[1] = tsc_now();
}

/* ---- TSC offsets ---------------------------------------------------------------- */

#define TSC_ROUNDS 64

/*
 * One exchange per round: the boot CPU reads its TSC (a) and asks; the AP
 * reads its own (b) and answers; the boot CPU reads again (c). If the two
 * counters agree, b lies in [a, c], so b - (a + c) / 2 is the AP's offset
 * to within half the round trip. The round with the shortest trip wins.
 */
static struct {
    unsigned ap;
    volatile uint32_t seq;          /* odd: the boot CPU asks; even: the AP answered */
    volatile uint64_t b;
} ping;

static void tsc_exchange(unsigned cpu, void *arg)
{
    (void)arg;
    if (cpu != 0) {
        for (uint32_t r = 0; r < TSC_ROUNDS; r++) {
            while (__atomic_load_n(&ping.seq, __ATOMIC_ACQUIRE) != 2 * r + 1)
                wait_relax();
            ping.b = tsc_now();
            __atomic_store_n(&ping.seq, 2 * r + 2, __ATOMIC_RELEASE);
        }
        return;
    }
    struct percpu *pc = &percpus[ping.ap];
    pc->tsc_rtt = UINT64_MAX;
    for (uint32_t r = 0; r < TSC_ROUNDS; r++) {
        uint64_t a = tsc_now();
        __atomic_store_n(&ping.seq, 2 * r + 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&ping.seq, __ATOMIC_ACQUIRE) != 2 * r + 2)
            wait_relax();
        uint64_t c = tsc_now(), b = ping.b;
        if (c - a < pc->tsc_rtt) {
            pc->tsc_rtt = c - a;
            pc->tsc_offset = (int64_t)(b - (a + (c - a) / 2));
        }
    }
}

void smp_measure_tsc(void)
{
    percpus[0].tsc_offset = 0;
    percpus[0].tsc_rtt = 0;
    for (unsigned c = 1; c < smp_ncpus; c++) {
        ping.ap = c;
        ping.seq = 0;
        smp_call(1ull | (1ull << c), tsc_exchange, NULL, NULL);
    }
}
