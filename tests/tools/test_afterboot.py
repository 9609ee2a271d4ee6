# SPDX-License-Identifier: MIT
"""The heap after boot (harness/real/xen/afterboot.py) and the dom0 boots that
dump it (harness/real/xen/variants.py, functional()): the ranges handed
over read into the stage they precede, the blocks merged across a range's
edge counted, the variants held to one another after boot (chunk and sweep
entry for entry), and the dom0 boots asking for `heap-dump` and keeping
what the two dumps say in their records and in report.md.

The boot half of each log is a dump recorded from Xen 4.17 built here
(tests/tools/data/xen-src/, 1 GiB, one node); the after-boot half is
written here, block by block, with its digest worked out as Xen's."""
import json
import os

import pytest

from conftest import HERE
from harness.common import GIB
from harness.real.xen import afterboot, heapdump, variants, variants_report
from test_variants import a_run

DATA = os.path.join(HERE, "data", "xen-src")
STAGE = "discard_initial_images"


def boot_log():
    with open(os.path.join(DATA, "xen-4.17-chunk-1G.log"), encoding="utf-8") as f:
        return f.read()


def later(blocks, ranges=((0x3ee00, 0x3f000),), fields=0xab, stage=STAGE):
    """An after-boot dump of `blocks` [(node, zone, order, mfn)] in list
    order, after the ranges it names, as the dump patch prints it."""
    pages = sum(1 << o for _, _, o, _ in blocks)
    avail = {}
    for n, z, o, _ in blocks:
        avail[(n, z)] = avail.get((n, z), 0) + (1 << o)
    digest = sum(heapdump.block_hash(n, z, o, m, 0) for n, z, o, m in blocks) & heapdump.MASK
    return ("".join(f"(XEN) heapdump: range {s:#x} {e:#x}\n(XEN) some other line\n" for s, e in ranges)
            + f"(XEN) heapdump: stage {stage}\n"
            + "".join(f"(XEN) heapdump: block {n} {z} {o} {m:#x} {o} 0 0 0\n" for n, z, o, m in blocks)
            + "".join(f"(XEN) heapdump: avail {n} {z} {p}\n" for (n, z), p in sorted(avail.items()))
            + "(XEN) heapdump: node 0 need_scrub 0\n"
            + f"(XEN) heapdump: total_avail_pages {pages} listed {pages} blocks {len(blocks)} notfree 0\n"
            + f"(XEN) heapdump: digest blocks {digest:016x} pages 0\n(XEN) heapdump: fields {fields:016x}\n")


# After the range [0x3ee00, 0x3f000) came over: region 1 [0x200, 0x3ee00)
# ended on 0x3e000 (order 13) and 0x3ec00 (order 9, then 10 with 0x3ee00's
# 512 pages): one block across the range's first page, one that is not.
MERGED = [(0, 18, 10, 0x3ec00), (0, 18, 13, 0x3c000), (0, 9, 8, 0x100)]


def test_the_ranges_are_read_into_the_stage_they_precede():
    text = boot_log() + later(MERGED, ranges=[(0x3ee00, 0x3f000), (0x3fd92, 0x3fdc8)])
    assert heapdump.stages(text) == [STAGE]
    d = heapdump.parse(text, STAGE)
    assert d.ranges == [(0x3ee00, 0x3f000), (0x3fd92, 0x3fdc8)]
    assert heapdump.parse(text).ranges == [] and heapdump.parse(text).nblocks == 33
    assert heapdump.check(d) == []
    with pytest.raises(heapdump.DumpError, match="bad range"):
        heapdump.parse(text.replace("range 0x3ee00", "range 0xzz"), STAGE)


def test_a_block_is_merged_across_an_edge_only_when_the_edge_is_strictly_inside():
    ranges = [(0x100, 0x200), (0x200, 0x3ee00), (0x3ee00, 0x3f000)]
    blocks = [(0, 18, 10, 0x3ec00), (0, 18, 9, 0x3ee00), (0, 9, 8, 0x100), (0, 10, 10, 0x0)]
    assert afterboot.across(blocks, ranges) == [(0x0, 10, 0x100), (0x3ec00, 10, 0x3ee00)]
    assert afterboot.across(blocks[1:3], ranges) == []
    assert afterboot.edges([(1, 4), (4, 9)]) == [1, 4, 9]


