// SPDX-License-Identifier: MIT
// padata's multithreaded jobs as Linux's deferred init uses them
// (kernel/padata.c in 6.1 and 6.12: padata_do_multithreaded(),
// padata_mt_helper()), on the platform's workers instead of a workqueue.
#include "mm/peers/linux/linux.h"

/* The job over this many chunks a thread, in case threads finish at different times. */
#define LOAD_BALANCE_FACTOR 4

/* roundup() (include/linux/math.h): by division, for any y. */
static inline uint64_t roundup(uint64_t x, uint64_t y)
{
    return (x + y - 1) / y * y;
}

unsigned lx_padata_plan(const struct lx_padata_job *job, struct lx_padata_state *ps)
{
    uint64_t nworks;

    ps->chunk_size = 0;
    if (job->size == 0)
        return 0;
    /* At least one thread when the job is smaller than min_chunk. */
    nworks = MAX(job->size / job->min_chunk, 1ul);
    nworks = MIN(nworks, (uint64_t)job->max_threads);
    if (nworks == 1)
        return 1;
    ps->nworks = (unsigned)nworks;
    ps->nworks_fini = 0;
    ps->chunk_size = job->size / (nworks * LOAD_BALANCE_FACTOR);
    ps->chunk_size = MAX(ps->chunk_size, job->min_chunk);
    ps->chunk_size = MAX(ps->chunk_size, 1ul);
    ps->chunk_size = roundup(ps->chunk_size, job->align);
    if (!ps->chunk_size)
        ps->chunk_size = 1;
    return (unsigned)nworks;
}

uint64_t lx_padata_next(struct lx_padata_job *job, uint64_t chunk_size, uint64_t *start)
{
    uint64_t size;

    if (job->size == 0)
        return 0;
    *start = job->start;
    /* So that the chunk ends chunk_size-aligned while enough work is left. */
    size = roundup(*start + 1, chunk_size) - *start;
    size = MIN(size, job->size);
    job->start += size;
    job->size -= size;
    return size;
}

/* padata_mt_helper(): chunks under the state's lock until none is left. */
static void helper(struct lx_padata_state *ps, unsigned cpu)
{
    struct lx_padata_job *job = ps->job;
    uint64_t start, size;

    peer_lock(&ps->lock);
    while ((size = lx_padata_next(job, ps->chunk_size, &start)) != 0) {
        peer_unlock(&ps->lock);
        job->thread_fn(start, start + size, job->fn_arg, cpu);
        peer_lock(&ps->lock);
    }
    ps->nworks_fini++;
    peer_unlock(&ps->lock);
}

void lx_padata_run(struct lx_padata_job *job, struct lx_padata_state *ps, unsigned rank, unsigned cpu)
{
    if (rank == 1 && ps->chunk_size == 0) {
        /* One thread: no coordination, the whole job in one call. */
        if (job->size)
            job->thread_fn(job->start, job->start + job->size, job->fn_arg, cpu);
        return;
    }
    if (ps->chunk_size && rank <= ps->nworks)
        helper(ps, cpu);
}
