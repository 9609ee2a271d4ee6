// SPDX-License-Identifier: MIT
// Host microbenchmark for the `sweep` strategy's marking loop: which stores
// write 32-byte page_info entries (plus an 8-byte M2P entry) fastest on this
// machine's real CPU. The kernel can only be timed under TCG here, where
// store kinds cost nothing alike, so the choice is measured in user space.
//
//   make build/stores && build/stores [GiB of guest memory] [repeats]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <immintrin.h>

struct entry { uint64_t w[4]; };

static const uint64_t W0 = ~0ull, W1 = 0x8000000000000000ull, W2 = 0xffffffffull, W3 = 0;
static const uint64_t M2P_INVALID = ~0ull;

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The kernel's "plain": four 8-byte stores and one M2P store per page. */
static void mark_plain(struct entry *e, uint64_t *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        volatile uint64_t *p = e[i].w;
        p[0] = W0;
        p[1] = W1;
        p[2] = W2;
        p[3] = W3;
        ((volatile uint64_t *)m)[i] = M2P_INVALID;
    }
}

/* The kernel's "nt": MOVNTI for every word, one SFENCE at the end. */
static void mark_nt(struct entry *e, uint64_t *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        _mm_stream_si64((long long *)&e[i].w[0], (long long)W0);
        _mm_stream_si64((long long *)&e[i].w[1], (long long)W1);
        _mm_stream_si64((long long *)&e[i].w[2], (long long)W2);
        _mm_stream_si64((long long *)&e[i].w[3], (long long)W3);
        _mm_stream_si64((long long *)&m[i], (long long)M2P_INVALID);
    }
    _mm_sfence();
}

/*
 * Two 16-byte SSE stores per entry (needs the kernel to enable SSE), plain
 * or non-temporal. Always inlined with a constant nt, so each caller below
 * compiles to one kind of store only.
 */
__attribute__((target("sse2"), always_inline))
static inline void sse_stores(struct entry *e, uint64_t *m, size_t n, int nt)
{
    __m128i a = _mm_set_epi64x((long long)W1, (long long)W0);
    __m128i b = _mm_set_epi64x((long long)W3, (long long)W2);
    __m128i inv = _mm_set1_epi64x((long long)M2P_INVALID);

#define STORE128(p, v) (nt ? _mm_stream_si128((__m128i *)(p), (v)) : _mm_store_si128((__m128i *)(p), (v)))
    for (size_t i = 0; i < n; i += 2) {
        STORE128(&e[i], a);
        STORE128(&e[i].w[2], b);
        STORE128(&e[i + 1], a);
        STORE128(&e[i + 1].w[2], b);
        STORE128(&m[i], inv);
    }
#undef STORE128
    if (nt)
        _mm_sfence();
}

__attribute__((target("sse2")))
static void mark_sse(struct entry *e, uint64_t *m, size_t n)
{
    sse_stores(e, m, n, 0);
}

/* Non-temporal 16-byte SSE stores. */
__attribute__((target("sse2")))
static void mark_sse_nt(struct entry *e, uint64_t *m, size_t n)
{
    sse_stores(e, m, n, 1);
}

/*
 * rep movsq from a template of 128 tail entries (4 KiB), then rep stosq for
 * the M2P: string instructions stream whole lines, like the floor's memset.
 */
static void mark_rep(struct entry *e, uint64_t *m, size_t n)
{
    static struct entry tmpl[128];

    if (tmpl[0].w[1] != W1)
        for (int i = 0; i < 128; i++)
            tmpl[i] = (struct entry){ { W0, W1, W2, W3 } };
    for (size_t i = 0; i < n; i += 128) {
        size_t k = n - i < 128 ? n - i : 128, q = k * 4;
        void *d = &e[i];
        const void *src = tmpl;
        __asm__ volatile("rep movsq" : "+D"(d), "+S"(src), "+c"(q) : : "memory");
    }
    size_t q = n;
    void *d = m;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(M2P_INVALID) : "memory");
}

/*
 * The kernel's default "rep": every qword of a tail entry is the same value
 * (the free count_info), so the entries are a memset with that value.
 */
static void mark_rep_uniform(struct entry *e, uint64_t *m, size_t n)
{
    size_t q = n * 4;
    void *d = e;

    __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(W1) : "memory");
    q = n;
    d = m;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(M2P_INVALID) : "memory");
}

/*
 * The same stores one 1 GiB block (2^18 entries, 8 MiB of page_info) at a
 * time, tails then head, as sweep wrote them until it filled whole ranges:
 * string stores below some length read each line before writing it.
 */
static void mark_rep_per_block(struct entry *e, uint64_t *m, size_t n)
{
    const size_t block = 1u << 18;

    for (size_t s = 0; s < n; s += block) {
        size_t k = n - s < block ? n - s : block, q = (k - 1) * 4;
        void *d = &e[s + 1];
        __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(W1) : "memory");
        q = k - 1;
        d = &m[s + 1];
        __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(M2P_INVALID) : "memory");
        e[s] = (struct entry){ { W0, W1, W2, W3 } };
        m[s] = M2P_INVALID;
    }
}

