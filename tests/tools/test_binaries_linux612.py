# SPDX-License-Identifier: MIT
"""Debian 13's Linux 6.12 beside 6.1: its serial log (tests/tools/data/binaries/,
recorded under -icount at 1 and 4 GiB) and its brackets, recorded from the
same boots with every memmap_init_range() call's arguments and defer_init()'s
statics, read back through the parsers `binaries` uses; the rule the
report and peers-icount share; and the packages: a 6.12 that cannot be had,
and a kernel without deferred init, refused by name."""
import json
import lzma
import os
import re
import struct
import subprocess

import pytest

from harness.real.bracket import boot as realboot
from harness.real.debian import fetch as binfetch
from harness.real.debian.apt import FetchError
from harness.real.bracket.logs import LogError, linux_facts
from harness.real.binaries.report import linux_per_page
from harness.qemu.brackets import Result

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "binaries")
GIB = 1 << 30


def text(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


def cut_before(log, needle):
    at = log.index(needle)
    return log[:log.rfind("\n", 0, at) + 1]


def brackets(size):
    """The recorded brackets of a 6.12 boot as harness/qemu/brackets.py returned them."""
    with open(os.path.join(DATA, f"brackets-linux-6.12-{size}.json"), encoding="utf-8") as f:
        rec = json.load(f)
    out = []
    for b in rec["brackets"]:
        r = Result(b["name"])
        r.gross, r.excluded, r.parts, r.reads = b["gross"], b["excluded"], b["parts"], b["reads"]
        r.part_calls = [tuple(c) for c in b["part_calls"]]
        out.append(r)
    return out


def test_the_612_log():
    f = linux_facts(text("serial-linux-6.12-1G.log"))
    assert f["release"] == "6.12.118+deb13-amd64"
    assert f["free_kib"] == 980312 and f["present_kib"] == 1048184
    # 6.12 prints 'Memory:' after its deferred init; mem_init() ends at 'SLUB:'.
    assert f["memory_after_deferred"] is True
    assert f["unavailable_pages"] == 98
    assert f["deferred_ms"] == {0: 8}
    assert 0 < f["memblock_log_us"] < 10000
    assert linux_facts(text("serial-linux-6.1-1G.log"))["memory_after_deferred"] is False


def test_hash_tables_from_vmalloc_before_memory_are_counted():
    # One node: the hash tables come from memblock ("linear"), none counted.
    assert linux_facts(text("serial-linux-6.12-1G.log"))["vmalloc_hash_kib"] == 0
    # More nodes spread them by vmalloc, out of the free pages that
    # 'Memory:' then reports (a 64 GiB two-node boot's lines); one after
    # 'Memory:' is not the boot's to subtract.
    lines = ["Dentry cache hash table entries: 8388608 (order: 14, 67108864 bytes, vmalloc hugepage)",
             "Inode-cache hash table entries: 4194304 (order: 13, 33554432 bytes, vmalloc hugepage)",
             "Mount-cache hash table entries: 131072 (order: 8, 1048576 bytes, vmalloc)"]
    log = text("serial-linux-6.12-1G.log")
    at = log.index("Memory:")
    at = log.rfind("\n", 0, at) + 1
    stamp = log[at:log.index("]", at) + 1]
    more = "".join(f"{stamp} {line}\n" for line in lines)
    after = log + f"{stamp} Mountpoint-cache hash table entries: 1 (order: 8, 1048576 bytes, vmalloc)\n"
    assert linux_facts(log[:at] + more + log[at:])["vmalloc_hash_kib"] == 65536 + 32768 + 1024
    assert linux_facts(after)["vmalloc_hash_kib"] == 0


@pytest.mark.parametrize("needle, missing", [
    ("SLUB:", "'Memory:' or 'SLUB:' around memblock_free_all"),
    ("deferred pages initialised", "deferred init did not finish"),
    ("Memory:", "never printed its 'Memory:' line"),
])
def test_a_612_log_cut_short(needle, missing):
    with pytest.raises(LogError, match=missing):
        linux_facts(cut_before(text("serial-linux-6.12-1G.log"), needle))


@pytest.mark.parametrize("size, memmap, memblock, deferred, total", [
    ("1G", (3115223, 65536), (2647527, 53999), (9103142, 192003), 246002),
    ("4G", (21606702, 557056), (19131870, 529135), (22390621, 473282), 1002417),
])
def test_the_612_brackets(size, memmap, memblock, deferred, total):
    r = realboot.linux_result(brackets(size), text(f"serial-linux-6.12-{size}.log"))
    ph = r["phases"]
    assert (ph["memmap"]["instructions"], ph["memmap"]["pages"]) == memmap
    assert (ph["memblock_free_all"]["instructions"], ph["memblock_free_all"]["pages"]) == memblock
    assert (ph["deferred"]["instructions"], ph["deferred"]["pages"]) == deferred
    assert r["pages_total"] == total == memblock[1] + deferred[1]


def test_612s_statics_are_found_by_name():
    syms = {"nr_initialised.3": 1, "prev_end_pfn.4": 2, "nr_initialised_x": 3}
    assert realboot.defer_statics(syms) == ("nr_initialised.3", "prev_end_pfn.4")
    spec = realboot.linux_specs(dict(syms, **{"asm_sysvec_x": 4}))[0]
    assert spec.part_reads == ("nr_initialised.3", "prev_end_pfn.4")


def test_71s_brackets_close_where_its_free_area_init_is_called_and_take_its_reserved_loop():
    """7.1: free_area_init() is static (mm_core_init_early() calls it last)
    and memmap_init_reserved_range() is the reserved pages' loop."""
    syms = {"nr_initialised.2": 1, "prev_end_pfn.3": 2, "asm_sysvec_x": 4, "mm_core_init_early": 5,
            "memmap_init_reserved_range": 6}
    memmap, memblock, _ = realboot.linux_specs(syms)
    assert (memmap.open_at, memmap.close_at) == ("memmap_init_range", "mm_core_init_early")
    assert memblock.parts == ("memmap_init_reserved_range",)
    memmap, memblock, _ = realboot.linux_specs(dict(syms, free_area_init=7, reserve_bootmem_region=8))
    assert memmap.close_at == "free_area_init" and memblock.parts == ("reserve_bootmem_region",)


def test_the_memmap_pages_stop_at_the_deferral():
    """At 4 GiB the last zone is Normal: its first range stops one section
    in, at a section boundary, and the DMA and DMA32 ranges count whole."""
    memmap = brackets("4G")[0]
    calls = memmap.part_calls
    assert [c[1][2] for c in calls] == [0, 0, 1, 2]          # zones DMA, DMA, DMA32, Normal
    assert realboot.memmap_pages(calls) == 557056 - 98
    # Normal's range initialised one section: defer_init() let 32769 through, the last one deferred.
    assert calls[3][2]["nr_initialised.3"] == 32769
    assert realboot.memmap_pages(calls) == sum(c[1][0] for c in calls[:3]) + 32768


def test_free_pages_that_disagree_with_the_log_are_refused():
    log = text("serial-linux-6.12-1G.log").replace("Memory: 980312K", "Memory: 900312K")
    with pytest.raises(realboot.BracketBootError, match="disagree with its 'Memory: 900312K' line"):
        realboot.linux_result(brackets("1G"), log)


def test_one_rule_for_the_real_figures():
    ph = realboot.linux_result(brackets("4G"), text("serial-linux-6.12-4G.log"))["phases"]
    rec = {p: dict(v, phase=p) for p, v in ph.items()}
    assert linux_per_page(rec["memmap"]) == 21606702 / 557056
    # memblock_free_all() less reserve_bootmem_region(): 37 calls, 3,141,880 instructions.
    assert linux_per_page(rec["memblock_free_all"]) == (19131870 - 3141880) / 529135
    assert linux_per_page(rec["deferred"]) == 22390621 / 473282


# ---- the packages -------------------------------------------------------------

class Apt:
    """A private apt that knows some packages, for _fetch_linux()."""

    def __init__(self, known):
        self.known = known

    def candidate(self, package):
        if package not in self.known:
            raise FetchError(f"package {package} is not on http://mirror/debian in trixie")
        return self.known[package]

    def download(self, package, version, into):
        raise AssertionError("nothing should be downloaded")


def test_a_612_that_cannot_be_had_is_named(tmp_path):
    with pytest.raises(FetchError, match=r"package linux-image-amd64 is not on .* trixie"):
        binfetch._fetch_linux(Apt({}), str(tmp_path), str(tmp_path), "6.12")
    # trixie's linux-image-amd64 names a 6.12 image the mirror does not have.
    apt = Apt({"linux-image-amd64": ("6.12.118-1", "linux-image-6.12.118+deb13-amd64 (= 6.12.118-1)")})
    with pytest.raises(FetchError, match=r"package linux-image-6\.12\.118\+deb13-amd64 is not on"):
        binfetch._fetch_linux(apt, str(tmp_path), str(tmp_path), "6.12")
    # Or another kernel than a 6.12 altogether.
    apt = Apt({"linux-image-amd64": ("6.1.192-3", "linux-image-6.1.0-57-amd64 (= 6.1.192-3)")})
    with pytest.raises(FetchError, match=r"not a Linux 6\.12 image \(linux-image-6\.12\.N\+deb13-amd64\)"):
        binfetch._fetch_linux(apt, str(tmp_path), str(tmp_path), "6.12")


def bzimage(path, payload, release):
    """A bzImage of the boot protocol's layout: setup, version string, payload."""
    setup = bytearray(5 * 512)
    setup[0x1F1] = 4
    setup[0x202:0x206] = b"HdrS"
    banner = f"{release} (test) #1 SMP".encode() + b"\0"
    struct.pack_into("<H", setup, 0x20E, 0x400 - 0x200)
    setup[0x400:0x400 + len(banner)] = banner
    struct.pack_into("<II", setup, 0x248, 0x10, len(payload))
    with open(path, "wb") as f:
        f.write(bytes(setup) + b"\0" * 0x10 + payload)


def test_a_config_without_deferred_init_is_refused_by_name(tmp_path):
    release = "6.12.118+deb13-amd64"
    vmlinuz, sysmap, config = (str(tmp_path / n) for n in ("vmlinuz", "System.map", "config"))
    bzimage(vmlinuz, b"x", release)
    names = list(binfetch.LINUX_SYMBOLS) + ["nr_initialised.3", "prev_end_pfn.4"] + \
        [f"filler_{i}" for i in range(100)]
    with open(sysmap, "w") as f:
        f.write("".join(f"ffffffff81{i:06x} T {n}\n" for i, n in enumerate(names)))
    good = "CONFIG_DEFERRED_STRUCT_PAGE_INIT=y\nCONFIG_NUMA=y\nCONFIG_SPARSEMEM_VMEMMAP=y\n"
    with open(config, "w") as f:
        f.write(good)
    assert binfetch.linux_check(vmlinuz, sysmap, config, release).startswith(release)
    with open(config, "w") as f:
        f.write(good.replace("CONFIG_DEFERRED_STRUCT_PAGE_INIT=y", "# CONFIG_DEFERRED_STRUCT_PAGE_INIT is not set"))
    with pytest.raises(FetchError, match=r"CONFIG_DEFERRED_STRUCT_PAGE_INIT not set"):
        binfetch.linux_check(vmlinuz, sysmap, config, release)


def test_both_payloads_unpack(tmp_path):
    elf = b"\x7fELF" + bytes(range(256)) * 8
    xz = lzma.compress(elf, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)
    zst = subprocess.run(["zstd", "-c", "-q"], input=elf, capture_output=True, check=True).stdout
    for payload in (xz, zst + struct.pack("<I", len(elf))):
        path = str(tmp_path / "bz")
        bzimage(path, payload, "6.12.118+deb13-amd64")
        with open(path, "rb") as f:
            assert binfetch.unpack_payload(path, binfetch.bzimage_payload(f.read())) == elf
    with pytest.raises(FetchError, match="neither XZ nor Zstandard"):
        binfetch.unpack_payload("bz", b"gzip?")


def test_without_deferral_every_memmap_call_counts_whole():
    """A kernel built without DEFERRED_STRUCT_PAGE_INIT has no defer_init()
    statics to read: each memmap_init_range() call initialises its range."""
    calls = [(c[0], c[1], {}, c[3]) for c in brackets("4G")[0].part_calls]
    assert realboot.memmap_pages(calls) == sum(c[1][0] for c in calls) > 557056 - 98
    spec = realboot.TARGETS["linux-6.12-nodefer"].specs({"asm_sysvec_x": 4})
    assert [s.name for s in spec] == ["memmap", "memblock_free_all"] and spec[0].part_reads == ()


def test_a_kernel_without_deferral_gives_two_phases():
    memmap, memblock, _ = brackets("1G")
    log = text("serial-linux-6.12-1G.log")
    r = realboot.linux_result([memmap, memblock], log)
    assert list(r["phases"]) == ["memmap", "memblock_free_all"]
    assert r["phases"]["memblock_free_all"]["pages"] == 53999
    with pytest.raises(realboot.BracketBootError, match="deferred pages initialised"):
        realboot.linux_result(brackets("1G"), re.sub(r".*deferred pages initialised.*\n", "", log))
