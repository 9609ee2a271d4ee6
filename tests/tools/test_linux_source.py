# SPDX-License-Identifier: MIT
"""Linux from Debian's source (harness/real/linux/): the configuration's
derivation on synthetic trees (the memory-init sources MAINTAINERS names,
the symbols they test, what is kept of Debian's config, the Kconfig
conditions and what kept options need), the source fetch's fallbacks, a
failed configuration's message, and the report's comparison."""
import hashlib
import json
import os
import re

import pytest

from harness.common import GIB, BenchError
from harness.real.debian.apt import FetchError
from harness.real.linux import config, measure, report, source


def write(root, rel, text):
    path = os.path.join(str(root), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


MAINTAINERS = """\
MEMBLOCK AND MEMORY MANAGEMENT INITIALIZATION
M:\tSomeone <a@b>
F:\tinclude/linux/memblock.h
F:\tmm/memblock.c
F:\tmm/mm_init.c

MEMORY MANAGEMENT
F:\tinclude/linux/mm.h
F:\tinclude/linux/mm_*.h
F:\tmm/

NETWORKING
F:\tinclude/linux/skbuff.h
"""


def fake_tree(root):
    """A tree with the three memory-init sources, headers in and out of
    memory management, and the Makefiles the code generation comes from."""
    write(root, "MAINTAINERS", MAINTAINERS)
    write(root, "mm/mm_init.c", '#include <linux/memblock.h>\n#include <linux/skbuff.h>\n#include "internal.h"\n'
          "#ifdef CONFIG_DEFERRED_STRUCT_PAGE_INIT\nint a;\n#endif\n"
          "if (IS_ENABLED(CONFIG_NUMA) && x) {}\n/* CONFIG_IN_A_COMMENT is not a test */\n")
    write(root, "mm/page_alloc.c", "#include <linux/mm_types.h>\n#if defined(CONFIG_ZONE_DMA) || "
          "defined(CONFIG_ZONE_DMA32)\n#endif\n")
    write(root, "mm/memblock.c", "#include <asm/sections.h>\n#ifndef CONFIG_MODULES\n#endif\n")
    write(root, "mm/internal.h", "#ifdef CONFIG_MEMORY_HOTPLUG\n#endif\n")
    write(root, "include/linux/memblock.h", "#if IS_ENABLED(CONFIG_SPARSEMEM_VMEMMAP)\n#endif\n")
    write(root, "include/linux/mm_types.h", "#ifdef CONFIG_PAGE_POISONING\n#endif\n")
    write(root, "include/linux/skbuff.h", "#ifdef CONFIG_NET_SCHED\n#endif\n")
    write(root, "arch/x86/include/asm/sections.h", "#ifdef CONFIG_X86_SECTIONS\n#endif\n")
    write(root, "mm/Makefile", "obj-$(CONFIG_SHUFFLE_PAGE_ALLOCATOR) += shuffle.o\n")
    write(root, "Makefile", "ifdef CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE\nKBUILD_CFLAGS += -O2\nendif\n"
          "stackp-flags-$(CONFIG_STACKPROTECTOR_STRONG) := -fstack-protector-strong\n"
          "core-$(CONFIG_BLOCK) += block/\n")
    write(root, "arch/x86/Makefile", "ifdef CONFIG_MITIGATION_RETHUNK\nRETHUNK_CFLAGS := -mfunction-return\n"
          "endif\ndrivers-$(CONFIG_PCI) += arch/x86/pci/\n")
    return str(root)


def test_a_config_is_read_as_kconfig_reads_it():
    text = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x y\"\nCONFIG_A=m\n# a comment\n"
    assert config.parse_config(text) == {"A": "m", "B": None, "C": '"x y"'}
    assert config.config_line("B", None) == "# CONFIG_B is not set"
    assert config.config_line("A", "y") == "CONFIG_A=y"


def test_the_memory_init_sources_are_the_three_files_and_the_headers_mm_maintains(tmp_path):
    tree = fake_tree(tmp_path)
    assert config.init_sources(tree) == ["mm/mm_init.c", "mm/page_alloc.c", "mm/memblock.c",
                                         "include/linux/memblock.h", "mm/internal.h", "include/linux/mm_types.h"]


def test_the_symbols_derived_are_those_tested_and_no_other(tmp_path):
    derived = config.derive(fake_tree(tmp_path))
    assert set(derived) == {"DEFERRED_STRUCT_PAGE_INIT", "NUMA", "ZONE_DMA", "ZONE_DMA32", "MODULES",
                            "MEMORY_HOTPLUG", "SPARSEMEM_VMEMMAP", "PAGE_POISONING", "SHUFFLE_PAGE_ALLOCATOR",
                            "CC_OPTIMIZE_FOR_PERFORMANCE", "STACKPROTECTOR_STRONG", "MITIGATION_RETHUNK"}
    assert derived["DEFERRED_STRUCT_PAGE_INIT"] == ["mm/mm_init.c:4"]
    # Not a test, a header outside memory management, a driver or object line of the top Makefiles:
    assert not {"IN_A_COMMENT", "NET_SCHED", "X86_SECTIONS", "PCI", "BLOCK"} & set(derived)


def test_the_symbols_the_series_adds_are_derived_from_the_tree_with_and_without_it(tmp_path):
    """The tree as built (the series applied) against the files it touches
    with the series reversed."""
    import subprocess
    tree = fake_tree(tmp_path / "tree")
    before = open(os.path.join(tree, "mm/mm_init.c")).read()
    after = before.replace("#ifdef CONFIG_DEFERRED_STRUCT_PAGE_INIT\n", "#ifdef CONFIG_UNACCEPTED_MEMORY\n")
    write(tmp_path / "new", "mm/mm_init.c", after)
    r = subprocess.run(["diff", "-u", "--label", "a/mm/mm_init.c", "--label", "b/mm/mm_init.c",
                        os.path.join(tree, "mm/mm_init.c"), str(tmp_path / "new/mm/mm_init.c")],
                       capture_output=True, text=True)
    patch = tmp_path / "0001-x.patch"
    patch.write_text("diff --git a/mm/mm_init.c b/mm/mm_init.c\n" + r.stdout)
    write(tmp_path / "tree", "mm/mm_init.c", after)          # the tree as unpacked: the series applied
    got = config.series_symbols(tree, [str(patch)])
    assert got == {"added": {"UNACCEPTED_MEMORY": ["mm/mm_init.c:4"]}, "dropped": ["DEFERRED_STRUCT_PAGE_INIT"]}
    assert open(os.path.join(tree, "mm/mm_init.c")).read() == after      # the tree is left as it was
    write(tmp_path / "tree", "mm/mm_init.c", before)          # a series that does not reverse is named
    with pytest.raises(config.ConfigError, match="0001-x.patch does not reverse"):
        config.series_symbols(tree, [str(patch)])


def test_a_symbol_only_select_sets_comes_on_by_a_selector_debian_sets(tmp_path):
    write(tmp_path, "arch/x86/Kconfig", "config AMD_MEM_ENCRYPT\n\tbool \"SME\"\n\tdepends on EFI_STUB\n"
          "\tselect UNACCEPTED_MEMORY\n\tselect X86_MEM_ENCRYPT\n\nconfig INTEL_TDX_GUEST\n\tbool \"TDX\"\n"
          "\tselect UNACCEPTED_MEMORY\n")
    write(tmp_path, "mm/Kconfig", "config UNACCEPTED_MEMORY\n\tbool\n\tdepends on EFI_STUB\n")
    selects = {}
    index = config.kconfig_index(str(tmp_path), selects)
    assert selects["UNACCEPTED_MEMORY"] == ["AMD_MEM_ENCRYPT", "INTEL_TDX_GUEST"] and index["UNACCEPTED_MEMORY"] == \
        ["EFI_STUB"]
    debian = {"AMD_MEM_ENCRYPT": "y", "INTEL_TDX_GUEST": "y", "UNACCEPTED_MEMORY": "y"}
    want = {"UNACCEPTED_MEMORY": "y"}
    assert config.selectors_needed(want, {}, debian, selects) == {"AMD_MEM_ENCRYPT": "y"}
    assert config.selectors_needed(want, {"INTEL_TDX_GUEST": "y"}, debian, selects) == {}   # one is on already
    assert config.selectors_needed(want, {}, dict(debian, AMD_MEM_ENCRYPT=None), selects) == {"INTEL_TDX_GUEST": "y"}
    assert config.selectors_needed(want, {"UNACCEPTED_MEMORY": "y"}, debian, selects) == {}


def test_the_options_kept_by_hand_and_the_boot_values():
    keep = config.kept({}, {"VM_EVENT_COUNTERS": "y", "BUG": "y", "KFENCE_SAMPLE_INTERVAL": "0"}, {})
    assert keep == {"VM_EVENT_COUNTERS": "y", "BUG": "y", "KFENCE_SAMPLE_INTERVAL": "0"}
    assert set(config.BY_HAND) == set(keep)
    frag = config.fragment(keep)
    assert "CONFIG_NR_CPUS=64" in frag and "CONFIG_KFENCE_SAMPLE_INTERVAL=0" in frag
    full = {s: "y" for s in config.BASE}
    assert config.base_missing(dict(full, NR_CPUS="2")) == ["NR_CPUS"]
    assert config.base_missing(dict(full, NR_CPUS="64")) == []


def test_a_tree_without_the_memory_init_sources_is_refused(tmp_path):
    write(tmp_path, "MAINTAINERS", MAINTAINERS)
    with pytest.raises(config.ConfigError, match="mm/mm_init.c is not in"):
        config.init_sources(str(tmp_path))
    write(tmp_path, "MAINTAINERS", "NETWORKING\nF:\tnet/\n")
    with pytest.raises(config.ConfigError, match="no section"):
        config.init_sources(str(tmp_path))


def test_kept_takes_debians_value_and_leaves_what_debian_and_tinyconfig_agree_off():
    derived = {s: ["f:1"] for s in ("NUMA", "SPARSEMEM", "KASAN", "SLUB_TINY", "ZSWAP", "DEBUG_INFO", "NOT_IN_DEBIAN",
                                    "FUNCTION_TRACER")}
    debian = {"NUMA": "y", "SPARSEMEM": "y", "KASAN": None, "SLUB_TINY": None, "ZSWAP": "m", "DEBUG_INFO": "y",
              "FUNCTION_TRACER": "y"}
    tiny = {"SLUB_TINY": "y", "KASAN": None}
    keep = config.kept(derived, debian, tiny)
    # NUMA is in BASE; DEBUG_INFO excluded; a module stays off; KASAN off in both.
    assert keep == {"FUNCTION_TRACER": "y", "SLUB_TINY": None, "SPARSEMEM": "y"}
    frag = config.fragment(keep, {"FTRACE": "y"})
    assert frag.splitlines()[-4:] == ["CONFIG_FUNCTION_TRACER=y", "# CONFIG_SLUB_TINY is not set",
                                      "CONFIG_SPARSEMEM=y", "CONFIG_FTRACE=y"]
    assert "CONFIG_PVH=y" in frag


def test_kconfig_conditions_are_indexed_with_their_if_blocks(tmp_path):
    write(tmp_path, "mm/Kconfig", "config SPARSEMEM\n\tbool\n\nif MMU\nconfig DEFERRED_STRUCT_PAGE_INIT\n"
          "\tbool \"Defer\"\n\tdepends on SPARSEMEM && 64BIT\n\tdepends on !KMSAN\n\tselect PADATA\n"
          "endif # MMU\n\nconfig SWAP\n\tbool \"Swap\"\n\tdepends on MMU && BLOCK || ARCH_X\n")
    index = config.kconfig_index(str(tmp_path))
    assert index["DEFERRED_STRUCT_PAGE_INIT"] == ["MMU", "SPARSEMEM && 64BIT", "!KMSAN"]
    assert index["SWAP"] == ["MMU && BLOCK || ARCH_X"]          # after endif: no MMU block
    assert config.plain_needs(index["DEFERRED_STRUCT_PAGE_INIT"]) == ["MMU", "SPARSEMEM", "64BIT"]
    assert config.plain_needs(index["SWAP"]) == []              # an alternative: kconfig's to weigh
    final = {"MMU": "y", "SPARSEMEM": None, "64BIT": "y"}
    need = config.missing_needs({"DEFERRED_STRUCT_PAGE_INIT": "y", "SWAP": None}, final,
                                {"SPARSEMEM": "y", "MMU": "y"}, index)
    assert need == {"SPARSEMEM": "y"}
    rows = config.compare({"DEFERRED_STRUCT_PAGE_INIT": "y", "MMU": "y"},
                          {"DEFERRED_STRUCT_PAGE_INIT": None, "MMU": "y"},
                          {"DEFERRED_STRUCT_PAGE_INIT": ["mm/mm_init.c:9"], "MMU": ["mm/mm.h:1"]}, index)
    assert rows[0]["depends_on"] == "(MMU) && (SPARSEMEM && 64BIT) && (!KMSAN)" and "depends_on" not in rows[1]
    assert config.base_missing({"PVH": "y"})[0] == "64BIT"


class FakeApt:
    """Stands in for PrivateApt: the suite's linux source versions, those
    whose files download, and the calls made; a failed download leaves a
    partial file behind, as apt does."""

    archive = "http://m/debian"

    def __init__(self, versions=(), serves=()):
        self.versions, self.serves, self.calls = list(versions), set(serves), []

    def update(self):
        self.calls.append("update")

    def source_versions(self, package):
        if not self.versions:
            raise FetchError(f"source package {package} is not on {self.archive} in trixie")
        return self.versions

    def source(self, package, version, into):
        self.calls.append(version)
        os.makedirs(into, exist_ok=True)
        open(os.path.join(into, f"linux_{version}.debian.tar.xz"), "w").close()
        if version not in self.serves:
            raise FetchError(f"apt-get source {package}={version} failed:\nE: Failed to fetch {self.archive}/"
                             f"pool/main/l/linux/linux_{version}.orig.tar.xz  404  Not Found [IP: 192.0.2.1 80]")
        path = os.path.join(into, f"linux_{version}.dsc")
        open(path, "w").close()
        return path


@pytest.fixture
def src(tmp_path, monkeypatch):
    monkeypatch.setattr(source.LINUX, "src", str(tmp_path))
    return tmp_path


def quiet(*a):
    pass


def test_a_linux_source_apt_cannot_get_is_named(src):
    with pytest.raises(source.SourceUnavailable, match="the source of Linux 6.12: source package linux is not on"):
        source.LINUX.fetch("6.12", FakeApt(), say=quiet)
    with pytest.raises(source.SourceUnavailable, match="trixie's linux source packages hold no Linux 6.12"):
        source.LINUX.fetch("6.12", FakeApt(["7.2.13-1"], serves={"7.2.13-1"}), say=quiet)
    with pytest.raises(source.SourceError, match="no Linux release 6.2"):
        source.LINUX.fetch("6.2", FakeApt(), say=quiet)


def test_versions_that_answer_404_fall_back_and_leave_nothing_behind(src):
    apt = FakeApt(["6.12.118-1", "6.12.111-1", "6.12.107-1"], serves={"6.12.107-1"})
    version, dsc = source.LINUX.fetch("6.12", apt, say=quiet)
    assert version == "6.12.107-1" and dsc.endswith("linux_6.12.107-1.dsc")
    assert apt.calls == ["update", "6.12.118-1", "6.12.111-1", "6.12.107-1"]
    assert sorted(os.listdir(src / "dl")) == ["linux_6.12.107-1.debian.tar.xz", "linux_6.12.107-1.dsc"]
    # Downloaded once, it is used without the network.
    again = FakeApt()
    assert source.LINUX.fetch("6.12", again, say=quiet)[0] == "6.12.107-1" and again.calls == []


def test_when_no_version_downloads_each_is_named_with_apts_reason(src):
    with pytest.raises(source.SourceUnavailable) as e:
        source.LINUX.fetch("6.12", FakeApt(["6.12.118-1", "6.12.117-1"]), say=quiet)
    msg = str(e.value)
    assert msg.startswith("apt cannot get the source of Linux 6.12 from http://m/debian (trixie)")
    assert "6.12.118-1: E: Failed to fetch" in msg and "6.12.117-1: E: Failed" in msg and "[IP:" not in msg


def test_a_source_package_without_debians_config_is_refused_before_any_build(tmp_path):
    tree = fake_tree(tmp_path / "src")
    with pytest.raises(source.SourceError, match="debian/config/config is not in the source package"):
        source.configure(tree, str(tmp_path / "work"), str(tmp_path / "build.log"))


def phase(mem, name, instructions, pages, nodes=1, reserve=0, total=1000):
    return {"type": "phase", "mem_bytes": mem, "nodes": nodes, "phase": name, "instructions": instructions,
            "pages": pages, "pages_total": total,
            "bracket": {"parts": {"reserve_bootmem_region": {"instructions": reserve}}}}


def test_the_comparison_holds_each_phase_to_ten_percent_of_debians_by_one_rule():
    ours = [phase(GIB, "memmap", 4000, 100), phase(GIB, "memblock_free_all", 3500, 100, reserve=500),
            phase(GIB, "deferred", 4600, 100, nodes=2)]
    theirs = {(GIB, "memmap"): phase(GIB, "memmap", 3800, 100),
              (GIB, "memblock_free_all"): phase(GIB, "memblock_free_all", 4100, 100, reserve=200),
              (GIB, "deferred"): phase(GIB, "deferred", 4600, 100)}
    rows = report.comparison(ours, theirs)
    assert [(r[2], round(r[3], 2), r[5], r[6]) for r in rows] == [
        ("memmap", 40.0, 38.0, True), ("memblock_free_all", 30.0, 39.0, False),
        ("deferred", 46.0, None, None)]       # Debian's figures are of one node only
    assert report.totals(ours) == {(GIB, 1, ""): (7500, 1000), (GIB, 2, ""): (4600, 1000)}
    # Each init_pages variant is its own row and its own sum.
    sweep = [dict(r, variant="sweep") for r in ours[:2]]
    assert [r[2] for r in report.comparison(sweep, theirs)] == ["memmap (sweep)", "memblock_free_all (sweep)"]
    assert report.totals(ours + sweep) == {(GIB, 1, ""): (7500, 1000), (GIB, 2, ""): (4600, 1000),
                                           (GIB, 1, "sweep"): (7500, 1000)}


def test_a_build_that_fails_ends_with_the_logs_tail(tmp_path):
    from harness.real.source import build as srcbuild
    write(tmp_path, "t/Makefile", "bzImage:\n\t@echo 'mm/mm_init.c:712:9: error: implicit declaration of "
          "function deferred_bogus'\n\t@echo 'make[3]: *** [scripts/Makefile.build:229: mm/mm_init.o] Error 1'"
          "\n\t@exit 2\n")
    log = str(tmp_path / "build.log")
    with pytest.raises(source.SourceError) as e:
        srcbuild.make(str(tmp_path / "t"), ["bzImage"], log, "the build of Linux 6.12.107-1", shown="linux")
    msg = str(e.value)
    assert msg.startswith("the build of Linux 6.12.107-1 failed (make exit 2);")
    # make's verdict, at whatever depth the test runs (make test runs it under make: "make[1]:").
    assert re.search(r"mm/mm_init.o\] Error 1\nmake(\[\d+\])?: \*\*\* \[Makefile:4: bzImage\] Error 2", msg)
    assert "deferred_bogus" in msg
    with open(log) as f:
        assert f.readline() == "\n" and f.readline() == "$ make -C linux bzImage\n"


def test_a_source_apt_cannot_get_ends_the_command_with_exit_2_and_apts_reason(monkeypatch, tmp_path, capsys):
    import argparse

    from harness.real import cli as real_cli
    from harness.real.linux import cli

    def unavailable(*a, **k):
        raise source.SourceUnavailable("apt cannot get the source of Linux 6.12 from http://m/debian (trixie): "
                                       "every version failed to download:\n  6.12.118-1: E: 404  Not Found")
    monkeypatch.setattr(source, "build", unavailable)
    sub = argparse.ArgumentParser().add_subparsers()
    cli.add_parser(sub)
    args = sub.choices["linux-src"].parse_args(["--out", str(tmp_path / "out")])
    assert args.mode == "measure" and real_cli.run(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("linux-src: apt cannot get the source of Linux 6.12") and "404" in err
    assert not os.path.exists(tmp_path / "out" / "report.md")


def _report_inputs(tmp_path):
    """A `binaries` folder of Debian's figures and a linux-src run's records -> (records, folder)."""
    debian = tmp_path / "peers"
    os.makedirs(debian)
    d = [{"type": "peers", "qemu": "QEMU 7.2", "packages": {"linux-6.12": {"package": "linux-image-x",
                                                                          "version": "6.12.118-1"}}}]
    d += [dict(phase(GIB, p, n, 100), type="peer", peer="linux-6.12") for p, n in
          (("memmap", 3800), ("memblock_free_all", 3000), ("deferred", 4700))]
    d += [{"type": "linux_model", "strategy": "linux612", "mem_bytes": GIB,
           "per_page": {"memmap": 38.5, "memblock_free_all": 30.77, "deferred": 44.27}},
          {"type": "linux_model", "strategy": "linux_deferred", "mem_bytes": GIB,
           "per_page": {"memmap": 99.0, "memblock_free_all": 99.0, "deferred": 99.0}}]
    (debian / "peers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in d))
    build = {"type": "build", "source_version": "6.12.107-1", "suite": "trixie", "patches": [], "key": "abc",
             "build_s": 300.0, "toolchain": {"gcc": "gcc 12.2.0"}, "warnings": [],
             "config": {"base": ["64BIT"], "sources": ["mm/mm_init.c"], "needs": {"FTRACE": "y"},
                        "excluded": {"DEBUG_INFO": "debug sections only"},
                        "options": [{"symbol": "DEFERRED_STRUCT_PAGE_INIT", "debian": "y", "built": "y",
                                     "tested_in": ["mm/mm_init.c:1"]},
                                    {"symbol": "UNACCEPTED_MEMORY", "debian": "y", "built": None,
                                     "tested_in": ["mm/page_alloc.c:2"], "depends_on": "(EFI_STUB)"}]}}
    recs = [{"type": "linux-src", "icount": "shift=0,sleep=off", "date": "d", "debian": str(debian)}, build]
    recs += [phase(GIB, "memmap", 3000, 100), phase(GIB, "memblock_free_all", 3050, 100),
             phase(GIB, "deferred", 4600, 100), {"type": "end", "wall_s": 400, "building_s": 300}]
    return recs, debian


def test_the_report_sets_each_phase_beside_debians_and_lists_the_options(tmp_path):
    recs, debian = _report_inputs(tmp_path)
    text = report.render(recs, str(debian))
    assert "| 1 GiB | 1 | memmap | 3,000 / 100 = 30.00 | 38.00 | -21.1% (outside 10%) | 38.50 |" in text
    assert "| source / Debian | the `linux612` model |" in text and "99.00" not in text
    assert "| 1 GiB | 1 | memblock_free_all | 3,050 / 100 = 30.50 | 30.00 | +1.7% |" in text
    assert "| 1 GiB | 1 | 10,650 / 1,000 = 10.65 | 11.50 |" in text
    assert "- 1 GiB, memmap: 30.00 against 38.00 instructions a page (-21.1%)" in text
    assert "| `UNACCEPTED_MEMORY` | `y` | not set **differs** |" in text
    assert "- `UNACCEPTED_MEMORY`: (EFI_STUB)" in text and "`linux-image-x` 6.12.118-1" in text


class FakeBuild:
    info = {"key": "k"}


def _dump_run(tmp_path, nodes, say, layouts=False):
    from harness.real.linux import dumprun
    return dumprun.run(FakeBuild(), str(tmp_path), [GIB], nodes, layouts, say=say)


def _cmp(a, b, exact=None, excused=0, excused_difference=None, untouched=None, touched=None, same_line=False):
    """A dump_compare record as dumprun.compare_record() leaves it."""
    r = {"type": "dump_compare", "a": a, "b": b, "same_line": same_line, "exact": exact,
         "excused_pages": excused, "excused_difference": exact if exact and not excused else excused_difference,
         "early_difference": None}
    if exact:
        r["untouched"], r["touched_pages"] = untouched, touched
    return r


def _refusal():
    return {"type": "refusal", "params": "init_pages=bogus", "refused": ["init_pages"],
            "message": "Malformed early option 'init_pages'"}


def test_two_boots_of_one_command_line_must_be_the_same_word_for_word():
    from harness.real.linux import dumprun
    records = [_cmp("stock", "stock-again", "pfn 0x1 differs", excused=1, untouched=None, touched=3,
                    same_line=True)]
    dumprun.judge(records)
    assert records[0]["difference"] == "pfn 0x1 differs" and records[0]["allowed"] is None


def test_a_sweep_pair_is_excused_no_more_user_words_than_two_stock_boots_show():
    from harness.real.linux import dumprun
    refs = [_cmp("stock", "default", "pfn 0x2456 differs", excused=24, untouched="x"),
            _cmp("stock", "stock-padded")]
    within = _cmp("stock", "sweep", "pfn 0x2456 differs", excused=24, untouched="x")
    beyond = _cmp("default", "sweep", "pfn 0x2456 differs", excused=25, untouched="x")
    records = refs + [within, beyond]
    dumprun.judge(records)
    assert refs[0]["difference"] is None and "24 pages in use differ" in refs[0]["allowed"] and \
        "(a reference)" in refs[0]["allowed"]
    assert within["difference"] is None and within["excused_bound"] == 24 and \
        within["allowed"] == "24 pages in use differ in the words their users write, at most the 24 two stock " \
        "boots show"
    assert beyond["difference"].startswith("25 pages in use differ in the words their users write, more than "
                                           "the 24 two stock boots show; pfn 0x2456 differs")
    # What is left once those pages are excused is never excused.
    left = _cmp("stock", "sweep", "pfn 0x2456 differs", excused=3, excused_difference="pfn 0x99 differs",
                untouched="the order 10 list ... another order")
    records = refs + [left]
    dumprun.judge(records)
    assert left["difference"] == "the order 10 list ... another order"


def test_user_words_over_the_bound_pass_only_where_sweep_with_its_timing_moved_back_is_stock():
    """3G+1G-reserved, 6 December: sweep held one slab object more than
    every stock boot, and sweep under -icount shift=1 left stock's map word
    for word. The witness excuses user words alone, and only when exact."""
    from harness.real.linux import dumprun
    refs = [_cmp("stock", "default"), _cmp("stock", "stock-padded"), _cmp("stock", "stock-slow")]
    for witness, passes in ((None, True), ("pfn 0x100c54 differs", False)):
        over = _cmp("stock", "sweep", "pfn 0x100c54 differs", excused=1, untouched="x")
        other = _cmp("stock", "sweep", "pfn 0x5 differs", excused=1, excused_difference="pfn 0x5 differs",
                     untouched="the lists differ")
        seen = _cmp(*dumprun.WITNESS, witness, excused=1 if witness else 0, untouched="x")
        dumprun.judge(refs + [over, other, seen])
        assert (over["difference"] is None) == passes, over["difference"]
        assert other["difference"] == "the lists differ"
        if passes:
            assert over["allowed"] == ("1 pages in use differ in the words their users write, more than the 0 "
                                       "two stock boots show, and sweep-slow leaves stock's map word for word: "
                                       "the boot's timing")
        else:
            assert over["difference"].startswith("1 pages in use differ in the words their users write, more than")
            assert seen["difference"] is None and seen["allowed"] == (
                "1 pages in use differ in the words their users write (the timing witness)")


def test_the_witness_is_held_as_a_reference_is_and_sets_no_bound():
    """4 GiB, one node, 2 vCPUs, 6 December: every pair the same word for
    word but the witness, whose boot (sweep under -icount shift=1) held 53
    pages more on its per-CPU lists: passed as a reference would be, while
    a sweep pair of stock's timing touching as much fails."""
    from harness.real.linux import dumprun
    refs = [_cmp("stock", "default"), _cmp("stock", "stock-padded"), _cmp("stock", "stock-slow")]
    seen = _cmp(*dumprun.WITNESS, "free_pages differ", untouched=None, touched=787)
    sweep = _cmp("stock", "sweep", "free_pages differ", untouched=None, touched=787)
    dumprun.judge(refs + [seen, sweep])
    assert seen["difference"] is None and seen["touched_bound"] is None
    assert seen["allowed"] == "the same outside the 787 pages either boot's allocations touched (the timing witness)"
    assert sweep["difference"].startswith("787 pages touched, more than the 0 allowed")
    # Nor does a witness that differs outside what its boots touched pass.
    seen = _cmp(*dumprun.WITNESS, "free_pages differ", untouched="node 0 Normal: pfn 0x10 is a page in a only")
    dumprun.judge(refs + [seen])
    assert seen["difference"] == "node 0 Normal: pfn 0x10 is a page in a only"


def test_where_the_line_s_length_moves_the_layout_the_padded_boots_are_held_to_each_other():
    """7.1, 1 GiB on two nodes, 7 December: two stock boots whose lines
    differ in length differed by a page of node 1's managed memory, early
    and late. The pairs across the two lengths are then not compared, and
    said so; the padded pair of one length still is, and a difference
    there fails as any sweep pair's does. Where the lengths do not move
    the layout, every pair is compared as before."""
    from harness.real.linux import dumprun
    early = "totalram_pages 233633 and NR_FREE_PAGES 92336 in stock, 233632 and 92336 in stock-padded"
    for sweep_padded, passes in ((None, True), ("pfn 0x2e3a differs", False)):
        length = _cmp("stock", "stock-padded", "node 1 DMA32: managed differs", untouched="node 1 DMA32: managed")
        length["early_difference"] = early
        across = [_cmp("stock", "sweep-padded", "node 1 DMA32: managed differs", untouched="x"),
                  _cmp("sweep", "sweep-padded", "node 1 DMA32: managed differs", untouched="x")]
        across[0]["early_difference"] = across[1]["early_difference"] = "x"
        padded = _cmp("stock-padded", "sweep-padded", sweep_padded, untouched="y")
        records = [_cmp("stock", "default"), length, _cmp("stock", "stock-slow"), _cmp("stock", "sweep"),
                   padded] + across
        dumprun.judge(records)
        for r in [length] + across:
            assert r["difference"] is None and r["line_moved"] == early and not dumprun.failed(r)
            assert r["allowed"].startswith(f"not compared: the line's length moves the layout, as two stock "
                                           f"boots show ({early}); stock-padded and sweep-padded are held")
            assert "the early dumps differ" not in dumprun._said(r)
        assert dumprun.failed(padded) != passes
    # Lengths that do not move the layout: the pairs across them are compared as ever.
    across = _cmp("stock", "sweep-padded", "node 0 DMA32: pfn 0x10 differs", untouched="node 0: pfn 0x10")
    dumprun.judge([_cmp("stock", "default"), _cmp("stock", "stock-padded"), across])
    assert across["difference"] == "node 0: pfn 0x10" and "line_moved" not in across


def test_a_sweep_pair_may_touch_no_more_than_twice_what_two_stock_boots_touch():
    from harness.real.linux import dumprun
    refs = [_cmp("stock", "default"), _cmp("stock", "stock-padded", "free_pages differ", excused=0,
                                           excused_difference="free_pages differ", untouched=None, touched=900)]
    ok = _cmp("stock", "sweep", "pfn 0x2e3a differs", excused_difference="pfn 0x2e3a differs", untouched=None,
              touched=1800)
    over = _cmp("stock", "sweep-padded", "pfn 0x2e3a differs", excused_difference="pfn 0x2e3a differs",
                untouched=None, touched=1801)
    records = refs + [ok, over]
    dumprun.judge(records)
    assert refs[1]["difference"] is None and "outside the 900 pages" in refs[1]["allowed"]
    assert ok["difference"] is None and ok["touched_bound"] == 1800 and "at most the 1800" in ok["allowed"]
    assert over["difference"].startswith("1801 pages touched, more than the 1800 allowed")
    # No reference touched anything: a sweep pair that differs fails.
    records = [_cmp("stock", "default"), _cmp("stock", "stock-padded"), dict(ok)]
    dumprun.judge(records)
    assert records[2]["difference"].startswith("1800 pages touched, more than the 0 allowed")
    # A reference of one length that differs where no allocation touched
    # fails, and bounds nothing (of two lengths, test_where_the_line_s_...).
    bad = _cmp("stock", "default", "x", excused_difference="x", untouched="pfn 0x5 is PG_reserved in a only")
    records = [bad, _cmp("stock", "stock-padded"), dict(ok)]
    dumprun.judge(records)
    assert bad["difference"] == "pfn 0x5 is PG_reserved in a only"
    assert records[2]["difference"].startswith("1800 pages touched, more than the 0 allowed")


def test_every_pair_that_fails_fails_the_run(monkeypatch, tmp_path):
    """No pair's difference marks another "not judged": each counts."""
    import json

    from harness.real.linux import dumprun

    def records(sweep_diff, default_diff):
        recs = [_cmp("stock", "stock-again", same_line=True),
                _cmp("stock", "default", default_diff, excused_difference=default_diff, untouched=default_diff),
                _cmp("stock", "stock-padded"),
                _cmp("stock", "sweep", sweep_diff, excused_difference=sweep_diff, untouched=sweep_diff),
                _refusal()]
        dumprun.judge(recs)
        return recs
    for sweep_diff, default_diff, status in ((None, None, 0), ("pfn 0x2802 differs", None, 1),
                                             (None, "free_pages is 0x7787e in stock", 1),
                                             ("pfn 0x2802 differs", "free_pages is 0x7787e in stock", 1)):
        seen = []
        monkeypatch.setattr(dumprun, "dump_records", lambda b, mem, out, nodes, say, **kw:
                            seen.append((nodes, kw.get("cpus", 1))) or records(sweep_diff, default_diff))
        said = []
        assert dumprun.run(FakeBuild(), str(tmp_path), [GIB], [1, 2], say=said.append, cpus=[1, 4]) == status
        assert seen == [(1, 1), (2, 1), (1, 4), (2, 4)]
        with open(tmp_path / "dumps.jsonl") as f:
            recs = [json.loads(line) for line in f][1:]
        assert not any("not_judged" in r for r in recs)
        assert any("2 nodes, 4 vCPUs" in s for s in said)


def test_early_dumps_that_differ_count_even_where_the_late_ones_are_allowed(monkeypatch, tmp_path):
    from harness.real.linux import dumprun

    recs = [_cmp("stock", "stock-padded", "x", excused_difference="x", untouched=None, touched=10),
            _cmp("stock", "sweep"), _refusal()]
    dumprun.judge(recs)
    monkeypatch.setattr(dumprun, "dump_records", lambda b, mem, out, nodes, say, **kw: [dict(r) for r in recs])
    said = []
    assert _dump_run(tmp_path, [2], said.append) == 0
    assert any("the same outside the 10 pages" in s and "early dumps the same word for word" in s for s in said)
    recs[1]["early_difference"] = "node 0 DMA32: pfn 0x1005 differs"
    assert _dump_run(tmp_path, [2], said.append) == 1
    assert any("the early dumps differ: node 0 DMA32: pfn 0x1005 differs" in s for s in said)


def test_layouts_and_gates_boot_each_with_its_parameters(monkeypatch, tmp_path):
    from harness.real.linux import dumprun

    seen = []
    monkeypatch.setattr(dumprun, "dump_records", lambda b, mem, out, nodes, say, extra="", label=None, cpus=1:
                        seen.append((mem, nodes, extra, label)) or [_refusal()])
    assert dumprun.run(FakeBuild(), str(tmp_path), [GIB], [1], True, lambda *a: None, gates=True) == 0
    assert seen[0] == (GIB, 1, "", None)
    assert seen[1:] == [(mem, nodes, extra, name) for name, mem, nodes, extra in dumprun.LAYOUTS + dumprun.GATES]
    assert ("1G+3G", 4 * GIB, [1024, 3072], "") in [(n, m, k, e) for n, m, k, e in dumprun.LAYOUTS]
    assert {e for _, _, _, e in dumprun.GATES} == {"init_on_free=1", "page_poison=1"}


def test_only_boots_the_named_layouts_and_gates_in_its_order_and_no_size(monkeypatch, tmp_path):
    from harness.real.linux import dumprun

    seen = []
    monkeypatch.setattr(dumprun, "dump_records", lambda b, mem, out, nodes, say, extra="", label=None, cpus=1:
                        seen.append(label) or [_refusal()])
    only = dumprun.named("1G-page_poison,3G+1G-reserved")
    assert dumprun.run(FakeBuild(), str(tmp_path), [GIB], [1, 2], True, lambda *a: None, gates=True,
                       only=only) == 0
    assert seen == ["1G-page_poison", "3G+1G-reserved"]
    for bad, said in (("3G+1G", "no layout or gate '3G+1G': choose from 1G-reserved"), (",", "an empty list")):
        with pytest.raises(ValueError, match=re.escape(said)):
            dumprun.named(bad)


def test_the_variants_command_lines_are_of_one_length_but_the_padded_ones():
    from harness.real.linux import dumprun
    lines = dict(dumprun.VARIANTS)
    assert len({len(v) for k, v in lines.items() if not k.endswith("-padded")}) == 1
    assert all(len(lines[k + "-padded"]) > len(lines[k]) for k in ("stock", "sweep"))
    assert set(dumprun.REFERENCES) <= set(dumprun.PAIRS)
    assert all(a in dumprun.STOCKS and b in dumprun.STOCKS for a, b in dumprun.REFERENCES)
    # stock-slow boots stock's line under another -icount: not one boot with stock.
    assert lines["stock-slow"] == lines["stock"] and dumprun.ICOUNTS["stock-slow"].startswith("shift=1")
    assert not dumprun.same_boot("stock", "stock-slow") and dumprun.same_boot("stock", "stock-again")


def test_a_build_without_deferral_is_kept_apart_and_not_set_beside_debians(tmp_path):
    import json
    assert source.flipped_name({"DEFERRED_STRUCT_PAGE_INIT": "n"}) == "-no-deferred-struct-page-init"
    assert source.flipped_name({}) == ""
    debian = tmp_path / "peers"
    os.makedirs(debian)
    d = [{"type": "peers", "packages": {}}, dict(phase(GIB, "memmap", 3800, 100), type="peer", peer="linux-6.12"),
         {"type": "linux_model", "strategy": "linux612", "mem_bytes": GIB, "per_page": {"memmap": 38.5}}]
    (debian / "peers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in d))
    build = {"type": "build", "source_version": "6.12.107-1", "suite": "trixie", "patches": [], "key": "abc",
             "build_s": 300.0, "toolchain": {"gcc": "gcc 12.2.0"}, "warnings": [],
             "config": {"base": ["64BIT"], "sources": [], "needs": {}, "excluded": {}, "options": [],
                        "flipped": {"flips": {"DEFERRED_STRUCT_PAGE_INIT": "n"}, "also_changed": {}}}}
    recs = [{"type": "linux-src", "icount": "shift=0,sleep=off", "date": "d"}, build,
            phase(GIB, "memmap", 6000, 100), phase(GIB, "memblock_free_all", 7000, 100)]
    text = report.render(recs, str(debian))
    assert "**Built with `DEFERRED_STRUCT_PAGE_INIT=n`** (`--no-defer`), olddefconfig changing nothing else" in text
    assert "| 1 GiB | 1 | memmap | 6,000 / 100 = 60.00 | - | - | - |" in text
    assert "| both phases / pages handed over |" in text and "| 1 GiB | 1 | 13,000 / 1,000 = 13.00 | - |" in text


def test_no_defer_is_refused_beside_the_runs_it_does_not_measure():
    import argparse

    from harness.common import BenchError
    from harness.real import cli as real_cli
    from harness.real.linux import cli
    sub = argparse.ArgumentParser().add_subparsers()
    cli.add_parser(sub)
    args = sub.choices["linux-src"].parse_args(["--no-defer", "--profile", "memmap,deferred"])
    with pytest.raises(BenchError, match="--no-defer measures the brackets of a build without deferral"):
        real_cli.run(args)
    for mode in ("dump", "init", "configs"):            # not theirs at all: the mode's usage
        with pytest.raises(SystemExit):
            sub.choices["linux-src"].parse_args([mode, "--no-defer"])


def test_each_variants_profile_is_a_column_over_its_own_boots_pages():
    ours = [dict(phase(GIB, "deferred", 9000, 300), variant="stock"),
            dict(phase(GIB, "deferred", 3000, 200), variant="sweep")]
    recs = [{"type": "profile", "side": "source", "variant": v, "phase": "deferred", "mem_bytes": GIB,
             "total": n, "exclusive": {"deferred_init_memmap": n // 3, "free_fresh_blocks": n - n // 3},
             "calls": {"deferred_init_memmap": 1, "free_fresh_blocks": 2}} for v, n in (("stock", 9000),
                                                                                     ("sweep", 3000))]
    recs.append({"type": "profile", "side": "debian", "phase": "deferred", "mem_bytes": GIB, "total": 800,
                 "exclusive": {"deferred_init_memmap": 800}, "calls": {"deferred_init_memmap": 1}})
    text = "\n".join(report.profile_tables(recs, ours, {(GIB, "deferred"): {"pages": 400}}))
    assert "source (stock) 9,000 instructions / 300 pages, source (sweep) 3,000 instructions / 200 pages, " \
        "debian 800 instructions / 400 pages" in text
    assert "| `free_fresh_blocks` | 2 | 20.00 | 2 | 10.00 | - | - |" in text
    assert "| `deferred_init_memmap` | 1 | 10.00 | 1 | 5.00 | 1 | 2.00 |" in text


class UpstreamApt(FakeApt):
    """A suite whose Debian tarballs answer 404 but whose upstream tarball
    downloads (sid's 7.1.8-2 on the project's mirror), served from a file."""

    def __init__(self, versions, orig, sha=None):
        super().__init__(versions)
        self.orig = orig
        with open(orig, "rb") as f:
            self.sha = sha or hashlib.sha256(f.read()).hexdigest()

    def source_files(self, package, version):
        name = f"linux_{version.split('-')[0]}.orig.tar.xz"
        return [(f"file://{self.orig}", name, os.path.getsize(self.orig), self.sha),
                ("http://m/x", f"linux_{version}.debian.tar.xz", 1, "0" * 64),
                ("http://m/x", f"linux_{version}.dsc", 1, "0" * 64)]


def test_71_falls_back_to_its_upstream_tarball_checked_against_the_index(src, tmp_path):
    orig = tmp_path / "orig.tar.xz"
    orig.write_bytes(b"an upstream tarball")
    assert source.LINUX.upstream == ("7.1",) and source.RELEASES["7.1"] == "sid"
    version, record = source.LINUX.fetch("7.1", UpstreamApt(["7.1.8-2"], str(orig)), say=quiet)
    assert version == "7.1.8-2" and record.endswith("linux_7.1.8-2.upstream.json")
    with open(record) as f:
        said = json.load(f)
    assert said["upstream"] == "linux_7.1.8.orig.tar.xz" and said["missing"] == ["linux_7.1.8-2.debian.tar.xz",
                                                                                   "linux_7.1.8-2.dsc"]
    # Downloaded once, it is used without the network.
    assert source.LINUX.fetch("7.1", FakeApt(), say=quiet) == (version, record)
    # 6.12 never takes the upstream tarball alone: Debian's config comes from its own package.
    with pytest.raises(source.SourceUnavailable, match="every version failed"):
        source.LINUX.fetch("6.12", UpstreamApt(["6.12.107-1"], str(orig)), say=quiet)


def test_an_upstream_tarball_whose_sum_is_not_the_index_is_removed_and_named(src, tmp_path):
    orig = tmp_path / "orig.tar.xz"
    orig.write_bytes(b"an upstream tarball")
    with pytest.raises(source.SourceUnavailable, match="its upstream tarball alone: .*is not the index's"):
        source.LINUX.fetch("7.1", UpstreamApt(["7.1.8-2"], str(orig), sha="1" * 64), say=quiet)
    assert not [n for n in os.listdir(src / "dl") if n.endswith(".orig.tar.xz") or n.endswith(".json")]


def test_a_tree_of_the_upstream_tarball_alone_takes_debians_config_of_612(monkeypatch, tmp_path):
    own = fake_tree(tmp_path / "own")
    for frag in config.DEBIAN_FRAGMENTS:
        os.makedirs(os.path.dirname(os.path.join(own, frag)), exist_ok=True)
        open(os.path.join(own, frag), "w").close()
    bare = fake_tree(tmp_path / "bare")
    asked = []
    monkeypatch.setattr(source.LINUX, "fetch", lambda release, say=None: asked.append(release) or ("6.12.107-1", "x"))
    monkeypatch.setattr(source.LINUX, "patched_tree", lambda release, patches=None, say=None: own)
    assert source.debian_config("6.12", own)[0] == own and asked == []
    tree, said = source.debian_config("7.1", bare)
    assert tree == own and asked == ["6.12"]
    assert said["release"] == "6.12" and said["source_version"] == "6.12.107-1" and "olddefconfig" in said["source"]
    # A release with no other config to borrow is refused by configure(), as before.
    with pytest.raises(source.SourceError, match="debian/config/config is not in the source package"):
        source.configure(bare, str(tmp_path / "work"), str(tmp_path / "build.log"),
                         fragments=source.debian_config("6.12", bare))


def test_a_series_with_the_switch_boots_one_tester_both_ways_and_one_without_meets_stock():
    from harness.real.linux.host import run
    assert run.has_switch(source.patches_of("6.12"))
    assert run.has_switch(source.LINUX.series("7.1", os.path.join(source.LINUX.patches, "7.1-measure")))
    assert not run.has_switch(source.patches_of("7.1"))
    rec = [{"type": "time", "gib": 1, "run": 0, "variant": v, "pages": 10, "memmap_ns": 10, "free_all_ns": 10,
            "deferred_threads_ns": t} for v, t in (("-", 10), ("/b/stock/linuxmm", 40))]
    rec += [dict(r, run=1) for r in rec]
    rec += [{"type": "floor", "gib": 1, "run": r, "way": w, "pages": 10, "ns": 10} for r in (0, 1)
            for w in ("memset", "non-temporal")]
    table = run.report(rec)
    head, row = table.splitlines()[0], table.splitlines()[2]
    assert "all, stock | all, series | stock/series" in head
    assert "| 6.00 " in row and "| 3.00 " in row and "2.00x" in row


def test_each_testers_share_is_cut_between_the_jobs_and_every_seed_run_once(monkeypatch):
    from harness.real.linux.host import build as hostbuild, run
    ran = []

    def run_one(binary, n, first, variants):
        ran.append((binary, first, n))
        bad = binary == "t2" and first > 1000     # the second half of order 2's share finds a difference
        return not bad, n, f"linuxmm: {n} sequences from seed {first}, {int(bad)} with a difference or a failure"

    monkeypatch.setattr(hostbuild, "series_files", lambda *a: None)
    monkeypatch.setattr(run, "pair", lambda release, o, say, patches: (f"t{o}", run.VARIANTS))
    monkeypatch.setattr(run, "run_one", run_one)
    ok, results = run.test("6.12", 300, seed=1000, max_orders=(10, 4, 2), jobs=2, say=lambda *a: None)
    assert not ok
    assert sorted(ran) == [("t10", 1000, 50), ("t10", 1050, 50), ("t2", 1200, 50), ("t2", 1250, 50),
                           ("t4", 1100, 50), ("t4", 1150, 50)]
    assert [r[:3] for r in results] == [(10, True, 100), (4, True, 100), (2, False, 100)]
    assert results[2][3].endswith("linuxmm: 100 sequences from seed 1200, 2 pieces of 2 with a difference or a failure")
    ran.clear()
    ok, results = run.test("6.12", 7, seed=1, max_orders=(10,), jobs=3, say=lambda *a: None)
    assert ok and sorted(ran) == [("t10", 1, 2), ("t10", 3, 2), ("t10", 5, 3)] and results[0][2] == 7


def test_the_report_sets_the_real_cpu_timing_beside_the_counts_when_the_folder_has_it(tmp_path):
    recs, debian = _report_inputs(tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / report.RECORDS).write_text("".join(json.dumps(r) + "\n" for r in recs))
    report.write(str(folder), str(debian))
    assert "On a real CPU" not in (folder / "report.md").read_text()
    host = [{"type": "host", "release": "6.12", "cpu": "a CPU", "cpus": 2, "runs": 2, "threads": 1,
             "load": [0.5, 0.6], "date": "d"}]
    host += [{"type": "time", "gib": 4, "run": r, "variant": f"init_pages={v}", "pages": 100, "memmap_ns": 100,
              "free_all_ns": 100, "deferred_threads_ns": d} for r in (0, 1) for v, d in (("sweep", 100), ("stock", 400))]
    host += [{"type": "floor", "gib": 4, "run": r, "way": w, "pages": 100, "ns": 250} for r in (0, 1)
             for w in ("memset", "non-temporal")]
    (folder / report.HOST_RECORDS).write_text("".join(json.dumps(r) + "\n" for r in host))
    report.write(str(folder), str(debian))
    text = (folder / "report.md").read_text()
    assert "## On a real CPU: Linux's own code, stock against the single pass" in text
    assert "**Hosted, real CPU time:** Linux 6.12's" in text and "(a CPU, 2 CPUs, load 0.5-0.6)" in text
    assert "| all, stock | all, sweep | stock/sweep |" in text and "| 2.00x (" in text and "| 1.20x (" in text


def test_dump_init_and_measured_variants_build_the_measuring_series(monkeypatch, capsys, tmp_path):
    from harness.cli import main
    from harness.real.linux import cli
    measuring = source.measuring("7.1")
    assert [os.path.basename(os.path.dirname(p)) for p in measuring] == ["7.1-measure"] * len(measuring)
    assert cli._switched("7.1", "dump") == measuring and cli._switched("6.12", "init") == source.patches_of("6.12")
    seen = []

    def run(args, out):
        seen.append(args.patches)
        raise BenchError("stop here")
    monkeypatch.setattr(measure, "run", run)
    for variants in (["--variants", "stock,sweep"], []):
        assert main(["linux-src", "measure", "--releases", "7.1", "--sizes", "1", "--out", str(tmp_path / "m"),
                     *variants]) == 2
    assert seen == [measuring, None]
    # A release whose measuring series has neither the switch nor the dump is refused before any build.
    monkeypatch.setattr(source, "measuring", source.patches_of)
    for mode in ("dump", "init"):
        assert main(["linux-src", mode, "--releases", "7.1", "--sizes", "1"]) == 2
        assert f"linux-src {mode}: neither patches/linux/7.1 nor 7.1-measure has an init_pages= switch" \
            in capsys.readouterr().err
    assert main(["linux-src", "measure", "--releases", "7.1", "--sizes", "1", "--variants", "sweep"]) == 2
    assert "--variants: no series of Linux 7.1 has init_pages=" in capsys.readouterr().err


def test_the_report_says_when_debians_config_was_another_releases(tmp_path):
    recs, debian = _report_inputs(tmp_path)
    build = next(r for r in recs if r["type"] == "build")
    assert "Debian's config of another release" not in report.render(recs, str(debian))
    build["release"] = "7.1"
    build["config"]["debian_config"] = {"release": "6.12", "source_version": "6.12.107-1",
                                        "source": "7.1 came as its upstream tarball alone: 6.12's config"}
    text = report.render(recs, str(debian))
    assert text.startswith("# Linux 7.1 from Debian's source")
    assert "**Debian's config of another release:** 7.1 came as its upstream tarball alone: 6.12's config." in text


def test_a_source_boot_is_named_by_its_own_release_in_what_it_says():
    """The brackets are Debian's 6.12 binary's, but a 7.1 boot that gives
    none must not be said to be 6.12's; the shared target stays as it was."""
    class Build:
        info = {"config": {}, "source_version": "7.1.8-2"}
    target = measure.target_of(Build(), "sweep")
    assert target.name == "Linux 7.1.8-2" and target.append.endswith(" init_pages=sweep")
    assert target.specs is measure.TARGET.specs and measure.TARGET.name == "linux-6.12"
    assert "init_pages" not in measure.TARGET.append


def test_the_measuring_build_and_the_proposal_s_are_kept_apart(tmp_path):
    """On 7 December the proposal's 7.1 build pruned 7.1-measure's (one stem,
    "7.1") while a measurement booted it: each series now names its folder."""
    from harness.real.source import build as srcbuild
    measuring, proposal = source.measuring("7.1"), source.patches_of("7.1")
    assert source.series_marks("7.1", measuring) == ("measure",) and source.series_marks("7.1", proposal) == ()
    assert source.series_marks("6.12", source.patches_of("6.12")) == ()
    a = source.LINUX.folder("7.1", "k1", measuring, marks=source.series_marks("7.1", measuring))
    b = source.LINUX.folder("7.1", "k2", proposal, marks=source.series_marks("7.1", proposal))
    assert os.path.basename(a) == "7.1-measure-k1" and os.path.basename(b) == "7.1-k2"
    root = tmp_path / "src"
    for name in ("7.1-measure-k1", "7.1-k2", "7.1-k0"):
        (root / name).mkdir(parents=True)
    srcbuild.prune(str(root), str(root / "7.1-k2"))
    assert sorted(os.listdir(root)) == ["7.1-k2", "7.1-measure-k1"]
