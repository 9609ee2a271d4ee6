# SPDX-License-Identifier: MIT
"""The peers in the host's statistics and report: each one's multiple of its
own floor and of Xen's, its later part in the end-to-end figure, the page
digests, and every kernel side by side at each size."""
import json

from fakes import Run
from harness.report.markdown import kernels_section
from harness.results.stats import SizeStats, cross_check, failures

GIB = 1 << 30
PAGES = 1000


def result(strategy, phase, ns, **kw):
    return dict(type="result", strategy=strategy, run=0, phase=phase, pages=PAGES, ns=ns,
                ns_per_page=ns / PAGES, **kw)


RECS = [
    {"type": "bench", "pages": PAGES, "strategies": ["sweep", "linux_deferred", "freebsd_lazy0"]},
    result("sweep", "init", 2000, first_alloc_ns=2100), result("sweep", "first_touch", 50000),
    result("linux_deferred", "init", 3000, first_alloc_ns=3050), result("linux_deferred", "deferred", 9000),
    result("freebsd_lazy0", "init", 8000, first_alloc_ns=8100),
    result("floor", "init", 1000), result("floor_linux", "init", 2000), result("floor_freebsd", "init", 4000),
    {"type": "audit", "strategy": "sweep", "ok": True, "digest": "0x1", "page_digest": "0xab"},
    {"type": "audit", "strategy": "linux_deferred", "ok": True, "digest": "0x2", "page_digest": "0xab"},
    {"type": "audit", "strategy": "freebsd_lazy0", "ok": True, "digest": "0x3", "page_digest": "0xab"},
    {"type": "comparison", "strategy": "linux_deferred", "x_floor": 1.5, "x_xen_floor": 3.0,
     "end_to_end_median_ns": 12000, "later_median_ns": 9000, "first_touch_median_ns": None,
     "digest_equal": True, "pages_equal": True},
    {"type": "done", "status": "ok"},
]


def test_each_peer_against_its_own_floor_and_xens():
    ss = SizeStats(Run(8 * GIB, RECS))
    assert ss.strategies == ["sweep", "linux_deferred", "freebsd_lazy0", "floor", "floor_linux", "floor_freebsd"]
    assert ss.heap_strategies == ["sweep", "linux_deferred", "freebsd_lazy0"]
    assert ss.x_floor("linux_deferred") == 1.5 and ss.x_xen_floor("linux_deferred") == 3.0
    assert ss.x_floor("freebsd_lazy0") == 2.0 and ss.x_floor("sweep") == 2.0
    assert ss.later("linux_deferred") == "deferred" and ss.later("freebsd_lazy0") is None
    assert ss.end_to_end("linux_deferred") == 12000 and ss.end_to_end("freebsd_lazy0") == 8000
    assert ss.end_to_end("sweep") == 52000
    # Block digests are compared among Xen's heaps only; the pages among all.
    assert ss.digests() == {"0x1"} and ss.page_digests() == {"0xab"}
    checks = cross_check(ss)
    assert "absent" in checks[("linux_deferred", "init")]
    assert [p for p in checks[("linux_deferred", "init")] if p != "absent"] == []


def test_other_pages_fail_the_run():
    recs = [dict(r, pages_equal=False) if r["type"] == "comparison" else r for r in RECS]
    assert "linux_deferred handed over other pages (pages_equal=false)" in failures(Run(8 * GIB, recs))


def test_every_kernel_side_by_side():
    text = "\n".join(kernels_section(None, [SizeStats(Run(8 * GIB, RECS))]))
    assert "| RAM | unit a page | sweep | linux_deferred (boot + later) | freebsd_lazy0 | floor | floor_linux | " \
           "floor_freebsd |" in text
    assert "| 8 GiB | ns | 2.000 | 3.000 + 9.000 | 8.000 | 1.000 | 2.000 | 4.000 |" in text
    assert "| 8 GiB | linux_deferred | floor_linux | 1.50 | 3.00 | 12.000 | 3050 |" in text
    assert "| 8 GiB | freebsd_lazy0 | floor_freebsd | 2.00 | 8.00 | 8.000 | 8100 |" in text


