# SPDX-License-Identifier: MIT
"""Exact instruction brackets around a function of a running guest, by
breakpoints at its entry and its return (harness/qemu/gdbstub.py).

A bracket opens at the entry of `open_at` (once `close_at` has been entered,
when the two differ) and closes when `close_at` returns. Calls made inside it
to an `exclude` symbol (printing, the scheduler) are subtracted from entry to
return; an `interrupt` entry is subtracted until the interrupted instruction
runs again on the interrupted stack; calls to a `part` symbol stay in the
bracket and are counted apart as well, with the arguments they were called
with. Everything else that runs between open and close is in the bracket.

A bracket of `calls` more than one counts every call of `open_at` on its
own kernel stack, as the threads of a per-node init make them (Linux's
deferred init, one thread a node, on one vCPU): an instruction is in the
bracket while the thread that runs it is inside a call of `open_at` and
not inside an excluded call or an interrupt, and the bracket closes when
`calls` calls have returned. Threads change only inside the scheduler or
an interrupt, which a thread in the bracket enters through a stop, so a
stretch counted to the bracket ran on the thread that counts it."""
import subprocess

from harness.qemu.gdbstub import RSP, X86_64, StubError

THREAD_SHIFT = 14                   # x86-64 kernel stacks: 16 KiB, aligned to their size


class BracketError(Exception):
    """A bracket that could not be taken, with the reason."""


def load_symbols(path):
    """{name: address} from a System.map (text) or an ELF with symbols (nm)."""
    with open(path, "rb") as f:
        elf = f.read(4) == b"\x7fELF"
    if elf:
        r = subprocess.run(["nm", path], capture_output=True, text=True)
        if r.returncode != 0:
            raise BracketError(f"nm cannot read the symbols of {path}: {r.stderr.strip()}")
        text = r.stdout
    else:
        with open(path, encoding="ascii", errors="replace") as f:
            text = f.read()
    syms = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] not in ("U", "w", "v"):
            try:
                syms.setdefault(parts[2], int(parts[0], 16))
            except ValueError:
                continue
    if len(syms) < 100:
        raise BracketError(f"{path} holds {len(syms)} symbols: not a symbol table of a kernel")
    return syms


class Spec:
    """What one bracket takes: see the module's docstring. `reads` are
    symbols read as 64-bit words when it closes (counters such as Xen's
    total_avail_pages); `read_parts` are read at each part call's return."""

    def __init__(self, name, open_at, close_at=None, exclude=(), interrupts=(), parts=(),
                 reads=(), part_reads=(), per_node=False):
        self.name, self.open_at = name, open_at
        self.close_at = close_at or open_at
        self.exclude, self.interrupts, self.parts = tuple(exclude), tuple(interrupts), tuple(parts)
        self.reads, self.part_reads = tuple(reads), tuple(part_reads)
        self.per_node = per_node    # open_at is called once a node, each on its own thread
        self.calls = 1


class Result:
    def __init__(self, name):
        self.name = name
        self.gross = 0              # open to close
        self.excluded = {}          # symbol -> [calls, instructions]
        self.parts = {}             # symbol -> [calls, instructions]
        self.part_calls = []        # (symbol, args, {read: value at return}, instructions)
        self.reads = {}             # symbol -> value at close

    @property
    def instructions(self):
        return self.gross - sum(n for _, n in self.excluded.values())

    def as_record(self):
        return {"bracket": self.name, "instructions": self.instructions, "gross": self.gross,
                "excluded": {k: {"calls": c, "instructions": n} for k, (c, n) in self.excluded.items()},
                "parts": {k: {"calls": c, "instructions": n} for k, (c, n) in self.parts.items()},
                "reads": self.reads}


class _Frame:
    def __init__(self, kind, symbol, ret, ret_sp, start, args=()):
        self.kind, self.symbol, self.ret, self.ret_sp = kind, symbol, ret, ret_sp
        self.start, self.args = start, args


