# SPDX-License-Identifier: MIT
"""The runs behind the front page: docs/results/ keeps their records, and
the harness writes from copies of them the very tables that the results
pages (docs/results.md and its docs/results-*.md) quote and the figures of
README.md's table."""
import glob
import json
import os
import re
import subprocess
import sys

import pytest

from doclinks import ROOT

RESULTS = os.path.join(ROOT, "docs", "results")
# The records each folder keeps, and the command that writes its report.
FOLDERS = {
    "bench-host": ("records.jsonl", ["report"], "python3 -m harness report"),
    "peers": ("peers.jsonl", ["binaries", "report"], "python3 -m harness binaries report"),
    "peers-linux": ("peers.jsonl", ["binaries", "report"], "python3 -m harness binaries report"),
}
# <!-- from docs/results/NAME by COMMAND: "HEADING" --> marks a table quoted from a report.
MARK = re.compile(r"<!-- from docs/results/(\S+) by (.+?): \"(.+?)\" -->")


def regenerate(dst_parent, name, edit=None):
    """A copy of the folder's records alone (edited by edit(lines), if given),
    and the report the harness writes from it -> report.md's text."""
    records, args, _ = FOLDERS[name]
    dst = dst_parent / name
    dst.mkdir()
    with open(os.path.join(RESULTS, name, records), encoding="utf-8") as f:
        lines = f.read().splitlines()
    (dst / records).write_text("\n".join(edit(lines) if edit else lines) + "\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "harness"] + args + [str(dst)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return (dst / "report.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    base = tmp_path_factory.mktemp("regenerated")
    return {name: regenerate(base, name) for name in FOLDERS}


def table_after(text, heading):
    """The lines of the first Markdown table under the heading, before any
    other heading."""
    m = re.search(rf"^#+ {re.escape(heading)}\n", text, re.M)
    assert m, f"no heading {heading!r}"
    rows = []
    for line in text[m.end():].split("\n"):
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    assert rows, f"no table under {heading!r}"
    return rows


def cells(table, first):
    """The cells of the table's row whose first cell is first."""
    for line in table:
        row = [c.strip() for c in line.strip("|").split("|")]
        if row[0] == first:
            return row
    raise AssertionError(f"no row {first!r} in {table[0]}")


def result_pages():
    """The results index and its pages, as paths relative to the tree."""
    return ["docs/results.md"] + sorted(os.path.relpath(p, ROOT) for p in
                                        glob.glob(os.path.join(ROOT, "docs", "results-*.md")))


def quoted():
    """[(page, folder, command, heading, table lines)] of the results pages'
    marked tables."""
    out = []
    for page in result_pages():
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            text = f.read()
        for m in MARK.finditer(text):
            rows = []
            for line in text[m.end():].lstrip("\n").split("\n"):
                if not line.startswith("|"):
                    break
                rows.append(line)
            out.append((page, m.group(1), m.group(2), m.group(3), rows))
    return out


def test_the_records_behind_the_front_page_are_kept():
    for name, (records, _, _) in FOLDERS.items():
        path = os.path.join(RESULTS, name, records)
        with open(path, encoding="utf-8") as f:
            assert all(json.loads(line) for line in f if line.strip()), path


def test_every_quoted_table_is_what_the_harness_writes_from_the_records(reports):
    marked = quoted()
    assert {m[1] for m in marked} == set(FOLDERS), marked
    for page, name, command, heading, rows in marked:
        assert command == FOLDERS[name][2], f"{page}: {heading}: made by {FOLDERS[name][2]}, not {command}"
        assert rows, f"{page}: no table after the mark of {heading!r}"
        assert rows == table_after(reports[name], heading), \
            f"{page}'s {heading!r} is not what {command} writes from docs/results/{name}"
        with open(os.path.join(RESULTS, name, "report.md"), encoding="utf-8") as f:
            assert rows == table_after(f.read(), heading), f"docs/results/{name}/report.md's {heading!r}"


def front_page():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    table = table_after(text, "What it found")
    return text, {re.match(r"\[([^\]]+)\]", c[0]).group(1): c
                  for c in ([x.strip() for x in line.strip("|").split("|")] for line in table[2:])}


def test_the_front_page_figures_are_the_reports(reports):
    text, rows = front_page()
    host, peers = reports["bench-host"], reports["peers"]
    x = cells(table_after(host, "Hosted beside Xen's published figures"), "8 GB")
    assert rows["Xen, published"][2:] == [f"{x[1]} ns a page", f"{x[2]} ns a page", x[3]]
    hosted = rows["bootheap, hosted"]
    # Each hosted figure with its 95 % interval, as the report's interval section gives it.
    iv = {c[1]: c[4].split(" [")[1].rstrip("]") for c in
          ([cell.strip() for cell in line.strip("|").split("|")]
           for line in table_after(host, "Hosted: 95 % intervals"))
          if c[0] == "8 GiB" and c[2] == "init" and "[" in c[4]}
    assert hosted[2] == f"{x[4]} ns (`page`; 95% interval {iv['page']})"
    assert hosted[3].startswith(f"{x[5]} ns (`chunk_72b02bc`, the code Xen timed; {iv['chunk_72b02bc']});")
    assert f"; {x[7]} ns (`chunk`, 4.17.0 as released; {iv['chunk']})" in hosted[3]
    assert hosted[4] == f"{x[6]}; {x[8]}"
    load = re.search(r"load average (\d+\.\d+) to (\d+\.\d+)", host)
    assert f"load {float(load.group(1)):.1f} to {float(load.group(2)):.1f}" in hosted[1]
    p = cells(table_after(peers, "Instructions a page handed over: Xen beside page and chunk"), "8 GiB")
    assert rows["Xen 4.14 and 4.17, the real binaries"][2:] == \
        [f"{p[2]} instructions a page", f"{p[5]} instructions a page", p[8]]
    assert rows["bootheap under `-icount`"][2:] == [f"{p[3]} (`page`)", f"{p[6]} (`chunk`)", p[9]]
    linux = cells(table_after(peers, "Linux 6.1: its three phases"), "8 GiB")
    assert rows["Linux 6.1, the real binary"][3] == f"{linux[4]} instructions a page handed over"
    cpu = [c for c in table_after(host, "Hosted: CPU time of each window")
           if c.startswith("| 8 GiB | once | init |")]
    head = [c.strip() for c in table_after(host, "Hosted: CPU time of each window")[0].strip("|").split("|")]
    once = dict(zip(head, (c.strip() for c in cpu[0].strip("|").split("|"))))
    assert f"{once['CPU ns/page, median [min-max]'].split()[0]} ns a page at 8 GiB, {once['x floor (CPU)']}x" \
        in " ".join(text.split())


def cpu_time_scaled(strategy, num, den, phase=None):
    """An edit for regenerate(): the strategy's CPU time at 8 GiB (one phase,
    or every one) times num / den."""
    def edit(lines):
        out = []
        for line in lines:
            w = json.loads(line)
            rec = w.get("record", {})
            if w.get("size_bytes") == 8 << 30 and rec.get("type") == "cpu_time" and \
                    rec.get("strategy") == strategy and phase in (None, rec.get("phase")):
                rec["ns"] = rec["ns"] * num // den
            out.append(json.dumps(w))
        return out
    return edit


def test_a_changed_record_changes_the_table(tmp_path, reports):
    """The tables come from the records: page's CPU time at 8 GiB a tenth
    longer, and its figure beside Xen's moves."""
    slower = cpu_time_scaled("page", 11, 10)
    heading = "Hosted beside Xen's published figures"
    before = cells(table_after(reports["bench-host"], heading), "8 GB")
    after = cells(table_after(regenerate(tmp_path, "bench-host", slower), heading), "8 GB")
    assert after[4] != before[4] and after[6] != before[6], (before, after)
    assert after[7] == before[7], (before, after)


def targets(text):
    """The lines of the report's targets section."""
    part = text.split("## Hosted: targets\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in part.splitlines() if line.startswith("- ")]


def test_the_sweep_reads_its_targets(reports):
    """Each target of the hosted sweep, met or missed, from the records."""
    once, floors, lazy, probe, chunk, cv, sweep = targets(reports["bench-host"])
    assert once.startswith("- `once` within 0.9x-1.1x its floor at every size: 0.90x (at 1 GiB) to 1.17x "
                           "(at 2 GiB): MISSED"), once
    # 0.90x shown, under 0.9x read: the target is read on the figure, not on its rounding.
    assert floors.endswith("lowest once 0.90x at 1 GiB; under it: once 0.90x at 1 GiB: MISSED"), floors
    # lazy's repetitions at 1 TiB, and what the first of each run held beyond them, named.
    assert "at 1024 GiB at most 0.2 ms a repetition: 0.022 ms" in lazy and "the host's first access" in lazy, lazy
    assert probe.startswith("- the probe's clock within 10% of the TSC's rate: 1.39x to 1.41x (10 of 10 sizes "
                            "believed") and probe.endswith(": MISSED"), probe
    assert "widest 1.66x at 2 GiB (55 of its runs on a shared core): MISSED" in chunk, chunk
    assert cv.startswith("- cv under 3% at 8 GiB and up: 6 of 76") and cv.endswith(": MISSED"), cv
    assert sweep.endswith("283.4 s: met"), sweep


def test_a_missed_target_is_read_as_missed(tmp_path):
    """once's CPU time at 8 GiB half as long again: over 1.1x its floor."""
    once = targets(regenerate(tmp_path, "bench-host", cpu_time_scaled("once", 3, 2, "init")))[0]
    assert "(at 8 GiB): MISSED" in once, once


def edited(fn):
    """An edit for regenerate() applying fn(wrapper, record) to every line."""
    def edit(lines):
        out = []
        for line in lines:
            w = json.loads(line)
            fn(w, w.get("record", {}))
            out.append(json.dumps(w))
        return out
    return edit


def test_a_window_on_a_shared_core_is_counted(tmp_path, reports):
    """Every window given 4.25 adds a cycle and chunk's 8 GiB run 1 3.20:
    that run alone counts as on a shared core, in the table and the target."""
    def probed(w, rec):
        if rec.get("type") == "cpu_time":
            slow = w.get("size_bytes") == 8 << 30 and rec.get("strategy") == "chunk" and \
                rec.get("phase") == "init" and w.get("run0", 0) + rec.get("run") == 1   # the sweep's run 1
            rec["adds_per_cycle_x100"] = 320 if slow else 425
    heading = "Hosted: CPU time of each window"
    plain = table_after(reports["bench-host"], heading)
    column = [c.strip() for c in plain[0].strip("|").split("|")].index("runs on a shared core")
    assert all(re.fullmatch(r"\d*", r.split("|")[column + 1].strip()) for r in plain[2:]), plain
    text = regenerate(tmp_path, "bench-host", edited(probed))
    table = table_after(text, heading)
    counts = {(r[0], r[1], r[2]): r[column] for r in
              ([c.strip() for c in line.strip("|").split("|")] for line in table[2:])}
    assert counts[("8 GiB", "chunk", "init")] == "1"
    assert {v for k, v in counts.items() if k != ("8 GiB", "chunk", "init") and k[1] != "eager (shared)"} == {"0"}
    assert "(1 of its runs on a shared core)" in [t for t in targets(text) if "at one speed" in t][0]


def test_a_probe_that_fails_its_check_is_never_shown(tmp_path):
    """The 8 GiB probe's record made to read as a folding one: that size's
    clock column says unreliable, its shared-core column unknown, and the
    report names it; the other sizes keep theirs."""
    def folded(w, rec):
        if w.get("size_bytes") == 8 << 30 and rec.get("type") == "clock_probe":
            rec.update(mhz=rec["mhz"] * 7, reliable=False, issue_reliable=False,
                       why="it reads 9.66x the TSC's rate, outside 0.30-1.60x")
    text = regenerate(tmp_path, "bench-host", edited(folded))
    table = table_after(text, "Hosted: CPU time of each window")
    head = [c.strip() for c in table[0].strip("|").split("|")]
    rows = [dict(zip(head, (c.strip() for c in line.strip("|").split("|")))) for line in table[2:]]
    at8 = [r for r in rows if r["RAM"] == "8 GiB" and r["strategy"] != "eager (shared)"]
    assert at8 and all(r["core MHz"] == "unreliable" and r["runs on a shared core"] == "unknown" for r in at8)
    assert all(re.fullmatch(r"\d+(\.\d+)?", r["core MHz"]) for r in rows
               if r["RAM"] == "16 GiB" and r["strategy"] != "eager (shared)")
    assert "**Probe UNRELIABLE at 8 GiB**" in text and "outside 0.30-1.60x" in text
