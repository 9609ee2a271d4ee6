# SPDX-License-Identifier: MIT
"""harness/results/maps.py: every kind of memory map a user may have, each read to
the map it holds (written out here by hand from the logs in data/maps/),
every refusal naming the file and line, and the map file it writes."""
import json
import os
import shutil

import pytest

from harness.results import maps
from harness.common import GIB, MIB

HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, "data", "maps")
RECORDED = os.path.join(HERE, "data", "recorded-tcg")
RAM, RES, ACPI, NVS, BAD = 1, 2, 3, 4, 5


def read(name):
    return maps.read(os.path.join(LOGS, name))


def test_linux_dmesg_with_timestamps():
    """Only the BIOS-e820 table: not the e820 updates, nor the extended map."""
    m = read("linux-dmesg.txt")
    assert m.entries == [
        (0x0, 0x9f000, RAM), (0x9f000, 0x100000, RES), (0x100000, 0x9b00000, RAM),
        (0x9b00000, 0x9e00000, RES), (0x9e00000, 0x9f00000, RAM), (0x9f00000, 0x9f3c000, NVS),
        (0x9f3c000, 0xbd6bf000, RAM), (0xbd6bf000, 0xbd8b4000, RES), (0xbd8b4000, 0xbd91c000, ACPI),
        (0xbd91c000, 0xbdf0c000, NVS), (0xbdf0c000, 0xbe9ff000, RES), (0xbe9ff000, 0xc0000000, RAM),
        (0xc0000000, 0xc1000000, BAD), (0xf0000000, 0xf8000000, RES), (0xfd000000, 0x100000000, RES),
        (0x100000000, 0x83f380000, RAM), (0x83f380000, 0x840000000, RES),
        (0x840000000, 0x880000000, 12), (0xfd00000000, 0x10000000000, RES)]
    assert m.lines[0] == "line 10" and m.lines[-1] == "line 29"
    assert "Linux boot log" in m.source and "lines 10 to 29" in m.source


def test_linux_journal():
    m = read("linux-journal.txt")
    assert m.entries == [
        (0x0, 0x9fc00, RAM), (0x9fc00, 0xa0000, RES), (0xf0000, 0x100000, RES),
        (0x100000, 0x3ffdd000, RAM), (0x3ffdd000, 0x40000000, RES), (0xb0000000, 0xc0000000, RES),
        (0xfed1c000, 0xfed20000, RES), (0xfeffc000, 0xff000000, RES), (0xfffc0000, 0x100000000, RES)]


def test_xen_4_17_inclusive_ends():
    m = read("xen-4.17.txt")
    assert m.entries == [
        (0x0, 0x9c000, RAM), (0x9c000, 0xa0000, RES), (0xe0000, 0x100000, RES),
        (0x100000, 0x6e800000, RAM), (0x6e800000, 0x6f300000, RES), (0x6f300000, 0x6f9b3000, ACPI),
        (0x6f9b3000, 0x6ff6f000, NVS), (0x6ff6f000, 0x6ffff000, RES), (0x6ffff000, 0x70000000, RAM),
        (0x70000000, 0x90000000, RES), (0xfd000000, 0xfe800000, RES), (0xfed20000, 0xfed45000, RES),
        (0xff000000, 0x100000000, RES), (0x100000000, 0x1080000000, RAM)]
    assert "Xen boot log" in m.source


def test_xen_4_1_exclusive_ends():
    m = read("xen-4.1.txt")
    assert m.entries == [
        (0x0, 0x9c000, RAM), (0x9c000, 0xa0000, RES), (0xe0000, 0x100000, RES),
        (0x100000, 0xbf780000, RAM), (0xbf78e000, 0xbf790000, 9), (0xbf790000, 0xbf79e000, ACPI),
        (0xbf79e000, 0xbf7d0000, NVS), (0xbf7d0000, 0xbf7e0000, RES), (0xbf7ec000, 0xc0000000, RES),
        (0xe0000000, 0xf0000000, RES), (0xfee00000, 0xfee01000, RES), (0xffc00000, 0x100000000, RES),
        (0x100000000, 0x440000000, RAM)]


