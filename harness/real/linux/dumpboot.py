# SPDX-License-Identifier: MIT
"""A Linux source build booted for its memory map (harness/real/linux/dump.py):
under TCG with -icount shift=0,sleep=off (deterministic, no brackets, no
replay; several vCPUs run in turn on one host thread), guest RAM starting
on a pattern rather than zeros (harness/qemu/pattern.py), `bootheap_dump`
on the command line of `binaries`' Linux boots, the serial log read until
the dump's end line; or until Linux refuses an early parameter, with its
own message read back."""
import os
import re
import tempfile

from harness.real.bracket import boot as realboot
from harness.real.linux import dump
from harness.qemu import command, runner

# What else makes two boots of one kernel leave different struct pages:
# RDRAND (TCG asks the host for it unless -seed is given) and the RTC's
# host time both seed the kernel's random pool, and that decides the order
# of every slab's free objects (SLAB_FREELIST_RANDOM), so slab pages'
# freelist words. With them fixed, two boots leave the same memory map.
DETERMINISTIC = ("-seed", "1", "-rtc", "base=2026-01-01T00:00:00,clock=vm")
# The early dump is printed before the console is up: the log buffer must
# hold it whole until then (it took 96 KB of serial log at 16 GiB on one
# node, 102 KB on two; the default buffer is 128 KB, shared with the rest).
LOG_BUF = "log_buf_len=16M"
END = re.compile(r"bootheap_dump: end [0-9a-f]+ [0-9a-f]+\r?\n")
# init/main.c's do_early_param(), when a parameter's setup function fails.
MALFORMED = re.compile(r"Malformed early option '([^']*)'")


class DumpBootError(Exception):
    """A boot that gave no dump: why, and the serial log's end."""


def nodes_label(nodes, cpus=1):
    """A guest's nodes in words: a count, or each node's MiB; and its vCPUs
    when more than one."""
    what = f"{nodes} node{'s' if nodes > 1 else ''}" if isinstance(nodes, int) else \
        "nodes of " + " and ".join(f"{n} MiB" for n in nodes)
    return what + (f", {cpus} vCPUs" if cpus > 1 else "")


def refused(log):
    """The early parameters Linux said it could not take -> [name]."""
    return MALFORMED.findall(log)


def boot_until(files, mem_bytes, log_path, append, nodes, extra, stop, timeout, cpus=1, pattern=True):
    """Boots files["kernel"] by its PVH note under qboot and TCG with
    `extra`, cpus vCPUs, guest RAM on the pattern unless pattern is False,
    the serial log in log_path, until stop(log so far) holds, QEMU
    exits or timeout seconds pass (harness/qemu/runner.py's launch() and
    wait()) -> ("stopped" | "ended" | "timeout", QEMU's exit status when it
    ended, QEMU's stderr). A log that holds what stop waits for counts as
    stopped even if QEMU has ended. QEMU is ended if it still runs."""
    with tempfile.TemporaryDirectory(prefix="linux-boot-", dir="/tmp") as work:
        cmd = command.qemu_command("pvh", "tcg", mem_bytes, append, workdir=work, extra=list(extra),
                                   say=lambda *a: None, kernel=files["kernel"], bios=command.QBOOT, nodes=nodes,
                                   cpus=cpus, pattern=pattern)
        proc, reader = runner.launch(cmd, log_path=log_path)
        how = runner.wait(proc, reader, timeout, None, done=lambda r, now: stop(r.text()))
        text = reader.finish()
    if how == "done" or (how == "exited" and stop(text)):
        how = "stopped"
    elif how == "exited":
        how = "ended"
    return how, proc.returncode if how == "ended" else None, reader.said()


def boot(files, mem_bytes, log_path, params="", nodes=1, timeout=None, cpus=1, icount=None):
    """Boots `files` ({"kernel": vmlinux}) at mem_bytes on cpus vCPUs with
    `bootheap_dump` and params, under -icount `icount` (default
    realboot.ICOUNT, one instruction a virtual ns) -> (Dump, log): the dump once deferred init is done (the
    log's early one is dump.parse(log, early=True)). DumpBootError when
    QEMU ends or the time runs out before the dump's end line, or when
    Linux refuses a parameter of params (named with Linux's message)."""
    append = f"{realboot.LINUX_APPEND} bootheap_dump {LOG_BUF} {params}".strip()
    # Under -icount the vCPUs run in turn on one host thread.
    timeout = timeout or realboot.timeout_for(mem_bytes) * (1 + (cpus - 1) / 2)
    how, rc, err = boot_until(files, mem_bytes, log_path, append, nodes,
                              ["-icount", icount or realboot.ICOUNT] + list(DETERMINISTIC),
                              lambda text: bool(refused(text) or END.search(text)), timeout, cpus)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        log = f.read().replace("\r", "")
    said = refused(log)
    why = None
    if said:
        why = f"Linux refused {', '.join(said)}: Malformed early option '{said[0]}'"
    elif how == "ended":
        why = f"the boot ended (QEMU exit {rc}) before the dump's end line" + (f"; QEMU said: {err}" if err else "")
    elif how == "timeout":
        why = f"no dump's end line within {timeout:.0f} s"
    if why:
        tail = "\n".join(log.rstrip().splitlines()[-12:])
        raise DumpBootError(f"{why} ({mem_bytes >> 20} MiB, {nodes_label(nodes, cpus)}); "
                            f"its serial log ends:\n{tail}")
    try:
        return dump.parse(log), log
    except dump.DumpError as e:
        raise DumpBootError(f"{e} ({os.path.basename(log_path)})")
