# SPDX-License-Identifier: MIT
"""The real Xen 4.17 and bootheap under QEMU's deterministic TCG
(-icount shift=0), as `binaries` boots them: the brackets parse and two
boots of the same binary and size give the same counts, to the instruction.
Xen is fetched (Debian's package, apt-get download) by the code `binaries`
uses; a machine without the network and without an earlier fetch fails here
with apt's reason."""
import pytest

from harness.real.bracket import boot as realboot
from harness.real.debian import fetch as binfetch
from harness.qemu import command
from harness.qemu.brackets import Spec
from harness.real.bracket.logs import bootheap_counts

GIB = 1 << 30


@pytest.fixture(scope="module")
def xen417():
    man = binfetch.fetch(["xen-4.17"], say=lambda *a: None)
    return binfetch.files_of(man, "xen-4.17")


def xen_boot(files, mem, tmp_path, n):
    results, log = realboot.boot_real(realboot.TARGETS["xen-4.17"], files, mem,
                                        str(tmp_path / f"xen-{n}.log"))
    return realboot.xen_result(results, log)


def test_xen_417_brackets_parse_and_repeat(xen417, tmp_path):
    a, b = (xen_boot(xen417, GIB, tmp_path, n) for n in (1, 2))
    assert a["instructions"] == b["instructions"]
    assert a["pages"] == b["pages"]
    assert a["bracket"] == b["bracket"]
    assert a["log"]["log_bracket"] == b["log"]["log_bracket"]
    # A 1 GiB guest hands Xen's heap nearly every page of its RAM.
    assert 250000 < a["pages"] < 262144
    # Chunked: tens of instructions a page, not hundreds.
    assert 30 < a["instructions"] / a["pages"] < 120
    # What the bracket left out is its own printing, and only that.
    assert set(a["bracket"]["excluded"]) == {"printk"}
    # Xen's own stamps hold the bracket and a little more (the end of
    # numa_initmem_init() and two lines' printing), never less.
    assert 0 < a["log"]["log_bracket"] - a["instructions"] < 100000


def test_xen_417_at_a_size_it_cannot_boot(xen417, tmp_path):
    with pytest.raises(realboot.BracketBootError) as e:
        realboot.boot_real(realboot.TARGETS["xen-4.17"], xen417, 16 << 20, str(tmp_path / "x.log"))
    msg = str(e.value)
    assert "xen-4.17 at 16 MiB gave no bracket" in msg
    assert "before 'Domain heap initialised'" in msg
    assert "(XEN)" in msg                   # the log's end, to see why


def test_bootheap_icount_repeats(tmp_path):
    runs = [realboot.boot_bootheap(GIB, "all", str(tmp_path / f"bh-{n}.log")) for n in (1, 2)]
    (c1, b1, _), (c2, _, _) = runs
    assert c1 == c2
    assert b1["icount"] is True
    assert set(c1) == {"page", "chunk", "sweep", "lazy", "floor"}
    page, chunk = (c1[s][0] / c1[s][1] for s in ("page", "chunk"))
    assert page > 4 * chunk


def test_bootheap_tsc_window_is_its_instruction_count(tmp_path):
    """Under -icount the kernel's TSC window around end_boot_allocator() is the
    breakpoint bracket of the same call plus the two TSC reads."""
    specs = lambda syms: [Spec("run 0", "end_boot_allocator"), Spec("run 1", "end_boot_allocator")]
    target = realboot.Target("bootheap", command.QBOOT, "runs=2 strategies=chunk icount", specs,
                               '"type":"done"')
    files = {"kernel": command.ELF, "symbols": command.ELF.replace(".elf", ".sym")}
    results, log = realboot.boot_real(target, files, GIB, str(tmp_path / "bh.log"))
    counts, _, _ = bootheap_counts(log)
    ticks = counts["chunk"][0]
    assert results[0].instructions == results[1].instructions
    assert 0 < ticks - results[0].instructions <= 32
