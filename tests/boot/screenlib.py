# SPDX-License-Identifier: MIT
"""The screen as a person sees it: boots an ISO with a display, waits for the
run to end (exit=halt: the done record, then the CPU halted), takes a QMP
screendump and reads its text back with the kernel's own font."""
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time

from bootlib import ROOT, harness_boot

BUILD = os.path.join(ROOT, "build")
LOGS = os.path.join(BUILD, "test-logs")
FONT_C = os.path.join(BUILD, "gen", "font.c")     # the glyphs the kernel links
GLYPH_W, GLYPH_H = 8, 16
FG, BG = 0xD0, 0x00                                # kernel/console/console.c's grey on black


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
    """Just enough of the QEMU machine protocol for a screendump, a look at
    the registers and a quit. No timeout of its own: QEMU's exit closes the
    socket, and the boot's stall detector ends a QEMU that stops answering."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.f = self.sock.makefile("rwb")
        assert "QMP" in json.loads(self.f.readline())
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        self.f.flush()
        while True:
            line = self.f.readline()
            if not line:
                raise RuntimeError(f"QMP {name}: QEMU closed the connection")
            reply = json.loads(line)
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(f"QMP {name}: {reply['error'].get('desc', reply)}")
            # Anything else is an asynchronous event: read on.

    def halted(self):
        """Whether the boot CPU sits in HLT (QEMU's register dump: HLT=1)."""
        regs = self.cmd("human-monitor-command", **{"command-line": "info registers"})
        m = re.search(r"\bHLT=([01])\b", regs)
        assert m, regs[:200]
        return m.group(1) == "1"

    def close(self):
        self.f.close()
        self.sock.close()


def boot_until_halted(name, mode, append, mem="256M", gfxmode=None, extra=(), dump=False,
                      halt="exit=halt", **kw):
    """Boots `mode` with `halt` (exit=halt) added to `append`, waits for the done
    record and then for the boot CPU to halt, which it does only once the
    last line is on the screen too (kernel/exit.c), dumps the screen when
    asked and quits QEMU. Returns (Result, whether the CPU was seen halted,
    the PPM's path, error or None). QEMU is told to quit whatever happened.
    No deadline of its own: the boot's stall detector (BOOTHEAP_STALL) ends
    a guest that stops making progress, whatever the host's load."""
    os.makedirs(LOGS, exist_ok=True)
    log_path = os.path.join(LOGS, f"screen-{name}.log")
    ppm = os.path.join(LOGS, f"screen-{name}.ppm")
    for p in (log_path, ppm):
        if os.path.exists(p):
            os.remove(p)
    sockdir = tempfile.mkdtemp(prefix="bootheap-qmp-")    # short path for the socket
    qmp_path = os.path.join(sockdir, "qmp")
    outcome = {"halted": False}
    boot_over = threading.Event()

    def operator():
        q = None
        try:
            while not boot_over.is_set():
                log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
                if '{"type":"done"' in log and "bootheap: finished" in log:
                    break
                time.sleep(0.2)
            else:
                outcome["error"] = "the boot ended without a done record"
            if "error" not in outcome:
                q = QMP(qmp_path)
                while not boot_over.is_set() and not outcome["halted"]:
                    outcome["halted"] = q.halted()
                    if not outcome["halted"]:
                        time.sleep(0.05)
                if dump and outcome["halted"]:
                    q.cmd("screendump", filename=ppm)
        except Exception as e:      # reported by the caller
            outcome["error"] = repr(e)
        finally:
            try:
                q = q or QMP(qmp_path)
                q.cmd("quit")
                q.close()
            except Exception:
                pass                # QEMU is gone already, or the stall detector ends it

    t = threading.Thread(target=operator, daemon=True)
    t.start()
    try:
        r = harness_boot.boot(mode=mode, mem=mem, append=f"{append} {halt}".strip(),
                              timeout=0, quiet=True, log_path=log_path, gfxmode=gfxmode,
                              extra=["-qmp", f"unix:{qmp_path},server=on,wait=off", *extra], **kw)
        boot_over.set()
        t.join()
    finally:
        shutil.rmtree(sockdir, ignore_errors=True)
    return r, outcome["halted"], ppm if dump else None, outcome.get("error")


def boot_and_dump(name, mode, append, mem="256M", gfxmode=None, extra=()):
    """boot_until_halted() with a display and a screendump -> (Result, path
    of the PPM, error or None)."""
    r, halted, ppm, err = boot_until_halted(name, mode, append, mem, gfxmode, ["-vga", "std", *extra],
                                            dump=True)
    if not err and not halted:
        err = "the CPU was never seen halted"
    return r, ppm, err


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
