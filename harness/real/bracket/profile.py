# SPDX-License-Identifier: MIT
"""Where the instructions go, function by function: real Xen's heap
hand-over beside bootheap's model of it, both under -icount and counted the
same way (breakpoints at every entry and return of the functions named,
harness/qemu/gdbstub.py), so that a difference between model and real binary
can be named.

A profile opens at the first entry of the init function (Xen's
init_heap_pages(), bootheap's page_init_all()/chunk_init_all()) and counts
what runs before its first free (Xen 4.17's node scan of the whole region)
apart, per page of the region. From that first free on, every instruction is
given to the function it ran in (exclusive counts) until `window` pages have
been freed: the per-page figures are of that window, in the first region
handed over that holds twice as many pages."""
import os
import tempfile

from harness.common import GIB
from harness.qemu import command
from harness.qemu.brackets import BracketError
from harness.qemu.gdbstub import RSP, X86_64, StubError

# role: (Xen's function, bootheap's function); None where the function is inline.
ROLES = (("init", "init_heap_pages", None),          # bootheap's is per strategy, below
         ("free_heap_pages", "free_heap_pages", "heap_free_pages_all"),
         ("mfn_valid", "__mfn_valid", "xc_mfn_valid_call_fenced_pdx"),
         ("spin_lock", "_spin_lock", "xc_spin_lock_call"),
         ("spin_unlock", "_spin_unlock", "xc_spin_unlock_call"),
         ("set_gpfn_from_mfn", "set_gpfn_from_mfn", "xc_set_gpfn_from_mfn_call"),
         ("page_list_add_scrub", "page_list_add_scrub", None))
MODEL_INIT = {"page": "page_init_all", "chunk": "chunk_init_all", "chunk-72b02bc": "chunk_72b02bc_init_all"}
# The nr-pages argument of the init function and the order argument of the
# free, as System V argument numbers: init_heap_pages(pg, nr) and
# free_heap_pages(pg, order, ...) in Xen; page_init_all(h, mfn, nr) and
# heap_free_pages_all(h, pg, order, ...) in bootheap.
ARGS = {"xen": (1, 1), "model": (2, 2)}
WINDOW = 4096


def functions(side, strategy=None):
    """{role: symbol} for one side ('xen' or 'model')."""
    out = {}
    for role, xen, model in ROLES:
        name = xen if side == "xen" else (MODEL_INIT[strategy] if role == "init" else model)
        if name:
            out[role] = name
    return out


def _arg(stub, n):
    return stub.reg(X86_64.args[n])


def profile(stub, syms, names, side, deadline, window=WINDOW):
    """Runs one profile (see the module's docstring) -> dict."""
    try:
        return _profile(stub, syms, names, side, deadline, window)
    except StubError as e:
        raise BracketError(f"profile: {e}")


def _profile(stub, syms, names, side, deadline, window):
    nr_arg, order_arg = ARGS[side]
    for role in ("init", "free_heap_pages"):
        if names[role] not in syms:
            raise BracketError(f"profile: symbol {names[role]} is not in the symbol table")
    # A function without a symbol is inline in this build: its instructions are its caller's.
    names = {role: name for role, name in names.items() if name in syms}
    addr = {syms[name]: role for role, name in names.items()}
    init, free = syms[names["init"]], syms[names["free_heap_pages"]]
    stub.set_break(init)
    while True:             # the first region large enough for the window
        pc = stub.resume(deadline)
        if pc != init:
            raise StubError(f"stopped at {pc:#x} waiting for {names['init']}")
        region = _arg(stub, nr_arg)
        if region >= 2 * window:
            break
    sp = stub.reg(RSP)
    stack = [("init", stub.read(sp), sp + 8)]
    start = stub.instructions()
    stub.clear_break(init)
    stub.set_break(free)
    if stub.resume(deadline) != free:
        raise StubError(f"stopped before {names['free_heap_pages']}")
    last = stub.instructions()
    prelude = last - start
    excl = {role: 0 for role in names}
    calls = {role: 0 for role in names}
    for a in addr:
        stub.set_break(a)
    pages, pc = 0, free
    while True:
        sp = stub.reg(RSP)
        if pc == stack[0][1] and sp == stack[0][2]:
            raise StubError(f"{names['init']} returned before {window} pages were freed")
        if len(stack) > 1 and pc == stack[-1][1] and sp == stack[-1][2]:
            # A return; a tail call left its caller's frame with the same return.
            while len(stack) > 1 and pc == stack[-1][1] and sp == stack[-1][2]:
                stack.pop()
        elif addr.get(pc, "init") != "init":
            role = addr[pc]
            if role == "free_heap_pages":
                if pages >= window:
                    break
                pages += 1 << _arg(stub, order_arg)
            calls[role] += 1
            ret = stub.read(sp)
            stub.set_break(ret)
            stack.append((role, ret, sp + 8))
        # (any other stop: a return address reached by a jump; nothing to do)
        pc = stub.resume(deadline)
        now = stub.instructions()
        excl[stack[-1][0]] += now - last
        last = now
    for a in list(stub.breaks):
        stub.clear_break(a)
    return {"region_pages": region, "prelude": prelude, "window_pages": pages,
            "exclusive": excl, "calls": calls, "functions": names}


