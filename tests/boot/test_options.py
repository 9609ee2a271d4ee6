# SPDX-License-Identifier: MIT
"""Command-line options that change what a run does: the option table of
docs/usage.md against the kernel's own registry, how a run ends, what verbose,
time_verbose and memonly print, and the memory options under the benchmark,
with bad values rejected."""
import os
import re

import pytest

from bootlib import AUDIT_BLOCKS, ROOT, boot, check_heap, explain, record, records
from screenlib import boot_until_halted
from test_bench_records import check_run


# ---- docs/usage.md's table against the registry ------------------------------

def documented_options():
    """{key: (values, default)} from the option table of docs/usage.md."""
    with open(os.path.join(ROOT, "docs", "usage.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("\n## Command line\n")
    table = text[start:text.index("\n## ", start + 1)]
    rows = {}
    for line in table.splitlines():
        m = re.match(r"\| `([a-z_][a-z0-9_]*)(=[^`]*)?` \| ([^|]+) \| ([^|]+) \|", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} is in the table twice"
            rows[m.group(1)] = (m.group(3).strip(), m.group(4).strip())
    return rows


def documented(opt):
    """The values and default a docs row must show for a registry entry."""
    kind, value = opt["kind"], opt["value"]
    if opt["key"] == "help":
        value = False           # asked for, so on in the registry; off by default
    if kind == "flag":
        return "flag", "on" if value else "off"
    if kind == "uint":
        return f"{opt['min']}-{opt['max']}", str(value)
    if kind == "choice":
        return ", ".join(f"`{c}`" for c in opt["choices"]), f"`{value}`"
    if kind == "set":
        return "`all`, `none` or a list of " + ", ".join(f"`{c}`" for c in opt["choices"]), f"`{value}`"
    return None, value or "all"     # an empty list means all of them


def test_documented_options_match_the_registry():
    r = boot("pvh", "128M", "help", timeout=60)
    assert r.status == "ok", explain(r)
    registry = {o["key"]: o for o in records(r, "option")}
    assert len(registry) >= 15, registry.keys()
    rows = documented_options()
    assert sorted(rows) == sorted(registry), \
        f"docs/usage.md has {sorted(set(rows) - set(registry))}, the code {sorted(set(registry) - set(rows))}"
    for key, opt in registry.items():
        values, default = documented(opt)
        row_values, row_default = rows[key]
        if values is not None:
            assert row_values == values, \
                f"{key}: docs/usage.md says values {row_values!r}, the code {values!r}"
        assert row_default == default, \
            f"{key}: docs/usage.md says default {row_default!r}, the code {default!r}"
    # Every option answers in the human listing too.
    for key in registry:
        assert re.search(rf"^  {key} +", r.log, re.M), key


# ---- how a run ends ----------------------------------------------------------

# "-hypervisor" clears CPUID's hypervisor bit: to the kernel, real hardware.
BARE = "max,-hypervisor"


def test_exit_qemu_ends_through_the_device_on_bare_metal():
    r = boot("pvh", "256M", "exit=qemu memonly", accel="tcg", cpu=BARE, timeout=60)
    assert record(r, "boot")["accel"] == "none", explain(r)
    assert r.status == "ok", explain(r)


def test_exit_auto_halts_on_bare_metal():
    # Real hardware keeps its report on the screen: the CPU halts after the
    # final record and QEMU keeps running, until told to quit.
    r, halted, _, err = boot_until_halted("bare-auto", "pvh", "memonly", halt="", accel="tcg", cpu=BARE)
    assert err is None and halted, (err, explain(r))
    assert record(r, "boot")["accel"] == "none", explain(r)
    assert record(r, "done")["status"] == "ok"
    assert r.status == "no-verdict" and r.qemu_rc == 0, explain(r)


# ---- what the diagnostic options print ---------------------------------------

VERBOSE_RUN = r"^bench: run (\d+) (\w+) +init (\d+) ticks, first touch (\d+) ticks"


def test_verbose_prints_every_run():
    r = boot("pvh", "256M", f"runs=2 strategies=page,chunk verbose {AUDIT_BLOCKS}", timeout=120)
    assert r.status == "ok", explain(r)
    check_heap(r, min_audits=4)
    lines = re.findall(VERBOSE_RUN, r.log, re.M)
    res = {(x["run"], x["strategy"], x["phase"]): x["ticks"] for x in records(r, "result")}
    assert len(lines) == 4, explain(r)
    for run, name, init, touch in lines:
        assert res[(int(run), name, "init")] == int(init)
        assert res[(int(run), name, "first_touch")] == int(touch)
    # Without it, nothing of the sort.
    quiet = boot("pvh", "256M", "runs=1 strategies=page", timeout=120)
    assert quiet.status == "ok" and not re.search(VERBOSE_RUN, quiet.log, re.M), explain(quiet)


def test_time_verbose_prints_every_window():
    r = boot("pvh", "256M", "memonly time_verbose", timeout=60)
    assert r.status == "ok", explain(r)
    c = record(r, "calibration")
    lines = re.findall(r"^time:   window (\d+): (\d+) ticks, (\d+) polls", r.log, re.M)
    assert [int(n) for n, _, _ in lines] == list(range(c["windows"])), explain(r)
    assert all(int(t) > 0 and int(p) > 0 for _, t, p in lines)


def test_memonly_stops_after_the_memory_summary():
    r = boot("pvh", "256M", "memonly", timeout=60)
    assert r.status == "ok", explain(r)
    kinds = [x["type"] for x in r.records()]
    assert {"boot", "e820", "memory", "calibration"} <= set(kinds), kinds
    assert not {"bench", "result", "audit", "summary"} & set(kinds), kinds
    assert kinds[-1] == "done" and "KTAP version 1" not in r.log


# ---- memory options under the benchmark --------------------------------------

@pytest.mark.parametrize("args", ["numa_fake=3", "bootscrub=off", "sweep_stores=plain",
                                  "sweep_stores=nt", "sweep_stores=rep"])
def test_memory_options_under_the_benchmark(args):
    r = boot("pvh", "3G", f"runs=1 strategies=page,chunk,sweep,lazy {args} {AUDIT_BLOCKS}", timeout=300)
    check_run(r, 1, ["page", "chunk", "sweep", "lazy"])
    if args.startswith("numa_fake"):
        m = record(r, "memory")
        assert m["nodes"] == 3 and m["node_map"]["warning"] is None, explain(r)


def size_text(nbytes):
    """The kernel's fmt_size(): whole units, else two decimals of the largest."""
    units, i = ["B", "KiB", "MiB", "GiB", "TiB"], 0
    while i + 1 < len(units) and nbytes >= 1024 << (10 * i):
        i += 1
    whole, frac = divmod(nbytes, 1 << (10 * i))
    return f"{whole} {units[i]}" if i == 0 or not frac else f"{nbytes / (1 << (10 * i)):.2f} {units[i]}"


# q35 puts RAM past 2 GiB above 4 GiB: a 3 GiB guest's RAM ends at 5 GiB.
@pytest.mark.parametrize("mem,fake,nodes", [("256M", 8, 1), ("3G", 8, 5)])
def test_numa_fake_beyond_the_guest_warns(mem, fake, nodes):
    # A fake node is whole 1 GiB granules: a small guest has room for fewer.
    r = boot("pvh", mem, f"memonly numa_fake={fake}")
    assert r.status == "ok", explain(r)
    m = record(r, "memory")
    want = (f"numa_fake={fake}: only {nodes} node{'s' if nodes > 1 else ''}: a fake node takes whole "
            f"1 GiB granules, and RAM ends at {size_text(m['max_pfn'] * 4096)}")
    assert m["nodes"] == nodes and m["node_map"]["warning"] == want, (m["node_map"], want)
    assert f"warning: {want}" in r.log, explain(r)


@pytest.mark.parametrize("args,message", [
    ("numa_fake=0", "numa_fake=0: expected a whole number from 1 to 8"),
    ("numa_fake=9", "numa_fake=9: expected a whole number from 1 to 8"),
    ("bootscrub=maybe", "bootscrub=maybe: expected one of idle off"),
    ("sweep_stores=fast", "sweep_stores=fast: expected one of rep plain nt auto"),
])
def test_bad_memory_options_fail_cleanly(args, message):
    r = boot("pvh", "256M", args, timeout=60)
    assert r.status == "fail", explain(r)
    assert f"bad command line: {message}" in r.log, explain(r)
    assert record(r, "done")["status"] == "fail"
