# SPDX-License-Identifier: MIT
"""What every host module shares: sizes and their names, the label that
emulated timings carry, the error a user must fix, and terminal output."""
import ctypes
import json
import os
import re
import signal
import sys

GIB = 1 << 30
MIB = 1 << 20
PAGE = 4096

# The sizes (Xen published figures at 4, 8 and 90 GB) and their runs.
DEFAULT_SIZES_GIB = (1, 2, 4, 8, 16, 32, 64, 90)
DEFAULT_RUNS = 5

TCG_LABEL = "EMULATED TIMINGS (TCG) — not comparable with KVM or Xen's figures"


class BenchError(Exception):
    """A problem the user must fix (bad option, missing tool, empty folder)."""


PR_SET_PDEATHSIG = 1        # <linux/prctl.h>


def die_with_parent():
    """For Popen's preexec_fn: the child (a QEMU) is killed when the process
    that started it dies, however it dies. Without it a test runner killed
    at its own timeout left a guest running for hours."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def say(msg=""):
    print(msg, flush=True)


def warn(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_size(text):
    """'8G', '512M', '4097M', '1T', '3.5G' -> bytes; a bare number is MiB."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)i?B?\s*", text, re.I)
    if not m:
        raise ValueError(f"bad memory size {text!r}: use a number with K, M, G or T")
    mult = {"": 1 << 20, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
    return int(float(m.group(1)) * mult)


def parse_sizes(text):
    """'1,2,4' or '0.5' (GiB), or with units ('512M', '4G') -> sorted, unique
    byte counts. QEMU takes memory in MiB, so a size must be whole MiB."""
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            continue
        try:
            n = int(float(tok) * GIB) if re.fullmatch(r"[0-9]+(\.[0-9]+)?", tok) else parse_size(tok)
        except ValueError:
            raise BenchError(f"bad size {tok!r} in --sizes: use GiB numbers like 1,2,4 or 0.5, or 512M")
        if n < 64 * MIB or n % MIB:
            raise BenchError(f"bad size {tok!r} in --sizes: must be a whole number of MiB, at least 64 MiB")
        out.append(n)
    if not out:
        raise BenchError("--sizes is empty")
    return sorted(set(out))


def size_label(nbytes):
    """File-name form of a size: 4G, or 512M when not whole GiB."""
    return f"{nbytes // GIB}G" if nbytes % GIB == 0 else f"{nbytes // MIB}M"


def gib_text(nbytes):
    return f"{nbytes / GIB:g} GiB"


def fmt(x, decimals):
    """x with `decimals` places, or '' for None (a table's empty cell)."""
    return "" if x is None else f"{x:.{decimals}f}"


def fmt_ms(ns):
    """ns as ms to the microsecond, blank for None."""
    return "" if ns is None else f"{ns / 1e6:.3f}"


def md_table(headers, rows):
    """A markdown table: a header line, the rule, and a line a row; None cells blank."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join("" if c is None else str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def read_jsonl(path):
    """The records of a JSON-lines file, or [] when there is no such file."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
