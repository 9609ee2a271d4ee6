# SPDX-License-Identifier: MIT
"""`codegen`: compares the machine code of the heap's hot functions in the
kernel and in the hosted runner, after naming every address: the two builds
place data at different addresses and the frame table, M2P and direct map at
different bases, and nothing else should differ."""
import difflib
import os
import re
import subprocess

from harness import ROOT
from harness.common import BenchError, say

KERNEL = os.path.join(ROOT, "build", "bootheap.elf")
HOSTED = os.path.join(ROOT, "build", "bootheap-host")

# The free path with its merge loop, each strategy's loop and the allocator,
# as compiled for Xen's costs (xen_costs=all, the default) and without them
# (none), with their entry points; Xen's out-of-line primitives; the floor's
# memset.
HOT = ["heap_free_pages", "heap_free_pages_all", "heap_free_pages_none", "page_init_pages", "page_init_all",
       "page_init_none", "chunk_init_pages", "chunk_init_all", "chunk_init_none", "heap_init_blocks",
       "heap_blocks_on_node_all", "mark_tails", "end_boot_allocator",
       "heap_range_handed_over", "heap_alloc_pages", "heap_alloc_pages_into_all", "init_node_heap",
       "xc_mfn_valid_call_fenced_pdx", "xc_spin_lock_call", "xc_spin_unlock_call",
       "xc_set_gpfn_from_mfn_call", "heap_floor_write", "fill_region", "memset"]

# The virtual bases of each build (mm/layout.h), and their negations.
BASES = {
    "kernel": {"FRAMETABLE": 0xffffc00000000000, "M2P": 0xffffc80000000000,
               "DIRECTMAP": 0xffff800000000000},
    "hosted": {"FRAMETABLE": 0x200000000000, "M2P": 0x280000000000,
               "DIRECTMAP": 0x100000000000},
}
MASK = (1 << 64) - 1


def symbols(elf):
    out = subprocess.run(["nm", "-n", elf], check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "bBdDrRtT":
            syms.append((int(parts[0], 16), parts[2]))
    return syms


PADDING = ("nop", "xchg ax,ax", "data16", "cs nop")


def disassemble(elf):
    """{function: [(address, instruction)]}, alignment padding left out.
    Raises BenchError naming a file that is missing or no ELF."""
    if not os.path.isfile(elf):
        raise BenchError(f"{elf}: no such file (`make all hosted` builds both)")
    r = subprocess.run(["objdump", "-d", "-M", "intel", "--no-show-raw-insn", elf],
                       capture_output=True, text=True)
    if r.returncode:
        raise BenchError(f"{elf}: objdump cannot read it: {r.stderr.strip()}")
    out = r.stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
        elif cur is not None and "\t" in line:
            addr, ins = line.split("\t", 1)
            ins = re.sub(r"\s+", " ", ins.split("#")[0].strip())
            if addr.strip() and ins and not ins.startswith(PADDING):
                cur.append((int(addr.strip().rstrip(":"), 16), ins))
        elif not line.strip():
            cur = None
    return funcs


class Namer:
    """Turns addresses and bases of one build into names."""

    def __init__(self, elf, build):
        self.syms = symbols(elf)
        self.consts = {}
        for name, v in BASES[build].items():
            self.consts[v & MASK] = "@" + name
            self.consts[-v & MASK] = "@-" + name

    def name(self, value):
        v = value & MASK
        if v in self.consts:
            return self.consts[v]
        best = None
        for addr, sym in self.syms:
            if addr <= v:
                best = (addr, sym)
            else:
                break
        if best and v - best[0] < 0x100000 and v >= 0x400000:
            off = v - best[0]
            return "@" + best[1] + (f"+{off:#x}" if off else "")
        return None

    def instruction(self, ins, labels):
        """ins with branch targets as instruction numbers and addresses as names."""
        def target(m):
            addr = int(m.group(1), 16)
            return f"L{labels[addr]}" if addr in labels else f"<{m.group(2)}>"
        ins = re.sub(r"\b([0-9a-f]+) <([^>+]+)[^>]*>", target, ins)
        ins = re.sub(r"\[rip\+0x[0-9a-f]+\]", "[rip+X]", ins)       # objdump names it; varies by layout
        def value(m):
            sign, num = m.group(1), int(m.group(2), 16)
            n = self.name(-num if sign == "-" else num)
            return (("+" if sign else "") + n) if n else m.group(0)
        ins = re.sub(r"([-+]?)0x([0-9a-f]+)", value, ins)
        # An address fits a 32-bit register in a user program, not in the kernel.
        ins = re.sub(r"^mov e(\w\w),@", r"mov r\1,@", ins)
        return re.sub(r"^mov (r\d+)d,@", r"mov \1,@", ins)

    def function(self, body):
        labels = {addr: i for i, (addr, _) in enumerate(body)}
        return [self.instruction(ins, labels) for _, ins in body]


def compare(kernel, hosted, funcs):
    kd, hd = disassemble(kernel), disassemble(hosted)
    kn, hn = Namer(kernel, "kernel"), Namer(hosted, "hosted")
    result = {}
    for f in funcs:
        if f not in kd or f not in hd:
            result[f] = None
            continue
        result[f] = (kn.function(kd[f]), hn.function(hd[f]))
    return result


def cmd_codegen(args):
    """Prints one line per hot function; with --diff, the differences -> 0,
    or 1 when a function is missing from a build."""
    missing = 0
    for f, pair in compare(args.kernel, args.hosted, HOT).items():
        if pair is None:
            say(f"{f:24} missing from a build")
            missing += 1
            continue
        a, b = pair
        sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
        say(f"{f:24} kernel {len(a):4} hosted {len(b):4} instructions: "
            f"{'identical' if a == b else f'{sm.ratio() * 100:.1f}% alike'}")
        if args.diff and a != b:
            for line in difflib.unified_diff(a, b, "kernel", "hosted", lineterm="", n=1):
                say("    " + line)
    return 1 if missing else 0
