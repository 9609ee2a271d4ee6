#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints the whole-symbol vectors of tests/unit/test_qr.c from two encoders
that share no code with kernel/console/qr.c: libqrencode's `qrencode` (Debian's
qrencode 4.1.1) draws each symbol, segno (Debian's python3-segno 1.4.1)
scores it by the four penalty rules. Run by hand when the vectors change:
    python3 tests/unit/qr_vectors.py > vectors.txt
"""
import subprocess

from segno import encoder

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
# (version, payload length): the payload fills the version to capacity
# (byte mode, level M), so the symbol has no pad codewords, or is short
# of it and has them.
CASES = [(1, "bootheap"), (1, 14), (2, 20), (7, 122), (10, 213), (14, 362), (21, 711), (27, 1125),
         (32, 1528), (40, 2331)]


def payload(spec):
    """A literal payload, or n bytes of the test's own deterministic pattern."""
    if isinstance(spec, str):
        return spec
    return "".join(ALPHABET[i * 7 % len(ALPHABET)] for i in range(spec))


def symbol(data):
    out = subprocess.run(["qrencode", "-8", "-l", "M", "-m", "0", "-t", "ASCII", "-o", "-", data],
                         capture_output=True, text=True, check=True).stdout
    return [row[::2].replace(" ", ".") for row in out.splitlines() if row]


def mask_of(rows):
    """The mask from the first copy of the format bits (bit i at its place)."""
    places = [(8, 0), (8, 1), (8, 2), (8, 3), (8, 4), (8, 5), (8, 7), (8, 8), (7, 8),
              (5, 8), (4, 8), (3, 8), (2, 8), (1, 8), (0, 8)]
    bits = sum(1 << i for i, (x, y) in enumerate(places) if rows[y][x] == "#")
    return ((bits ^ 0x5412) >> 10) & 7


def fnv1a(rows):
    h = 0xcbf29ce484222325
    for byte in "".join(r + "\n" for r in rows).encode():
        h = ((h ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return h


print("/* version, payload (text, or NULL for the pattern), length, mask, FNV-1a */")
for version, spec in CASES:
    rows = symbol(payload(spec))
    assert len(rows) == 17 + 4 * version, (version, len(rows))
    text = f'"{spec}"' if isinstance(spec, str) else "NULL"
    print(f"    {{ {version}, {text}, {len(payload(spec))}, {mask_of(rows)}, 0x{fnv1a(rows):016x}ull }},")
print("/* the rows of the first */")
for r in symbol(payload(CASES[0][1])):
    print(f'    "{r}",')
# segno pads differently (a zero codeword after a byte-aligned terminator),
# so its penalties are taken on a payload that fills version 1 exactly.
full = payload(14)
print(f"/* segno's penalty of {full!r} (1-M) under masks 0 to 7 */")
scores = []
for mask in range(8):
    qr = encoder.encode(full, error="m", version=1, mode="byte", mask=mask, boost_error=False)
    scores.append(sum(encoder.mask_scores(qr.matrix, len(qr.matrix))))
print("    " + ", ".join(map(str, scores)))
