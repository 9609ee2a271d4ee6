/* SPDX-License-Identifier: MIT */
/*
 * Forced into each real object of the host tester
 * (harness/real/linux/host/build.py): __init and __ref code in .text.<name>
 * sections of its own, as -ffunction-sections puts other code, so that the
 * link keeps only the functions the tester reaches. The attributes besides
 * the section stay, as the tree spells them (6.x: __noinitretpoline; 7.x:
 * __no_kstack_erase).
 */
#include <linux/init.h>

#undef __init
#ifdef __noinitretpoline
#define __init __cold __latent_entropy __noinitretpoline
#else
#define __init __cold __latent_entropy __no_kstack_erase
#endif
#undef __ref
#define __ref noinline
