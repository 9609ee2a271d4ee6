# SPDX-License-Identifier: MIT
"""The QR code's payload (docs/records.md, "The QR code's payload") read back
into the kernel's own record shapes, so that a run seen only on a screen
joins a results folder beside QEMU and hosted runs.

A payload carries medians, not single runs: the records made here are the
kernel's `boot`, `bench`, `calibration`, init `summary` and `comparison`
records with what the payload holds, a `done` record (a code is only shown
after a run that ended well) and the `qr` record with the payload itself.
A strategy renamed since the payload was shown reads under its name today
(harness/results/names.py); the `qr` record keeps the payload as it was.
"""
import json
import os
import re

from harness.common import BenchError, size_label
from harness.results.names import strategy
from harness.results.records import load_jsonl, load_logs

FORMAT = "qr1"
FLOOR = "floor"
NAME = re.compile(r"[a-z][a-z0-9_-]*")


class PayloadError(ValueError):
    """A payload that is not one bootheap prints; the message says where."""


def _int(text, what):
    if not re.fullmatch(r"[0-9]+", text):
        raise PayloadError(f"{what}: expected a whole number, found {text!r}")
    return int(text)


def _fixed(text, decimals, what, dash_ok=False):
    """'12.345' with exactly `decimals` decimals -> float; '-' -> None when allowed."""
    if dash_ok and text == "-":
        return None
    if not re.fullmatch(rf"[0-9]+\.[0-9]{{{decimals}}}", text):
        raise PayloadError(f"{what}: expected a number with {decimals} decimals, found {text!r}")
    return float(text)


def parse(text):
    """Payload text -> list of records. Raises PayloadError naming the line
    and field that do not fit the format."""
    lines = text.strip("\n").replace("\r", "").split("\n")
    if len(lines) < 5:
        raise PayloadError(f"a bootheap payload has at least 5 lines, this one {len(lines)}")
    head = lines[0].split(" ")
    if len(head) != 3 or head[0] != "bootheap" or head[2] != FORMAT:
        raise PayloadError(f"line 1: expected 'bootheap VERSION {FORMAT}', found {lines[0]!r}")
    version = head[1]

    machine = lines[1].split(" ")
    if len(machine) != 6:
        raise PayloadError(f"line 2: expected 'ACCEL RAM PAGES RUNS CLOCK KHZ', found {lines[1]!r}")
    accel = machine[0].replace("-", " ")
    mem, pages, runs = (_int(machine[i], f"line 2, {k}") for i, k in ((1, "RAM"), (2, "PAGES"), (3, "RUNS")))
    clock, khz = machine[4], _int(machine[5], "line 2, KHZ")
    calibrated = clock != "none"
    brand = lines[2]

    rows = []
    for n, line in enumerate(lines[3:-1], start=4):
        f = line.split(" ")
        if len(f) != 5 or not NAME.fullmatch(f[0]):
            raise PayloadError(f"line {n}: expected 'STRATEGY MEDIAN NS/PAGE VS_PAGE X_FLOOR', found {line!r}")
        rows.append({"strategy": strategy(f[0]), "median": _int(f[1], f"line {n}, median"),
                     "ns_per_page": _fixed(f[2], 3, f"line {n}, ns/page", dash_ok=not calibrated),
                     "speedup": _fixed(f[3], 2, f"line {n}, speedup", dash_ok=True),
                     "x_floor": _fixed(f[4], 2, f"line {n}, x floor")})
    if not rows or rows[-1]["strategy"] != FLOOR:
        raise PayloadError(f"line {len(lines) - 1}: the last strategy line must be the floor")
    heap = rows[:-1]
    if not heap:
        raise PayloadError("no heap strategy before the floor")
    if len({r["strategy"] for r in rows}) != len(rows):
        raise PayloadError("a strategy appears twice")

    tail = lines[-1].split(" ")
    if len(tail) != 2 or not re.fullmatch(r"[0-9a-f]{16}", tail[0]) or tail[1] not in ("same", "differ"):
        raise PayloadError(f"line {len(lines)}: expected 'DIGEST same|differ', found {lines[-1]!r}")
    equal = tail[1] == "same"

    def ns(v):
        return v if calibrated else None

    out = [
        {"type": "boot", "version": version, "loader": "qr", "accel": accel, "cpu_brand": brand},
        {"type": "calibration", "khz": khz if calibrated else 0, "source": clock, "calibrated": calibrated},
        {"type": "bench", "mem_bytes": mem, "pages": pages, "accel": accel, "emulated": accel == "TCG",
         "calibrated": calibrated, "tsc_khz": khz, "source": clock, "runs": runs,
         "strategies": [r["strategy"] for r in heap]},
    ]
    for r in rows:
        out.append({"type": "summary", "strategy": r["strategy"], "phase": "init", "runs": runs,
                    "median_ns": ns(r["median"]), "ns_per_page": r["ns_per_page"],
                    **({} if calibrated else {"median_ticks": r["median"]})})
    for r in heap:
        out.append({"type": "comparison", "strategy": r["strategy"], "speedup_vs_page": r["speedup"],
                    "x_floor": r["x_floor"], "init_median_ns": ns(r["median"]), "digest_equal": equal})
    out.append({"type": "qr", "payload": "\n".join(lines), "digest": "0x" + tail[0]})
    out.append({"type": "done", "status": "ok"})
    return out


def read(source):
    """A payload given as text (newlines, or backslash-n on one line), or as
    the name of a file holding it."""
    if "\n" not in source and os.path.isfile(source):
        with open(source, encoding="utf-8", errors="replace") as f:
            return f.read()
    if "\n" not in source and "\\n" not in source:
        raise BenchError(f"payload {source!r}: no such file, and no payload text either (a payload "
                         "has several lines, given with newlines or \\n)")
    return source if "\n" in source else source.replace("\\n", "\n")


def add_to_folder(folder, source):
    """Adds the run whose payload `source` is (read()) to a results folder,
    created when missing, as one more size labelled <RAM>-qr, -qr2, ...;
    returns the label. A folder of bare serial logs moves to records.jsonl
    first. Raises BenchError for a payload that is not one bootheap prints."""
    try:
        recs = parse(read(source))
    except PayloadError as e:
        raise BenchError(f"not a bootheap QR payload: {e}")
    bench = next(r for r in recs if r["type"] == "bench")
    if not bench["calibrated"]:
        raise BenchError("the payload's run had no calibrated clock: its figures are TSC ticks, "
                         "and a results folder holds nanoseconds")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "records.jsonl")
    lines = []
    if not os.path.exists(path) and any(re.fullmatch(r"serial-.+\.log", n) for n in os.listdir(folder)):
        for run in load_logs(folder).sizes:
            lines += [json.dumps({"size_bytes": run.nbytes, "size": run.label, "record": r})
                      for r in run.records]
    taken = {s.label for s in load_jsonl(path).sizes} if os.path.exists(path) else set()
    taken |= {json.loads(line)["size"] for line in lines}
    base = size_label(bench["mem_bytes"]) + "-qr"
    label = next(base + (str(n) if n > 1 else "") for n in range(1, len(taken) + 2)
                 if base + (str(n) if n > 1 else "") not in taken)
    lines += [json.dumps({"size_bytes": bench["mem_bytes"], "size": label, "source": "qr", "record": r})
              for r in recs]
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return label
