# SPDX-License-Identifier: MIT
"""A bracket of one call a node (harness/qemu/brackets.py, _run_threads):
every stretch between two stops booked once, to the bracket while its
thread is inside the call and nowhere excluded, on a scripted stub whose
stops stand for two nodes' threads switching on one vCPU."""
import pytest

from harness.qemu import brackets
from harness.qemu.gdbstub import RIP, RSP

OPEN, SCHED, IRQ = 0x1000, 0x2000, 0x3000
SYMS = {"deferred_init_memmap": OPEN, "__schedule": SCHED, "asm_sysvec_apic_timer_interrupt": IRQ,
        "vm_zone_stat": 0x9000}


class ScriptedStub:
    """Stops in order: (pc, sp, instructions); memory a dict."""

    def __init__(self, stops, memory):
        self.stops, self.memory, self.breaks, self.at = list(stops), dict(memory), set(), None

    def set_break(self, a):
        self.breaks.add(a)

    def clear_break(self, a):
        self.breaks.discard(a)

    def resume(self, deadline):
        self.at = self.stops.pop(0)
        assert self.at[0] in self.breaks, f"no breakpoint at {self.at[0]:#x}"
        return self.at[0]

    def reg(self, n):
        assert n in (RSP, RIP)
        return self.at[1] if n == RSP else self.at[0]

    def read(self, addr):
        return self.memory[addr]

    def instructions(self):
        return self.at[2]


def spec(calls):
    s = brackets.Spec("deferred", "deferred_init_memmap", exclude=("__schedule",),
                      interrupts=("asm_sysvec_apic_timer_interrupt",), reads=("vm_zone_stat",), per_node=True)
    s.calls = calls
    return s


A, B, X = 0x13f00, 0x23f00, 0x33e00          # three kernel stacks
STOPS = [(OPEN, A, 100),                      # node 0's thread enters
         (SCHED, A - 0x100, 150),             # ... and yields: 50 counted
         (OPEN, B, 170),                      # node 1's thread enters (20 in the switch)
         (SCHED, B - 0x100, 270),             # ... and yields: 100 counted
         (0xA1, A - 0x100 + 8, 290),          # node 0 back (20 in the switch)
         (IRQ, A - 0x200, 390),               # a timer: 100 counted
         (SCHED, X, 400),                     # another thread schedules: 10 in the interrupt
         (0xA2, A - 0x1b0, 420),              # node 0 resumes: 20 on other threads
         (0xA0, A + 8, 470),                  # node 0 returns: 50 counted
         (0xB1, B - 0x100 + 8, 500),          # node 1 back: 30 on other threads
         (0xB0, B + 8, 560)]                  # node 1 returns: 60 counted
MEMORY = {A: 0xA0, A - 0x100: 0xA1, B: 0xB0, B - 0x100: 0xB1, A - 0x200: 0xA2, A - 0x200 + 24: A - 0x1b0,
          0x9000: 77}


def test_two_threads_count_each_on_its_own_stack():
    stub = ScriptedStub(STOPS, MEMORY)
    res = brackets.take(stub, SYMS, spec(2), deadline=None)
    assert res.instructions == 50 + 100 + 100 + 50 + 60
    assert res.gross == 560 - 100
    assert res.excluded == {"__schedule": [2, 40], "asm_sysvec_apic_timer_interrupt": [1, 10],
                            brackets.OTHERS: [0, 50]}
    assert res.reads == {"vm_zone_stat": 77}
    assert not stub.stops and not stub.breaks


def test_one_call_less_closes_at_the_first_thread_that_returns_its_own_count():
    # With calls=1 the old runner takes node 0's call alone: node 1's entry
    # falls inside its excluded __schedule, which is how two nodes went
    # uncounted before.
    stub = ScriptedStub(STOPS[:2] + [(0xA1, A - 0x100 + 8, 290), (0xA0, A + 8, 340)], MEMORY)
    res = brackets.take(stub, SYMS, spec(1), deadline=None)
    assert res.instructions == 50 + 50


def test_a_bracket_of_calls_takes_no_parts():
    s = brackets.Spec("x", "deferred_init_memmap", parts=("__schedule",))
    s.calls = 2
    with pytest.raises(brackets.BracketError, match="has no parts"):
        brackets.take(ScriptedStub([], {}), SYMS, s, deadline=None)