def test_a_dom0_boots_log_is_read_at_both_stages_with_its_merges():
    r = afterboot.read(boot_log() + later(MERGED))
    assert r.stage == STAGE and r.problems == []
    assert r.merged_at_boot() == []                   # QEMU's map: no region edge inside a block
    assert r.merged_after() == [(0x3ec00, 10, 0x3ee00)]
    rec = r.as_record()
    assert (rec["merges_boot"], rec["merges_after"], rec["ranges"]) == (0, 1, [[0x3ee00, 0x3f000]])
    assert rec["after_dump"]["fields"] == "00000000000000ab"


def test_a_log_without_the_later_dump_or_its_ranges_is_named():
    with pytest.raises(heapdump.DumpError, match="no later one"):
        afterboot.read(boot_log())
    r = afterboot.read(boot_log() + later(MERGED, ranges=[]))
    assert r.problems == [f"after {STAGE}: no range handed over is named ('heapdump: range')"]
    cut = boot_log() + later(MERGED)
    with pytest.raises(heapdump.DumpError, match="cut short"):
        afterboot.read(cut[:cut.rindex("heapdump: total_avail_pages")])


def test_after_boot_chunk_and_sweep_are_held_to_one_order_and_others_to_the_digests():
    chunk = afterboot.read(boot_log() + later(MERGED))
    same = afterboot.read(boot_log() + later(MERGED))
    assert afterboot.compare({"chunk": chunk, "sweep": same}) == ([], [])
    swapped = afterboot.read(boot_log() + later([MERGED[1], MERGED[0], MERGED[2]]))
    problems, notes = afterboot.compare({"chunk": chunk, "sweep": swapped})
    assert notes == [] and len(problems) == 1
    assert problems[0].startswith(f"after {STAGE}: sweep lists chunk's blocks in another order: entry 0 ")
    # page is held to the digests, which do not see the order...
    assert afterboot.compare({"chunk": chunk, "page": swapped}) == ([], [])
    # ...but do see a lost merge, and the fields digest holds sweep.
    split = afterboot.read(boot_log() + later([(0, 18, 9, 0x3ec00), (0, 18, 9, 0x3ee00)] + MERGED[1:]))
    problems, _ = afterboot.compare({"chunk": chunk, "page": split})
    assert len(problems) == 1 and "page built another heap than chunk" in problems[0]
    other = afterboot.read(boot_log() + later(MERGED, fields=0xac))
    assert "fields digest" in afterboot.compare({"chunk": chunk, "sweep": other})[0][0]


class FakeResult:
    def __init__(self, log):
        self.status, self.lines, self.log, self.elapsed, self.facts = "init", ["ok"], log, 12.0, {}


class FakeBuild:
    release, config, kernel = "4.17", "debug", "xen"


def test_the_dom0_boots_ask_for_the_dump_and_hold_the_variants_after_boot(tmp_path, monkeypatch):
    asked = []
    logs = {"chunk": later(MERGED), "sweep": later([MERGED[1], MERGED[0], MERGED[2]])}

    def boot(xen, kernel, initrd, mem, xen_append="", log_path=None):
        asked.append(xen_append)
        return FakeResult(boot_log() + logs[xen_append.split()[0].split("=")[1]])
    monkeypatch.setattr(variants.dom0, "boot", boot)
    monkeypatch.setattr(variants.initramfs, "initramfs", lambda path: None)
    said = []
    recs = variants.functional([FakeBuild()], ["chunk", "sweep"], GIB, str(tmp_path), "vmlinuz", said.append, 1)
    assert sorted(asked) == ["heap-init=chunk heap-dump", "heap-init=sweep heap-dump"]
    boots = [r for r in recs if r["type"] == "dom0"]
    assert [(r["variant"], r["merges_boot"], r["merges_after"]) for r in boots] == [("chunk", 0, 1), ("sweep", 0, 1)]
    summary = [r for r in recs if r["type"] == "dom0-digests"]
    assert len(summary) == 1 and summary[0]["merges"] == {"chunk": [0, 1], "sweep": [0, 1]}
    assert "another order" in summary[0]["problems"][0]
    assert variants.failed(recs) == 1
    assert any("1 after discard_initial_images" in x for x in said)