def interrupt_return(stub, name, sp):
    """Where the interrupt entered at `name` with stack pointer sp returns
    -> (the interrupted instruction, the interrupted stack pointer): the
    hardware frame holds RIP, CS, RFLAGS, RSP, SS; external interrupts reach
    their common entry with the vector pushed above it."""
    off = 8 if name == "asm_common_interrupt" else 0
    return stub.read(sp + off), stub.read(sp + off + 24)


def _kinds(syms, spec):
    """{entry address: (kind, symbol)} of a spec's excluded calls,
    interrupts and parts."""
    kinds = {}
    for kind, names in (("exclude", spec.exclude), ("interrupt", spec.interrupts),
                        ("part", spec.parts)):
        for n in names:
            kinds[_addr(syms, n)] = (kind, n)
    return kinds


def _arch(stub):
    return getattr(stub, "arch", X86_64)


def _entry_return(stub, sp):
    """Stopped at a function's first instruction -> (where it returns, the
    stack pointer there): x86-64's return address is the word at sp, which
    the return pops; arm64's is in the link register, sp unchanged."""
    arch = _arch(stub)
    if arch.link is None:
        return stub.read(sp), sp + 8
    return stub.reg(arch.link), sp


def _addr(syms, name):
    if name not in syms:
        raise BracketError(f"symbol {name} is not in the symbol table")
    return syms[name]


def take(stub, syms, spec, deadline):
    """Runs the guest until the bracket of `spec` closes -> Result."""
    res = Result(spec.name)
    close_fn, open_fn = _addr(syms, spec.close_at), _addr(syms, spec.open_at)
    if spec.calls > 1:
        if open_fn != close_fn or spec.parts:
            raise BracketError(f"bracket {spec.name}: a bracket of {spec.calls} calls opens and closes "
                               "at one function and has no parts")
        try:
            stub.set_break(open_fn)
            stop_at(stub, open_fn, deadline, spec.open_at)
            _run_threads(stub, syms, spec, res, open_fn, deadline)
        except StubError as e:
            raise BracketError(f"bracket {spec.name}: {e}")
        return res
    try:
        stub.set_break(close_fn)
        stop_at(stub, close_fn, deadline, spec.close_at)
        stub.clear_break(close_fn)
        end, end_sp = _entry_return(stub, stub.reg(_arch(stub).sp))
        if open_fn != close_fn:
            stub.set_break(open_fn)
            stop_at(stub, open_fn, deadline, spec.open_at)
            stub.clear_break(open_fn)
        _run(stub, syms, spec, res, end, end_sp, deadline)
    except StubError as e:
        raise BracketError(f"bracket {spec.name}: {e}")
    return res


def stop_at(stub, addr, deadline, what):
    pc = stub.resume(deadline)
    if pc != addr:
        raise StubError(f"stopped at {pc:#x} while waiting for {what}")


def _run(stub, syms, spec, res, end, end_sp, deadline):
    kinds = _kinds(syms, spec)
    for a in kinds:
        stub.set_break(a)
    stub.set_break(end)
    frames, ret_uses = [], {}
    start = stub.instructions()

    def push(f):
        frames.append(f)
        ret_uses[f.ret] = ret_uses.get(f.ret, 0) + 1
        stub.set_break(f.ret)

    arch = _arch(stub)
    pc = stub.reg(arch.pc)  # the opening stop is a call of its own when open_at is a part
    first = pc in kinds
    while True:
        if not first:
            pc = stub.resume(deadline)
        first = False
        sp = stub.reg(arch.sp)
        if frames and pc == frames[-1].ret and sp == frames[-1].ret_sp:
            f = frames.pop()
            n = stub.instructions() - f.start
            ret_uses[f.ret] -= 1
            if not ret_uses[f.ret] and f.ret != end and f.ret not in kinds:
                stub.clear_break(f.ret)
            book = res.excluded if f.kind != "part" else res.parts
            c = book.setdefault(f.symbol, [0, 0])
            c[0] += 1
            c[1] += n
            if f.kind == "part":
                res.part_calls.append((f.symbol, f.args,
                                       {r: stub.read(_addr(syms, r)) for r in spec.part_reads}, n))
            if not (pc == end and sp == end_sp and not frames):
                continue                # (a tail call returns for the bracket too)
        elif any(f.kind != "part" for f in frames):
            continue                    # inside something subtracted: count nothing apart
        if pc == end and sp == end_sp:
            res.gross = stub.instructions() - start
            res.reads = {r: stub.read(_addr(syms, r)) for r in spec.reads}
            break
        if pc in kinds:
            kind, name = kinds[pc]
            now = stub.instructions()
            if kind == "interrupt":
                push(_Frame(kind, name, *interrupt_return(stub, name, sp), now))
            else:
                args = tuple(stub.reg(r) for r in arch.args) if kind == "part" else ()
                push(_Frame(kind, name, *_entry_return(stub, sp), now, args))
            continue
        if pc in ret_uses or pc == end:
            continue                    # a return address passed by a jump, not a return
        raise StubError(f"stopped at {pc:#x}, which no breakpoint of this bracket set")
    for a in list(kinds) + [end]:
        stub.clear_break(a)
    for a in list(ret_uses):
        stub.clear_break(a)


