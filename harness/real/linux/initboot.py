# SPDX-License-Identifier: MIT
"""`linux-src init`: the source build booted past its memory init to a
busybox /init (harness/real/bracket/initramfs.py) that fills a tmpfs with
a known stream, reads it back through md5sum and powers off. Each variant
of init_pages= boots so at each size: the pages its free lists hand out
must hold what is written to them, and the kernel must say nothing of bad
pages, a BUG, a WARNING or a panic on the way.

Under TCG without -icount (no counts are taken, and the fill runs some
times faster), qboot loading vmlinux by its PVH note, the archive by
-initrd."""
import json
import os
import re
import time

from harness.common import size_label
from harness.real.bracket import boot as realboot
from harness.real.bracket import initramfs
from harness.real.linux import dumpboot

TAG = "bootheap-linux:"
LINE = "bootheap-linux: init reached"
MEMTEST_MIB = 64
# What the kernel prints when something is wrong with the pages it hands
# out or with itself: mm/page_alloc.c's bad_page() and warn_alloc(),
# lib/bug.c, kernel/panic.c, mm/oom_kill.c.
TROUBLE = re.compile(r"(Bad page state|BUG: |WARNING: |Kernel panic|page allocation failure|"
                     r"Out of memory|general protection fault)")
POWER_DOWN = "reboot: Power down"       # kernel/reboot.c, as the machine is powered off


class InitBootError(Exception):
    """A boot that could not be run at all (no archive, QEMU missing)."""


def archive(folder):
    """The initramfs in folder (written once: the same inputs give the same
    bytes) -> its path. InitBootError without a static busybox."""
    path = os.path.join(folder, "init.cpio.gz")
    try:
        initramfs.initramfs(path, line=LINE, memtest_mib=MEMTEST_MIB, tag=TAG)
    except (OSError, ValueError) as e:
        raise InitBootError(f"the busybox initramfs: {e}")
    return path


def verdict(log, qemu_ended):
    """A serial log -> (status, facts). status: "ok" (init reached, the
    read-back matched, the kernel powered the machine off, no trouble),
    "refused" (an early parameter), "trouble" (the kernel's first line of
    it), "memtest" (the read-back differed), "no-init" (the log ends before
    init), "no-poweroff" (init's last line, but no power-down)."""
    facts = {"init": None, "mem_total_kib": None, "mem_free_kib": None, "memtest": None,
             "powered_off": False, "trouble": None}
    for line in log.splitlines():
        body = line.split("] ", 1)[1] if line.startswith("[") and "] " in line else line
        if facts["trouble"] is None and TROUBLE.search(body):
            facts["trouble"] = body.strip()
        if body.startswith(LINE):
            facts["init"] = body.strip()
        elif body.startswith(TAG):
            rest = body[len(TAG):].strip()
            m = re.match(r"Mem(Total|Free):\s+(\d+) kB", rest)
            if m:
                facts["mem_total_kib" if m.group(1) == "Total" else "mem_free_kib"] = int(m.group(2))
            elif rest.startswith("memtest"):
                facts["memtest"] = rest
        if POWER_DOWN in body:
            facts["powered_off"] = True
    said = dumpboot.refused(log)
    if said:
        return "refused", dict(facts, refused=said)
    if facts["trouble"]:
        return "trouble", facts
    if not facts["init"]:
        return "no-init", facts
    if not facts["memtest"] or not facts["memtest"].endswith(" ok"):
        return "memtest", facts
    if not (facts["powered_off"] or qemu_ended):
        return "no-poweroff", facts
    return "ok", facts


def boot(files, initrd, mem_bytes, log_path, params="", nodes=1, timeout=None):
    """Boots files["kernel"] with initrd at mem_bytes -> (status, facts, log).
    The boot ends when QEMU exits (the kernel powered off), 2 s after the
    kernel says it is in trouble or refuses a parameter (the rest of its
    report), or at the timeout (dumpboot.boot_until)."""
    append = f"{realboot.LINUX_APPEND} {params}".strip()
    timeout = timeout or realboot.timeout_for(mem_bytes) + 120
    late = []

    def stop(text):
        if not late and verdict(text, False)[0] in ("refused", "trouble"):
            late.append(time.monotonic() + 2)
        return bool(late) and time.monotonic() > late[0]
    try:
        how, rc, qemu_said = dumpboot.boot_until(files, mem_bytes, log_path, append, nodes,
                                                 ["-initrd", initrd], stop, timeout)
    except OSError as e:
        raise InitBootError(f"QEMU: {e}")
    with open(log_path, encoding="utf-8", errors="replace") as f:
        log = f.read().replace("\r", "")
    status, facts = verdict(log, how == "ended")
    facts["qemu_exit"] = rc
    if qemu_said:
        facts["qemu_said"] = qemu_said[-500:]
    return status, facts, log


def why(status, facts, log):
    """One sentence for a status other than "ok", with the log's end."""
    tail = "\n".join(log.rstrip().splitlines()[-12:])
    said = {"refused": lambda: f"Linux refused {', '.join(facts.get('refused', []))}",
            "trouble": lambda: f"the kernel said: {facts['trouble']}",
            "memtest": lambda: f"the tmpfs read-back: {facts['memtest'] or 'init never reported it'}",
            "no-init": lambda: "the log ends before busybox's /init ran",
            "no-poweroff": lambda: "init's last line, but the kernel did not power the machine off"}[status]()
    return f"{said}; its serial log ends:\n{tail}"


def run(b, out, sizes, node_counts, variants, say=print):
    """`linux-src init`: each variant of build `b` (its init_pages= value,
    "" for none) booted to busybox's /init at each size and node count,
    into out/inits.jsonl -> 0 when every boot filled and read back its
    tmpfs, powered off and said no trouble, and each variant's MemTotal is
    stock's; else 1, each failure said."""
    initrd = archive(out)
    bad = 0
    with open(os.path.join(out, "inits.jsonl"), "w") as f:
        f.write(json.dumps(dict(b.info, type="build")) + "\n")
        for mem, nodes in [(m, n) for n in node_counts for m in sizes]:
            totals = {}
            for variant in variants:
                name = variant or "default"
                log = os.path.join(out, f"serial-init-{name}-{size_label(mem)}-{nodes}n.log")
                where = f"{size_label(mem)}, {nodes} node{'s' if nodes > 1 else ''}, {name}"
                t = time.monotonic()
                status, facts, text = boot(b.files(), initrd, mem, log, f"init_pages={variant}" if variant else "",
                                          nodes)
                r = {"type": "init", "mem_bytes": mem, "nodes": nodes, "key": b.info["key"], "variant": name,
                     "status": status, "wall_s": round(time.monotonic() - t, 1), "log": os.path.basename(log),
                     **facts}
                if status == "ok":
                    totals[name] = facts["mem_total_kib"]
                    if name != "stock" and "stock" in totals and totals["stock"] != totals[name]:
                        r["status"] = status = "memtotal"
                        r["message"] = f"MemTotal {totals[name]} kB, stock's {totals['stock']} kB"
                else:
                    r["message"] = why(status, facts, text)
                f.write(json.dumps(r) + "\n")
                f.flush()
                bad += status != "ok"
                say(f"linux-src: init at {where}: " + (
                    f"{facts['memtest']}, MemTotal {facts['mem_total_kib']} kB, powered off ({r['wall_s']} s)"
                    if status == "ok" else r["message"]))
    say(f"linux-src: {out}/inits.jsonl")
    return 1 if bad else 0
