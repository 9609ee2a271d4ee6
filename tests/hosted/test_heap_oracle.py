# SPDX-License-Identifier: MIT
"""The hosted runner's heaps against the host's own (harness.oracle), and
audit_blocks=N: the whole list, a cut list that is a prefix of the heap,
no list unless asked, and a bad N refused."""
import pytest

from harness.results import oracle


def test_every_heap_is_the_oracles_serial_and_parallel(runner):
    # Three fake nodes over q35's 3 GiB map, two threads: every strategy,
    # the eager ones built in parallel, block for block.
    r = runner("--mem", "3G", "--cpus", "2", "runs=1", "numa_fake=3", "audit_blocks=4096")
    assert r.rc == 0, r
    audits = [a for a in r.of("audit") if "kernel" not in a]
    assert [a["strategy"] for a in audits] == ["page", "chunk", "chunk-72b02bc", "sweep", "lazy"], r
    assert [a["cpus"] for a in audits] == [2, 2, 2, 2, 1]
    assert oracle.check_records(r.records) == []
    assert len({a["digest"] for a in audits}) == 1
    # The peers hold the same pages, which the oracle checks by their page digest.
    peers = [a for a in r.of("audit") if "kernel" in a]
    assert [(a["strategy"], a["kernel"]) for a in peers] == [
        ("linux", "linux"), ("linux_deferred", "linux"), ("linux612", "linux"), ("freebsd_lazy", "freebsd"),
        ("freebsd_lazy0", "freebsd")]
    assert "block_list" not in peers[0]


def test_the_oracle_refuses_a_peer_with_other_pages(runner):
    r = runner("--mem", "256M", "runs=1", "strategies=chunk,freebsd_lazy0", "audit_blocks=4096")
    assert r.rc == 0, r
    assert oracle.check_records(r.records) == []
    bad = [dict(x, page_digest="0x0") if x.get("kernel") else x for x in r.records]
    assert oracle.check_records(bad) == ["freebsd_lazy0 (freebsd) run 0: holds other pages than Xen's heap"]


def test_a_cut_list_is_the_heaps_first_blocks(runner):
    r = runner("--mem", "3G", "runs=1", "strategies=page,lazy", "audit_blocks=5")
    assert r.rc == 0, r
    mem = r.one("memory")
    want = [list(b) for b in oracle.decompose(mem)[:5]]
    for a in r.of("audit"):
        assert a["block_list_truncated"] is True and a["block_list"] == want, a
        assert oracle.mismatches(mem, a) == []
    # A whole list was asked for by the oracle's caller: a cut one is refused.
    assert "no whole block list" in oracle.check_records(r.records)[0]


def test_no_list_unless_asked(runner):
    r = runner("--mem", "256M", "runs=1", "strategies=chunk")
    assert r.rc == 0, r
    a = r.one("audit")
    assert "block_list" not in a and "block_list_truncated" not in a
    assert oracle.check_records(r.records, need_list=False) == []


@pytest.mark.parametrize("bad", ["audit_blocks=4097", "audit_blocks=many"])
def test_bad_audit_blocks_fail(runner, bad):
    r = runner("--mem", "256M", bad)
    assert r.rc == 1, r
    assert f"{bad}: expected a whole number from 0 to 4096" in r.out, r