OTHERS = "(other threads)"


def _run_threads(stub, syms, spec, res, open_fn, deadline):
    """take() of a bracket of spec.calls calls, from the first call's entry
    (see the module's docstring). Every stretch between two stops is booked
    once: to the bracket, to the innermost excluded call or interrupt of
    its thread, or to OTHERS when its thread is in no call of open_at; the
    gross is all of them, first entry to last return."""
    kinds = _kinds(syms, spec)     # no parts: take() refuses them here
    for a in kinds:
        stub.set_break(a)
    threads, ret_uses = {}, {}      # stack -> frames, the call of open_at first
    returned, pc, book = 0, open_fn, None
    start = last = stub.instructions()

    # Only a thread's innermost frame can return next, so only its return
    # address is armed: an outer one is a stop on every pass of another
    # thread that runs the same code (a thread preempted in an interrupt
    # in a loop of deferred init, the other node's thread in that loop).
    def arm(ret):
        ret_uses[ret] = ret_uses.get(ret, 0) + 1
        stub.set_break(ret)

    def disarm(ret):
        ret_uses[ret] -= 1
        if not ret_uses[ret] and ret not in kinds and ret != open_fn:
            stub.clear_break(ret)

    def push(frames, f):
        if frames:
            disarm(frames[-1].ret)
        frames.append(f)
        arm(f.ret)

    while True:
        now, sp = stub.instructions(), stub.reg(RSP)
        if book is not None:
            res.excluded.setdefault(book, [0, 0])[1] += now - last
        last = now
        frames = threads.setdefault(sp >> THREAD_SHIFT, [])
        if frames and pc == frames[-1].ret and sp == frames[-1].ret_sp:
            f = frames.pop()
            disarm(f.ret)
            if frames:
                arm(frames[-1].ret)
            if f.kind == "open":
                returned += 1
                if returned == spec.calls:
                    break
        elif pc == open_fn and not frames:
            push(frames, _Frame("open", spec.open_at, stub.read(sp), sp + 8, now))
        elif pc in kinds and frames:
            kind, name = kinds[pc]
            if kind == "interrupt":
                push(frames, _Frame(kind, name, *interrupt_return(stub, name, sp), now))
            else:
                push(frames, _Frame(kind, name, stub.read(sp), sp + 8, now))
            res.excluded.setdefault(name, [0, 0])[0] += 1
        # Any other stop (a thread in no call of open_at, a return address
        # passed by a jump) changes nothing but the booking.
        book = OTHERS if not frames else None if len(frames) == 1 else frames[-1].symbol
        pc = stub.resume(deadline)
    res.gross = stub.instructions() - start
    res.reads = {r: stub.read(_addr(syms, r)) for r in spec.reads}
    for a in list(kinds) + [open_fn] + list(ret_uses):
        stub.clear_break(a)
