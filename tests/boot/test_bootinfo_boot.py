# SPDX-License-Identifier: MIT
"""Boot-info facts only a real boot shows: QEMU's PVH module reaches the boot
record and the reserved ranges, and GRUB's framebuffer tag gives a screen the
kernel really draws its text on (read back through QMP screendump)."""
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time

import pytest

from bootlib import ROOT, boot, explain, qemu, record

MIB = 1 << 20
BUILD = os.path.join(ROOT, "build")
LOGS = os.path.join(BUILD, "test-logs")
FONT_C = os.path.join(BUILD, "gen", "font.c")     # the glyphs the kernel links
GLYPH_W, GLYPH_H = 8, 16
FG, BG = 0xD0, 0x00                                # kernel/console.c's grey on black


# ---- PVH module ---------------------------------------------------------------

@pytest.mark.parametrize("size", [12345, MIB + 1])
def test_pvh_module_is_reserved(size):
    path = os.path.join(BUILD, "test-initrd", f"initrd-{size}.bin")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(bytes(i * 7 % 251 for i in range(size)))

    r = boot("pvh", "256M", "", extra=["-initrd", path], timeout=60)
    assert r.status == "ok", explain(r)
    b = record(r, "boot")
    assert b["loader"] == "pvh", explain(r)
    assert b["modules"] == 1, explain(r)
    mods = [x for x in b["reserved"] if x["what"] == "PVH module"]
    assert len(mods) == 1, b["reserved"]
    start, end = mods[0]["start"], mods[0]["end"]
    assert end - start == size, (start, end, size)
    # QEMU loads the module into RAM that the map lists as such.
    assert any(e["type"] == 1 and e["addr"] <= start and end <= e["addr"] + e["len"]
               for e in b["mmap"]), (start, end, b["mmap"])
    # One 32-byte module list entry, and the console line agrees.
    lists = [x for x in b["reserved"] if x["what"] == "PVH module list"]
    assert [x["end"] - x["start"] for x in lists] == [32], b["reserved"]
    assert f"module 0: [{start:#x}, {end:#x}) " in r.log, explain(r)


# ---- the screen ---------------------------------------------------------------

def load_font():
    """{16-byte glyph bitmap: character} from the generated font source."""
    glyphs = {}
    with open(FONT_C) as f:
        for rows, cp in re.findall(r"\{([^{}]*)\}, /\* 0x([0-9a-f]{2}) \*/", f.read()):
            bitmap = bytes(int(x, 16) for x in rows.split(","))
            glyphs.setdefault(bitmap, chr(int(cp, 16)))    # 0x7f shares '?': keep '?'
    assert len(glyphs) > 90, "font.c did not parse"
    return glyphs


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    assert m and m.group(3) == b"255", data[:20]
    w, h = int(m.group(1)), int(m.group(2))
    pixels = data[m.end():]
    assert len(pixels) == w * h * 3
    return w, h, pixels