def test_a_profile_follows_its_own_thread_only():
    # The profile of the phase's thread: node 1's thread calls __schedule
    # while node 0 is switched out; that counts to node 0's __schedule frame.
    from harness.real.binaries import linux_profile
    stops = [(OPEN, A, 100), (SCHED, A - 0x100, 150), (SCHED, B - 0x100, 170),
             (0xA1, A - 0x100 + 8, 290), (0xA0, A + 8, 340)]
    stub = ScriptedStub(stops, MEMORY)
    stub.breaks.add(OPEN)               # as the replay's first stop finds it
    got = linux_profile.profile(stub, SYMS, "deferred_init_memmap", ["__schedule"], [], None)
    assert got == {"total": 240, "exclusive": {"deferred_init_memmap": 100, "__schedule": 140},
                   "calls": {"deferred_init_memmap": 1, "__schedule": 1}}
    # Read as one thread (bootheap's model), node 1's call nests above node
    # 0's frames, which then never return: the profile runs off the replay.
    stub = ScriptedStub(stops, MEMORY)
    stub.breaks.add(OPEN)
    with pytest.raises(IndexError):
        linux_profile.profile(stub, SYMS, "deferred_init_memmap", ["__schedule"], [], None, threads=False)


class ArmStub(ScriptedStub):
    """arm64's registers (gdbstub.ARM64): pc, sp and the link register x30,
    which a stop gives as its fourth item."""
    from harness.qemu.gdbstub import ARM64 as arch

    def reg(self, n):
        return {32: self.at[0], 31: self.at[1], 30: self.at[3]}[n]


def test_an_arm64_call_returns_to_its_link_register_with_sp_as_it_was():
    """end_boot_allocator() on arm64: entered with x30 = 0x500, printk()
    called inside with x30 = 0x1010 and excluded; the returns are known by
    pc and sp, not by a word popped off the stack (there is none: the
    memory is empty, so reading it would fail)."""
    syms = {"end_boot_allocator": 0x1000, "printk": 0x4000, "total_avail_pages": 0x9000}
    stops = [(0x1000, 0x8000, 100, 0x500),      # entry: returns to 0x500 with sp 0x8000
             (0x4000, 0x7f00, 140, 0x1010),     # printk from inside, sp moved down
             (0x1010, 0x7f00, 190, 0x1010),     # printk returns: 50 excluded
             (0x500, 0x8000, 230, 0x1010)]      # end_boot_allocator returns
    stub = ArmStub(stops, {0x9000: 5})
    res = brackets.take(stub, syms, brackets.Spec("eba", "end_boot_allocator", exclude=("printk",),
                                                  reads=("total_avail_pages",)), deadline=None)
    assert (res.gross, res.instructions, res.reads) == (130, 80, {"total_avail_pages": 5})
    assert res.excluded == {"printk": [1, 50]} and not stub.breaks


def test_only_each_thread_s_innermost_return_is_armed_so_another_thread_in_the_same_loop_runs_free():
    """Node 0's thread, interrupted at 0xA5 in a loop and switched out in
    the interrupt, does not leave 0xA5 armed while node 1's thread runs
    that loop (7.1's stock deferred init stopped there every 24
    instructions); it is armed again once node 0 is back from the
    scheduler, and the counts are as before."""
    stops = [(OPEN, A, 100),                  # node 0's thread enters
             (IRQ, A - 0x200, 150),           # a timer at 0xA5: 50 counted
             (SCHED, A - 0x300, 160),         # the interrupt switches node 0 out: 10 in it
             (OPEN, B, 180),                  # node 1 enters (20 in the switch)
             (SCHED, B - 0x100, 280),         # ... and yields: 100 counted
             (0xA6, A - 0x300 + 8, 300),      # node 0 back from the scheduler (20)
             (0xA5, A - 0x1b0, 310),          # ... and from the interrupt (10)
             (0xA0, A + 8, 360),              # node 0 returns: 50 counted
             (0xB1, B - 0x100 + 8, 380),      # node 1 back (20 on other threads)
             (0xB0, B + 8, 400)]              # node 1 returns: 20 counted
    memory = {A: 0xA0, B: 0xB0, B - 0x100: 0xB1, A - 0x200: 0xA5, A - 0x200 + 24: A - 0x1b0, A - 0x300: 0xA6,
              0x9000: 5}
    armed_for_b = []

    class Watching(ScriptedStub):
        def resume(self, deadline):
            pc = super().resume(deadline)
            if self.at[1] >> brackets.THREAD_SHIFT == B >> brackets.THREAD_SHIFT:
                armed_for_b.append(0xA5 in self.breaks)
            return pc

    stub = Watching(stops, memory)
    res = brackets.take(stub, SYMS, spec(2), deadline=None)
    assert armed_for_b == [False, False, False, False]
    assert res.instructions == 50 + 100 + 50 + 20
    assert res.excluded["__schedule"] == [2, 40] and res.excluded["asm_sysvec_apic_timer_interrupt"] == [1, 20]
    assert not stub.stops and not stub.breaks
