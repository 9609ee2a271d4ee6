# SPDX-License-Identifier: MIT
"""Xen 4.17 built here from Debian's source package with the patch series
(patches/xen/4.17/, harness/real/xen/source.py), booted under -icount at 1 GiB
as `make xen-src` boots it: heap-init=chunk and heap-init=sweep build the
same heap, the canonical one of the boot allocator's regions, and sweep
executes fewer instructions; a variant Xen does not know is refused, in
Xen's own words read back from its console ring. The build takes minutes
the first time (build/xen-src keeps it); a machine that cannot reach the
Debian mirror and has no earlier download fails here with apt's reason."""
import pytest

from harness.common import GIB
from harness.real.xen import source
from harness.real.xen import variants


@pytest.fixture(scope="module")
def xen417():
    return source.build("4.17", "release", say=lambda *a: None)


def test_the_build_records_what_made_it(xen417):
    info = xen417.info
    assert info["release"] == "4.17" and info["source_version"].startswith("4.17.")
    assert [p["name"][:5] for p in info["patches"]] == ["0001-", "0002-", "0003-", "0004-"]
    assert info["warnings"] == []
    with open(xen417.folder + "/config") as f:
        assert "# CONFIG_DEBUG is not set" in f.read().splitlines()


def test_chunk_and_sweep_build_one_heap_and_sweep_runs_fewer_instructions(xen417, tmp_path):
    recs, dumps = {}, {}
    for v in ("chunk", "sweep"):
        recs[v], dumps[v] = variants.boot_variant(xen417, v, GIB, [1024], str(tmp_path / f"{v}.log"))
        assert recs[v]["problems"] == [], recs[v]["problems"]
        assert 250000 < recs[v]["pages"] < 262144
    assert variants.digests_record("4.17", GIB, [1024], dumps)["problems"] == []
    assert recs["sweep"]["pages"] == recs["chunk"]["pages"]
    assert recs["sweep"]["instructions"] < recs["chunk"]["instructions"]


def test_a_variant_xen_does_not_know_is_refused_in_its_own_words(xen417, tmp_path):
    with pytest.raises(variants.VariantError) as e:
        variants.boot_variant(xen417, "bogus", GIB, [1024], str(tmp_path / "bogus.log"))
    assert 'does not know heap-init=bogus: its console ring says \'parameter "heap-init" has invalid ' \
           'value "bogus"' in str(e.value)