# Each real binary beside the strategy that models it, and the window that
# covers its pattern: page by page any stretch is alike; chunked, the first
# blocks of a region are small, so the window takes several of them.
PAIRS = (("xen-4.14", "page", 1024), ("xen-4.17", "chunk", 4096))


def records(man, mem, out, say=print):
    """Both pairs' profiles -> `profile` records for binaries.jsonl."""
    recs = []
    for real, strategy, window in PAIRS:
        r, m = run_pair(real, strategy, man, mem, out, window)
        recs.append({"type": "profile", "real": real, "strategy": strategy, "mem_bytes": mem,
                     "window": window, "xen": r, "model": m})
        say(f"binaries: profile of {real} beside {strategy}: " + ", ".join(
            f"{k} {v / r['window_pages']:.1f}/{m['exclusive'].get(k, 0) / m['window_pages']:.1f}"
            for k, v in r["exclusive"].items()))
    return recs


def per_page(side):
    """{role: exclusive instructions a page}, the init function's prelude
    (before its first free, per page of its region) under 'init (before
    the first free)'."""
    w = side["window_pages"]
    out = {role: n / w for role, n in side["exclusive"].items()}
    out["init (before the first free)"] = side["prelude"] / side["region_pages"]
    return out


def run_pair(real, strategy, man, mem, out, window=WINDOW, xen=None):
    """Profiles real Xen `real` and bootheap's `strategy` at `mem` -> (real,
    model). xen: (Target, files) of another Xen than the package `real`
    names, such as a source build booted with a heap-init= variant."""
    from harness.real.bracket import boot as realboot
    from harness.real.debian import fetch as binfetch
    results = []
    for side in ("xen", "model"):
        if side == "xen":
            target, files = xen or (realboot.TARGETS[real], binfetch.files_of(man, real))
        else:
            target = realboot.Target("bootheap", command.QBOOT,
                                       f"runs=1 strategies={strategy} icount", lambda s: [],
                                       '"type":"done"')
            files = {"kernel": command.ELF, "symbols": os.path.join(os.path.dirname(command.ELF),
                                                                  "bootheap.sym")}
        names = functions(side, strategy)
        log = os.path.join(out or tempfile.gettempdir(), f"profile-{target.name}-{strategy}.log")
        res, _ = realboot.boot_real(target, files, mem, log, drive=lambda stub, syms, dl:
                                      profile(stub, syms, names, side, dl, window))
        results.append(res)
    return results


def fmt(x, digits=2):
    """A figure with thousands separators, or - for none."""
    return "-" if x is None else f"{x:,.{digits}f}"


def profile_table(prof, w):
    x, m = per_page(prof["xen"]), per_page(prof["model"])
    xf, mf = prof["xen"]["functions"], prof["model"]["functions"]
    w(f"**Xen {prof['real'].split('-')[1]} beside `{prof['strategy']}`** "
      f"({prof['mem_bytes'] / GIB:g} GiB; windows of {prof['xen']['window_pages']:,} and "
      f"{prof['model']['window_pages']:,} pages, in regions of {prof['xen']['region_pages']:,} and "
      f"{prof['model']['region_pages']:,}):\n\n")
    w("| function (Xen / bootheap) | Xen: calls a page | Xen: instructions a page | "
      "bootheap: calls a page | bootheap: instructions a page | bootheap - Xen |\n"
      "|---|---|---|---|---|---|\n")

    def calls(side, role):
        c = prof[side]["calls"].get(role)
        return "-" if c is None or role.startswith("init") else f"{c / prof[side]['window_pages']:.3f}"

    for role in dict.fromkeys(list(x) + list(m)):
        if role == "init (before the first free)":
            name = f"{xf['init']} / {mf['init']}, before its first free (a page of its region)"
        else:
            name = f"{xf.get(role, '(inline)')} / {mf.get(role, '(inline)')}"
        w(f"| {name} | {calls('xen', role)} | {fmt(x.get(role))} | {calls('model', role)} | "
          f"{fmt(m.get(role))} | {fmt(m.get(role, 0) - x.get(role, 0))} |\n")
    w(f"| all | | {fmt(sum(x.values()))} | | {fmt(sum(m.values()))} | "
      f"{fmt(sum(m.values()) - sum(x.values()))} |\n\n")
