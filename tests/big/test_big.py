# SPDX-License-Identifier: MIT
"""Large guests, started with reserve=off so that only what the kernel
touches costs host memory: the benchmark at 90 GiB (Xen's largest published
size) and the memory summary of a 1 TiB guest. Slow under TCG, so
`make test-big` runs these; `make test` boots 90 GiB for the self-tests."""
from bootlib import AUDIT_BLOCKS, boot, explain, record
from test_bench_records import check_run
from test_memory import check_memory


def test_1tib_reaches_memory_summary():
    r = boot("pvh", "1T", "memonly", timeout=1200)
    assert r.status == "ok", explain(r)
    m = check_memory(r)
    # 1 TiB of RAM: 1024 backed sections of 8 MiB of page_info each.
    assert m["frame_table"]["sections"] == 1024
    assert m["frame_table"]["bytes"] == 1024 * 8 << 20


def test_90gib_benchmark_records():
    r = boot("pvh", "90G", f"runs=1 {AUDIT_BLOCKS}", timeout=1800)
    check_run(r, 1, ["page", "chunk", "chunk-72b02bc", "sweep", "lazy"])
    # 90 GiB less the firmware's holes below 1 MiB.
    assert 89 << 30 < record(r, "bench")["mem_bytes"] <= 90 << 30
