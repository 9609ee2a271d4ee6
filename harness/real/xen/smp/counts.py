# SPDX-License-Identifier: MIT
"""`xen-src smp-count`: the hand-over after SMP bring-up
(patches/xen/staging-parallel) counted under -icount as a critical path.

Each size and topology boots the release build of the tree with its
proposal series and the parallel patch twice, on one vCPU, recorded and
replayed as every Xen count is (harness/real/bracket/boot.py):

  serial  heap-init-smp=0: end_boot_allocator() hands everything over, the
          proposal's single pass; its bracket is the serial figure.
  smp     heap-init-smp=1: end_boot_allocator()'s bracket (what goes over
          before SMP bring-up), then init_deferred_heap()'s, with each
          piece's marking, one call of mark_fresh_chunk() of 128 MiB,
          counted apart; when the bracket closes the kept-back ranges are
          read from Xen's memory (deferred_ranges[]: start, end and node).

One vCPU marks every piece, the boot CPU those of nodes with no CPU
first (here every node but node 0), so each piece's count is what the CPU
that marks it runs. With K vCPUs spread over the nodes (QEMU's -numa
cpus: each node K/N, the larger shares first), a round gives each node's
CPUs one piece each, and init_deferred_heap() waits for the round's
slowest; a node still without a CPU is marked by the boot CPU first:

  critical path(K) = end_boot_allocator + init_deferred_heap less its pieces
                     + the pieces of nodes with no CPU
                     + the sum over rounds of the round's largest piece

Not counted: the IPIs of on_selected_cpus() and the time a CPU waits in
them, which one vCPU never runs. Counted, though not the hand-over's: an
interrupt taken inside the bracket (printk and the softirqs between
rounds are subtracted; the pieces' 27.00 instructions a page at every
size of the first run say the interrupts weigh nothing there). It is a critical path of instructions,
not of time; the host timer (`heap-time --parallel`) gives time."""
import os
import struct

from harness.common import size_label
from harness.qemu.brackets import BracketError, Spec, take
from harness.real.bracket import boot as realboot
from harness.real.xen import variants
from harness.real.xen.afterboot import PIECE_PAGES   # DEFERRED_PIECE_ORDER's pages: 128 MiB
from harness.real.xen.tree import build_patched, proposal, with_extra

MARKER = " MiB handed over on "            # init_deferred_heap()'s last line; heap-init-smp=0 never prints it
SERIAL_MARKER = "Domain heap initialised"
PIECE = "mark_fresh_chunk"               # each piece is one call, of DEFERRED_PIECE_ORDER
PIECE_ORDER = PIECE_PAGES.bit_length() - 1
RANGE = struct.Struct("<QQBB6x")         # struct deferred_range on x86-64: s, e, nid, failed
RANGES = 4096 // RANGE.size              # deferred_ranges[PAGE_SIZE / sizeof(struct deferred_range)]
DEFAULT_CPUS = (1, 2, 4, 8)


