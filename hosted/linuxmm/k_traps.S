/* SPDX-License-Identifier: MIT */
/*
 * Kernel half: the code-generation helpers the kernel's objects call, and
 * traps for what they may reach but the hand-over must never run. A trap
 * ends the run naming itself (lxt_trap_hit(), the user half). A name the
 * objects use that is neither here nor defined elsewhere fails the link.
 */
	.text

/* The return thunk and the mcount call site before patching: a return each. */
	.globl __x86_return_thunk
	.type __x86_return_thunk, @function
__x86_return_thunk:
	ret
	.size __x86_return_thunk, . - __x86_return_thunk

	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	ret
	.size __fentry__, . - __fentry__

/*
 * The calls alternatives make before they are patched, which clobber only
 * what their asm says: clear_page_orig() rax, rcx and rdi (clear_page_64.S),
 * __sw_hweight64() nothing but rax (hweight.S). This CPU has popcnt.
 */
	.globl clear_page_orig
	.type clear_page_orig, @function
clear_page_orig:
	xorl %eax, %eax
	movl $512, %ecx
	rep stosq
	ret
	.size clear_page_orig, . - clear_page_orig

/* 7.x's clear_pages() before patching: rcx bytes at rdi, rax zero (page_64.h). */
	.globl __clear_pages_unrolled
	.type __clear_pages_unrolled, @function
__clear_pages_unrolled:
	shrq $3, %rcx
	rep stosq
	ret
	.size __clear_pages_unrolled, . - __clear_pages_unrolled

	.globl __sw_hweight64
	.type __sw_hweight64, @function
__sw_hweight64:
	popcntq %rdi, %rax
	ret
	.size __sw_hweight64, . - __sw_hweight64

/* Retpolines, one a register: a plain indirect jump. */
	.irp reg, rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15
	.globl __x86_indirect_thunk_\reg
	.type __x86_indirect_thunk_\reg, @function
__x86_indirect_thunk_\reg:
	jmp *%\reg
	.size __x86_indirect_thunk_\reg, . - __x86_indirect_thunk_\reg
	.endr

/*
 * Calls that do nothing before the hand-over ends, whatever their
 * arguments: page_ext, the LRU's generations, zswap, files' limits and
 * sysctl are not used yet, no numa=fake rearranges the SRAT's nodes
 * (arch/x86/mm/numa_emulation.c), printk defers nothing, no stack is
 * dumped.
 */
	.macro nothing name
	.globl \name
	.type \name, @function
\name:
	ret
	.size \name, . - \name
	.endm

	nothing pgdat_page_ext_init
	nothing page_ext_init
	nothing lru_gen_init_pgdat
	nothing lru_gen_init_lruvec
	nothing zswap_lruvec_state_init
	nothing files_maxfiles_init
	nothing __register_sysctl_init
	nothing numa_emulation
	nothing __printk_deferred_enter
	nothing __printk_deferred_exit
	nothing dump_stack
/* hugetlb: no hugepages= on the command line, so none is allocated at boot (7.x). */
	nothing hugetlb_bootmem_alloc
	nothing hugetlb_vmemmap_init_early
	nothing hugetlb_vmemmap_init_late

/* RCU's state for tracepoints (7.x), which none of the tester's is. */
	.bss
	.globl tracepoint_srcu
	.type tracepoint_srcu, @object
	.balign 64
tracepoint_srcu:
	.zero 4096
	.size tracepoint_srcu, . - tracepoint_srcu
	.text

	.macro trap name
	.section .rodata.lxt_trap, "a"
.Lname_\name:
	.asciz "\name"
	.text
	.globl \name
	.type \name, @function
\name:
	lea .Lname_\name(%rip), %rdi
	jmp lxt_trap_hit
	.size \name, . - \name
	.endm

/* Page allocation's slow path, which no boot allocation before slab takes. */
	trap out_of_memory
	trap try_to_compact_pages
	trap try_to_free_pages
	trap wakeup_kswapd
	trap zone_reclaimable_pages
	trap compaction_defer_reset
	trap compaction_zonelist_suitable
	trap node_dirty_ok
	trap node_reclaim
	trap schedule_timeout_uninterruptible
	trap mutex_trylock
/* Slab, RCU and memcg: not up before the hand-over ends. */
	trap __kmalloc_noprof
	trap __kmalloc_node_noprof
	trap __kmalloc_cache_node_noprof
	trap kfree
	trap kvfree_call_rcu
	trap __memcg_kmem_charge_page
	trap __memcg_kmem_uncharge_page
/* A WARN() of 7.x's, its report a static call: the run ends there. */
	trap __SCT__WARN_trap
/* mm_core_init()'s other calls, CPU hotplug and reclaim, which boot reaches later (7.x). */
	trap __cpuhp_setup_state
	trap cpu_vm_stats_fold
	trap vm_events_fold_cpu
	trap lru_add_drain_cpu
	trap mlock_drain_remote
	trap execmem_init
	trap kfence_alloc_pool_and_metadata
	trap kmem_cache_init
	trap mm_cache_init
	trap pgtable_cache_init
	trap pti_init
	trap stack_depot_early_init
	trap vmalloc_init
	trap mem_cgroup_show_protected_memory
/* The 6.12 series' dump (0001), off unless bootheap_dump is on the command line. */
	trap stop_machine
/* A poisoned page taken off the buddy lists (memory-failure.c): never at boot. */
	trap ClearPageHWPoisonTakenOff
	trap kswapd_clear_hopeless
	trap kswapd_test_hopeless
	trap preempt_schedule_thunk
/* Tracepoints and page reporting, their keys off. */
	trap __SCT__tp_func_mm_page_free
	trap __SCT__tp_func_mm_page_pcpu_drain
	trap __SCT__tp_func_mm_page_alloc
	trap __SCT__tp_func_mm_page_alloc_extfrag
	trap __SCT__tp_func_mm_page_alloc_zone_locked
	trap __SCT__tp_func_compact_retry
	trap __SCT__tp_func_reclaim_retry_zone
	trap __SCT__tp_func_mm_page_free_batched
	trap __SCT__tp_func_mm_calculate_totalreserve_pages
	trap __SCT__tp_func_mm_setup_per_zone_lowmem_reserve
	trap __SCT__tp_func_mm_setup_per_zone_wmarks
	trap __page_reporting_notify
/* Page tables of the vmemmap, which the tester's vmemmap_populate() does not build. */
	trap vmemmap_free
	trap arch_sync_kernel_mappings
	trap __pti_set_user_pgtbl
/* Reports and sysctl handlers. */
	trap __show_mem
	trap print_hex_dump
	trap proc_dointvec_minmax
	trap proc_dostring

	.section .note.GNU-stack, "", @progbits
