# SPDX-License-Identifier: MIT
"""Memory maps, read in one place, whatever a user has: bootheap's serial
logs, records files and results folders; a Linux boot log (dmesg or
journalctl -k); a Xen boot log in either of Xen's formats; a
/sys/firmware/memmap folder; or a map file, the plain form that
build/bootheap-host reads (docs/usage-hosted.md, "Map files"), which `write` makes."""
import json
import os
import re

from harness.common import BenchError, parse_size

TOP = 1 << 64
MAX_TYPE = (1 << 32) - 1

# e820 type numbers: the ACPI specification's address range types, and
# Linux's additions (E820_TYPE_* in arch/x86/include/asm/e820/types.h).
RAM, RESERVED, ACPI, NVS, UNUSABLE, PMEM, PRAM, SOFT_RESERVED = 1, 2, 3, 4, 5, 7, 12, 0xefffffff
# The names the runner takes for the first five (mm/e820.c, e820_type_name()).
NAMES = {RAM: "RAM", RESERVED: "reserved", ACPI: "ACPI", NVS: "NVS", UNUSABLE: "unusable"}

# The words boot logs print: Linux 6.1's e820_print_type() (arch/x86/kernel/e820.c),
# Xen 4.17's print_e820_memory_map() (xen/arch/x86/e820.c) in parentheses. Any
# other type both print as "type N" (Linux: "persistent (type N)").
LOG_TYPES = {"usable": RAM, "reserved": RESERVED, "acpi data": ACPI, "acpi nvs": NVS,
             "unusable": UNUSABLE, "soft reserved": SOFT_RESERVED}
LOG_TYPE_NUMBER = re.compile(r"(?:persistent \()?type (\d+)\)?")
# /sys/firmware/memmap/N/type: Linux 6.1's e820_type_to_string() (arch/x86/kernel/e820.c).
SYSFS_TYPES = {"system ram": RAM, "reserved": RESERVED, "acpi tables": ACPI,
               "acpi non-volatile storage": NVS, "unusable memory": UNUSABLE,
               "persistent memory": PMEM, "persistent memory (legacy)": PRAM,
               "soft reserved": SOFT_RESERVED, "unknown e820 type": RESERVED}

# One map entry a line, searched anywhere in a line so that timestamps,
# journal prefixes and serial noise before it do not matter. Each is
# (family, pattern, end inclusive).
ENTRY_FORMATS = (
    # current Linux: "BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable"
    ("Linux", re.compile(r"BIOS-e820: \[mem (0x[0-9a-fA-F]+)-(0x[0-9a-fA-F]+)\] (.*)"), True),
    # older Linux (2.6): "BIOS-e820: 0000000000000000 - 000000000009fc00 (usable)"
    ("Linux", re.compile(r"BIOS-e820: ([0-9a-fA-F]+) - ([0-9a-fA-F]+) (.*)"), False),
    # current Xen (4.17): "(XEN)  [0000000000000000, 000000000009fbff] (usable)"
    ("Xen", re.compile(r"\(XEN\).*?\[([0-9a-fA-F]{16}), ([0-9a-fA-F]{16})\] (.*)"), True),
    # older Xen: "(XEN)  0000000000000000 - 000000000009fc00 (usable)"
    ("Xen", re.compile(r"\(XEN\).*?\b([0-9a-fA-F]{16}) - ([0-9a-fA-F]{16}) (.*)"), False),
)
# A table's first line: Linux's "BIOS-provided physical RAM map:", Xen's
# "<source> RAM map:" ("Initial ..." before Xen's own sanitising, with e820-verbose).
HEADERS = (("Linux", re.compile(r"BIOS-provided physical RAM map")),
           ("Xen", re.compile(r"\(XEN\).*\bRAM map:")))
RECORD_START = '{"type":'
E820_TYPE = re.compile(r'"type"\s*:\s*"e820"')
DECODER = json.JSONDecoder()
SERIAL_LOG = re.compile(r"serial-(.+)\.log")
# A map file's first range: the runner judges the rest, line by line.
PLAIN_LINE = re.compile(r"\s*(0[xX])?[0-9a-fA-F]+(\s.*)?")


class MapError(BenchError):
    """A map that cannot be read, with the file and line that says why."""


class Map:
    """Ranges [start, end) with e820 type numbers, where they came from
    (source, in words; kind: "records", "Linux", "Xen", "firmware" or
    "map file"), and where each one was there ("line 12", a folder). A
    map file is handed on as it is: plain is then its path."""

    def __init__(self, kind, entries, source, lines=None, plain=None):
        self.kind, self.entries, self.source, self.plain = kind, entries, source, plain
        self.lines = lines or [None] * len(entries)


def read(path, want=None):
    """The map at path, of any kind above -> Map. want (bytes) picks the
    guest of that size where bootheap's records hold several. Raises
    MapError naming the file, and the line when there is one."""
    m = _read(path, want)
    if want is not None and m.kind != "records":
        raise MapError(f"{path}: --mem picks a guest among bootheap's records; this is "
                       f"one machine's map ({m.kind})")
    return m


