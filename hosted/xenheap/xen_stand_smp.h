/* SPDX-License-Identifier: MIT */
/*
 * What a hand-over after SMP bring-up (a tree with heap-init-smp: its
 * init_deferred_heap()) needs of the rest of Xen: online CPUs, each one's
 * node and core, CPU masks, and on_selected_cpus(), which runs the
 * function on a thread a CPU. Outside such a hand-over (xh_smp_cpus 0)
 * every thread is CPU 0 of node 0 to the code, as before. Included by
 * xen_stand_alloc.h.
 */
#ifndef XH_STAND_SMP_H
#define XH_STAND_SMP_H

#define CONFIG_HEAP_INIT_SMP 1
#define NR_CPUS 64

/* During the hand-over: CPUs 0 to xh_smp_cpus - 1 online, CPU c on node c % xh_smp_nodes, a core each. */
extern unsigned int xh_smp_cpus, xh_smp_nodes;
extern __thread unsigned int xh_cpu;
#define smp_processor_id() (xh_smp_cpus ? xh_cpu : 0U)
#define cpu_to_node(cpu) ((nodeid_t)(xh_smp_cpus ? (cpu) % xh_smp_nodes : ((void)(cpu), 0U)))

/* CPU masks of up to 64 CPUs, one word. */
typedef struct { unsigned long bits[1]; } cpumask_t;
extern cpumask_t cpu_online_map, xh_node_to_cpumask[], xh_cpu_sibling_mask[];
#define node_to_cpumask(n) (xh_node_to_cpumask[n])
#define per_cpu(var, cpu) (&xh_##var[cpu])
#define cpumask_clear(d) ((d)->bits[0] = 0)
#define cpumask_and(d, a, b) ((d)->bits[0] = (a)->bits[0] & (b)->bits[0])
#define cpumask_or(d, a, b) ((d)->bits[0] = (a)->bits[0] | (b)->bits[0])
#define cpumask_intersects(a, b) (((a)->bits[0] & (b)->bits[0]) != 0)
#define cpumask_test_cpu(c, m) (((m)->bits[0] >> (c)) & 1)
#define __cpumask_set_cpu(c, m) ((m)->bits[0] |= 1UL << (c))
#define cpumask_weight(m) ((unsigned int)__builtin_popcountl((m)->bits[0]))
static inline unsigned int xh_cpu_from(unsigned long bits, unsigned int c)
{
    bits &= c < 64 ? ~0UL << c : 0;
    return bits ? (unsigned int)__builtin_ctzl(bits) : NR_CPUS;
}
#define cpumask_first(m) xh_cpu_from((m)->bits[0], 0)
#define for_each_cpu(c, m) for ( (c) = cpumask_first(m); (c) < NR_CPUS; (c) = xh_cpu_from((m)->bits[0], (c) + 1) )
#define num_online_nodes() ((unsigned int)__builtin_popcountl(node_online_map.bits[0]))
#define for_each_online_node(n) \
    for ( (n) = first_node(node_online_map); (n) < MAX_NUMNODES; (n) = next_node(n, node_online_map) )

/* Each CPU of `mask` runs fn(info), CPU 0 (the caller) itself; returns when all have (stand.c). */
void xh_on_selected_cpus(const cpumask_t *mask, void (*fn)(void *), void *info);
void xh_smp_done(void);
/* CPUs 0 to cpus - 1 online, CPU c on node c % nodes, a core each (stand.c). */
void xh_smp_up(unsigned int cpus, unsigned int nodes);
#define on_selected_cpus(mask, fn, info, wait) ((void)(wait), xh_on_selected_cpus(mask, fn, info))
#define process_pending_softirqs() do { } while ( 0 )
#define write_atomic(p, x) __atomic_store_n(p, x, __ATOMIC_RELAXED)
#define __initcall(fn)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define ROUNDUP(x, a) (((x) + (a) - 1) & ~((a) - 1))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
