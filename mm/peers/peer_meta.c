// SPDX-License-Identifier: MIT
// Backing the peers' page arrays with boot memory, per 1 GiB section that
// holds usable RAM, in 2 MiB pages, as the frame table is backed
// (mm/frametable_setup.c), and Linux's pageblock bits beside them. The
// kernel and the hosted runner; the host tests bring their own storage.
#include "mm/peers/linux/linux.h"

#include "kernel/console/printk.h"
#include "kernel/lib/libc.h"
#include "mm/paging.h"
#include "mm/reserve.h"

static bool section_backed(uint64_t sec)
{
    return (section_valid[sec / 64] >> (sec % 64)) & 1;
}

/* Bytes of layout l's array for section sec: its frames' entries, in whole 2 MiB pages. */
static uint64_t section_bytes(enum peer_layout l, uint64_t sec)
{
    uint64_t frames = MIN(max_pfn - (sec << SECTION_SHIFT), SECTION_PAGES);

    return ALIGN_UP(frames * peer_layouts[l].entry_bytes, MiB(2));
}

static uint64_t layout_bytes(enum peer_layout l)
{
    uint64_t n = l == PEER_LINUX ? ALIGN_UP(LX_PAGEBLOCK_BYTES(max_pfn), PAGE_SIZE) : 0;

    for (uint64_t sec = 0; sec << SECTION_SHIFT < max_pfn; sec++)
        if (section_backed(sec))
            n += section_bytes(l, sec);
    return n;
}

uint64_t peer_meta_bytes(unsigned layouts)
{
    uint64_t n = 0;

    for (unsigned l = 0; l < PEER_LAYOUTS; l++)
        if ((layouts >> l) & 1)
            n += layout_bytes(l);
    return n;
}

/* What back_layout() took, to give back when the rest does not fit: 4 TiB of sections. */
static struct bootmem_region got[4096];

/* Takes and maps layout l's storage; false, with everything given back, when it does not fit. */
static bool back_layout(enum peer_layout l)
{
    unsigned n = 0;
    uint64_t mfn;

    for (uint64_t sec = 0; sec << SECTION_SHIFT < max_pfn; sec++) {
        if (!section_backed(sec))
            continue;
        uint64_t bytes = section_bytes(l, sec);
        if (n == ARRAY_SIZE(got) || bootmem_alloc(&bootmem, bytes >> PAGE_SHIFT, 512, UINT64_MAX, &mfn))
            goto undo;
        got[n++] = (struct bootmem_region){ mfn, mfn + (bytes >> PAGE_SHIFT) };
    }
    if (l == PEER_LINUX) {
        uint64_t pages = PFN_UP(LX_PAGEBLOCK_BYTES(max_pfn));
        if (n == ARRAY_SIZE(got) || bootmem_alloc(&bootmem, pages, 1, UINT64_MAX, &mfn))
            goto undo;
        got[n++] = (struct bootmem_region){ mfn, mfn + pages };
        lx_pageblock_flags = phys_to_virt(mfn << PAGE_SHIFT);
        memset(lx_pageblock_flags, 0, pages << PAGE_SHIFT);
    }
    /* Mapped at the layout's base, indexed by PFN, zeroed: an entry never written reads "no page". */
    unsigned k = 0;
    for (uint64_t sec = 0; sec << SECTION_SHIFT < max_pfn; sec++) {
        if (!section_backed(sec))
            continue;
        uint64_t va = (uint64_t)(uintptr_t)peer_array(l) + (sec << SECTION_SHIFT) * peer_layouts[l].entry_bytes;
        uint64_t bytes = (got[k].e - got[k].s) << PAGE_SHIFT;
        paging_map(va, got[k].s << PAGE_SHIFT, bytes, 21, PTE_W | PTE_NX);
        memset((void *)(uintptr_t)va, 0, bytes);
        k++;
    }
    return true;
undo:
    while (n--)
        bootmem_add(&bootmem, got[n].s, got[n].e);
    return false;
}

void peer_meta_reserve(unsigned layouts)
{
    char need[24], have[24];

    for (unsigned l = 0; l < PEER_LAYOUTS; l++) {
        if (!((layouts >> l) & 1))
            continue;
        uint64_t bytes = layout_bytes(l);
        if (back_layout(l)) {
            mm_count_reserved(peer_layouts[l].what, bytes);
            peer_ready |= 1u << l;
            continue;
        }
        printk("peers: the %s (%s) does not fit in the %s of boot memory left: the %s strategies "
               "will not run\n", peer_layouts[l].what, fmt_size(need, sizeof(need), bytes),
               fmt_size(have, sizeof(have), bootmem_pages(&bootmem) << PAGE_SHIFT), peer_layouts[l].name);
    }
}