def _read(path, want):
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "records.jsonl")):
            return _pick(path, *_scan_records(os.path.join(path, "records.jsonl")), want)
        logs = sorted(n for n in os.listdir(path) if SERIAL_LOG.fullmatch(n))
        if logs:
            found, seen = [], []
            for name in logs:         # a boot that died early has none: the others may
                f, s = _scan_records(os.path.join(path, name), _size_of(name))
                found, seen = found + f, seen + s
            return _pick(path, found, seen, want)
        if any(n.isdigit() for n in os.listdir(path)):
            return read_sysfs(path)
        raise MapError(f"{path}: neither a results folder (records.jsonl, serial-<size>.log) "
                       "nor a /sys/firmware/memmap folder")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().replace("\r", "")
    except OSError as e:
        raise MapError(f"{path}: {e.strerror}")
    lines = text.split("\n")
    if any(RECORD_START in line for line in lines):
        return _pick(path, *_scan_records(path, _size_of(os.path.basename(path)), lines), want)
    m = read_log(path, lines)
    if m:
        return m
    first = next((x for x in lines if x.strip() and not x.lstrip().startswith("#")), "")
    if PLAIN_LINE.fullmatch(first):
        return Map("map file", [], f"the map file {path}", plain=path)
    raise MapError(f"{path}: no memory map in it: expected bootheap's records, Linux "
                   "'BIOS-e820:' lines, Xen '(XEN)' map lines or a map file (docs/usage-hosted.md, 'Map files')")


def _size_of(name):
    m = SERIAL_LOG.fullmatch(name)
    try:
        return parse_size(m.group(1)) if m else None
    except ValueError:
        return None


def _log_type(path, no, word):
    w = word.strip().strip("()").strip().lower()
    m = LOG_TYPE_NUMBER.fullmatch(w)
    if m and 1 <= int(m.group(1)) <= MAX_TYPE:
        return int(m.group(1))
    if w in LOG_TYPES:
        return LOG_TYPES[w]
    raise MapError(f"{path} line {no}: unknown memory type '{word.strip()}'")


def read_log(path, lines):
    """A Linux or Xen boot log's map -> Map, or None when it has none.
    Tables begin at their header or where addresses start again (another
    boot); Xen's "Initial" table gives way to the one Xen kept; identical
    tables (the same machine booted twice) count once."""
    tables, family = [], None          # tables: [(header, [(start, end, type, line)])]
    for no, line in enumerate(lines, 1):
        if any(pat.search(line) for _, pat in HEADERS):
            tables.append((line.strip(), []))
            continue
        for fam, pat, inclusive in ENTRY_FORMATS:
            m = pat.search(line)
            if m:
                break
        else:
            continue
        if family and fam != family[0]:
            raise MapError(f"{path} line {no}: a {fam} map line, where line {family[1]} was "
                           f"{family[0]}'s: keep one system's log")
        family = family or (fam, no)
        start, last = int(m.group(1), 16), int(m.group(2), 16)
        end = last + 1 if inclusive else last
        if end <= start:
            raise MapError(f"{path} line {no}: the range {m.group(1)}-{m.group(2)} is empty or ends "
                           "before it starts")
        if not tables or (tables[-1][1] and start < tables[-1][1][-1][0]):
            tables.append((tables[-1][0] if tables else "", []))
        tables[-1][1].append((start, min(end, TOP), _log_type(path, no, m.group(3)), no))
    tables = [(h, t) for h, t in tables if t]
    if not tables:
        return None
    if any("Initial" not in h for h, _ in tables):
        tables = [(h, t) for h, t in tables if "Initial" not in h]
    distinct = {}
    for _, t in tables:
        distinct.setdefault(tuple(e[:3] for e in t), t)
    if len(distinct) > 1:
        spans = ", ".join(f"lines {t[0][3]} to {t[-1][3]}" for t in distinct.values())
        raise MapError(f"{path} holds {len(distinct)} different maps ({spans}): keep one boot's "
                       "lines (journalctl -k -b, or cut the log)")
    t = next(iter(distinct.values()))
    return Map(family[0], [e[:3] for e in t],
               f"the {family[0]} boot log {path}, lines {t[0][3]} to {t[-1][3]}", [f"line {e[3]}" for e in t])


def read_sysfs(path):
    """A /sys/firmware/memmap folder (N/start, N/end inclusive, N/type) -> Map."""
    out = []
    for n in sorted((x for x in os.listdir(path) if x.isdigit()), key=int):
        where = os.path.join(path, n)
        try:
            start, last, word = (_first_line(os.path.join(where, f)) for f in ("start", "end", "type"))
        except OSError as e:
            raise MapError(f"{e.filename}: {e.strerror}")
        try:
            s, end = int(start, 16), int(last, 16) + 1
        except ValueError:
            raise MapError(f"{where}: start {start!r} or end {last!r} is not a hexadecimal address")
        if end <= s or end > TOP:
            raise MapError(f"{where}: the range {start}-{last} is empty or ends before it starts")
        if word.lower() not in SYSFS_TYPES:
            raise MapError(f"{where}/type: unknown memory type {word!r}")
        out.append((s, end, SYSFS_TYPES[word.lower()], int(n)))
    if not out:
        raise MapError(f"{path}: no entries")
    out.sort()
    return Map("firmware", [e[:3] for e in out], f"the firmware map {path}",
               [os.path.join(path, str(e[3])) for e in out])


