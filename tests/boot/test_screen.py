# SPDX-License-Identifier: MIT
"""The screen on every firmware path: GRUB hands the kernel a linear
framebuffer under SeaBIOS and under OVMF, the kernel draws its console on
it, and a run ends with the report and the results as a QR code that a real
decoder reads (QMP screendump, zbarimg)."""
import subprocess

import pytest

from harness.results import qrpayload

from bootlib import AUDIT_BLOCKS, check_heap, explain, record, records
from screenlib import (BG, FG, GLYPH_H, GLYPH_W, boot_and_dump, load_font, read_ppm, read_screen,
                       screen_text)
from test_relocation import check_placement


@pytest.mark.parametrize("mode", ["iso-bios", "iso-uefi"])
def test_framebuffer_screen_shows_the_log(mode):
    """The kernel halts (exit=halt) and QMP reads the screen; the text on it
    is the tail of the serial log, in order."""
    r, ppm, err = boot_and_dump(f"log-{mode}", mode, "memonly")
    assert err is None, err + "\n" + explain(r)
    # The kernel halted rather than exiting; QMP's quit ended QEMU.
    assert r.status == "no-verdict", explain(r)
    assert record(r, "done")["status"] == "ok"

    b = record(r, "boot")
    assert b["loader"] == "multiboot2", explain(r)
    fb = b.get("fb")
    assert fb, "no framebuffer tag in the boot record\n" + explain(r)
    assert (fb["type"], fb["bpp"]) == (1, 32), fb
    # iso/grub.cfg asks for 1024x768 first; QEMU's VGA has it on both firmwares.
    assert (fb["width"], fb["height"]) == (1024, 768), fb
    assert f"screen: {fb['width']}x{fb['height']}, 32 bpp, type 1 at {fb['addr']:#x}" in r.log

    w, h, pixels = read_ppm(ppm)
    assert (w, h) == (fb["width"], fb["height"]), "the screen is not the framebuffer GRUB described"
    # Only the console's two colours, and enough of the foreground for text.
    assert set(pixels) == {BG, FG}, sorted(set(pixels))[:10]
    top = pixels[:w * 3 * GLYPH_H * 4]
    assert top.count(FG) > 3 * 2000, "hardly anything drawn in the top four text rows"

    screen, _ = screen_text(ppm)
    text = [line for line in screen if line]
    assert len(text) >= 10, screen
    assert len(set(text)) >= 10, "text rows repeat: not a log"
    # The screen holds the tail of the console log, in order, ending where
    # the serial log ends. Records go to serial only.
    cols = w // GLYPH_W
    serial = []
    for line in r.log.splitlines():
        line = line.expandtabs(8)
        if line.startswith('{"type":') or not line.strip():
            continue
        serial += [line[i:i + cols].rstrip() for i in range(0, len(line), cols)]
    assert text[-1] == "bootheap: finished, status ok", text[-3:]
    pos = len(serial)
    for line in reversed(text):
        while pos > 0 and serial[pos - 1] != line:
            pos -= 1
        assert pos > 0, f"screen line {line!r} is not in the serial log in order"
        pos -= 1
    # Unless the log scrolled the screen (text in the top row), its start is
    # on the screen too.
    assert screen[0] or any(line.startswith("bootheap 0.1: ") for line in text), text[:3]


# ---- the final report and the QR code ------------------------------------------

BLOCKS = {" ": (False, False), "\u2584": (False, True), "\u2580": (True, False), "\u2588": (True, True)}
REPORT_COLS = 99


def report_lines(log):
    """The human report as serial carried it: from its ==== line up to the
    QR code's first line, records left out."""
    lines = log.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("==== bootheap "))
    out = []
    for line in lines[start:]:
        if line.startswith("qr: "):
            return out
        if not line.startswith('{"type":'):
            out.append(line)
    raise AssertionError("no qr: line after the report")


def zbar(path):
    """The one QR code zbarimg finds in an image."""
    out = subprocess.run(["zbarimg", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", path],
                         capture_output=True)
    assert out.returncode == 0, f"zbarimg found no QR code in {path} (exit {out.returncode})"
    return out.stdout.decode()[:-1]         # zbarimg adds a newline


def write_pgm(path, light, px=4):
    """Module rows (True: light) as a PGM, px pixels a module."""
    h, w = len(light), len(light[0])
    with open(path, "wb") as f:
        f.write(b"P5 %d %d 255\n" % (w * px, h * px))
        for row in light:
            line = bytes(255 if v else 0 for v in row for _ in range(px))
            f.write(line * px)


def serial_modules(log):
    """The code printed on serial in half blocks, as rows of light flags."""
    lines = log.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("qr: the results as a QR code"))
    rows = []
    for line in lines[start + 1:]:
        if not line or any(c not in BLOCKS for c in line):
            break
        rows.append([BLOCKS[c][0] for c in line])
        rows.append([BLOCKS[c][1] for c in line])
    assert len(rows) > 40, f"only {len(rows)} module rows of blocks on serial"
    return rows