def test_the_report_shows_the_merges_the_after_boot_heaps_and_the_named_cases(tmp_path):
    folder = a_run(tmp_path)
    path = os.path.join(folder, "variants.jsonl")
    with open(path) as f:
        recs = [json.loads(line) for line in f]
    next(r for r in recs if r["type"] == "digests")["notes"] = [
        "page and chunk differ only where 4.16 and 4.17 place init_node_heap()'s metadata: x"]
    dom0 = next(r for r in recs if r["type"] == "dom0")
    dom0.update(ranges=[[1, 2], [3, 4]], merges_boot=0, merges_after=5, problems=[])
    recs.insert(-1, {"type": "dom0-digests", "release": "4.17", "config": "debug", "variants": ["chunk", "sweep"],
                     "stage": STAGE, "problems": [], "notes": ["after x: page differs from chunk as its boot"]})
    with open(path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in recs))
    text = variants_report.report_text(variants_report.Variants(folder))
    assert "- Xen 4.17 at 1 GiB: page and chunk differ only where 4.16 and 4.17 place" in text
    assert "| holds (2 ranges) | 0 | 5 |" in text
    assert f"| 4.17 | debug | chunk, sweep | `{STAGE}()` | equal | 1 |" in text
    assert "- Xen 4.17 (debug): after x: page differs from chunk as its boot" in text
    got = {t: (ok, fig) for t, ok, fig in variants_report.targets(variants_report.Variants(folder))}
    assert got["every dom0 boot's heap, at boot and after its boot modules were freed, one across the variants"] \
        == (True, "1 builds, 0 with a problem; 5 blocks merged across a range's edge after boot, over all the boots")


def test_make_xen_srcs_boots_count_their_merges_at_boot_variant_by_variant():
    """Two touching regions, [0x100, 0x180) and [0x180, 0x200): a block
    across 0x180 merged; the canonical heap (one order-8 block) has it."""
    merged, apart = heapdump.Dump(), heapdump.Dump()
    for d, blocks in ((merged, [(0, 9, 8, 0x100, 8, 0)]), (apart, [(0, 9, 7, 0x100, 7, 0), (0, 9, 7, 0x180, 7, 0)])):
        d.regions, d.blocks = [(0x100, 0x180), (0x180, 0x200)], blocks
        d.digest_blocks, d.digest_pages = sum(heapdump.block_hash(n, z, o, m, fd) for n, z, o, m, _, fd in blocks), 0
    rec = variants.digests_record("4.17", GIB, [1024], {"chunk": merged, "sweep": apart})
    assert rec["merges"] == {"chunk": 1, "sweep": 0} and rec["problems"]
    assert variants_report._merges(rec["merges"]) == "chunk 1, sweep 0"
    assert variants_report._merges({"chunk": 0, "sweep": 0}) == "0"


def staging_log(variant):
    """A dom0 boot recorded from staging c447b7308b13 with patches/xen/staging-measure/
    (debug, heap-init=<variant> heap-dump, 1 GiB, TCG), its dumps with node_avail lines."""
    with open(os.path.join(DATA, f"xen-4.23-dom0-debug-{variant}.log"), encoding="utf-8") as f:
        return f.read()


def test_a_recorded_staging_boot_holds_node_avail_pages_and_chunk_equals_sweep():
    readings = {v: afterboot.read(staging_log(v)) for v in ("chunk", "sweep")}
    for r in readings.values():
        assert r.problems == [] and r.stage == "free_boot_modules" and r.after.ranges == [(0x3aa8c, 0x3f904)]
        assert r.boot.node_avail == {0: 238698} and r.after.node_avail == {0: 225406}
    assert afterboot.compare(readings) == ([], [])
    # sweep's after-boot node_avail_pages[] one page short: the dump and the variants disagree.
    text = staging_log("sweep")
    at = text.rindex("heapdump: node_avail 0 225406")
    readings["sweep"] = afterboot.read(text[:at] + "heapdump: node_avail 0 225405" + text[at + 29:])
    assert readings["sweep"].problems == ["after free_boot_modules: node 0's node_avail_pages[] is 225405, "
                                          "its avail[] sums to 225406"]
    problems, _ = afterboot.compare(readings)
    assert len(problems) == 1 and problems[0].startswith("after free_boot_modules: sweep built another heap"), problems
