# SPDX-License-Identifier: MIT
"""Where a Linux phase's instructions go, function by function, in the real
kernel and in bootheap's model of it, both under -icount and counted the
same way: breakpoints at the entry of every function named and at each
return address, every instruction given to the function it ran in (its
exclusive count; an unnamed callee's to its caller), from the entry of the
phase's function to its return. A tail call (a named function entered by a
jump) takes its caller's frame over. An interrupt counts apart from its
entry to the interrupted instruction. `peers-icount --profile VERSION:PHASE`
prints both sides; docs/fidelity-linux.md names what the models leave out with
these figures."""
from harness.qemu.brackets import THREAD_SHIFT, BracketError, interrupt_return
from harness.qemu.gdbstub import RSP, StubError

# Per phase: the function that opens it in each side, and the functions
# counted apart (real Linux's; bootheap's). Real names missing from a
# kernel's symbols are left out; functions run for every page or every call
# (__fentry__, the return thunk) would stop the guest too often to name.
# The last names of each real list are patches/linux/6.12's, for
# `linux-src --profile` of its variants.
PHASES = {
    "memmap": (("free_area_init", "lx_memmap_init"),
               ("memmap_init_range", "__init_single_page", "set_pageblock_migratetype",
                "set_pfnblock_flags_mask", "init_unavailable_range", "__SCT__cond_resched"),
               ("memmap_range_61_deferred", "memmap_range_612_deferred", "init_single_page_boot",
                "lx_set_pageblock_migratetype", "lx_cond_resched")),
    "memblock_free_all": (("memblock_free_all", "lx_memblock_free_all"),
                          ("reserve_bootmem_region", "memmap_init_reserved_pages",
                           "memblock_free_pages", "__free_pages_core", "__free_pages_ok", "free_one_page",
                           "split_large_buddy", "__free_one_page", "__mod_zone_page_state",
                           "range_contains_unaccepted_memory", "_raw_spin_lock_irqsave",
                           "_raw_spin_unlock_irqrestore", "__next_mem_range", "free_fresh_ok",
                           "init_free_chunks", "free_fresh_blocks", "init_held_pages", "memmap_unskip_chunk",
                           "memmap_unskip_span", "memmap_unskip_rest"),
                          ("free_pages_core_61", "free_pages_core_612", "free_one_page", "mod_zone_free",
                           "contains_unaccepted", "early_pfn_to_nid")),
    "deferred": (("deferred_init_memmap", "deferred_worker"),
                 ("deferred_init_memmap_chunk", "deferred_init_maxorder", "deferred_free_range",
                  "__init_single_page", "pfn_valid", "__free_pages_core", "__free_pages_ok", "free_one_page",
                  "split_large_buddy", "__free_one_page", "__mod_zone_page_state", "set_pageblock_migratetype",
                  "set_pfnblock_flags_mask", "padata_do_multithreaded", "range_contains_unaccepted_memory",
                  "accept_memory", "__next_mem_pfn_range_in_zone", "_raw_spin_lock_irqsave",
                  "_raw_spin_unlock_irqrestore", "__schedule", "_printk", "free_fresh_ok", "init_free_chunks",
                  "free_fresh_blocks"),
                 ("memmap_chunk", "free_range", "lx_init_single_page", "lx_pfn_valid", "free_pages_core_61",
                  "free_pages_core_612", "free_one_page", "mod_zone_free", "lx_set_pageblock_migratetype",
                  "contains_unaccepted", "lx_cond_resched")),
}


class _Frame:
    def __init__(self, name, ret, ret_sp):
        self.name, self.ret, self.ret_sp = name, ret, ret_sp


def profile(stub, syms, open_at, names, interrupts, deadline, threads=True):
    """Runs the guest to open_at's first entry and profiles it to its return
    -> {"total", "exclusive": {name: n}, "calls": {name: c}}. threads: the
    guest is Linux, whose threads each have a kernel stack of their own
    (bootheap's model has one thread: False)."""
    try:
        return _profile(stub, syms, open_at, names, interrupts, deadline, threads)
    except StubError as e:
        raise BracketError(f"profile of {open_at}: {e}")