def read_screen(w, h, pixels, glyphs):
    """The text on the screen, one string per text row; None marks a cell
    that is no glyph of the font."""
    rows = []
    for ty in range(h // GLYPH_H):
        # The red channel of each pixel row is enough: grey on black.
        lines = [pixels[(ty * GLYPH_H + y) * w * 3:(ty * GLYPH_H + y + 1) * w * 3:3]
                 for y in range(GLYPH_H)]
        text = []
        for tx in range(w // GLYPH_W):
            bitmap = bytes(sum(0x80 >> i for i, v in enumerate(line[tx * GLYPH_W:(tx + 1) * GLYPH_W]) if v)
                           for line in lines)
            text.append(glyphs.get(bitmap))
        rows.append(text)
    return rows


class QMP:
    """Just enough of the QEMU machine protocol for a screendump and a quit."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(20)
        self.sock.connect(path)
        self.f = self.sock.makefile("rwb")
        assert "QMP" in json.loads(self.f.readline())
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        self.f.flush()
        while True:
            reply = json.loads(self.f.readline())
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(f"QMP {name}: {reply['error'].get('desc', reply)}")
            # Anything else is an asynchronous event: read on.

    def close(self):
        self.f.close()
        self.sock.close()


def test_framebuffer_screen_shows_the_log():
    """GRUB sets up a linear framebuffer for our header's framebuffer tag; the
    kernel draws every console line on it. QEMU keeps running (exit=halt)
    while a QMP screendump reads the screen back."""
    os.makedirs(LOGS, exist_ok=True)
    log_path = os.path.join(LOGS, "bootinfo-screen.log")
    ppm = os.path.join(LOGS, "bootinfo-screen.ppm")
    for p in (log_path, ppm):
        if os.path.exists(p):
            os.remove(p)
    sockdir = tempfile.mkdtemp(prefix="bootheap-qmp-")    # short path for the socket
    qmp_path = os.path.join(sockdir, "qmp")
    outcome = {}
    boot_over = threading.Event()

    def operator():
        # Wait for the final record and the line after it (serial gets each
        # line just before the screen does), then read the screen. QEMU is
        # told to quit whatever happened. The only deadline is the boot's own
        # timeout, a guard against a hang: how long the boot takes is not
        # what this test is about.
        q = None
        try:
            while not boot_over.is_set():
                log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
                if '{"type":"done"' in log and "bootheap: finished" in log:
                    time.sleep(0.5)
                    break
                time.sleep(0.2)
            else:
                outcome["error"] = "the boot ended without a done record"
            q = QMP(qmp_path)
            if "error" not in outcome:
                q.cmd("screendump", filename=ppm)
                outcome["dumped"] = True
        except Exception as e:      # reported by the test below
            outcome["error"] = repr(e)
        finally:
            try:
                q = q or QMP(qmp_path)
                q.cmd("quit")
                q.close()
            except Exception:
                pass                # the boot timeout ends QEMU instead

    t = threading.Thread(target=operator, daemon=True)
    t.start()
    try:
        r = qemu.boot(mode="iso-bios", mem="256M", append="exit=halt", timeout=90, quiet=True,
                      log_path=log_path,
                      extra=["-vga", "std", "-qmp", f"unix:{qmp_path},server=on,wait=off"])
        boot_over.set()
        t.join(timeout=30)
    finally:
        shutil.rmtree(sockdir, ignore_errors=True)
    assert "error" not in outcome, outcome["error"] + "\n" + explain(r)
    assert outcome.get("dumped"), explain(r)
    # The kernel halted rather than exiting; QMP's quit ended QEMU.
    assert r.status == "no-verdict", explain(r)
    assert record(r, "done")["status"] == "ok"

    b = record(r, "boot")
    assert b["loader"] == "multiboot2", explain(r)
    fb = b.get("fb")
    assert fb, "no framebuffer tag in the boot record\n" + explain(r)
    assert (fb["type"], fb["bpp"]) == (1, 32), fb
    assert f"screen: {fb['width']}x{fb['height']}, 32 bpp, type 1 at {fb['addr']:#x}" in r.log

    w, h, pixels = read_ppm(ppm)
    assert (w, h) == (fb["width"], fb["height"]), "the screen is not the framebuffer GRUB described"
    # Only the console's two colours, and enough of the foreground for text.
    assert set(pixels) == {BG, FG}, sorted(set(pixels))[:10]
    top = pixels[:w * 3 * GLYPH_H * 4]
    assert top.count(FG) > 3 * 2000, "hardly anything drawn in the top four text rows"

    rows = read_screen(w, h, pixels, load_font())
    bad = [(y, x) for y, row in enumerate(rows) for x, c in enumerate(row) if c is None]
    assert not bad, f"cells that are no glyph, first at {bad[0]}"
    screen = [("".join(row)).rstrip() for row in rows]
    while screen and not screen[-1]:
        screen.pop()
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
