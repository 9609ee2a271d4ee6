# SPDX-License-Identifier: MIT
"""Linux's own memory init on the host (harness/real/linux/host/,
hosted/linuxmm/): the quick mode of `linux-src host-test` on Debian's 6.12
source with patches/linux/6.12, and the tester's own failures: a planted
bug is found with its seed and first differing field, a seed replays, and
a name the real code reaches that the stand-ins lack fails the build by
that name. The source comes through build/linux-src/ (downloaded once,
then kept); a machine that cannot reach the Debian mirror and has no
earlier download fails here with apt's reason."""
import os
import re
import subprocess

import pytest

from harness.real.linux import source
from harness.real.linux.host import build, run

# The quick mode: some 16 s on two CPUs (each tester's share cut between them), beside their builds.
QUICK = 240
SERIES_0003 = "0003-mm-mm_init-add-init_pages-sweep-one-pass-over-each-f.patch"


@pytest.fixture(scope="module")
def series():
    try:
        build.prepared("6.12", say=lambda *a: None)
    except source.SourceError as e:
        pytest.fail(f"Debian's Linux 6.12 source cannot be had, so Linux's memory init cannot be tested: {e}")
    return source.patches_of("6.12")


def planted(series, tmp_path, old, new):
    """The series with one line of 0003's changed -> its patches."""
    out = []
    for p in series:
        with open(p) as f:
            text = f.read()
        if os.path.basename(p) == SERIES_0003:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        dst = tmp_path / os.path.basename(p)
        dst.write_text(text)
        out.append(str(dst))
    return out


def test_quick_sweep_equals_stock_everywhere(series):
    ok, results = run.test("6.12", QUICK, seed=1, say=lambda *a: None)
    said = "\n".join(r[3] for r in results)
    assert ok, said
    assert [r[0] for r in results] == list(build.MAX_ORDERS)
    for order, passed, n, out in results:
        assert passed and n == QUICK // len(results), out
        assert re.search(r"zone locks taken: \d+ by init_pages=stock, \d+ by init_pages=sweep", out), out


def test_a_planted_bug_is_found_with_its_seed_and_first_field(series, tmp_path):
    """mm_zero_struct_page() dropped from the sweep's loop: the struct pages
    keep the garbage they started as, which the digest of a section sees
    and the copies then name to the word."""
    bad = planted(series, tmp_path, "+\tmm_zero_struct_page(page);\n+\tpage->flags = flags;",
                  "+\t(void)page;\n+\tpage->flags = flags;")
    ok, results = run.test("6.12", 20, seed=1, max_orders=(10,), patches=bad, say=lambda *a: None)
    out = results[0][3]
    assert not ok, out
    m = re.search(r"^seed (\d+): init_pages=stock and init_pages=sweep differ", out, re.M)
    assert m, out
    assert "first difference: struct page of pfn" in out and re.search(r"(mapping|index|private|memcg_data):", out), out
    assert "RAM (SRAT order):" in out, out
    # The seed replays alone, to the same word.
    binary = build.tester("6.12", 10, say=lambda *a: None, patches=bad)
    again = subprocess.run([binary, "--one", m.group(1)], capture_output=True, text=True)
    assert again.returncode == 1 and f"seed {m.group(1)}: init_pages=stock and init_pages=sweep differ" in again.stdout


def test_a_lock_left_out_is_caught_without_threads(series, tmp_path):
    """The zone's lock dropped from free_fresh_blocks(): the stand-ins check
    what lockdep checks, so even one thread sees it."""
    bad = planted(series, tmp_path, "+\tspin_lock_irqsave(&zone->lock, flags);\n+\tfor (; pfn < end;",
                  "+\tlocal_irq_save(flags);\n+\tfor (; pfn < end;")
    ok, results = run.test("6.12", 10, seed=1, max_orders=(10,), patches=bad, say=lambda *a: None)
    out = results[0][3]
    assert not ok and "init_pages=sweep failed: NR_FREE_PAGES changed without the zone's lock" in out, out


def test_a_name_the_stand_ins_lack_fails_the_build_by_name(series, tmp_path):
    """A series that makes memblock_free_pages() call a function nobody
    defines: the link fails, naming it."""
    tree, _ = build.prepared("6.12", say=lambda *a: None)
    rel = "mm/mm_init.c"
    with open(os.path.join(tree, rel)) as f:
        text = f.read()
    anchor = "void __init memblock_free_pages(struct page *page, unsigned long pfn,\n\t\t\t\t\t\t\tunsigned int order)\n{\n"
    assert anchor in text
    for side, body in (("a", text), ("b", text.replace(anchor, "void lxt_no_such_stand_in(void);\n" + anchor +
                                                       "\tlxt_no_such_stand_in();\n"))):
        (tmp_path / side / "mm").mkdir(parents=True)
        (tmp_path / side / rel).write_text(body)
    diff = subprocess.run(["diff", "-u", f"a/{rel}", f"b/{rel}"], cwd=tmp_path, capture_output=True, text=True)
    patch = tmp_path / "0001-call-a-stand-in-nobody-wrote.patch"
    patch.write_text(f"diff --git a/{rel} b/{rel}\n" + diff.stdout)
    with pytest.raises(build.HostTestError, match="stand-ins of hosted/linuxmm/ lack: lxt_no_such_stand_in"):
        build.tester("6.12", 10, say=lambda *a: None, patches=[str(patch)])


def test_show_prints_a_seed_s_machine(series):
    binary = build.tester("6.12", 10, say=lambda *a: None)
    r = subprocess.run([binary, "--show", "7"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("seed 7:\n  zones:") and "RAM (SRAT order):" in r.stdout