def payload_from_records(r):
    """What docs/records.md's payload format says a run with these records holds,
    built from the records alone."""
    b, bench = record(r, "boot"), record(r, "bench")
    sums = {(x["strategy"], x["phase"]): x for x in records(r, "summary")}
    comps = {x["strategy"]: x for x in records(r, "comparison")}
    # The heap digest is Xen's heaps' one; every strategy, the peers too, holds the same pages.
    peers = ("linux", "linux_deferred", "linux612", "freebsd_lazy", "freebsd_lazy0")
    digests = {a["digest"] for a in records(r, "audit") if a["strategy"] not in peers}
    assert len(digests) == 1, digests
    assert len({a["page_digest"] for a in records(r, "audit")}) == 1
    cal = bench["calibrated"]
    lines = [f"bootheap {b['version']} qr1",
             f"{b['accel'].replace(' ', '-')} {bench['mem_bytes']} {bench['pages']} {bench['runs']} "
             f"{bench['source'] if cal else 'none'} {bench['tsc_khz'] if cal else 0}",
             b["cpu_brand"] or "?"]
    for s in bench["strategies"]:
        init, c = sums[(s, "init")], comps[s]
        speedup = "-" if c["speedup_vs_page"] is None else f"{c['speedup_vs_page']:.2f}"
        lines.append(f"{s} {init['median_ns']} {init['ns_per_page']:.3f} {speedup} {c['x_floor']:.2f}")
    floor = sums[("floor", "init")]
    lines.append(f"floor {floor['median_ns']} {floor['ns_per_page']:.3f} - 1.00")
    same = all(c["digest_equal"] for c in comps.values())
    lines.append(f"{digests.pop()[2:]} {'same' if same else 'differ'}")
    return "\n".join(lines)


