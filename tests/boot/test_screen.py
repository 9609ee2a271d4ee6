# SPDX-License-Identifier: MIT
"""The screen on every firmware path: GRUB hands the kernel a linear
framebuffer under SeaBIOS and under OVMF, and the kernel draws its console
on it (read back through a QMP screendump)."""
import pytest

from bootlib import explain, record
from screenlib import BG, FG, GLYPH_H, GLYPH_W, boot_and_dump, read_ppm, screen_text


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
