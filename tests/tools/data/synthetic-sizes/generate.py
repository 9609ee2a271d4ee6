#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the SYNTHETIC run over sizes in this folder: serial logs and a records.jsonl
laid out as `make bench` leaves a results folder. Test input for the host
tools, not a measurement: the numbers are chosen to be easy to check by hand.

The kernel-side statistics (summary, comparison) are done here the way a
kernel without floating point would: integer medians rounded down, fixed-point
ratios truncated. The host tools compute in floating point, so the tests also
prove the cross-check tolerates that rounding.
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GIB = 1 << 30
TSC_KHZ = 2_000_000
RUNS = 4                    # even: the medians are means of two, rounded down

# Pages handed to the heap per size: round numbers so ns/page is easy by hand.
SIZES = {"1G": 260_000, "4G": 1_040_000, "8G": 2_080_000}
STRATEGIES = ["page", "chunk", "sweep", "lazy"]
# ns per page at factor 1.0, and each run's factor.
INIT_BASE = {"page": 250, "chunk": 40, "sweep": 20, "lazy": 2, "floor": 10}
INIT_FACTORS = {
    "page": [1.00, 1.02, 0.99, 1.05],
    "chunk": [1.01, 0.98, 1.00, 1.03],
    "sweep": [1.00, 1.00, 1.01, 0.97],
    "lazy": [1.10, 0.95, 1.00, 1.02],
    "floor": [1.00, 1.01, 0.99, 1.00],
}
TOUCH_BASE = {"page": 6, "chunk": 6, "sweep": 6, "lazy": 30}
TOUCH_FACTORS = [1.00, 1.03, 0.98, 1.01]
FIRST_ALLOC = {"page": 900, "chunk": 900, "sweep": 850, "lazy": 4000}
ALLOC_FACTORS = [1.00, 1.10, 0.90, 1.05]


def init_ns(strategy, pages, run):
    ns = round(INIT_BASE[strategy] * pages * INIT_FACTORS[strategy][run])
    # One odd nanosecond makes the page median a mean that must round down.
    return ns + 1 if strategy == "page" and run == 0 else ns


def touch_ns(strategy, pages, run):
    return round(TOUCH_BASE[strategy] * pages * TOUCH_FACTORS[run])


def alloc_ns(strategy, run):
    return round(FIRST_ALLOC[strategy] * ALLOC_FACTORS[run])


def kmedian(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) // 2


def fixed(value_scaled, decimals):
    """An integer holding value x 10^decimals, printed as the kernel would."""
    scale = 10 ** decimals
    return f"{value_scaled // scale}.{value_scaled % scale:0{decimals}d}"


