# SPDX-License-Identifier: MIT
"""The runs behind the front page: docs/results/ keeps their records, and
the harness writes from copies of them the very tables that the results
pages (docs/results.md and its docs/results-*.md) quote. Every figure of
README.md's table, and each figure its answer rounds, is held to the
report it came from: the hosted run's and the real binaries' reports
written again here from their records, the kept xen-src and
linux-src-sweep reports as they are, and for Xen's own heap code timed on
the host, whose records are not kept, the table of its results page."""
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
    # Kept as written, when `binaries` wrote peers.jsonl (harness/results/names.py).
    "binaries": ("peers.jsonl", ["binaries", "report"], "python3 -m harness binaries report"),
    "binaries-linux": ("peers.jsonl", ["binaries", "report"], "python3 -m harness binaries report"),
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


def sig(value, digits=3):
    """A figure rounded as the front page shows it: 373.46 -> '373',
    58.01 -> '58.0', 8.51 -> '8.51'; digits=2: 373.46 -> '370'."""
    x = float(str(value).replace(",", "").rstrip("x"))
    if digits == 2 and x >= 100:
        return str(int(round(x, -1)))
    return f"{x:#.{digits}g}".rstrip(".")


def front_page():
    """README.md's text (its lines joined) and its table's rows by the text of
    each row's link."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    table = table_after(text, "What it found")
    return " ".join(text.split()), {re.match(r"\[([^\]]+)\]", c[0]).group(1): c
                                    for c in ([x.strip() for x in line.strip("|").split("|")]
                                              for line in table[2:])}


def kept_report(name):
    """A kept report of docs/results/ as it is (the reports the harness's
    `xen-src` and `linux-src` wrote; their own tests hold them to their records)."""
    with open(os.path.join(RESULTS, name, "report.md"), encoding="utf-8") as f:
        return f.read()


def linux_all_phases():
    """{(RAM, nodes, variant): instructions a page, all three phases} of the
    kept linux-src-sweep report."""
    out = {}
    for line in kept_report("linux-src-sweep").splitlines():
        m = re.match(r"\| (\d+ GiB) \| (\d) \((\w+)\) \| [\d,]+ / [\d,]+ = ([\d.]+) \|", line)
        if m:
            out[(m.group(1), m.group(2), m.group(3))] = m.group(4)
    return out


def page_rows(page, heading):
    """Every table row under a heading of a docs page, indented or not, until
    the next heading of that level or above, as lists of cells."""
    with open(os.path.join(ROOT, "docs", page), encoding="utf-8") as f:
        text = f.read()
    m = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.M)
    assert m, f"{page}: no heading {heading!r}"
    rows = []
    for line in text[m.end():].split("\n"):
        if re.match(rf"#{{1,{len(m.group(1))}}} ", line):
            break
        if line.strip().startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def test_the_front_page_rows_link_results_pages():
    _, rows = front_page()
    assert 1 <= len(rows) <= 5, list(rows)
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        table = table_after(f.read(), "What it found")
    for line in table[2:]:
        target = re.match(r"\| \[[^\]]+\]\(([^)#]+)", line).group(1)
        assert re.fullmatch(r"docs/results-[a-z0-9-]+\.md", target), line


def test_the_front_page_figures_are_the_reports(reports):
    text, rows = front_page()
    host, binaries = reports["bench-host"], reports["binaries"]
    # Debian's binaries, exact counts at 8 GiB.
    p = cells(table_after(binaries, "Instructions a page handed over: Xen beside page and chunk"), "8 GiB")
    assert rows["Xen 4.14 and 4.17, Debian's binaries"][2:] == [sig(p[2]), sig(p[5]), ""]
    assert "8 GiB" in rows["Xen 4.14 and 4.17, Debian's binaries"][1]
    assert f"from about {sig(p[2], 2)} to {sig(p[5], 2)} instructions a page" in text
    # Xen 4.17.5 built here: the kept xen-src report, one node, 8 GiB.
    xen = table_after(kept_report("xen-src"), "Xen 4.17, one node: instructions a page")
    head = [c.strip() for c in xen[0].strip("|").split("|")]
    x8 = dict(zip(head, cells(xen, "8 GiB")))
    assert rows["Xen 4.17.5 built here with the series"][2:] == [sig(x8["page"]), sig(x8["chunk"]), sig(x8["sweep"])]
    assert f"takes it to about {sig(x8['sweep'], 2)} and builds" in text
    # Linux 6.12 built here: the kept linux-src-sweep report, one node, 16 GiB:
    # its counts, and its section of the same code timed on this CPU.
    lx = linux_all_phases()
    linux = rows["Linux 6.12.107 built here with the series"]
    assert "16 GiB" in linux[1] and "one node" in linux[1]
    timed = table_after(kept_report("linux-src-sweep"), "On a real CPU: Linux's own code, stock against the single pass")
    t16 = cells(timed, "16")
    median = lambda cell: cell.split(" (")[0]
    assert linux[2:] == ["", f"{sig(lx[('16 GiB', '1', 'stock')])} ({median(t16[7])} ns)",
                         f"{sig(lx[('16 GiB', '1', 'sweep')])} ({median(t16[8])} ns, {t16[9]} faster)"]
    assert (f"from about {sig(lx[('16 GiB', '1', 'stock')], 2)} to {sig(lx[('16 GiB', '1', 'sweep')], 2)} at "
            "16 GiB" in text)
    big = [float(median(cells(timed, g)[9]).rstrip("x")) for g in ("16", "64")]
    counted = lx[("16 GiB", "1", "stock")], lx[("16 GiB", "1", "sweep")]
    assert (f"{min(big):.2f}x to {max(big):.2f}x from 16 GiB up, against "
            f"{float(counted[0]) / float(counted[1]):.1f}x" in text)
    # Xen staging's own heap code with the RFC, timed on the host: its page's table (no records are kept).
    timed = page_rows("results-xen-src.md", "The RFC timed on a real CPU")
    by_gib = {r[0]: r for r in timed if len(r) == 11 and re.fullmatch(r"\d+", r[0])}
    t8 = by_gib["8"]
    median = lambda cell: cell.split(" (")[0]
    assert rows["Xen staging's own heap code with the RFC, timed"][2:] == \
        ["", f"{median(t8[1])} ns (stock staging)",
         f"{median(t8[4])} ns, {t8[9].replace('x (', 'x (', 1)} faster (`memset()`: {median(t8[7])})"]
    big = [float(median(r[9]).rstrip("x")) for g, r in by_gib.items() if int(g) >= 8]
    assert f"takes {min(big):.2f}x to {max(big):.2f}x the single pass's time from 8 GiB up" in text
    # bootheap's model, hosted, beside Xen's published figures at 8 GB.
    x = cells(table_after(host, "Hosted beside Xen's published figures"), "8 GB")
    model = rows["bootheap's model beside Xen's published figures"]
    cpu = [c for c in table_after(host, "Hosted: CPU time of each window")
           if c.startswith("| 8 GiB | sweep | init |")]
    head = [c.strip() for c in table_after(host, "Hosted: CPU time of each window")[0].strip("|").split("|")]
    one_pass = dict(zip(head, (c.strip() for c in cpu[0].strip("|").split("|"))))
    assert model[2:] == [f"{sig(x[4])} ns (Xen: {sig(x[1])})",
                         f"{sig(x[5])} ns as Xen timed it, {sig(x[7])} as released (Xen: {sig(x[2])})",
                         f"{sig(one_pass['CPU ns/page, median [min-max]'].split()[0])} ns "
                         f"({one_pass['x floor (CPU)']}x its floor)"]
    load = re.search(r"load average (\d+\.\d+) to (\d+\.\d+)", host)
    assert f"load {float(load.group(1)):.1f} to {float(load.group(2)):.1f}" in model[1]
    assert f"published time ratio ({sig(x[3])}x) is larger than its instruction ratio ({sig(p[8], 2)}x)" in text


def test_the_linux_page_is_the_kept_report():
    """docs/results-linux-src.md's table of all three phases, figure by
    figure, against the kept report it quotes."""
    lx = linux_all_phases()
    rows = [r for r in page_rows("results-linux-src.md", "The single pass in Linux 6.12") if r[0].endswith("GiB")]
    assert [r[0] for r in rows] == ["1 GiB", "4 GiB", "16 GiB", "64 GiB"], rows
    for r in rows:
        assert r[1:5] == [lx[(r[0], "1", "stock")], lx[(r[0], "1", "sweep")],
                          lx[(r[0], "2", "stock")], lx[(r[0], "2", "sweep")]], r
        debian = re.search(rf"\| {r[0]} \| 1 \(stock\) \| [^|]+ \| ([\d.]+) \|", kept_report("linux-src-sweep"))
        assert r[5] == debian.group(1), r


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


def test_the_hosted_run_reads_its_targets(reports):
    """Each target of the hosted run over sizes, met or missed, from the records."""
    one_pass, floors, lazy, probe, chunk, cv, wall = targets(reports["bench-host"])
    assert one_pass.startswith("- `sweep` within 0.9x-1.1x its floor at every size: 0.90x (at 1 GiB) to 1.17x "
                               "(at 2 GiB): MISSED"), one_pass
    # 0.90x shown, under 0.9x read: the target is read on the figure, not on its rounding.
    assert floors.endswith("lowest sweep 0.90x at 1 GiB; under it: sweep 0.90x at 1 GiB: MISSED"), floors
    # lazy's repetitions at 1 TiB, and what the first of each run held beyond them, named.
    assert "at 1024 GiB at most 0.2 ms a repetition: 0.022 ms" in lazy and "the host's first access" in lazy, lazy
    assert probe.startswith("- the probe's clock within 10% of the TSC's rate: 1.39x to 1.41x (10 of 10 sizes "
                            "believed") and probe.endswith(": MISSED"), probe
    assert "widest 1.66x at 2 GiB (55 of its runs on a shared core): MISSED" in chunk, chunk
    assert cv.startswith("- cv under 3% at 8 GiB and up: 6 of 76") and cv.endswith(": MISSED"), cv
    assert wall.endswith("283.4 s: met"), wall


def test_a_missed_target_is_read_as_missed(tmp_path):
    """sweep's CPU time at 8 GiB half as long again: over 1.1x its floor.
    The kept records name it `once`, as the kernel did then."""
    one_pass = targets(regenerate(tmp_path, "bench-host", cpu_time_scaled("once", 3, 2, "init")))[0]
    assert "(at 8 GiB): MISSED" in one_pass, one_pass


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
                rec.get("phase") == "init" and w.get("run0", 0) + rec.get("run") == 1   # the size's run 1
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