def _first_line(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline().strip()


class _Found:
    """One e820 record: its guest's size (None: unknown), entries, and
    where: its file and line."""

    def __init__(self, size, entries, path, no):
        self.size, self.entries, self.path, self.no = size, entries, path, no


def _scan_records(path, size=None, lines=None):
    """Every e820 record of a serial log or records.jsonl -> ([_Found], the
    other record types seen, for the message when there is none)."""
    if lines is None:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().replace("\r", "").split("\n")
        except OSError as e:
            raise MapError(f"{path}: {e.strerror}")
    found, seen = [], []
    for no, line in enumerate(lines, 1):
        obj = _decode(line)
        if obj is None:
            if E820_TYPE.search(line):
                raise MapError(f"{path} line {no}: an e820 record that is not whole JSON")
            continue
        rec, sz = obj, size
        if isinstance(obj, dict) and isinstance(obj.get("record"), dict):      # records.jsonl
            rec, sz = obj["record"], obj.get("size_bytes") if isinstance(obj.get("size_bytes"), int) else size
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            continue
        if rec["type"] != "e820":
            seen.append(rec["type"])
            continue
        found.append(_Found(sz, _record_entries(rec, f"{path} line {no}"), path, no))
    return found, seen


def _decode(line):
    """The JSON object a line holds, from its first '{' or its record's
    start (a serial log may have text before it), or None."""
    for at in dict.fromkeys((line.find("{"), line.find(RECORD_START))):
        if at >= 0:
            try:
                return DECODER.raw_decode(line, at)[0]
            except json.JSONDecodeError:
                pass
    return None


def _record_entries(rec, where):
    """The sanitised list of the kernel's e820 record -> [(start, end, type)]."""
    if not isinstance(rec.get("sanitised"), list):
        raise MapError(f'{where}: the e820 record has no "sanitised" list')
    if not rec["sanitised"]:
        raise MapError(f"{where}: the e820 record's map is empty")
    out = []
    for e in rec["sanitised"]:
        if not isinstance(e, dict) or set(e) != {"addr", "len", "type"}:
            raise MapError(f"{where}: an entry is not {{addr, len, type}}: {json.dumps(e)[:60]}")
        if not all(isinstance(e[k], int) and not isinstance(e[k], bool) for k in e):
            raise MapError(f"{where}: an entry holds other than whole numbers: {json.dumps(e)[:60]}")
        if e["addr"] < 0 or e["len"] <= 0 or e["addr"] + e["len"] > TOP or not 1 <= e["type"] <= MAX_TYPE:
            raise MapError(f"{where}: an entry is out of range: {json.dumps(e)[:80]}")
        out.append((e["addr"], e["addr"] + e["len"], e["type"]))
    return out


def _pick(path, found, seen, want):
    """The one map among found, of the guest of want bytes when given."""
    if not found:
        kinds = ", ".join(dict.fromkeys(seen))
        raise MapError(f"{path}: no e820 record "
                       f"({'records found: ' + kinds if kinds else 'no records at all'})")
    if want is not None:
        sizes = _sizes(found)
        found = [f for f in found if f.size == want]
        if not found:
            raise MapError(f"{path}: no e820 record of a {want >> 20} MiB guest; there are {sizes}")
    if len({tuple(f.entries) for f in found}) > 1:
        raise MapError(f"{path} holds the maps of several guests ({_sizes(found)}): choose one "
                       "with --mem SIZE")
    f = found[0]
    return Map("records", f.entries, f"the e820 record at {f.path} line {f.no}",
               [f"line {f.no}"] * len(f.entries))


def _sizes(found):
    return ", ".join(dict.fromkeys(f"{f.size >> 20} MiB" if f.size else "one of unknown size" for f in found))


def text(m):
    """The map file of m (docs/usage-hosted.md, "Map files"): a range a line, each
    with the line of its source in a comment. The format stops at 2^64 - 1,
    so a range reaching 2^64 loses its last byte."""
    out = ["# bootheap map file: start end type, hexadecimal, the end exclusive",
           f"# from {m.source}"]
    for (start, end, t), line in zip(m.entries, m.lines):
        end = min(end, TOP - 1)
        if end > start:
            out.append(f"{start:#018x} {end:#018x} {NAMES.get(t, t):<8}" + (f"  # {line}" if line else ""))
    return "\n".join(out) + "\n"


def write(m, path):
    """Writes m as a map file at path and returns path; a map file read as
    one is handed on as it is, its own path returned."""
    if m.plain:
        return m.plain
    with open(path, "w", encoding="utf-8") as f:
        f.write(text(m))
    return path
