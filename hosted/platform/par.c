// SPDX-License-Identifier: MIT
// The hosted runner's workers for the parallel heap init (mm/heap_par.h):
// POSIX threads, one per CPU asked for (--cpus N), each pinned to a core
// when there are that many, started once and reused for every job.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hosted/platform/runner.h"
#include "kernel/time/tsc.h"
#include "mm/heap_par.h"
#include "mm/mm.h"

unsigned host_cpus = 1;

static struct {
    pthread_barrier_t start, end;
    heap_par_fn fn;
    void *arg;
    unsigned n;                 /* workers in the current job, the caller included */
    volatile unsigned gen;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool started;
} job;

static void pin(unsigned cpu)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;

    if (cores < (long)host_cpus)
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *thread_main(void *p)
{
    unsigned cpu = (unsigned)(uintptr_t)p, seen = 0;

    pin(cpu);
    for (;;) {
        pthread_mutex_lock(&job.lock);
        while (job.gen == seen)
            pthread_cond_wait(&job.wake, &job.lock);
        seen = job.gen;
        pthread_mutex_unlock(&job.lock);
        if (cpu >= job.n)
            continue;
        pthread_barrier_wait(&job.start);
        job.fn(cpu, job.arg);
        pthread_barrier_wait(&job.end);
    }
    return NULL;
}

unsigned heap_par_platform_cpus(void)
{
    return host_cpus;
}

unsigned heap_par_platform_node(unsigned cpu)
{
    /* No SRAT here: with numa_fake=, workers take the nodes in turn. */
    return cpu % (mm.nodes ? mm.nodes : 1);
}

void heap_par_platform_run(unsigned n, heap_par_fn fn, void *arg, uint64_t window[2])
{
    if (!job.started) {
        pthread_mutex_init(&job.lock, NULL);
        pthread_cond_init(&job.wake, NULL);
        pin(0);
        for (unsigned c = 1; c < host_cpus; c++) {
            pthread_t t;
            if (pthread_create(&t, NULL, thread_main, (void *)(uintptr_t)c)) {
                fprintf(stderr, "bootheap-host: cannot start worker thread %u\n", c);
                host_exit(HOSTED_EXIT_FAIL);
            }
        }
        job.started = true;
    }
    if (job.n != n) {
        if (job.n) {
            pthread_barrier_destroy(&job.start);
            pthread_barrier_destroy(&job.end);
        }
        pthread_barrier_init(&job.start, NULL, n);
        pthread_barrier_init(&job.end, NULL, n);
    }
    pthread_mutex_lock(&job.lock);
    job.fn = fn;
    job.arg = arg;
    job.n = n;
    job.gen++;
    pthread_cond_broadcast(&job.wake);
    pthread_mutex_unlock(&job.lock);

    pthread_barrier_wait(&job.start);
    window[0] = tsc_now();
    fn(0, arg);
    pthread_barrier_wait(&job.end);
    window[1] = tsc_now();
}

uint64_t heap_par_platform_now(void)
{
    return tsc_now();
}
