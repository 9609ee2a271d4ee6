# SPDX-License-Identifier: MIT
"""The real binaries' log parsers (harness/real/bracket/logs.py) on serial logs
recorded under -icount at 1 GiB (tests/tools/data/binaries/), whole and cut
short: a log that lacks a bracket's line is refused, naming the line."""
import os

import pytest

from harness.real.bracket.logs import LogError, bootheap_counts, linux_facts, xen_facts, xen_lines

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "binaries")


def log(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


def cut_before(text, needle):
    """The log as a boot that stopped just before the line holding needle left it."""
    at = text.index(needle)
    return text[:text.rfind("\n", 0, at) + 1]


@pytest.mark.parametrize("ver, build, bracket", [
    ("4.14", "Debian 4.14.6-1", 96683263),
    ("4.17", "Debian 4.17.7+13-g2445b30a44-0+deb12u1", 14995497),
])
def test_xen_whole_log(ver, build, bracket):
    f = xen_facts(log(f"serial-xen-{ver}-1G.log"))
    assert f["version"].startswith(ver)
    assert f["build"] == build
    assert f["ram_kib"] == 1048060
    # The raw TSC from 'Faking a node' to 'Domain heap initialised': under
    # -icount an instruction count, 12150 or so above the exact bracket.
    assert f["log_bracket"] == bracket


def test_xen_stamps_hex_then_seconds():
    lines = xen_lines(log("serial-xen-4.17-1G.log"))
    stamps = [s for s, _ in lines]
    assert all(isinstance(s, int) for s in stamps) and stamps == sorted(stamps)
    # Once Xen knows its TSC rate it prints seconds: no instruction count there.
    assert xen_lines("(XEN) [    0.084948] Detected 999.999 MHz processor.\n") == \
        [(None, "Detected 999.999 MHz processor.")]


@pytest.mark.parametrize("needle, missing", [
    ("Domain heap initialised", "never printed 'Domain heap initialised'"),
    ("No NUMA configuration found", "NUMA line that opens"),
])
def test_xen_truncated(needle, missing):
    with pytest.raises(LogError, match=missing):
        xen_facts(cut_before(log("serial-xen-4.17-1G.log"), needle))


def test_xen_without_its_version_line():
    text = log("serial-xen-4.14-1G.log")
    first = text.index("\n") + 1
    with pytest.raises(LogError, match="never printed its version"):
        xen_facts(text[first:])
    with pytest.raises(LogError, match="no time-stamped Xen line"):
        xen_facts(cut_before(text, "Xen version"))


def test_xen_not_a_xen_log():
    with pytest.raises(LogError, match="no time-stamped Xen line"):
        xen_facts(log("serial-linux-6.1-1G.log"))


def test_linux_whole_log():
    f = linux_facts(log("serial-linux-6.1-1G.log"))
    assert f["release"] == "6.1.0-57-amd64"
    assert f["free_kib"] == 207548 and f["present_kib"] == 1048184
    assert f["unavailable_pages"] == 98                # 1 + 97 in zone DMA
    assert f["deferred_ms"] == {0: 16}
    assert f["memblock_log_us"] > 0


@pytest.mark.parametrize("needle, missing", [
    ("deferred pages initialised", "deferred init did not finish"),
    ("Memory:", "around memblock_free_all"),
    ("Linux version", "no time-stamped Linux line"),
])
def test_linux_truncated(needle, missing):
    with pytest.raises(LogError, match=missing):
        linux_facts(cut_before(log("serial-linux-6.1-1G.log"), needle))


def test_linux_without_deferred_when_not_needed():
    text = cut_before(log("serial-linux-6.1-1G.log"), "deferred pages initialised")
    assert linux_facts(text, need_deferred=False)["deferred_ms"] == {}


def test_bootheap_counts():
    counts, bench, cal = bootheap_counts(log("serial-bootheap-all-1G.log"))
    assert bench["icount"] is True and bench["xen_costs"] == "all"
    assert cal["khz"] == 1000001
    assert set(counts) == {"page", "chunk", "sweep", "lazy", "floor"}
    pages = {p for _, p in counts.values()}
    assert len(pages) == 1 and 250000 < pages.pop() < 262144     # the same pages for every strategy
    assert counts["chunk"][0] < counts["page"][0]


def test_bootheap_truncated_mid_record():
    text = log("serial-bootheap-all-1G.log")
    at = text.index('{"type":"done"')
    with pytest.raises(LogError, match="unreadable records"):
        bootheap_counts(text[:at + 12])
    with pytest.raises(LogError, match="before its done record"):
        bootheap_counts(text[:at])


def test_bootheap_failed_run():
    text = log("serial-bootheap-all-1G.log").replace('"status":"ok"', '"status":"fail","reason":"x"')
    with pytest.raises(LogError, match="run failed: x"):
        bootheap_counts(text)
