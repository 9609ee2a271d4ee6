// SPDX-License-Identifier: MIT
// In-kernel self-test of the peers on the real map: each one, Linux's and
// FreeBSD's, builds its allocator on the CPUs that are up, audits green on
// its own structures, and holds exactly the pages Xen's heap holds.
#include "kernel/lib/selftest.h"
#include "mm/heap_par.h"
#include "mm/peers/peer.h"

SELFTEST(peers_hand_over_the_same_pages)
{
    struct heap_audit a;
    const struct heap_strategy *chunk = heap_strategy_find("chunk", 5);

    heap_reset();
    end_boot_allocator(&heap_default, chunk);
    if (!KT_EXPECT(t, heap_audit(&a), "chunk: audit: %s", a.errors[0]))
        return;
    uint64_t want = a.page_digest;
    unsigned ran = 0;
    for (unsigned i = 0; peer_strategies[i]; i++) {
        const struct peer_strategy *p = peer_strategies[i];
        struct peer_boot_stats b;
        struct peer_later_stats l;
        struct err e;
        uint64_t w[2];
        /* strategies= left the peer out, or the guest had no room for its page array. */
        if (!peer_layout_ready(p->layout))
            continue;
        ran++;
        if (!KT_EXPECT(t, p->reset(&e) == 0, "%s: %s", p->name, e.msg))
            continue;
        p->boot(&b);
        uint64_t pfn = p->alloc_page();
        KT_EXPECT(t, pfn != PEER_NO_PAGE, "%s: no page after the boot part", p->name);
        if (pfn != PEER_NO_PAGE)
            p->free_page(pfn);
        if (p->later && !KT_EXPECT(t, p->run_later(heap_par_cpus(), w, &l, &e) == 0, "%s: %s", p->name, e.msg))
            continue;
        bool ok = p->audit(&a);
        /* What each peer built, as strategies_build_the_same_heap says it for Xen's. */
        peer_audit_record(p->name, peer_layouts[p->layout].name, 0, p->later ? heap_par_cpus() : 1, &a);
        if (KT_EXPECT(t, ok, "%s: audit: %s (%u errors)", p->name, a.errors[0], a.nerrors))
            KT_EXPECT(t, a.page_digest == want && a.free_pages == heap_handover_pages(),
                      "%s holds %llu pages (digest 0x%llx), Xen's heap %llu (0x%llx)", p->name,
                      (unsigned long long)a.free_pages, (unsigned long long)a.page_digest,
                      (unsigned long long)heap_handover_pages(), (unsigned long long)want);
    }
    if (!ran)
        KT_SKIP(t, "no peer's page array was reserved: strategies= named none, or no room");
    heap_reset();
}