def _profile(stub, syms, open_at, names, interrupts, deadline, threads):
    if open_at not in syms:
        raise BracketError(f"profile: symbol {open_at} is not in the symbol table")
    entries = {syms[n]: n for n in names if n in syms and n != open_at}
    irq = {syms[n]: n for n in interrupts if n in syms}
    stub.set_break(syms[open_at])
    if stub.resume(deadline) != syms[open_at]:
        raise StubError(f"stopped before {open_at}")
    stub.clear_break(syms[open_at])
    sp = stub.reg(RSP)
    # Frames are the phase's thread's, on its kernel stack: a stop on
    # another stack (another thread the scheduler runs, an interrupt's own
    # stack) changes none, and what runs there counts to the innermost frame
    # of the phase's thread (the scheduler, the interrupt).
    mine = sp >> THREAD_SHIFT
    frames = [_Frame(open_at, stub.read(sp), sp + 8)]
    uses = {frames[0].ret: 1}
    for a in list(entries) + list(irq) + [frames[0].ret]:
        stub.set_break(a)
    excl, calls = {open_at: 0}, {open_at: 1}
    start = last = stub.instructions()
    while frames:
        pc = stub.resume(deadline)
        now = stub.instructions()
        excl[frames[-1].name] = excl.get(frames[-1].name, 0) + now - last
        last = now
        sp = stub.reg(RSP)
        if threads and sp >> THREAD_SHIFT != mine:
            continue
        if pc == frames[-1].ret and sp == frames[-1].ret_sp:
            while frames and pc == frames[-1].ret and sp == frames[-1].ret_sp:
                f = frames.pop()
                uses[f.ret] -= 1
                if not uses[f.ret] and f.ret not in entries and f.ret not in irq:
                    stub.clear_break(f.ret)
            continue
        name = entries.get(pc) or irq.get(pc)
        if name is None:
            continue                    # a return address passed by a jump
        calls[name] = calls.get(name, 0) + 1
        if pc in irq:
            f = _Frame(name, *interrupt_return(stub, name, sp))
        else:
            f = _Frame(name, stub.read(sp), sp + 8)
            if f.ret == frames[-1].ret and f.ret_sp == frames[-1].ret_sp:
                frames[-1].name = name  # a tail call: the callee returns for its caller
                continue
        frames.append(f)
        uses[f.ret] = uses.get(f.ret, 0) + 1
        stub.set_break(f.ret)
    for a in list(stub.breaks):
        stub.clear_break(a)
    return {"total": last - start, "exclusive": excl, "calls": calls}


def model_pages(log, strategy, phase):
    """The pages of one phase of a model's run, from its serial log's records."""
    from harness.results.records import parse_serial

    recs, _ = parse_serial(log)
    bench = next(r for r in recs if r["type"] == "bench")
    peer = next(r for r in recs if r["type"] == "peer" and r["strategy"] == strategy and r["run"] == 0)
    deferred = sum(n["pages"] for n in peer["nodes"])
    return deferred if phase == "deferred" else bench["pages"] - deferred


def run(version, phase, mem, out_dir, say=print):
    """The real Linux `version` and its model, phase `phase`, at mem bytes
    -> (real, model) profiles; the model's with its phase's pages."""
    import os
    import tempfile

    from harness.real.bracket import boot as realboot
    from harness.real.debian import fetch as binfetch
    from harness.qemu import command

    opens, real_names, model_names = PHASES[phase]
    strategy = {"6.1": "linux_deferred", "6.12": "linux612"}[version]
    man = binfetch.fetch([f"linux-{version}"], say=say)
    out = []
    for side in ("real", "model"):
        if side == "real":
            target = realboot.TARGETS[f"linux-{version}"]
            files = binfetch.files_of(man, f"linux-{version}")
            names, opener = real_names, opens[0]
        else:
            target = realboot.Target("bootheap", command.QBOOT,
                                       f"runs=1 cpus=1 strategies={strategy} icount", lambda s: [], '"type":"done"')
            files = {"kernel": command.ELF,
                     "symbols": os.path.join(os.path.dirname(command.ELF), "bootheap.sym")}
            names, opener = model_names, opens[1]

        def drive(stub, syms, dl, names=names, opener=opener, side=side):
            irqs = sorted(n for n in syms if n.startswith("asm_sysvec_")) + ["asm_common_interrupt"]
            return profile(stub, syms, opener, names, irqs, dl, threads=side == "real")
        log = os.path.join(out_dir or tempfile.gettempdir(), f"profile-{side}-{version}-{phase}.log")
        res, text = realboot.boot_real(target, files, mem, log, drive=drive)
        if side == "model":
            res["pages"] = model_pages(text, strategy, phase)
        out.append(res)
        say(f"profile: {side} {version} {phase}: {res['total']:,} instructions")
    return out