def test_linux_2_6_format(tmp_path):
    p = tmp_path / "old.txt"
    p.write_text("BIOS-provided physical RAM map:\n"
                 " BIOS-e820: 0000000000000000 - 000000000009f800 (usable)\n"
                 " BIOS-e820: 000000000009f800 - 00000000000a0000 (reserved)\n"
                 " BIOS-e820: 0000000000100000 - 000000003fff0000 (usable)\n"
                 " BIOS-e820: 000000003fff0000 - 0000000040000000 (ACPI data)\n")
    assert maps.read(str(p)).entries == [(0, 0x9f800, RAM), (0x9f800, 0xa0000, RES),
                                         (0x100000, 0x3fff0000, RAM), (0x3fff0000, 0x40000000, ACPI)]


def test_xen_with_timestamps_and_an_initial_map(tmp_path):
    """With e820-verbose Xen prints its raw map first: the one it kept wins."""
    p = tmp_path / "xen.txt"
    p.write_text("(XEN) [    0.000000] Initial Xen-e820 RAM map:\n"
                 "(XEN) [    0.000000]  [0000000000100000, 000000007fffffff] (usable)\n"
                 "(XEN) [    0.000000]  [0000000000000000, 000000000009ffff] (usable)\n"
                 "(XEN) [    0.000000]  [0000000080000000, 00000000bfffffff] (usable)\n"
                 "(XEN) [    0.000000] Xen-e820 RAM map:\n"
                 "(XEN) [    0.000000]  [0000000000000000, 000000000009ffff] (usable)\n"
                 "(XEN) [    0.000000]  [0000000000100000, 000000007fffffff] (usable)\n"
                 "(XEN) [    0.000000]  [00000000feffc000, 00000000feffffff] (reserved)\n")
    m = maps.read(str(p))
    assert m.entries == [(0, 0xa0000, RAM), (0x100000, 0x80000000, RAM), (0xfeffc000, 0xff000000, RES)]
    assert m.lines == ["line 6", "line 7", "line 8"]


def _boot(header, lines):
    return [header, "BIOS-provided physical RAM map:"] + [
        f"BIOS-e820: [mem {s:#018x}-{e - 1:#018x}] usable" for s, e in lines]


def test_two_boots_of_one_machine_are_one_map(tmp_path):
    p = tmp_path / "journal.txt"
    one = [(0, 0x9fc00), (0x100000, 0x40000000)]
    p.write_text("\n".join(_boot("-- Boot 1 --", one) + _boot("-- Boot 2 --", one)) + "\n")
    assert maps.read(str(p)).entries == [(s, e, RAM) for s, e in one]


def test_two_different_boots_are_refused(tmp_path):
    p = tmp_path / "journal.txt"
    p.write_text("\n".join(_boot("-- Boot 1 --", [(0, 0x9fc00), (0x100000, 0x40000000)]) +
                           _boot("-- Boot 2 --", [(0, 0x9fc00), (0x100000, 0x80000000)])) + "\n")
    with pytest.raises(maps.MapError, match=r"holds 2 different maps \(lines 3 to 4, lines 7 to 8\)"):
        maps.read(str(p))


def test_a_table_without_its_header(tmp_path):
    """A log cut after the header: addresses that start again split boots."""
    p = tmp_path / "cut.txt"
    p.write_text("[0.0] BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n"
                 "[0.0] BIOS-e820: [mem 0x0000000000100000-0x000000001fffffff] usable\n"
                 "[0.0] BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n"
                 "[0.0] BIOS-e820: [mem 0x0000000000100000-0x000000003fffffff] usable\n")
    with pytest.raises(maps.MapError, match="holds 2 different maps"):
        maps.read(str(p))


@pytest.mark.parametrize("line, says", [
    ("BIOS-e820: [mem 0x0000000000100000-0x00000000000fffff] usable", "line 2: the range .* is empty"),
    ("BIOS-e820: [mem 0x0000000000100000-0x000000000010ffff] sparkly", "line 2: unknown memory type 'sparkly'"),
    ("(XEN)  [0000000000100000, 000000000010ffff] (usable)", "line 2: a Xen map line, where line 1 was Linux's"),
])
def test_bad_log_lines(tmp_path, line, says):
    p = tmp_path / "bad.txt"
    p.write_text("BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n" + line + "\n")
    with pytest.raises(maps.MapError, match=str(p) + " " + says):
        maps.read(str(p))