def test_instructions_per_page_per_phase_against_the_real_linux():
    from harness.real.binaries.icount import compare, phases_per_page
    recs = [{"type": "bench", "pages": 1000},
            {"type": "peer", "strategy": "linux", "run": 0, "init_ns": 23000, "free_ns": 24000, "nodes": []},
            {"type": "peer", "strategy": "linux_deferred", "run": 0, "init_ns": 8000, "free_ns": 6000,
             "nodes": [{"node": 0, "pages": 800, "threads": 1, "ns": 60000}]},
            {"type": "result", "strategy": "linux_deferred", "run": 0, "phase": "deferred", "ns": 64000},
            {"type": "peer", "strategy": "freebsd_lazy0", "run": 0, "init_ns": 1, "free_ns": 0, "nodes": []}]
    ours = phases_per_page(recs)
    assert ours == {"linux": {"memmap": 23.0, "memblock_free_all": 24.0},
                    "linux_deferred": {"memmap": 40.0, "memblock_free_all": 30.0, "deferred": 80.0}}
    real = {("linux-6.1", 1 << 30): {"memmap": 42.0, "memblock_free_all": 30.0, "deferred": 70.0}}
    rows = compare(ours, real, 1 << 30)
    # Each model against its own kernel; linux (no deferred init) against none.
    assert ("linux_deferred", "linux-6.1", "memmap", 40.0, 42.0, True) in rows          # -4.8 %
    assert ("linux_deferred", "linux-6.1", "memblock_free_all", 30.0, 30.0, True) in rows
    assert ("linux_deferred", "linux-6.1", "deferred", 80.0, 70.0, False) in rows       # +14 %
    assert not [r for r in rows if r[0] == "linux"]
    # Like with like: figures of another size are not used.
    assert compare(ours, real, 2 << 30) == []


def test_the_real_linux_figures_from_binaries_records(tmp_path):
    from harness.real.binaries.icount import real_phases

    def bracket(part=0):
        return {"parts": {"reserve_bootmem_region": {"calls": 3, "instructions": part}} if part else {}}
    recs = [{"type": "binary", "binary": binary, "mem_bytes": m, "phase": ph, "instructions": i, "pages": p,
             "bracket": bracket(r)}
            for binary, m, ph, i, p, r in (
                ("linux-6.1", 1 << 30, "memmap", 6461000, 100000, 0),
                ("linux-6.1", 1 << 30, "memblock_free_all", 4620000, 100000, 2000000),
                ("linux-6.1", 1 << 30, "deferred", 7430000, 100000, 0),
                ("linux-6.12", 1 << 30, "memmap", 4753000, 100000, 0),
                ("linux-6.1", 4 << 30, "memmap", 5764000, 100000, 0))]
    recs.append({"type": "binary", "binary": "xen-4.17", "mem_bytes": 1 << 30, "phase": "end_boot_allocator",
                 "instructions": 1, "pages": 1})
    recs.append({"type": "model", "strategy": "page", "mem_bytes": 1 << 30, "instructions": 1, "pages": 1})
    (tmp_path / "binaries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    real = real_phases(str(tmp_path))
    # The same records as a folder kept from before wrote them: peers.jsonl, `peer` naming the binary.
    kept = tmp_path / "kept"
    kept.mkdir()
    def as_kept(r):
        if r["type"] != "binary":
            return r
        return dict({k: v for k, v in r.items() if k != "binary"}, type="peer", peer=r["binary"])
    (kept / "peers.jsonl").write_text("".join(json.dumps(as_kept(r)) + "\n" for r in recs))
    assert real_phases(str(kept)) == real
    # memblock_free_all() less its reserved-page init, the report's rule.
    assert real[("linux-6.1", 1 << 30)] == {"memmap": 64.61, "memblock_free_all": 26.2, "deferred": 74.3}
    assert real[("linux-6.12", 1 << 30)] == {"memmap": 47.53}
    assert real[("linux-6.1", 4 << 30)] == {"memmap": 57.64}
    (tmp_path / "real.json").write_text('{"memmap": 60.0}')
    assert real_phases(str(tmp_path / "real.json")) == {(None, None): {"memmap": 60.0}}