/* AVX-512 non-temporal: one 64-byte line (two entries) per store. */
__attribute__((target("avx512f")))
static void mark_avx512_nt(struct entry *e, uint64_t *m, size_t n)
{
    __m512i two = _mm512_set_epi64((long long)W3, (long long)W2, (long long)W1, (long long)W0,
                                   (long long)W3, (long long)W2, (long long)W1, (long long)W0);
    __m512i inv = _mm512_set1_epi64((long long)M2P_INVALID);

    for (size_t i = 0; i < n; i += 2)
        _mm512_stream_si512((void *)&e[i], two);
    for (size_t i = 0; i < n; i += 8)
        _mm512_stream_si512((void *)&m[i], inv);
    _mm_sfence();
}

/* A zero memset of the same bytes: what the frame table's setup writes. */
static void floor_memset(struct entry *e, uint64_t *m, size_t n)
{
    size_t q = n * 4;
    void *d = e;

    __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(0ull) : "memory");
    q = n;
    d = m;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(~0ull) : "memory");
}

/*
 * The kernel's floor: the same memset with a non-zero byte, because an init
 * must write a non-zero state and some CPUs fill zeros faster.
 */
static void floor_memset_ones(struct entry *e, uint64_t *m, size_t n)
{
    size_t q = n * 4;
    void *d = e;

    __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(~0ull) : "memory");
    q = n;
    d = m;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(~0ull) : "memory");
}

static double cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * The same bytes of entries in rep stosq calls of each length: a string
 * store's speed depends on its length (docs/hosted-speeds.md).
 * Best of repeats, thread CPU time, each pass after a zero fill as the
 * kernel's reset does.
 */
static void lengths(struct entry *e, size_t n, int repeats)
{
    static const unsigned mib[] = { 1, 4, 8, 16, 24, 30, 32, 64, 128, 0 };
    const size_t bytes = n * sizeof(*e);

    printf("the page_info entries alone (%zu MiB) in rep stosq calls of each length, best of %d, "
           "CPU time:\n", bytes >> 20, repeats);
    for (unsigned i = 0; i < sizeof(mib) / sizeof(mib[0]); i++) {
        size_t call = mib[i] ? (size_t)mib[i] << 20 : bytes;
        double best = 1e99;
        if (call > bytes)
            continue;
        for (int r = 0; r < repeats; r++) {
            size_t q = bytes / 8;
            void *d = e;
            __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(0ull) : "memory");
            double t0 = cpu_ns();
            for (size_t off = 0; off < bytes; off += call) {
                q = (bytes - off < call ? bytes - off : call) / 8;
                d = (char *)e + off;
                __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(W1) : "memory");
            }
            double t = cpu_ns() - t0;
            best = t < best ? t : best;
        }
        printf("  calls of %5zu MiB%s %6.3f ns a page\n", call >> 20, mib[i] ? "" : " (one)",
               best / (double)n);
    }
}

struct kind {
    const char *name;
    void (*fn)(struct entry *, uint64_t *, size_t);
};

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    double gib = argc > 1 ? atof(argv[1]) : 16;
    int repeats = argc > 2 ? atoi(argv[2]) : 7;
    size_t n = (size_t)(gib * (1 << 18));       /* 4 KiB pages */
    const struct kind kinds[] = {
        { "floor (rep stosq of ones)", floor_memset_ones },
        { "zero fill (rep stosq)", floor_memset },
        { "plain", mark_plain },
        { "nt (movnti)", mark_nt },
        { "sse", mark_sse },
        { "sse-nt (movntdq)", mark_sse_nt },
        { "rep movsq template", mark_rep },
        { "rep stosq uniform", mark_rep_uniform },
        { "rep stosq per 1 GiB block", mark_rep_per_block },
        { "avx512-nt", mark_avx512_nt },
    };
    enum { K = sizeof(kinds) / sizeof(kinds[0]) };
    double t[K][64];

    if (repeats < 1 || repeats > 64 || n < 2) {
        fprintf(stderr, "usage: %s [GiB] [repeats 1..64]\n", argv[0]);
        return 2;
    }
    n &= ~(size_t)7;
    struct entry *e = mmap(NULL, n * sizeof(*e), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    uint64_t *m = mmap(NULL, n * sizeof(*m), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (e == MAP_FAILED || m == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    /* Warm-up: every page mapped and written once, as the kernel's warm-up run does. */
    floor_memset(e, m, n);
    /* Interleaved, like the kernel's runs, so drift hits every kind alike. */
    for (int r = 0; r < repeats; r++) {
        for (int k = 0; k < K; k++) {
            double t0 = now_ns();
            kinds[k].fn(e, m, n);
            t[k][r] = now_ns() - t0;
        }
    }
    printf("marking %zu page_info + M2P entries (%.1f GiB of guest memory, %zu MiB of metadata), "
           "%d interleaved repeats, median:\n", n, gib, n * 40 >> 20, repeats);
    double floor_med = 0;
    for (int k = 0; k < K; k++) {
        qsort(t[k], (size_t)repeats, sizeof(double), cmp);
        double med = t[k][repeats / 2];
        if (k == 0)
            floor_med = med;
        printf("  %-26s %9.2f ms  %6.3f ns/page  %5.2fx floor  (min %.2f, max %.2f ms)\n",
               kinds[k].name, med / 1e6, med / n, med / floor_med, t[k][0] / 1e6,
               t[k][repeats - 1] / 1e6);
    }
    lengths(e, n, repeats);
    return 0;
}