def test_a_size_is_for_bootheap_records_only():
    with pytest.raises(maps.MapError, match=r"--mem picks a guest among bootheap's records; this is "
                       r"one machine's map \(Xen\)"):
        maps.read(os.path.join(LOGS, "xen-4.1.txt"), GIB)


def test_no_map_at_all(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("nothing about memory here\n")
    with pytest.raises(maps.MapError, match="no memory map in it"):
        maps.read(str(p))
    with pytest.raises(maps.MapError, match="/nonexistent/x.log: No such file"):
        maps.read("/nonexistent/x.log")


def _memmap(tmp_path, entries):
    root = tmp_path / "memmap"
    for i, (start, last, kind) in enumerate(entries):
        d = root / str(i)
        d.mkdir(parents=True)
        (d / "start").write_text(f"{start:#x}\n")
        (d / "end").write_text(f"{last:#x}\n")
        (d / "type").write_text(kind + "\n")
    return str(root)


def test_sys_firmware_memmap(tmp_path):
    """Inclusive ends, Linux's type strings, and twelve entries: 10 and 11
    sort after 9 by address, not by name."""
    kinds = ["System RAM", "Reserved", "ACPI Tables", "ACPI Non-volatile Storage", "Unusable memory",
             "Persistent Memory", "Persistent Memory (legacy)", "Soft Reserved", "Unknown E820 type",
             "System RAM", "Reserved", "System RAM"]
    entries = [(i * 0x100000, i * 0x100000 + 0xfffff, k) for i, k in enumerate(kinds)]
    m = maps.read(_memmap(tmp_path, entries))
    assert m.entries == [(i * MIB, (i + 1) * MIB, t) for i, t in
                         enumerate([RAM, RES, ACPI, NVS, BAD, 7, 12, 0xefffffff, RES, RAM, RES, RAM])]
    assert m.lines[11].endswith("/memmap/11")


@pytest.mark.parametrize("entry, says", [
    ((0x1000, 0xfff, "System RAM"), "the range 0x1000-0xfff is empty"),
    ((0, 0xfff, "Magic RAM"), "unknown memory type 'Magic RAM'"),
    ((0, "zz", "System RAM"), "not a hexadecimal address"),
])
def test_bad_sys_firmware_memmap(tmp_path, entry, says):
    root = tmp_path / "memmap" / "0"
    root.mkdir(parents=True)
    for f, v in zip(("start", "end", "type"), entry):
        (root / f).write_text(v if isinstance(v, str) else f"{v:#x}")
    with pytest.raises(maps.MapError, match=says):
        maps.read(str(tmp_path / "memmap"))


E820 = {"type": "e820", "raw_count": 2, "sanitised": [{"addr": 0, "len": 654336, "type": 1},
                                                       {"addr": 1048576, "len": 255 * MIB, "type": 1}]}


def test_a_serial_log_and_a_records_file(tmp_path):
    log = tmp_path / "boot.log"
    log.write_text("bootheap 0.1\n" + json.dumps(E820, separators=(",", ":")) + "\nmore text\n")
    want = [(0, 654336, RAM), (MIB, 256 * MIB, RAM)]
    m = maps.read(str(log))
    assert m.entries == want and m.source == f"the e820 record at {log} line 2"
    jl = tmp_path / "records.jsonl"
    jl.write_text(json.dumps({"size_bytes": 256 * MIB, "size": "256M", "source": "kernel", "record": E820}) + "\n")
    assert maps.read(str(jl)).entries == want


def test_a_results_folder_with_two_sizes(tmp_path):
    with pytest.raises(maps.MapError, match=r"several guests \(1024 MiB, 2048 MiB\): choose one with --mem"):
        maps.read(RECORDED)
    m = maps.read(RECORDED, 2 * GIB)
    assert (MIB, 2 * GIB, RAM) in m.entries and (MIB, GIB, RAM) in maps.read(RECORDED, GIB).entries
    with pytest.raises(maps.MapError, match="no e820 record of a 512 MiB guest; there are 1024 MiB, 2048 MiB"):
        maps.read(RECORDED, 512 * MIB)
    # The same folder as bare serial logs: the size from each file's name.
    logs = tmp_path / "logs"
    logs.mkdir()
    for n in ("serial-1G.log", "serial-2G.log"):
        shutil.copy(os.path.join(RECORDED, n), logs / n)
    assert maps.read(str(logs), GIB).entries == maps.read(RECORDED, GIB).entries


def test_a_folder_where_one_boot_died_early(tmp_path):
    """A serial log without an e820 record: the other sizes still serve."""
    (tmp_path / "serial-1G.log").write_text("bootheap 0.1\npanic: early\n")
    shutil.copy(os.path.join(RECORDED, "serial-2G.log"), tmp_path / "serial-2G.log")
    assert maps.read(str(tmp_path)).entries == maps.read(RECORDED, 2 * GIB).entries
    os.remove(tmp_path / "serial-2G.log")
    with pytest.raises(maps.MapError, match=r"no e820 record \(no records at all\)"):
        maps.read(str(tmp_path))


@pytest.mark.parametrize("text, says", [
    ("", "no memory map in it"),
    ('{"type":"bogus","x":1}\n{"type":"boot","mmap":[]}\n', r"no e820 record \(records found: bogus, boot\)"),
    ('{"type":"e820","raw_count":1}\n', 'line 1: the e820 record has no "sanitised" list'),
    ('{"type":"e820","sanitised":[]}\n', "line 1: the e820 record's map is empty"),
    ('{"type":"e820","sanitised":[{"addr":0,"len":4096}]}\n', r"line 1: an entry is not \{addr, len, type\}"),
    ('{"type":"e820","sanitised":[{"addr":0,"len":4096,"type":1,"colour":2}]}\n', "an entry is not"),
    ('{"type":"e820","sanitised":[{"addr":0,"len":"4096","type":1}]}\n', "holds other than whole numbers"),
    ('{"type":"e820","sanitised":[{"addr":0,"len":-5,"type":1}]}\n', "an entry is out of range"),
    ('{"type":"e820","sanitised":[{"addr":1,"len":2,"type":99999999999}]}\n', "an entry is out of range"),
    ('x\n{"type":"e820","sanitised":[{"addr":0,"len":4096,"type":1}\n', "line 2: an e820 record that is not whole JSON"),
    ("\x00\xff\xfe garbage \x01\n" * 50, "no memory map in it"),
])
def test_malformed_records(tmp_path, text, says):
    p = tmp_path / "map.log"
    p.write_text(text)
    with pytest.raises(maps.MapError, match=says):
        maps.read(str(p))


def test_the_map_file_written(tmp_path):
    """One range a line in hexadecimal with the end exclusive, names for the
    runner's types and numbers for others; a range to 2^64 stops a byte short."""
    m = maps.Map("Linux", [(0, 0x9fc00, RAM), (0x840000000, 0x880000000, 12), (0xfffff000, 1 << 64, RES)],
                 "a test", ["line 3", "line 4", None])
    lines = maps.text(m).splitlines()
    assert lines[0].startswith("#") and lines[1] == "# from a test"
    assert [x.split("#")[0].split() for x in lines[2:]] == [
        ["0x0000000000000000", "0x000000000009fc00", "RAM"],
        ["0x0000000840000000", "0x0000000880000000", "12"],
        ["0x00000000fffff000", "0xffffffffffffffff", "reserved"]]
    assert lines[2].endswith("# line 3") and "#" not in lines[4]


def test_a_map_file_is_handed_on_as_it_is(tmp_path):
    p = tmp_path / "machine.map"
    p.write_text("# mine\n0x0 0x9fc00 RAM\n100000 40000000 1\n")
    m = maps.read(str(p))
    assert m.plain == str(p) and maps.write(m, str(tmp_path / "other")) == str(p)
    assert not os.path.exists(tmp_path / "other")
