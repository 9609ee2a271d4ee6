# SPDX-License-Identifier: MIT
"""harness/real/linux/initboot.py's reading of a serial log, on the log of
a real boot (the 6.12 source build with the series, init_pages=sweep at
1 GiB, to busybox's /init: tests/tools/data/linux-init/sweep-1G.log) and
on that log cut or edited where a boot goes wrong."""
import gzip
import os

import pytest

from harness.real.bracket import initramfs
from harness.real.linux import initboot

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, "data", "linux-init", "sweep-1G.log")


@pytest.fixture
def log():
    with open(LOG) as f:
        return f.read()


def test_recorded_boot_is_ok(log):
    status, facts = initboot.verdict(log, qemu_ended=True)
    assert status == "ok"
    assert facts["init"] == "bootheap-linux: init reached (6.12.107)"
    assert facts["mem_total_kib"] == 1012596 and facts["mem_free_kib"] == 950256
    assert facts["memtest"] == "memtest 64 MiB ok"
    assert facts["powered_off"] and facts["trouble"] is None


def test_log_cut_before_init(log):
    cut = log[:log.index("Run /init")]
    assert initboot.verdict(cut, qemu_ended=True)[0] == "no-init"


def test_log_cut_before_power_down(log):
    cut = log[:log.index("ACPI: PM: Preparing")]
    assert initboot.verdict(cut, qemu_ended=False)[0] == "no-poweroff"
    # QEMU that exited by itself is the machine powered off.
    assert initboot.verdict(cut, qemu_ended=True)[0] == "ok"


def test_read_back_differed(log):
    bad = log.replace("memtest 64 MiB ok", "memtest 64 MiB FAILED: md5 0, expected 1")
    status, facts = initboot.verdict(bad, qemu_ended=True)
    assert status == "memtest" and "FAILED" in facts["memtest"]
    assert "FAILED" in initboot.why(status, facts, bad)


@pytest.mark.parametrize("line", [
    "[    1.2] BUG: Bad page state in process swapper  pfn:2a000",
    "[    1.2] WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:1234 __free_one_page+0x1/0x2",
    "[    1.2] Kernel panic - not syncing: Out of memory and no killable processes...",
    "[    1.2] sh: page allocation failure: order:0, mode:0x140cca",
])
def test_trouble_is_named_even_when_init_went_on(log, line):
    at = log.index("bootheap-linux: memtest")
    bad = log[:at] + line + "\n" + log[at:]
    status, facts = initboot.verdict(bad, qemu_ended=True)
    assert status == "trouble"
    assert facts["trouble"] == line.split("] ", 1)[1]


def test_refused_parameter(log):
    bad = log.replace("Run /init as init process",
                      "Malformed early option 'init_pages'\nRun /init as init process")
    status, facts = initboot.verdict(bad, qemu_ended=True)
    assert status == "refused" and facts["refused"] == ["init_pages"]
    assert "init_pages" in initboot.why(status, facts, bad)


def test_archive_init_prints_the_linux_tag(tmp_path):
    path = initboot.archive(str(tmp_path))
    with open(path, "rb") as f:
        data = gzip.decompress(f.read())
    assert b"bootheap-linux: init reached" in data
    assert b'echo "bootheap-linux: memtest 64 MiB ok"' in data
    assert b"bootheap-dom0" not in data.split(b"#!/bin/sh")[1].split(b"TRAILER!!!")[0].replace(
        b"yes bootheap-dom0", b"")


def test_init_script_refuses_a_tag_that_is_not_a_word():
    with pytest.raises(ValueError):
        initramfs.init_script(tag="two words:")
    with pytest.raises(ValueError):
        initramfs.init_script(tag="nocolon")
