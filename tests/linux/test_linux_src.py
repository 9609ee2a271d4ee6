# SPDX-License-Identifier: MIT
"""`make test-linux-src`: the real Linux 6.12 built from Debian's source
package with patches/linux/6.12 (harness/real/linux/source.py; cached in
build/linux-src after its first build, which takes some minutes), booted at
1 GiB on one node as init_pages=stock and as init_pages=sweep:

- in the dump build (dumprun.DUMP_FLIPS), guest RAM on a pattern, the
  memory map after deferred init is one dump for both, word for word with
  no allowance (and for a second stock boot, the default and both padded),
  each dump holding together with its counters, and so is the map as
  memblock_free_all() leaves it; on two nodes of two vCPUs each every
  difference is no more than two stock boots show;
- sweep hands the same pages over in fewer instructions (-icount, the
  brackets of `binaries`);
- an init_pages value no kernel knows is refused with Linux's own message;
- both variants boot to busybox's /init, fill and read back a tmpfs and
  power off.

Not in `make test`: a fresh build and its download take about 10 minutes
here. CI runs it (.ci/run)."""
import pytest

from harness.real.linux import dumpboot, dumprun, initboot, measure, source

GIB = 1 << 30


@pytest.fixture(scope="module")
def build():
    try:
        return source.build("6.12")
    except source.SourceError as e:
        pytest.fail(f"the 6.12 source build: {e}")


@pytest.fixture(scope="module")
def dump_build():
    try:
        return source.build("6.12", flips=dumprun.DUMP_FLIPS)
    except source.SourceError as e:
        pytest.fail(f"the 6.12 dump build: {e}")


def _dumps_hold(records):
    errors = [r["message"] for r in records if r["type"] == "error"]
    assert not errors, errors
    dumps = {r["variant"]: r for r in records if r["type"] == "dump"}
    assert set(dumps) == {v for v, _ in dumprun.VARIANTS}
    for name, d in dumps.items():
        assert d["problems"] == [], (name, d["problems"])
        assert d["totalram"] == dumps["stock"]["totalram"] > 0 and d["pgfree"] > 0
        assert d["early_zones"], name
    compares = {(r["a"], r["b"]): r for r in records if r["type"] == "dump_compare"}
    assert set(compares) == set(dumprun.PAIRS)
    for pair, c in compares.items():
        assert c["difference"] is None, (pair, c["difference"])
        # The maps as memblock_free_all() leaves them, before any thread ran.
        assert "early_difference" in c and c["early_difference"] is None, (pair, c.get("early_difference"))
    refusal = [r for r in records if r["type"] == "refusal"]
    assert refusal and refusal[0]["refused"] == ["init_pages"], refusal
    return compares


def test_one_dump_for_both_variants_and_unknown_refused(dump_build, tmp_path):
    records = dumprun.dump_records(dump_build, GIB, str(tmp_path), 1, say=lambda *a: None)
    compares = _dumps_hold(records)
    # One node, one vCPU: no allowance at all, every pair the same word for word.
    assert all(c["exact"] is None for c in compares.values()), \
        {p: c["exact"] for p, c in compares.items() if c["exact"]}


def test_two_nodes_of_two_vcpus_differ_no_more_than_two_stock_boots(dump_build, tmp_path):
    records = dumprun.dump_records(dump_build, GIB, str(tmp_path), 2, say=lambda *a: None, cpus=4)
    _dumps_hold(records)


def test_sweep_hands_over_the_same_pages_in_fewer_instructions(build, tmp_path):
    phases = {}
    for variant in ("stock", "sweep"):
        records = measure.boot_records(build, GIB, 1, str(tmp_path), variant)
        assert all(r["type"] == "phase" for r in records), records
        phases[variant] = {r["phase"]: r for r in records}
    assert set(phases["stock"]) == set(phases["sweep"]) == {"memmap", "memblock_free_all", "deferred"}
    stock, sweep = ({p: (r["instructions"], r["pages"]) for p, r in phases[v].items()} for v in ("stock", "sweep"))
    # The same pages are handed over in each phase that frees pages.
    assert stock["memblock_free_all"][1] == sweep["memblock_free_all"][1] > 0
    assert stock["deferred"][1] == sweep["deferred"][1] > 0
    assert sum(i for i, _ in sweep.values()) < sum(i for i, _ in stock.values())


@pytest.mark.parametrize("variant", ["stock", "sweep"])
def test_variant_boots_to_init_and_its_memory_holds(build, tmp_path, variant):
    initrd = initboot.archive(str(tmp_path))
    status, facts, log = initboot.boot(build.files(), initrd, GIB, str(tmp_path / "serial.log"),
                                       f"init_pages={variant}")
    assert status == "ok", initboot.why(status, facts, log)
    assert facts["memtest"] == f"memtest {initboot.MEMTEST_MIB} MiB ok"
    assert 900 << 10 < facts["mem_total_kib"] <= 1 << 20


def test_unknown_value_refused_before_init(build, tmp_path):
    initrd = initboot.archive(str(tmp_path))
    status, facts, log = initboot.boot(build.files(), initrd, GIB, str(tmp_path / "serial.log"),
                                       "init_pages=bogus")
    assert status == "refused", (status, log[-2000:])
    assert dumpboot.refused(log) == ["init_pages"]
