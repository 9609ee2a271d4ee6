/* SPDX-License-Identifier: MIT */
/*
 * The tester's side of the stand-ins (xen_stand.h): the state they keep
 * for Xen's code (the frame table, the domains, the NUMA map, the M2P)
 * and the few functions of the rest of Xen that page_alloc.c calls, each
 * counted or failing by name where the real code should never reach it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xen_stand.h"
#include "tester.h"

struct page_info *xh_frame_table;
unsigned long xh_nr_frames;
struct domain xh_domains[4];
u32 xh_tlbflush_clock;
unsigned int memnode_shift;
nodeid_t xh_memnodemap[1 << 16];
unsigned long xh_memnodemapsize;
bool machine_to_phys_mapping_valid;
unsigned long *xh_m2p;
int system_state;
unsigned long xh_printks, xh_xenheap_allocs;
char *xh_ram;
unsigned char xh_listed[MAX_FRAMES];


void printk(const char *fmt, ...)
{
    (void)fmt;
    xh_printks++;
}

_Noreturn void xh_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "xenheap-test: %s:%d: %s\n", file, line, what);
    fflush(stderr);
    _exit(3);
}

void *mfn_to_virt(unsigned long mfn)
{
    if ( mfn >= xh_nr_frames )
        xh_fail(__FILE__, __LINE__, "mfn_to_virt() of a frame past the frame table");
    return xh_ram + mfn * PAGE_SIZE;
}

unsigned int page_to_llc_color(const struct page_info *pg)
{
    (void)pg;
    xh_fail(__FILE__, __LINE__, "page_to_llc_color(): a coloured page, with LLC colouring off (x86)");
}

void *alloc_xenheap_pages(unsigned int order, unsigned int memflags)
{
    (void)memflags;
    xh_xenheap_allocs++;
    return calloc(1, PAGE_SIZE << order);
}

void *xh_xmalloc(size_t bytes)
{
    xh_xenheap_allocs++;
    return calloc(1, bytes);
}

void xh_list_check(const struct page_info *pg, const struct page_list_head *h)
{
    const struct page_info *p;

    for ( p = h->next; p; p = p->list.next )
        if ( p == pg )
            return;
    xh_fail(__FILE__, __LINE__, "page_list_del() of a page not on the list");
}
