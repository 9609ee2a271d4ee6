# SPDX-License-Identifier: MIT
"""The hosted runner's maps: its strict reader of map files (docs/usage-hosted.md,
"Map files"), every refusal with its line and exit status; maps of every
kind through `python3 -m harness hosted --map`; paths given where the
runner would drop them; and RAM above the 16 TiB it handles."""
import os

import pytest

from harness.results import maps

OK, FAIL, USAGE = 0, 1, 2
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOGS = os.path.join(ROOT, "tests", "tools", "data", "maps")
RECORDED = os.path.join(ROOT, "tests", "tools", "data", "recorded-tcg")
MIB, GIB, TIB = 1 << 20, 1 << 30, 1 << 40


def _file(tmp_path, text, name="machine.map"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _mmap(run):
    return [(e["addr"], e["len"], e["type"]) for e in run.one("boot")["mmap"]]


GOOD = ("# a machine, by hand\r\n"
        "\n"
        "0 9fc00 RAM          # low memory\r\n"
        "0x9FC00\t0xA0000 Reserved\n"
        "  0x000f0000 0x100000 2\n"
        "0x100000 0x20000000 ram\n"
        "0x1ff00000 0x20000000 nvs   # overlaps the RAM before: the sanitiser's to resolve\n"
        "0xfeffc000 0xff000000 20\n"
        "0x100000000 0x140000000 1")


def test_a_good_map_file(runner, tmp_path):
    """Comments, blank lines, CRLF, names in any case, numbers, no final newline."""
    r = runner("--map", _file(tmp_path, GOOD), "--map-only")
    assert r.rc == OK, r
    assert _mmap(r) == [(0, 0x9fc00, 1), (0x9fc00, 0x400, 2), (0xf0000, 0x10000, 2),
                        (MIB, 511 * MIB, 1), (0x1ff00000, MIB, 4), (0xfeffc000, 0x4000, 20),
                        (4 * GIB, GIB, 1)]
    assert r.one("boot")["mmap_source"] == f"map file {tmp_path}/machine.map"
    r = runner("--map", _file(tmp_path, GOOD), "memonly")
    assert r.rc == OK, r
    assert [(e["addr"], e["len"], e["type"]) for e in r.one("e820")["sanitised"]] == [
        (0, 0x9fc00, 1), (0x9fc00, 0x400, 2), (0xf0000, 0x10000, 2), (MIB, 510 * MIB, 1),
        (0x1ff00000, MIB, 4), (0xfeffc000, 0x4000, 2), (4 * GIB, GIB, 1)]


@pytest.mark.parametrize("line, says", [
    ("0 9fc00", "line 3: 2 fields; a range is 'start end type'"),
    ("0 9fc00 RAM extra", "line 3: more than three fields"),
    ("0 9fg00 RAM", "line 3: end '9fg00' is not a hexadecimal address of at most 64 bits"),
    ("-1 9fc00 RAM", "line 3: start '-1' is not a hexadecimal address"),
    ("0x 9fc00 RAM", "line 3: start '0x' is not a hexadecimal address"),
    ("0 10000000000000000 RAM", "line 3: end '10000000000000000' is not a hexadecimal address of at most 64 bits"),
    ("0 9fc00 memory", "line 3: unknown type 'memory': a number from 1 to 4294967295, or RAM, reserved"),
    ("0 9fc00 0", "line 3: unknown type '0'"),
    ("0 9fc00 4294967296", "line 3: unknown type '4294967296'"),
    ("0 9fc00 -1", "line 3: unknown type '-1'"),
    ("0 9fc00 RAM\0x", "line 3: unknown type 'RAM?x'"),
    ("9fc00 0 RAM", "line 3: the range ends at 0x0, before it starts at 0x9fc00"),
    ("9fc00 9fc00 RAM", "line 3: the range at 0x9fc00 is empty (the end is exclusive)"),
])
def test_bad_lines(runner, tmp_path, line, says):
    path = _file(tmp_path, f"# header\n100000 200000 RAM\n{line}\n300000 400000 RAM\n")
    r = runner("--map", path, "runs=1")
    assert r.rc == USAGE, r
    assert f"/machine.map {says}" in r.err, r
    assert not r.records


def test_a_file_without_ranges(runner, tmp_path):
    path = _file(tmp_path, "# nothing but comments\n\n   \n")
    r = runner("--map", path)
    assert r.rc == USAGE and "machine.map: no ranges" in r.err, r


def test_as_many_ranges_as_a_map_may_have(runner, tmp_path):
    lines = [f"{i * 0x2000:x} {i * 0x2000 + 0x1000:x} RAM" for i in range(8192)]
    r = runner("--map", _file(tmp_path, "\n".join(lines) + "\n"), "--map-only")
    assert r.rc == OK, r
    assert len(r.one("boot")["mmap"]) == 8192
    r = runner("--map", _file(tmp_path, "# one too many\n" + "\n".join(lines) + "\n2000000 2001000 RAM\n"))
    assert r.rc == USAGE, r
    assert "line 8194: more than 8192 ranges, the most a map may have" in r.err, r


def test_overlaps_the_sanitiser_cannot_resolve(runner, tmp_path):
    """4097 holes in one RAM range need 8195 entries once sanitised."""
    lines = ["0 100000000 RAM"] + [f"{i * 0x10000 + 0x1000:x} {i * 0x10000 + 0x2000:x} reserved"
                                   for i in range(4097)]
    r = runner("--map", _file(tmp_path, "\n".join(lines) + "\n"))
    assert r.rc == USAGE, r
    assert ("lines 1 and 2: the ranges overlap, and sanitising this map's overlaps needs more "
            "than 8192 entries") in r.err, r
    # 4095 holes: 8191 entries, which the sanitiser keeps.
    r = runner("--map", _file(tmp_path, "\n".join(lines[:4096]) + "\n"), "--map-only")
    assert r.rc == OK, r


def test_files_that_are_no_map_files(runner, tmp_path):
    big = _file(tmp_path, ("#" * 1023 + "\n") * 4097)
    r = runner("--map", big)
    assert r.rc == USAGE and "4195328 bytes; a map file may have at most 4194304" in r.err, r
    r = runner("--map", str(tmp_path))
    assert r.rc == USAGE and f"{str(tmp_path)[-60:]}: not a map file" in r.err, r
    r = runner("--map", "/nonexistent/machine.map")
    assert r.rc == USAGE and "/nonexistent/machine.map: No such file or directory" in r.err, r


# ---- paths the runner used to drop ----------------------------------------------

def test_firmware_with_a_path_is_refused(runner):
    """--firmware took no value: the path became a kernel word the kernel
    skips, and this machine's map ran instead."""
    r = runner("--firmware", "/nonexistent")
    assert r.rc == USAGE, r
    assert "--firmware /nonexistent: the runner reads map files only (--map FILE)" in r.err, r
    assert "python3 -m harness hosted --map /nonexistent" in r.err
    assert not r.records


@pytest.mark.parametrize("word", ["/nonexistent/machine.map", "tests/tools/data/maps/xen-4.1.txt",
                                  "README.md"])
def test_a_path_as_a_kernel_word_is_refused(runner, word):
    """The kernel skips a first word that starts with '/' (a loader's path)
    and warns about other unknown words: a map named so was never read."""
    r = runner(word, "runs=1")
    assert r.rc == USAGE, r
    assert f"'{word}' is a path, not a kernel option: give a map file as --map FILE" in r.err, r
    assert not r.records


def test_the_e820_option_points_to_the_harness(runner):
    r = runner("--e820", "results/x/serial-8G.log")
    assert r.rc == USAGE, r
    assert "python3 -m harness hosted --map results/x/serial-8G.log reads serial logs" in r.err, r


# ---- RAM above 16 TiB -------------------------------------------------------------

def test_ram_above_16_tib_is_reported_as_left_out(runner, tmp_path):
    """The bench record and the report give the RAM that was tested, and
    name the RAM above 16 TiB that was not (it was once counted as tested)."""
    path = _file(tmp_path, "0 9fc00 RAM\n100000 10000000 RAM\n100000000000 100040000000 RAM\n")
    r = runner("--map", path, "runs=1", "strategies=chunk")
    assert r.rc == OK, r
    bench, mem = r.one("bench"), r.one("memory")
    tested = 0x9fc00 + 255 * MIB
    assert bench["mem_bytes"] == tested and bench["ignored_bytes"] == GIB, bench
    assert mem["ram_bytes"] == tested + GIB and mem["ignored_bytes"] == GIB
    assert "heap init on 255.62 MiB" in r.out
    assert "note: 1 GiB of RAM above 16 TiB left out; the figures are for the 255.62 MiB below it" in r.out
    assert all(a["ok"] and a["free_pages"] == bench["pages"] for a in r.of("audit"))


def test_a_map_below_16_tib_reports_nothing_left_out(runner):
    r = runner("--mem", "256M", "runs=1", "strategies=chunk")
    assert r.rc == OK, r
    assert r.one("bench")["ignored_bytes"] == 0 and r.one("bench")["mem_bytes"] == r.one("memory")["ram_bytes"]
    assert "above 16 TiB" not in r.out


def test_a_map_without_ram_is_refused(runner, tmp_path):
    r = runner("--map", _file(tmp_path, "0 9fc00 reserved\n100000 40000000 2\n"), "runs=1")
    assert r.rc == FAIL, r
    assert "no usable RAM" in r.out, r
    assert r.of("done")[-1]["status"] == "fail"


# ---- every kind of map, through the harness --------------------------------------

@pytest.mark.parametrize("name", ["linux-dmesg.txt", "linux-journal.txt", "xen-4.17.txt", "xen-4.1.txt"])
def test_boot_logs_reach_the_runner(harness_hosted, tmp_path, name):
    """The map the harness read is the map the runner holds, range for range."""
    log = os.path.join(LOGS, name)
    keep = str(tmp_path / "kept.map")
    r = harness_hosted("--map", log, "--keep-map", keep, "--map-only")
    assert r.rc == OK, r
    assert _mmap(r) == [(s, e - s, t) for s, e, t in maps.read(log).entries]
    assert r.one("boot")["mmap_source"] == f"map file {keep}"
    assert f"hosted: the map of the {'Xen' if 'xen' in name else 'Linux'} boot log {log}" in r.err


def test_a_small_machine_end_to_end(harness_hosted):
    """`journalctl -k` of a 1 GiB guest: the benchmark runs on its map."""
    r = harness_hosted("--map", os.path.join(LOGS, "linux-journal.txt"), "runs=1",
                       "strategies=page,chunk")
    assert r.rc == OK, r
    assert [(e["addr"], e["addr"] + e["len"], e["type"]) for e in r.one("e820")["sanitised"]] == [
        (0, 0x9fc00, 1), (0x9fc00, 0xa0000, 2), (0xf0000, 0x100000, 2), (MIB, 0x3ffdd000, 1),
        (0x3ffdd000, 0x40000000, 2), (0xb0000000, 0xc0000000, 2), (0xfed1c000, 0xfed20000, 2),
        (0xfeffc000, 0xff000000, 2), (0xfffc0000, 4 * GIB, 2)]
    bench = r.one("bench")
    assert bench["mem_bytes"] == 0x9fc00 + 0x3ffdd000 - MIB and bench["ignored_bytes"] == 0
    audits = r.of("audit")
    assert len(audits) == 2 and all(a["ok"] and a["free_pages"] == bench["pages"] for a in audits)
    assert len({a["digest"] for a in audits}) == 1
    assert r.one("done")["status"] == "ok"


def test_kernel_options_between_the_harness_options(harness_hosted):
    r = harness_hosted("--map", os.path.join(LOGS, "xen-4.1.txt"), "runs=1", "--map-only", "strategies=chunk")
    assert r.rc == OK, r
    assert r.one("boot")["cmdline"] == "runs=1 strategies=chunk"
    r = harness_hosted("--map", os.path.join(LOGS, "xen-4.1.txt"), "runs=1", "--bogus")
    assert r.rc == USAGE and "unrecognized arguments: --bogus" in r.err, r


def test_records_through_the_harness(harness_hosted):
    r = harness_hosted("--map", RECORDED, "--mem", "1G", "--map-only")
    assert r.rc == OK, r
    assert _mmap(r) == [(s, e - s, t) for s, e, t in maps.read(RECORDED, GIB).entries]
    assert (MIB, GIB - MIB, 1) in _mmap(r)
    r = harness_hosted("--map", RECORDED, "--map-only")
    assert r.rc == USAGE and "several guests (1024 MiB, 2048 MiB): choose one with --mem SIZE" in r.err, r


def test_bad_maps_through_the_harness(harness_hosted, tmp_path):
    r = harness_hosted("--map", "/nonexistent")
    assert r.rc == USAGE and "/nonexistent: No such file or directory" in r.err, r
    bad = _file(tmp_path, "0 9fc00 RAM\n9fc00 0 RAM\n")
    r = harness_hosted("--map", bad)
    assert r.rc == USAGE and "machine.map line 2: the range ends at 0x0, before it starts at 0x9fc00" in r.err, r


MEMMAP = "/sys/firmware/memmap"


def test_this_machines_firmware_map(harness_hosted):
    if not os.path.isdir(MEMMAP):
        pytest.skip(f"{MEMMAP} is missing: this kernel does not export the firmware's map")
    types = {"System RAM": 1, "ACPI Tables": 3, "ACPI Non-volatile Storage": 4, "Unusable memory": 5}
    want = []
    for n in os.listdir(MEMMAP):
        read = lambda f: open(os.path.join(MEMMAP, n, f)).read().strip()
        start, end = int(read("start"), 16), int(read("end"), 16)
        want.append((start, end - start + 1, types.get(read("type"), 2)))
    r = harness_hosted("--map", MEMMAP, "--map-only")
    assert r.rc == OK, r
    assert sorted(_mmap(r)) == sorted(want)
