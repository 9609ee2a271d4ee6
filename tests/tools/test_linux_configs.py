# SPDX-License-Identifier: MIT
"""linux-src --configs: the files a series touches, the configurations
flipped from a base .config, and the table and status of a run's records
(harness/real/linux/configs.py), on hand-made input."""
from harness.real.linux import configs
from harness.real.source import build as srcbuild


def test_the_touched_files_come_in_order_split_into_c_files_and_the_rest(tmp_path):
    a, b = tmp_path / "0001.patch", tmp_path / "0002.patch"
    a.write_text("diff --git a/mm/mm_init.c b/mm/mm_init.c\n+x\ndiff --git a/mm/internal.h b/mm/internal.h\n")
    b.write_text("diff --git a/mm/page_alloc.c b/mm/page_alloc.c\ndiff --git a/mm/mm_init.c b/mm/mm_init.c\n")
    assert configs.touched([str(a), str(b)]) == (["mm/mm_init.c", "mm/page_alloc.c"], ["mm/internal.h"])


def test_each_option_is_flipped_from_its_value_in_the_base():
    base = {"DEFERRED_STRUCT_PAGE_INIT": "y", "NUMA": "y", "MEMORY_HOTPLUG": "y", "DEBUG_VM": "n"}
    got = dict(configs.variants(base))
    assert got["as built"] == {}
    assert got["without DEFERRED_STRUCT_PAGE_INIT"] == {"DEFERRED_STRUCT_PAGE_INIT": "n"}
    assert got["with DEBUG_VM"] == {"DEBUG_VM": "y"}
    assert got["with PAGE_OWNER"] == {"PAGE_OWNER": "y"}      # absent from the base: off
    assert got["without DEFERRED_STRUCT_PAGE_INIT, NUMA, MEMORY_HOTPLUG"] == {
        "DEFERRED_STRUCT_PAGE_INIT": "n", "NUMA": "n", "MEMORY_HOTPLUG": "n"}
    assert len(got) == 1 + len(configs.OPTIONS) + 1
    # Fewer than two of the three on: no combined configuration.
    assert not any(", " in n for n in dict(configs.variants({"NUMA": "y"})))


def test_a_flip_holds_when_the_symbol_is_off_by_comment_or_absence():
    flips = {"NUMA": "n", "DEBUG_VM": "y", "SPARSEMEM_VMEMMAP": "n", "ZONE_DMA": "n"}
    now = {"NUMA": None, "DEBUG_VM": "y", "SPARSEMEM_VMEMMAP": "y"}
    assert srcbuild.undone(flips, now) == {"SPARSEMEM_VMEMMAP": "y"}
    assert srcbuild.undone({"DEBUG_VM": "y"}, {}) == {"DEBUG_VM": "n"}


def _build(patches, config, ok=True, failed=None, warnings=()):
    return {"type": "config_build", "patches": patches, "config": config, "ok": ok, "failed": failed,
            "warnings": list(warnings)}


def test_the_table_has_a_row_a_configuration_and_a_column_a_patch(tmp_path):
    recs = [_build(1, "as built"), _build(2, "as built"),
            _build(1, "without NUMA"), _build(2, "without NUMA", ok=False, failed="the build failed\nmm/x.c: error"),
            _build(1, "with DEBUG_VM", ok=False, warnings=["mm/mm_init.c:9: warning: unused"]),
            {"type": "config_undone", "config": "without ZONE_DMA", "left": {"ZONE_DMA": "y"}},
            {"type": "end", "wall_s": 412.3, "jobs": 2, "source_version": "6.12.107-1", "key": "k"}]
    text = configs.markdown(recs, "6.12")
    assert "Linux 6.12.107-1, build key `k`; 5 builds, 412 s in all with unpacking, make -j2." in text
    assert "| configuration | patches 1-1 | patches 1-2 |" in text
    assert "| as built | builds | builds |" in text
    assert "| without NUMA | builds | **fails** |" in text
    assert "| with DEBUG_VM | **1 warnings** | - |" in text
    assert "- without ZONE_DMA: not built, `make olddefconfig` leaves `ZONE_DMA=y`" in text
    assert "### patches 1-2, without NUMA" in text and "mm/x.c: error" in text
    assert configs.write(recs, str(tmp_path), "6.12") == 1
    assert (tmp_path / "configs.md").read_text() == text
    assert configs.write(recs[:2], str(tmp_path), "6.12") == 0
    assert configs.write([], str(tmp_path), "6.12") == 1       # nothing built proves nothing