def kcv_x100(values):
    """cv in hundredths of a percent, truncated, from exact integer sums."""
    n = len(values)
    if n < 2:
        return 0
    total = sum(values)
    # variance x n^2 (n-1) = n * sum((n x - total)^2) / ... kept exact:
    ss = sum((n * v - total) ** 2 for v in values)     # = n^2 * sum((v - mean)^2)
    # sd / mean = sqrt(ss / (n^2 (n-1))) / (total / n) = sqrt(ss / (n-1)) / total
    return math.isqrt(ss * 10**8 // (n - 1)) // total


def rec(obj):
    """Compact JSON with the kernel's fixed decimals kept as written."""
    parts = []
    for k, v in obj.items():
        if isinstance(v, Raw):
            parts.append(f'"{k}":{v.text}')
        else:
            parts.append(f'"{k}":' + json.dumps(v, separators=(",", ":")))
    return "{" + ",".join(parts) + "}"


class Raw:
    def __init__(self, text):
        self.text = text


def blocks_for(pages):
    """Free blocks by order 0..18 whose pages add up to `pages`."""
    out = [0] * 19
    out[18] = pages >> 18
    for k in range(18):
        out[k] = (pages >> k) & 1
    return out


def serial_log(label, pages):
    mem = int(label[:-1]) * GIB
    runs_ns = {}
    lines = ["", "bootheap 0.1: how fast can a kernel hand its boot memory to its buddy heap?",
             "loader: PVH (pvh)", f"command line: runs={RUNS}",
             "cpu: AuthenticAMD, QEMU TCG CPU version 2.5+; accelerator TCG, hypervisor TCGTCGTCGTCG"]
    out = lines.append
    out(rec({"type": "boot", "version": "0.1", "loader": "pvh", "loader_name": "PVH",
             "cmdline": f"runs={RUNS}", "accel": "TCG", "cpu_vendor": "AuthenticAMD",
             "cpu_brand": "QEMU TCG CPU version 2.5+", "hypervisor": "TCGTCGTCGTCG", "nx": True,
             "gbpages": True, "invariant_tsc": False, "serial": True, "mmap_source": "PVH memory map",
             "mmap": [{"addr": 0, "len": 654336, "type": 1},
                      {"addr": 1048576, "len": mem - 1048576, "type": 1}],
             "reserved": [], "modules": 0, "rsdp_len": 36}))
    out("tsc: 2000000 kHz from the PIT (3 windows agree)")
    out(rec({"type": "calibration", "khz": TSC_KHZ, "source": "pit", "calibrated": True, "reason": "",
             "windows": 3, "window_ms": 50, "accepted": 3, "spread_ppm": 12, "invariant_tsc": False,
             "duration_us": 150321, "checks": [{"name": "cpuid15", "khz": 0, "ppm": 0, "status": "absent"}]}))
    out(rec({"type": "bench", "mem_bytes": mem - 1048576 + 654336, "pages": pages, "accel": "TCG",
             "emulated": True, "calibrated": True, "tsc_khz": TSC_KHZ, "source": "pit", "runs": RUNS,
             "strategies": STRATEGIES}))
    ft_ns = pages * 3
    out(rec({"type": "frametable", "bytes": pages * 32, "entries": pages, "ticks": ft_ns * 2, "ns": ft_ns}))
    digest = f"{(pages * 2654435761) & 0xffffffffffffffff:016x}"
    for run in range(RUNS):
        for s in STRATEGIES + ["floor"]:
            ns = init_ns(s, pages, run)
            runs_ns.setdefault((s, "init"), []).append(ns)
            r = {"type": "result", "strategy": s, "run": run, "phase": "init", "pages": pages,
                 "ticks": ns * 2, "ns": ns, "ns_per_page": Raw(fixed(ns * 1000 // pages, 3))}
            if s != "floor":
                a = alloc_ns(s, run)
                runs_ns.setdefault((s, "alloc"), []).append(a)
                r["first_alloc_ns"] = a
            out(f"bench: {s} run {run} init: {ns // 1000000}.{ns % 1000000 // 1000:03d} ms")
            out(rec(r))
            if s == "floor":
                continue
            out(rec({"type": "audit", "strategy": s, "run": run, "ok": True, "free_pages": pages,
                     "expected_pages": pages, "blocks": blocks_for(pages), "digest": digest,
                     "errors": []}))
            ns = touch_ns(s, pages, run)
            runs_ns.setdefault((s, "first_touch"), []).append(ns)
            out(rec({"type": "result", "strategy": s, "run": run, "phase": "first_touch",
                     "pages": pages, "ticks": ns * 2, "ns": ns,
                     "ns_per_page": Raw(fixed(ns * 1000 // pages, 3))}))
    for s in STRATEGIES + ["floor"]:
        for phase in ("init", "first_touch"):
            v = runs_ns.get((s, phase))
            if not v:
                continue
            m = kmedian(v)
            out(rec({"type": "summary", "strategy": s, "phase": phase, "runs": len(v), "median_ns": m,
                     "min_ns": min(v), "max_ns": max(v), "ns_per_page": Raw(fixed(m * 1000 // pages, 3)),
                     "cv_pct": Raw(fixed(kcv_x100(v), 2))}))
    floor_m = kmedian(runs_ns[("floor", "init")])
    page = runs_ns[("page", "init")]
    for s in STRATEGIES:
        v = runs_ns[(s, "init")]
        m, t = kmedian(v), kmedian(runs_ns[(s, "first_touch")])
        speed = kmedian([page[i] * 100 // v[i] for i in range(RUNS)])
        out(rec({"type": "comparison", "strategy": s, "speedup_vs_page": Raw(fixed(speed, 2)),
                 "x_floor": Raw(fixed(m * 100 // floor_m, 2)), "init_median_ns": m,
                 "first_touch_median_ns": t, "end_to_end_median_ns": m + t,
                 "first_alloc_median_ns": kmedian(runs_ns[(s, "alloc")]), "digest_equal": True}))
    out(rec({"type": "done", "status": "ok"}))
    out("bootheap: finished, status ok")
    return lines


def main():
    jsonl = [json.dumps({"size_bytes": None, "size": None, "size_gib": None, "source": "harness",
                         "record": {"type": "run", "mode": "pvh", "accel_requested": "auto",
                                    "accel": "tcg", "sizes_bytes": [int(k[:-1]) * GIB for k in SIZES],
                                    "runs": RUNS, "strategies": "", "append": f"runs={RUNS}",
                                    "notes": ["synthetic test input, not a measurement"],
                                    "quick": False, "started": "2000-01-01T00:00:00",
                                    "elapsed_s": 42.0}})]
    for label, pages in SIZES.items():
        lines = serial_log(label, pages)
        # The 4G log keeps the CR of each CRLF, as raw serial capture does.
        eol = "\r\n" if label == "4G" else "\n"
        with open(os.path.join(HERE, f"serial-{label}.log"), "w", newline="") as f:
            f.write(eol.join(lines))        # no newline after the last line, like the kernel
        nbytes = int(label[:-1]) * GIB
        for line in lines:
            if line.startswith('{"type":'):
                jsonl.append(json.dumps({"size_bytes": nbytes, "size": label, "size_gib": nbytes / GIB,
                                         "source": "kernel", "record": json.loads(line)}))
        jsonl.append(json.dumps({"size_bytes": nbytes, "size": label, "size_gib": nbytes / GIB,
                                 "source": "harness",
                                 "record": {"type": "boot_result", "status": "ok", "qemu_rc": 33,
                                            "accel": "tcg", "mode": "pvh", "append": f"runs={RUNS}",
                                            "elapsed_s": 10.5, "log": f"serial-{label}.log",
                                            "parse_problems": [], "cmd": []}}))
    with open(os.path.join(HERE, "records.jsonl"), "w") as f:
        f.write("\n".join(jsonl) + "\n")


if __name__ == "__main__":
    main()
