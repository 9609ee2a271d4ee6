# SPDX-License-Identifier: MIT
"""The screen as a person sees it: boots an ISO with a display, waits for the
run to end (exit=halt), takes a QMP screendump and reads its text back with
the kernel's own font."""
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time

from bootlib import ROOT, qemu

BUILD = os.path.join(ROOT, "build")
LOGS = os.path.join(BUILD, "test-logs")
FONT_C = os.path.join(BUILD, "gen", "font.c")     # the glyphs the kernel links
GLYPH_W, GLYPH_H = 8, 16
FG, BG = 0xD0, 0x00                                # kernel/console.c's grey on black


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
    """(width, height, RGB bytes) of a binary PPM."""
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    assert m and m.group(3) == b"255", data[:20]
    w, h = int(m.group(1)), int(m.group(2))
    pixels = data[m.end():]
    assert len(pixels) == w * h * 3
    return w, h, pixels


def read_screen(w, h, pixels, glyphs, rows=None):
    """The text on the screen, one list per text row (the first `rows` rows
    when given); None marks a cell that is no glyph of the font."""
    out = []
    for ty in range(rows if rows is not None else h // GLYPH_H):
        # The red channel of each pixel row is enough: grey on black.
        lines = [pixels[(ty * GLYPH_H + y) * w * 3:(ty * GLYPH_H + y + 1) * w * 3:3]
                 for y in range(GLYPH_H)]
        text = []
        for tx in range(w // GLYPH_W):
            bitmap = bytes(sum(0x80 >> i for i, v in enumerate(line[tx * GLYPH_W:(tx + 1) * GLYPH_W]) if v)
                           for line in lines)
            text.append(glyphs.get(bitmap))
        out.append(text)
    return out


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


def boot_and_dump(name, mode, append, mem="256M", gfxmode=None, timeout=600, extra=()):
    """Boots `mode` with exit=halt added to `append`, waits for the done
    record and the line after it (serial gets each line just before the
    screen does), dumps the screen and quits QEMU. Returns (Result, path of
    the PPM, error or None). QEMU is told to quit whatever happened. The
    only deadline is the boot's own timeout, a guard against a hang: how
    long the boot takes is not what the screen tests are about."""
    os.makedirs(LOGS, exist_ok=True)
    log_path = os.path.join(LOGS, f"screen-{name}.log")
    ppm = os.path.join(LOGS, f"screen-{name}.ppm")
    for p in (log_path, ppm):
        if os.path.exists(p):
            os.remove(p)
    sockdir = tempfile.mkdtemp(prefix="bootheap-qmp-")    # short path for the socket
    qmp_path = os.path.join(sockdir, "qmp")
    outcome = {}
    boot_over = threading.Event()

    def operator():
        q = None
        try:
            while not boot_over.is_set():
                log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
                if '{"type":"done"' in log and "bootheap: finished" in log:
                    time.sleep(1.0)
                    break
                time.sleep(0.2)
            else:
                outcome["error"] = "the boot ended without a done record"
            q = QMP(qmp_path)
            if "error" not in outcome:
                q.cmd("screendump", filename=ppm)
        except Exception as e:      # reported by the caller
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
        r = qemu.boot(mode=mode, mem=mem, append=(append + " exit=halt").strip(),
                      timeout=timeout, quiet=True, log_path=log_path, gfxmode=gfxmode,
                      extra=["-vga", "std", "-qmp", f"unix:{qmp_path},server=on,wait=off", *extra])
        boot_over.set()
        t.join(timeout=30)
    finally:
        shutil.rmtree(sockdir, ignore_errors=True)
    return r, ppm, outcome.get("error")


def screen_text(ppm):
    """The screen's text rows, trailing blanks and empty rows at the end
    removed, with (width, height)."""
    w, h, pixels = read_ppm(ppm)
    rows = read_screen(w, h, pixels, load_font())
    bad = [(y, x) for y, row in enumerate(rows) for x, c in enumerate(row) if c is None]
    assert not bad, f"cells that are no glyph, first at {bad[0]}"
    screen = [("".join(row)).rstrip() for row in rows]
    while screen and not screen[-1]:
        screen.pop()
    return screen, (w, h)
