# SPDX-License-Identifier: MIT
"""`xen-src arm` without a cross compiler or QEMU: the dump patch cut to its
code, the kept Arm boots read back as one heap and a doctored one caught,
what counts as a failure, and tools that cannot be had named by package."""
import glob
import json
import os

import pytest

from conftest import ROOT
from harness import cli
from harness.real.xen import arm, heapdump

KEPT = os.path.join(ROOT, "docs", "results", "xen-arm-staging")


def kept_log(label, size, arch="arm64"):
    with open(os.path.join(KEPT, f"serial-{arch}-{label}-{size}.log")) as f:
        return f.read()


def test_the_dump_patch_keeps_its_code_and_leaves_its_documentation(tmp_path):
    path = arm.code_only(glob.glob(os.path.join(ROOT, "patches/xen/staging-measure/0004-*.patch"))[0],
                         str(tmp_path / "dump.patch"))
    text = open(path).read()
    files = [line.split()[2] for line in text.splitlines() if line.startswith("diff --git ")]
    assert files == ["a/xen/arch/arm/setup.c", "a/xen/arch/x86/setup.c", "a/xen/common/page_alloc.c",
                     "a/xen/include/xen/mm.h"]
    assert "+    heap_dump_regions();\n     end_boot_allocator();\n+    heap_dump();\n" in text
    assert "xen-command-line.pandoc" not in text and text.startswith("From ")


def test_a_patch_with_nothing_under_xen_is_refused(tmp_path):
    p = tmp_path / "docs.patch"
    p.write_text("Subject: docs\n---\n\ndiff --git a/docs/x b/docs/x\n--- a/docs/x\n+++ b/docs/x\n")
    try:
        arm.code_only(str(p), str(tmp_path / "out.patch"))
    except arm.SourceError as e:
        assert "nothing under xen/" in str(e)
    else:
        raise AssertionError("a patch with no code was taken")


@pytest.mark.parametrize("arch", ["arm64", "arm32"])
def test_the_kept_arm_boots_are_one_heap(arch):
    for size in ("1G", "3G"):
        dumps = {"stock": heapdump.parse(kept_log("stock-dump", size, arch)),
                 "series": heapdump.parse(kept_log("series-dump", size, arch))}
        assert all(heapdump.check(d, xenheap_zone=arch == "arm32") == [] for d in dumps.values())
        assert heapdump.compare(dumps) == []
        assert len(dumps["stock"].blocks) > 30


def test_arm32s_xenheap_is_a_zone_of_its_own_and_only_there():
    d = heapdump.parse(kept_log("series-dump", "1G", "arm32"))
    xenheap = [b for b in d.blocks if b[1] == 0]
    assert xenheap and all(0x7e000 <= b[3] < 0x80000 for b in xenheap)
    assert heapdump.check(d, xenheap_zone=True) == []
    said = heapdump.check(d)                          # as if the build had no separate xenheap
    assert len(said) == 1 and "zone 0" in said[0], said


def test_two_blocks_swapped_on_a_list_are_caught():
    log = kept_log("series-dump", "1G").splitlines()
    at = [i for i, line in enumerate(log) if "heapdump: block 0 19 9 " in line][:2]
    log[at[0]], log[at[1]] = log[at[1]], log[at[0]]        # same blocks, another list order
    dumps = {"stock": heapdump.parse(kept_log("stock-dump", "1G")), "series": heapdump.parse("\n".join(log))}
    said = heapdump.compare(dumps)
    assert len(said) == 1 and "another order" in said[0], said


def test_a_block_with_another_first_dirty_is_caught():
    text = kept_log("series-dump", "1G")
    line = next(x for x in text.splitlines() if "heapdump: block 0 19 16 " in x)
    f = line.split()
    assert f[-3] == "0"
    f[-3] = "0x100"                   # first_dirty: the first 256 pages left unscrubbed
    dumps = {"stock": heapdump.parse(kept_log("stock-dump", "1G")),
             "series": heapdump.parse(text.replace(line, " ".join(f)))}
    said = heapdump.compare(dumps) + heapdump.check(dumps["series"])
    assert said, "a changed first_dirty went unseen"


def test_what_fails_a_run():
    recs = [{"type": "build", "arch": "arm64", "config": "debug", "series": "series",
             "warnings": ["page_alloc.c:1: warning: unused"]},
            {"type": "boot", "mem_bytes": 1 << 30, "problems": ["the boot ended timeout, not in the planned panic"]},
            {"type": "compare", "mem_bytes": 1 << 30, "problems": []}]
    said = arm.failed(recs)
    assert len(said) == 2 and "1 warnings" in said[0] and "timeout" in said[1]
    with open(os.path.join(KEPT, arm.RECORDS)) as f:
        assert arm.failed([json.loads(line) for line in f]) == []


def test_tools_that_cannot_be_had_are_named_by_package(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(arm, "missing_tools", lambda: [("qemu-system-aarch64", "qemu-system-arm")])
    monkeypatch.setattr(arm, "install", lambda missing, say: missing)
    tree = os.environ.get("BOOTHEAP_XEN_STAGING") or str(tmp_path / "xen")
    if not os.environ.get("BOOTHEAP_XEN_STAGING"):       # a stand-in tree: the version is all it reads
        os.makedirs(os.path.join(tree, "xen", "common"))
        open(os.path.join(tree, "xen", "common", "page_alloc.c"), "w").close()
        with open(os.path.join(tree, "xen", "Makefile"), "w") as f:
            f.write("export XEN_VERSION       = 4\nexport XEN_SUBVERSION    = 23\n")
    assert cli.main(["xen-src", "arm", "--tree", tree, "--out", str(tmp_path / "out")]) == 2
    said = capsys.readouterr()
    assert "qemu-system-aarch64 (Debian package qemu-system-arm)" in said.out + said.err
    assert not (tmp_path / "out").exists()


def test_the_arm64_count_boots_record_and_replay_on_the_virt_machine_and_a_count_that_failed_fails_the_run():
    """The count's QEMU command is the boot's machine with -icount (and the
    replay's gdbstub after it), its gdbstub reads arm64's registers, and a
    count without pages fails the run."""
    t = arm.count_target("arm64", "dummy-dom0")
    cmd = t.command({"kernel": "xen"}, 1 << 30, "shift=0,sleep=off,rr=record,rrfile=r", ["-S"])
    assert cmd[:len(arm.MACHINES["arm64"])] == arm.MACHINES["arm64"] and cmd[-3:] == [
        "-icount", "shift=0,sleep=off,rr=record,rrfile=r", "-S"]
    assert "1024M" in cmd and "heap-dump" not in " ".join(cmd) and t.arch.link == 30
    assert arm.COUNTED == ("arm64",)
    recs = [{"type": "count", "arch": "arm64", "series": "stock", "mem_bytes": 1 << 30,
             "problems": ["no count: xen-arm64 at 1024 MiB gave no bracket"]}]
    assert arm.failed(recs) == ["arm64 count at 1G: no count: xen-arm64 at 1024 MiB gave no bracket"]


def test_the_kept_report_names_xen_s_command_line_and_the_counts():
    with open(os.path.join(KEPT, "report.md")) as f:
        text = f.read()
    assert f"Xen's command line `{arm.XEN_ARGS}`" in text and "{" not in text
    assert "| arm64 | 1G | 257966 | 21.07 | 12.06 | 1.75x |" in text