def white_box(w, h, pixels):
    """(left, top, right, bottom) of the pixels that are pure white."""
    xs, ys = set(), set()
    for y in range(h):
        row = pixels[y * w * 3:(y + 1) * w * 3]
        first = row.find(b"\xff\xff\xff")
        if first >= 0:
            ys.add(y)
            xs.update((first // 3, row.rfind(b"\xff\xff\xff") // 3))
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def check_code_on_screen(r, ppm, report):
    """The drawn code on the screendump: the report whole at the top with
    the code below it, or, when the code does not fit there, a caption and
    the code on a screen of its own; the white square is the code with its
    quiet zone, the run's last line sits under it, zbarimg reads the record's
    payload from the screen and from serial's blocks, and the harness reads
    that payload back. Returns the qr record."""
    w, h, pixels = read_ppm(ppm)
    rows = read_screen(w, h, pixels, load_font())
    text = ["".join(c or "\0" for c in row).rstrip() for row in rows]

    q = record(r, "qr")
    assert q["drawn"] and q["screen"] == "framebuffer" and q["reason"] == "", q
    assert q["module_px"] >= 4, q
    assert q["payload"] == payload_from_records(r)
    # The kernel's rule, from the screen alone: below the report when
    # 4-pixel modules fit between it and the last row, else alone.
    side4 = (17 + 4 * q["version"] + 8) * 4
    below = (h // GLYPH_H - 1 - len(report)) * GLYPH_H
    assert q["place"] == ("under_report" if side4 <= min(below, w) else "own_screen"), (q, below)
    if q["place"] == "under_report":
        assert text[:len(report)] == report, "the report is not whole at the top of the screen"
        first = len(report)
    else:
        caption = f"bootheap: the results as a QR code, {q['bytes']} bytes (harness add reads them back)"
        assert text[0] == caption, text[:2]
        first = 1
    assert f"qr: {q['bytes']} bytes as version {q['version']}-M with {q['module_px']}-pixel modules " \
           f"on the framebuffer, {'below the report' if first > 1 else 'on a screen of its own'}" in r.log
    assert zbar(ppm) == q["payload"]

    # The code with its quiet zone is the white square under the report or
    # the caption, 4 modules wider than the symbol on each side, and the
    # last line of the run sits under it.
    left, top, right, bottom = white_box(w, h, pixels)
    side = (17 + 4 * q["version"] + 8) * q["module_px"]
    assert (right - left, bottom - top) == (side, side), (left, top, right, bottom, q)
    assert top == first * GLYPH_H and left == (w - side) // 2, (left, top, q)
    done_rows = [i for i, line in enumerate(text) if line == "bootheap: finished, status ok"]
    assert done_rows and done_rows[-1] * GLYPH_H >= bottom, (done_rows, bottom)

    # Serial carries the same code in half blocks.
    pgm = ppm[:-4] + "-serial.pgm"
    write_pgm(pgm, serial_modules(r.log))
    assert zbar(pgm) == q["payload"]
    # What a phone reads from the screen is what `harness add` reads back.
    recs = qrpayload.parse(zbar(ppm))
    assert [x["strategy"] for x in recs if x["type"] == "comparison"] == record(r, "bench")["strategies"]
    return q


# (resolution, strategies, where the code goes): 800x600 holds Xen's four
# strategies' code below their report; every strategy's, with the peers,
# needs a screen of its own at the ISO's own 1024x768 and fits below the
# report at 1280x800 (None: the test works out which from the screen).
SCREENS = [("800x600", "page,chunk,sweep,lazy", "under_report"), ("1024x768", None, "own_screen"),
           ("1280x800", None, None)]


@pytest.mark.parametrize("resolution,strategies,place", SCREENS, ids=[s[0] for s in SCREENS])
@pytest.mark.parametrize("mode", ["iso-bios", "iso-uefi"])
def test_final_report_and_qr_code(mode, resolution, strategies, place):
    """A benchmark on the relocated image ends with the report at the top of
    the screen, every line whole, and the QR code below it or on a screen of
    its own, with modules of 4 pixels or more, the last line under it;
    zbarimg reads the code from the screendump and from serial's blocks,
    and it holds the run's records. 1024x768 is the ISO's own choice
    (iso/grub.cfg), booted as a user boots it."""
    args = "runs=1" + (f" strategies={strategies}" if strategies else "")
    gfxmode = None if resolution == "1024x768" else resolution + "x32"
    r, ppm, err = boot_and_dump(f"qr-{mode}-{resolution}", mode, f"{args} {AUDIT_BLOCKS}", gfxmode=gfxmode)
    assert err is None, err + "\n" + explain(r)
    assert record(r, "done")["status"] == "ok", explain(r)
    check_placement(r)
    check_heap(r, min_audits=4)
    fb = record(r, "boot")["fb"]
    assert f"{fb['width']}x{fb['height']}" == resolution, fb

    report = report_lines(r.log)
    assert report[0].startswith("==== bootheap ") and "faster than" in report[-1], report
    long = [line for line in report if len(line) > REPORT_COLS]
    assert not long, f"report lines wider than {REPORT_COLS} columns: {long}"
    if not strategies:
        assert len(record(r, "bench")["strategies"]) == 10, record(r, "bench")

    q = check_code_on_screen(r, ppm, report)
    if place:
        assert q["place"] == place, q


def test_text_mode_says_why_and_prints_the_payload():
    """BIOS text mode (80x25): a readable code does not fit in half blocks;
    the kernel says so and shows the payload as text instead."""
    r, _, err = boot_and_dump("qr-text", "iso-bios", f"runs=1 {AUDIT_BLOCKS}", gfxmode="text")
    assert err is None, err + "\n" + explain(r)
    check_heap(r, min_audits=4)
    assert record(r, "boot")["fb"]["type"] == 2, explain(r)
    q = record(r, "qr")
    assert q["screen"] == "text" and not q["drawn"], q
    assert q["reason"].startswith("no room for the QR code on this 80x25 text screen: "), q
    assert q["payload"] == payload_from_records(r)
    assert f"qr: {q['reason']}; the payload as text:\n{q['payload']}\n" in r.log, explain(r)


def test_small_screen_draws_the_code_alone():
    """At 640x480 the report leaves too little room below it for 4-pixel
    modules: the code gets a screen of its own, and zbarimg reads it."""
    r, ppm, err = boot_and_dump("qr-640", "iso-uefi", f"runs=1 {AUDIT_BLOCKS}", gfxmode="640x480x32")
    assert err is None, err + "\n" + explain(r)
    check_heap(r, min_audits=4)
    fb = record(r, "boot")["fb"]
    assert (fb["width"], fb["height"]) == (640, 480), fb
    q = check_code_on_screen(r, ppm, report_lines(r.log))
    assert q["place"] == "own_screen", q