def ranges_of(raw, count):
    """deferred_ranges[]'s bytes and nr_deferred_ranges -> [(s, e, nid)] of
    the ranges kept back (an entry past them may be stale: the block
    handed back for a node's early allocations moves the last entry into
    the one it empties)."""
    out = []
    for i in range(min(count, len(raw) // RANGE.size)):
        s, e, nid, _ = RANGE.unpack_from(raw, i * RANGE.size)
        out.append((s, e, nid))
    return out


def critical_path(before, rest, pieces, cpus):
    """Instructions on the critical path with `cpus` vCPUs over the nodes
    of `pieces` -> (instructions, rounds), from one vCPU's counts: `before`
    (end_boot_allocator), `rest` (init_deferred_heap less every piece) and
    `pieces` ({node: [instructions of each piece in order]}, every node)."""
    nodes = len(pieces)
    per_node = {n: len(v) for n, v in pieces.items()}
    k = {n: cpus // nodes + (1 if n < cpus % nodes else 0) for n in per_node}
    serial = sum(sum(pieces[n]) for n in per_node if not k[n])
    rounds = max([-(-per_node[n] // k[n]) for n in per_node if k[n]] or [0])
    marking = 0
    for r in range(rounds):
        marking += max([pieces[n][r * k[n] + i] for n in per_node if k[n]
                        for i in range(k[n]) if r * k[n] + i < per_node[n]] or [0])
    return before + rest + serial + marking, rounds


def node_pieces(calls, ranges, nodes):
    """The pieces one vCPU marked, each a call of mark_fresh_chunk() of
    DEFERRED_PIECE_ORDER (its other calls, a failed range's init_heap_pages(),
    are not pieces), in the order init_deferred_heap() makes them: first
    each node with no CPU (all but node 0), in node order and each node's
    pieces last first, then node 0's, round by round -> {node:
    [instructions of each piece, in piece order]}."""
    want = {n: sum((e - s) // PIECE_PAGES for s, e, nid in ranges if nid == n) for n in range(nodes)}
    counted = [n for _, args, _, n in calls if args[1] == PIECE_ORDER]
    order = [(n, i) for n in range(1, nodes) for i in reversed(range(want[n]))] + [(0, i) for i in range(want[0])]
    if len(counted) != len(order):
        raise BracketError(f"{len(counted)} pieces counted ({PIECE} of order {PIECE_ORDER}), "
                           f"{len(order)} kept back")
    out = {n: [0] * want[n] for n in range(nodes)}
    for (n, i), cost in zip(order, counted):
        out[n][i] = cost
    return out


def target(append, marker, specs=()):
    return realboot.Target("xen-staging-parallel", None, f"{realboot.XEN_APPEND} {append}",
                           lambda syms: list(specs), marker, dom0=True)


def count_one(b, mem, nodes, out, cpus_list=DEFAULT_CPUS):
    """One size and topology -> record: the serial pass's bracket, the
    smp boot's two brackets and pieces, and the critical path for each of
    cpus_list (vCPU counts of at least `nodes`)."""
    n = len(nodes)
    files = {"kernel": b.kernel, "symbols": b.symbols, "dom0": variants.dummy_dom0()}
    tag = f"{size_label(mem)}-{n}n"
    (serial,), _ = realboot.boot_real(target("heap-init-smp=0", SERIAL_MARKER, realboot.xen_specs()), files, mem,
                                      os.path.join(out, f"serial-smpcount-{tag}-off.log"), nodes=nodes)
    got = {}

    def drive(stub, syms, deadline):
        (eba,) = realboot.xen_specs()          # end_boot_allocator(), printk out, total_avail_pages read
        before = take(stub, syms, eba, deadline)
        # As end_boot_allocator() left them: the initcall empties the count.
        got["ranges"] = ranges_of(stub.read_bytes(syms["deferred_ranges"], RANGES * RANGE.size),
                                  stub.read(syms["nr_deferred_ranges"], 4))
        after = take(stub, syms, Spec("init_deferred_heap", "init_deferred_heap",
                                      exclude=("printk", "process_pending_softirqs"), parts=(PIECE,),
                                      reads=("total_avail_pages",)), deadline)
        return [before, after]
    (before, after), _ = realboot.boot_real(target("heap-init-smp=1", MARKER), files, mem,
                                            os.path.join(out, f"serial-smpcount-{tag}-on.log"), drive=drive,
                                            nodes=nodes)
    ranges = got["ranges"]
    pieces = node_pieces(after.part_calls, ranges, n)
    kept = sum(e - s for s, e, _ in ranges)
    marked = sum(sum(v) for v in pieces.values())
    rest = after.instructions - marked
    pages = serial.reads["total_avail_pages"]
    rec = {"type": "smp_count", "mem_bytes": mem, "nodes": nodes, "pages": pages, "kept_pages": kept,
           "serial": serial.instructions, "before": before.instructions,
           "before_pages": before.reads["total_avail_pages"], "deferred": after.instructions,
           "deferred_pages": after.reads["total_avail_pages"] - before.reads["total_avail_pages"],
           "pieces": {str(k): len(v) for k, v in pieces.items()}, "marked": marked,
           "rest": round(rest), "ranges": [list(r) for r in ranges], "key": b.info.get("key"), "paths": {}}
    for cpus in cpus_list:
        if cpus >= n:
            ins, rounds = critical_path(before.instructions, rest, pieces, cpus)
            rec["paths"][str(cpus)] = {"instructions": round(ins), "rounds": rounds}
    return rec


def counts(path, patch, sizes, topologies, out, say=print, cpus_list=DEFAULT_CPUS, extra=None):
    """`xen-src smp-count --tree DIR`: every size and topology -> records.
    With `extra` (a patch's path), that patch on top of `patch`: a change
    measured before it is made."""
    label = with_extra("staging-parallel", extra)
    b = build_patched(path, proposal(path) + [patch] + ([extra] if extra else []), label, "release", say)
    records = []
    for topology in topologies:
        for mem in sizes:
            nodes = variants.node_mib(mem, topology)
            try:
                rec = dict(count_one(b, mem, nodes, out, cpus_list), build=label)
            except (realboot.BracketBootError, BracketError, KeyError) as e:
                rec = {"type": "error", "what": "smp-count", "mem_bytes": mem, "nodes": nodes, "message": str(e)}
                say(f"xen-src smp-count: {size_label(mem)}, {len(nodes)} node(s): FAILED: {e}")
                records.append(rec)
                continue
            records.append(rec)
            p = rec["pages"]
            say(f"xen-src smp-count: {size_label(mem)}, {len(nodes)} node(s): serial {rec['serial'] / p:.2f} "
                f"instructions a page; {rec['kept_pages'] * 100 // p}% kept back; critical path " + ", ".join(
                    f"{c} vCPUs {v['instructions'] / p:.2f} ({rec['serial'] / v['instructions']:.1f}x)"
                    for c, v in rec["paths"].items()))
    return records
