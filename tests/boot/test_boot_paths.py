# SPDX-License-Identifier: MIT
"""Every boot path reaches 64-bit C, reports its loader and a sane memory map,
runs the self-tests and exits cleanly (issue: bootable foundation); the
heaps the self-tests build are the host's own (harness.oracle)."""
import os
import re

import pytest

from bootlib import AUDIT_BLOCKS, ROOT, assert_ktap_ok, boot, check_heap, explain, ram_pages_in, record
from harness.qemu import command, runner
from screenlib import boot_until_halted

MIB = 1 << 20


@pytest.mark.parametrize("mode,loader", [
    ("pvh", "pvh"),
    ("iso-bios", "multiboot2"),
    ("iso-uefi", "multiboot2"),
])
def test_boot_path_selftests(mode, loader):
    mem = 512 * MIB
    r = boot(mode, "512M", f"{AUDIT_BLOCKS} selftest")
    assert_ktap_ok(r)
    check_heap(r, min_audits=4)
    b = record(r, "boot")
    assert b["loader"] == loader, explain(r)
    assert b["cmdline"].split()[-1] == "selftest"
    if mode.startswith("iso"):
        assert b["loader_name"].startswith("GRUB"), b["loader_name"]
    else:
        # PVH loads the image where the ELF says: its 2 MiB link address.
        assert b["load_addr"] == 2 * MIB, explain(r)
    # A sane map: RAM below 640 KiB and above 1 MiB, and in total close to
    # what QEMU was given (firmware keeps a little, never more than 16 MiB).
    ram = ram_pages_in(b["mmap"])
    assert mem - 16 * MIB <= ram <= mem, f"RAM in map {ram} vs -m {mem}\n" + explain(r)
    assert any(e["type"] == 1 and e["addr"] >= MIB for e in b["mmap"])
    if mode == "iso-uefi":
        assert b["mmap_source"].startswith("multiboot2"), b["mmap_source"]


@pytest.mark.parametrize("model", ["all", "none"])
def test_selftests_under_each_cost_model(model):
    r = boot("pvh", "512M", f"xen_costs={model} {AUDIT_BLOCKS} selftest")
    assert_ktap_ok(r)
    check_heap(r, min_audits=4)


def test_unknown_option_warns_and_boots():
    r = boot("pvh", "256M", "no_such_option=1 selftest")
    assert "unknown command-line option 'no_such_option=1' ignored" in r.log, explain(r)
    assert_ktap_ok(r)


@pytest.mark.parametrize("only,name", [("no_such_test", "no_such_test"),
                                       ("tsc_pit_interval,no_such_test", "no_such_test")])
def test_selftest_only_naming_no_test_fails(only, name):
    # A selection that names no self-test would run nothing and pass.
    r = boot("pvh", "256M", f"selftest selftest_only={only}")
    assert r.status == "fail", explain(r)
    msg = f"selftest_only={only}: no self-test is named '{name}'"
    assert msg in r.log and record(r, "done")["reason"] == msg, explain(r)
    assert "KTAP version 1" not in r.log, explain(r)


def test_exit_codes_follow_the_kernel_header():
    # The harness reads the verdict the kernel writes (kernel/exit.h): QEMU's
    # isa-debug-exit makes its exit status (v << 1) | 1, at the port the
    # kernel writes.
    with open(os.path.join(ROOT, "kernel", "exit.h")) as f:
        text = f.read()

    def define(name):
        return int(re.search(rf"#define {name}\s+(\w+)", text).group(1), 0)

    assert runner.EXIT_OK == (define("DEBUG_EXIT_OK") << 1) | 1
    assert runner.EXIT_FAIL == (define("DEBUG_EXIT_FAIL") << 1) | 1
    port = define("DEBUG_EXIT_PORT")
    cmd = command.qemu_command("pvh", "tcg", 256 << 20, say=lambda *a: None)
    assert any(re.fullmatch(rf"isa-debug-exit,iobase={port:#x},iosize=0x0?4", arg) for arg in cmd), cmd


def test_bad_option_value_fails_cleanly():
    r = boot("pvh", "256M", "exit=sometimes")
    assert r.status == "fail", explain(r)
    assert "bad command line: exit=sometimes: expected one of auto qemu halt" in r.log, explain(r)
    done = record(r, "done")
    assert done["status"] == "fail"


@pytest.mark.parametrize("fault,name", [
    ("ud", "#UD invalid opcode"),
    ("pf", "#PF page fault"),
    ("gp", "#GP general protection"),
    ("de", "#DE divide error"),
])
def test_exception_report(fault, name):
    r = boot("pvh", "256M", f"fault={fault}")
    assert r.status == "fail", explain(r)
    assert "FATAL EXCEPTION on CPU 0 (APIC id 0): vector" in r.log and name in r.log, explain(r)
    assert "RIP " in r.log and "CR2 " in r.log and "RAX " in r.log, explain(r)
    # The backtrace names the function that faulted and its callers.
    assert "raise_fault+0x" in r.log, explain(r)
    assert "kstart+0x" in r.log, explain(r)
    if fault == "pf":
        assert "CR2 00000dead0000000" in r.log, explain(r)
    assert record(r, "done")["status"] == "fail"


def test_panic_is_a_clean_failure():
    r = boot("pvh", "256M", "fault=panic")
    assert r.status == "fail", explain(r)
    assert "panic: panic requested on the command line" in r.log
    assert "kstart+0x" in r.log, explain(r)


def test_no_serial_port_does_not_hang():
    # Without a UART the kernel must still finish and exit with its verdict.
    r = boot("pvh", "256M", "selftest", serial=False, timeout=60)
    assert r.status == "ok", explain(r)


def test_halt_mode_does_not_exit():
    # exit=halt is what real hardware gets: print, then halt. QEMU keeps
    # running with the CPU halted after the final record, until told to quit.
    r, halted, _, err = boot_until_halted("halt", "pvh", "")
    assert err is None and halted, (err, explain(r))
    assert record(r, "done")["status"] == "ok"
    assert r.status == "no-verdict" and r.qemu_rc == 0, explain(r)     # quit, not the exit device
