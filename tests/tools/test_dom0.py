# SPDX-License-Identifier: MIT
"""Past the heap, the dom0 boot (harness/real/xen/dom0.py, initramfs.py): the
initramfs read back by an independent newc reader here (and by `cpio -t`
where it is installed), the QEMU command line, verdict() on recorded real
logs (data/dom0/README says which) and made-up ones, and boot() against
stand-in QEMUs."""
import gzip
import hashlib
import os
import shutil
import stat
import struct
import subprocess
import sys

import pytest

from conftest import HERE
from harness.real.xen import dom0
from harness.real.bracket import initramfs
from harness.qemu import command

DATA = os.path.join(HERE, "data", "dom0")
GIB = 1 << 30


def data(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


# ---- an independent newc reader ----------------------------------------------

def read_newc(blob):
    """[{name, mode, uid, gid, nlink, mtime, size, rdev, data, ino}] of a newc
    archive up to its trailer; checks magic and 4-byte alignment."""
    out, at = [], 0
    while True:
        assert at % 4 == 0
        assert blob[at:at + 6] == b"070701", f"bad magic at {at}: {blob[at:at + 6]!r}"
        f = [int(blob[at + 6 + 8 * i: at + 14 + 8 * i], 16) for i in range(13)]
        ino, mode, uid, gid, nlink, mtime, size, _, _, rmaj, rmin, namesize, check = f
        name_at = at + 110
        name = blob[name_at:name_at + namesize]
        assert name.endswith(b"\0") and b"\0" not in name[:-1]
        name = name[:-1].decode()
        data_at = (name_at + namesize + 3) & ~3
        assert set(blob[name_at + namesize:data_at]) <= {0}
        body = blob[data_at:data_at + size]
        at = (data_at + size + 3) & ~3
        if name == "TRAILER!!!":
            assert set(blob[at:]) <= {0}
            return out
        assert check == 0
        out.append(dict(name=name, mode=mode, uid=uid, gid=gid, nlink=nlink, mtime=mtime,
                        size=size, rdev=(rmaj, rmin), data=body, ino=ino))


def fake_static_elf(payload=b"", interp=False):
    """A 64-bit ELF header with one program header: PT_LOAD, or PT_INTERP."""
    head = bytearray(64)
    head[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<Q", head, 0x20, 64)              # e_phoff
    struct.pack_into("<HH", head, 0x36, 56, 1)          # e_phentsize, e_phnum
    ph = bytearray(56)
    struct.pack_into("<I", ph, 0, 3 if interp else 1)
    return bytes(head + ph) + payload


@pytest.fixture
def fake_busybox(tmp_path):
    p = tmp_path / "busybox"
    p.write_bytes(fake_static_elf(b"not really busybox" * 100))
    return str(p)


def entries_of(path):
    with open(path, "rb") as f:
        blob = gzip.decompress(f.read())
    return {e["name"]: e for e in read_newc(blob)}, blob


# ---- the initramfs -------------------------------------------------------------

def test_archive_holds_what_init_needs(tmp_path, fake_busybox):
    out = str(tmp_path / "i.cpio.gz")
    digest = initramfs.initramfs(out, busybox=fake_busybox)
    with open(out, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == digest
    ents, _ = entries_of(out)
    for d in ("bin", "dev", "proc", "sys", "tmp"):
        assert stat.S_ISDIR(ents[d]["mode"]) and ents[d]["mode"] & 0o777 == 0o755
        assert ents[d]["nlink"] == 2
    con = ents["dev/console"]
    assert stat.S_ISCHR(con["mode"]) and con["mode"] & 0o7777 == 0o600
    assert con["rdev"] == (5, 1) and con["size"] == 0
    bb = ents["bin/busybox"]
    assert stat.S_ISREG(bb["mode"]) and bb["mode"] & 0o777 == 0o755
    with open(fake_busybox, "rb") as f:
        assert bb["data"] == f.read()
    for applet in ("sh", "mount", "poweroff", "md5sum", "yes", "head", "grep"):
        link = ents[f"bin/{applet}"]
        assert stat.S_ISLNK(link["mode"]) and link["data"] == b"busybox"
    init = ents["init"]
    assert stat.S_ISREG(init["mode"]) and init["mode"] & 0o111
    text = init["data"].decode()
    assert text.startswith("#!/bin/sh\n")
    assert initramfs.INIT_LINE in text and "poweroff -f" in text
    # every applet the script runs is linked
    for word in ("mount", "grep", "yes", "head", "md5sum", "rm", "uname", "sync", "poweroff"):
        assert f"bin/{word}" in ents
    # parents come before their children; inodes are unique and fixed metadata
    names = list(ents)
    for n in names:
        if "/" in n:
            assert names.index(n.rsplit("/", 1)[0]) < names.index(n)
    assert len({e["ino"] for e in ents.values()}) == len(ents)
    assert all(e["mtime"] == 0 and e["uid"] == 0 and e["gid"] == 0 for e in ents.values())


def test_archive_is_deterministic(tmp_path, fake_busybox):
    a, b, c = (str(tmp_path / n) for n in ("a", "b", "c"))
    assert initramfs.initramfs(a, busybox=fake_busybox) == initramfs.initramfs(b, busybox=fake_busybox)
    with open(a, "rb") as fa, open(b, "rb") as fb:
        raw = fa.read()
        assert raw == fb.read()
    assert raw[:2] == b"\x1f\x8b" and struct.unpack_from("<I", raw, 4)[0] == 0   # gzip mtime 0
    os.utime(fake_busybox, (1, 1))          # the host file's own time does not leak in
    assert initramfs.initramfs(c, busybox=fake_busybox) == initramfs.initramfs(a, busybox=fake_busybox)
    assert initramfs.initramfs(c, busybox=fake_busybox, line="another line") != \
        initramfs.initramfs(a, busybox=fake_busybox)


def test_dynamic_busybox_is_refused(tmp_path):
    p = tmp_path / "bb"
    p.write_bytes(fake_static_elf(interp=True))
    with pytest.raises(ValueError, match="busybox-static"):
        initramfs.initramfs(str(tmp_path / "x"), busybox=str(p))
    p.write_bytes(b"#!/bin/sh\n")
    with pytest.raises(ValueError):
        initramfs.initramfs(str(tmp_path / "x"), busybox=str(p))


@pytest.mark.skipif(not shutil.which("cpio"), reason="cpio is not installed")
def test_cpio_reads_the_archive(tmp_path, fake_busybox):
    out = str(tmp_path / "i.cpio.gz")
    initramfs.initramfs(out, busybox=fake_busybox)
    with open(out, "rb") as f:
        blob = gzip.decompress(f.read())
    r = subprocess.run(["cpio", "-t", "-v", "--quiet"], input=blob, capture_output=True)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.decode().splitlines()
    console = [l for l in rows if l.endswith(" dev/console")]
    assert len(console) == 1 and console[0].startswith("crw-------")
    assert "5,   1" in console[0] or "5, 1" in console[0]
    assert any(l.startswith("lrwxrwxrwx") and l.endswith("bin/sh -> busybox") for l in rows)
    assert any(l.startswith("-rwxr-xr-x") and l.endswith(" init") for l in rows)


@pytest.mark.skipif(not os.path.isfile("/bin/busybox") or
                    not initramfs.is_static_elf(open("/bin/busybox", "rb").read()),
                    reason="busybox-static is not installed")
def test_real_busybox_runs_the_fill_check(tmp_path):
    """The memtest part of /init, run by the host's busybox, reads back the
    md5 the archive expects."""
    text = initramfs.init_script(memtest_mib=1)
    body = text.split("yes bootheap-dom0", 1)[1].split("rm -f", 1)[0]
    script = ("yes bootheap-dom0" + body).replace("/tmp/fill", str(tmp_path / "fill"))
    r = subprocess.run(["/bin/busybox", "sh", "-c", script], capture_output=True, text=True,
                       env={"PATH": os.path.dirname(os.path.realpath("/bin/busybox")) + ":/usr/bin:/bin"})
    assert r.stdout.strip() == f"{initramfs.TAG} memtest 1 MiB ok", r.stdout + r.stderr
    assert os.path.getsize(tmp_path / "fill") == 1 << 20


def test_fill_md5_matches_the_stream():
    for n in (0, 1, 13, 14, 15, 14 * 65536, 14 * 65536 + 5, 3 << 20):
        stream = (initramfs.FILL_WORD * (n // len(initramfs.FILL_WORD) + 1))[:n]
        assert initramfs.fill_md5(n) == hashlib.md5(stream).hexdigest(), n


def test_init_line_is_quoted_for_the_shell():
    line = "it's $HOME `x`"
    text = initramfs.init_script(line)
    echo = next(l for l in text.splitlines() if l.startswith("echo ") and "uname" in l)
    r = subprocess.run(["sh", "-c", echo.replace("$(uname -r)", "R")], capture_output=True, text=True)
    assert r.stdout == line + " (R)\n"
    with pytest.raises(ValueError):
        initramfs.init_script("two\nlines")


# ---- the command line ------------------------------------------------------------------

def qemu_split(value):
    """How QEMU's multiboot loader splits -initrd: at single commas, with
    ',,' standing for a comma; each piece is 'file[ args]'."""
    out, cur, i = [], "", 0
    while i < len(value):
        if value[i] == ",":
            if value[i + 1:i + 2] == ",":
                cur += ","
                i += 2
                continue
            out.append(cur)
            cur = ""
        else:
            cur += value[i]
        i += 1
    return out + [cur]


def arg_after(cmd, flag):
    return cmd[cmd.index(flag) + 1]


@pytest.fixture
def host_free(monkeypatch):
    """The host's free memory, as command.qemu_command reads it, set by the test."""
    def set_free(nbytes):
        monkeypatch.setattr(command, "mem_available", lambda: nbytes)
    set_free(64 * GIB)
    return set_free


def test_the_modules_string_survives_qemus_comma_rule(host_free):
    cmd = dom0.qemu_command("/x/xen", "/k/vmlinuz", "/i/initrd.gz", GIB, dom0_append="a=1,2 b")
    value = arg_after(cmd, "-initrd")
    assert value == f"/k/vmlinuz {dom0.DOM0_BASE} a=1,,2 b,/i/initrd.gz"
    assert qemu_split(value) == [f"/k/vmlinuz {dom0.DOM0_BASE} a=1,2 b", "/i/initrd.gz"]
    assert qemu_split(dom0.module_arg("/a,b/k", "x") + "," + dom0.module_arg("/c/i")) == ["/a,b/k x", "/c/i"]
    with pytest.raises(ValueError, match="space"):
        dom0.qemu_command("/x/xen", "/my kernel", "/i", GIB)
    with pytest.raises(ValueError, match="first word"):
        dom0.qemu_command("/my xen", "/k", "/i", GIB)


def test_the_command_is_bootheaps_machine_under_tcg_with_seabios(host_free):
    cmd = dom0.qemu_command("/x/xen", "/k", "/i", 4 * GIB, xen_append="heap-init=sweep")
    assert cmd[0] == "qemu-system-x86_64"
    assert arg_after(cmd, "-cpu") == "max,-smap"
    assert arg_after(cmd, "-accel") == "tcg"
    assert arg_after(cmd, "-machine") == "q35"
    assert arg_after(cmd, "-m") == "4096M"
    assert arg_after(cmd, "-serial") == "stdio"
    assert arg_after(cmd, "-kernel") == "/x/xen"
    assert "-icount" not in cmd and "-bios" not in cmd     # TCG free-running; SeaBIOS
    assert "-no-reboot" in cmd
    append = arg_after(cmd, "-append")
    assert append == dom0.XEN_BASE + " heap-init=sweep"
    for word in ("console=com1", "com1=115200,8n1", "loglvl=all", "dom0_mem=256M,max:256M",
                 "dom0_max_vcpus=1"):
        assert word in append.split()
    assert not any("reserve=off" in c for c in cmd)
    cmd = dom0.qemu_command("/x/xen", "/k", "/i", GIB, cpu="max")
    assert arg_after(cmd, "-cpu") == "max" and arg_after(cmd, "-m") == "1024M"


def test_a_guest_over_512_gib_gets_46_address_bits_and_machine_options_pass_through(host_free):
    host_free(24 * GIB)
    cmd = dom0.qemu_command("/x/xen", "/k", "/i", 1024 * GIB, machine_opts="max-ram-below-4g=128M")
    assert arg_after(cmd, "-cpu") == "max,-smap,phys-bits=46"
    assert arg_after(cmd, "-machine") == "q35,max-ram-below-4g=128M,memory-backend=ram0"
    assert arg_after(dom0.qemu_command("/x/xen", "/k", "/i", 512 * GIB), "-cpu") == "max,-smap"


def test_a_guest_larger_than_the_host_is_backed_with_reserve_off(host_free):
    host_free(24 * GIB)
    cmd = dom0.qemu_command("/x/xen", "/k", "/i", 90 * GIB)
    assert arg_after(cmd, "-object") == "memory-backend-ram,id=ram0,size=92160M,reserve=off"
    assert arg_after(cmd, "-machine") == "q35,memory-backend=ram0"
    host_free(11 * GIB)
    assert "-object" in dom0.qemu_command("/x", "/k", "/i", 10 * GIB)
    assert "-object" not in dom0.qemu_command("/x", "/k", "/i", 9 * GIB)


@pytest.mark.parametrize("bad", ["1.5M", "0M", 1000, GIB + 1])
def test_bad_sizes_are_refused(bad, tmp_path):
    with pytest.raises(ValueError, match="guest memory"):
        dom0.boot("/x", "/k", "/i", bad)


# ---- verdict() on logs ---------------------------------------------------------------------

@pytest.mark.parametrize("name,version", [("xen-4.17-1G-init.log", "4.17.7"),
                                          ("xen-4.20-src-1G-init.log", "4.20.4")])
def test_a_good_boot(name, version):
    v = dom0.verdict(data(name))
    assert v.status == "init"
    assert v.lines[0].startswith(initramfs.INIT_LINE)
    assert v.lines[1] == f"{initramfs.TAG} memtest 16 MiB ok"
    assert v.lines[2] == "Entering ACPI S5 state."
    assert v.facts["xen_version"] == version and v.facts["xen_debug"] is False
    assert v.facts["heap"] == "Domain heap initialised"
    assert 100_000 < v.facts["dom0_memtotal_kib"] <= 256 * 1024


def test_a_good_boot_cut_short_says_nothing():
    log = data("xen-4.17-1G-init.log")
    assert dom0.verdict(log[:log.index("(XEN) Preparing system for ACPI S5")]).status is None
    v = dom0.verdict(log[:log.index(initramfs.INIT_LINE)])
    assert v.status is None and v.facts["init"] is None
    assert dom0.verdict("").status is None


def test_a_failed_memory_test():
    log = data("xen-4.17-1G-init.log").replace(
        "memtest 16 MiB ok", "memtest 16 MiB FAILED: md5 0123, expected 4567")
    v = dom0.verdict(log)
    assert v.status == "memtest" and "FAILED" in v.lines[1]


def test_a_halt_counts_as_power_off():
    log = data("xen-4.17-1G-init.log")
    log = log[:log.index("(XEN) Preparing system")] + "(XEN) Hardware Dom0 halted: halting machine\n"
    v = dom0.verdict(log)
    assert v.status == "init" and v.lines[-1] == "Hardware Dom0 halted: halting machine"


def test_dom0_dies_where_the_cpu_shows_smap():
    v = dom0.verdict(data("xen-4.17-smap-dom0-died.log"))
    assert v.status == "dom0-died"
    assert v.lines[0] == "d0v0 Unhandled: vec 14, #PF[0001]"
    assert any("create_bounce_frame" in line for line in v.lines)
    assert "Domain 0 (vcpu#0) crashed on cpu#0:" in v.lines
    assert v.lines[-1] == "Hardware Dom0 crashed: rebooting machine in 5 seconds."


def test_a_dom0_kernel_panic():
    log = data("xen-4.17-dom0-panic.log")
    v = dom0.verdict(log)
    assert v.status == "dom0-died"
    assert v.lines == ["Hardware Dom0 crashed: rebooting machine in 5 seconds.",
                       "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)"]
    # the dom0 argument with a comma arrived whole (-initrd's ',,')
    assert "Kernel command line: console=hvc0 earlyprintk=xen rdinit=/init panic=-1 " \
           "rdinit=/nonexistent bootheap.comma=a,b" in log


def test_a_xen_panic():
    v = dom0.verdict(data("xen-4.17-bad-kernel-panic.log"))
    assert v.status == "panic"
    assert v.lines == ["Panic on CPU 0:", "Could not construct domain 0"]


def test_an_assert_with_timestamps():
    v = dom0.verdict(data("made-up-assert.log"))
    assert v.status == "assert"
    assert v.lines[0] == "Assertion 'page_state_is(&pg[i], free)' failed at common/page_alloc.c:1035"
    assert "Panic on CPU 0:" in v.lines
    assert v.facts["xen_version"] == "4.17.0"


def test_an_assert_seen_only_in_the_panic_block():
    log = "".join(line + "\n" for line in data("made-up-assert.log").splitlines()
                  if "Assertion" not in line or "Panic" in line)
    log = log.replace("Panic on CPU 0:\n", "Panic on CPU 0:\n(XEN) Assertion 'x' failed at y.c:1\n")
    v = dom0.verdict(log)
    assert v.status == "assert" and v.lines[0] == "Assertion 'x' failed at y.c:1"


def test_a_real_log_with_timestamps():
    """smap=0 (SMAP left in the CPU) and console_timestamps=boot: a real boot."""
    v = dom0.verdict(data("xen-4.17-1G-smap0-stamps-init.log"))
    assert v.status == "init" and v.lines[-1] == "Entering ACPI S5 state."
    assert v.facts["xen_version"] == "4.17.7" and v.facts["xen_debug"] is False


def test_a_bug():
    v = dom0.verdict(data("made-up-bug.log"))
    assert v.status == "assert"
    assert v.lines[0] == "Xen BUG at page_alloc.c:1452"


def test_a_panic_after_init_is_a_panic():
    log = data("xen-4.17-1G-init.log")
    log += "(XEN) ****************************************\n(XEN) Panic on CPU 0:\n" \
           "(XEN) FATAL PAGE FAULT\n(XEN) [error_code=0000]\n(XEN) Faulting linear address: 0\n" \
           "(XEN) ****************************************\n"
    v = dom0.verdict(log)
    assert v.status == "panic"
    assert v.lines == ["Panic on CPU 0:", "FATAL PAGE FAULT", "[error_code=0000]",
                       "Faulting linear address: 0"]


SELFTEST = """\
(XEN) Selftest 2 failed: Opc 48 8b 04 24 c3 90 90 90 expected #SS[0000], got #GP[0000]
"""
WARNING = """\
(XEN) ***************************************************
(XEN) SELFTEST FAILURE: CORRECT BEHAVIOR CANNOT BE GUARANTEED
(XEN) ***************************************************
(XEN) 3... 2... 1...
"""


def test_a_debug_builds_selftest_warning_is_not_a_failure():
    """A debug Xen under TCG: selftest 2 fails, Xen warns and waits 3 s,
    and boots on (made up from the recorded boot)."""
    log = data("xen-4.17-1G-init.log").replace("debug=n", "debug=y")
    log = log.replace("(XEN) Domain heap initialised\n", "(XEN) Domain heap initialised\n" + SELFTEST)
    log = log.replace("(XEN) Freed 656kB init memory\n", WARNING + "(XEN) Freed 656kB init memory\n")
    v = dom0.verdict(log)
    assert v.status == "init" and v.facts["xen_debug"] is True
    assert v.facts["warnings"] == [SELFTEST[6:].strip()]


def test_xen_quoting_the_init_line_is_not_dom0():
    """Only dom0's own console lines count: a Xen line quoting the init line does not."""
    log = data("xen-4.17-1G-init.log")
    fake = log[:log.index(initramfs.INIT_LINE)] + f"(XEN) {initramfs.INIT_LINE}\n" \
        f"(XEN) {initramfs.TAG} memtest 16 MiB ok\n(XEN) Entering ACPI S5 state.\n"
    assert dom0.verdict(fake).status is None


class Heard:
    """Stands in for the runner's reader: lines heard, the last at `last`."""

    def __init__(self, texts, last):
        self.lines, self.last = [(0.0, t) for t in texts], last


@pytest.mark.parametrize("text,final", [
    ("(XEN) Entering ACPI S5 state.", True), ("(XEN) Hardware Dom0 halted: halting machine", True),
    ("(XEN) Hardware Dom0 crashed: rebooting machine in 5 seconds.", True),
    ("(XEN) Reboot in five seconds...", True), ("(XEN) Domain heap initialised", False),
    ("(XEN) SELFTEST FAILURE: CORRECT BEHAVIOR CANNOT BE GUARANTEED", False),
    ("Entering ACPI S5 state.", False)])
def test_xens_last_word_ends_the_wait_once_it_is_quiet(text, final):
    assert dom0.said_last_word(Heard(["(XEN) Xen version 4.17.7", text], 10.0), 10.0 + 2 * dom0.FINAL_QUIET) \
        is final
    assert not dom0.said_last_word(Heard([text], 10.0), 10.0 + dom0.FINAL_QUIET / 2)


# ---- boot() against stand-in QEMUs ------------------------------------------------------------

def stand_in(tmp_path, body):
    """An executable that plays QEMU: a Python script with `body`."""
    p = tmp_path / "fake-qemu"
    p.write_text(f"#!{sys.executable}\nimport sys, time\n{body}\n")
    p.chmod(0o755)
    return str(p)


@pytest.fixture
def files(tmp_path):
    out = []
    for n in ("xen", "kernel", "initrd"):
        p = tmp_path / n
        p.write_bytes(b"x")
        out.append(str(p))
    return out


def test_boot_replays_a_good_log(tmp_path, files, host_free):
    log = os.path.join(DATA, "xen-4.17-1G-init.log")
    q = stand_in(tmp_path, f"sys.stdout.write(open({log!r}).read().replace(chr(10), chr(13) + chr(10)))")
    saved = str(tmp_path / "serial.log")
    r = dom0.boot(*files, "1G", timeout=60, stall=30, qemu=q, log_path=saved)
    assert r.status == "init" and r.ok and r.qemu_rc == 0
    assert r.log == data("xen-4.17-1G-init.log")           # carriage returns dropped
    with open(saved) as f:
        assert f.read() == r.log
    assert r.cmd[0] == q and "-initrd" in r.cmd


def test_boot_stops_a_halted_xen(tmp_path, files, host_free):
    """Xen that halts (no ACPI power-off) never lets QEMU exit: the boot ends
    a few seconds after Xen's last word, and the log decides."""
    log = data("xen-4.17-1G-init.log")
    log = log[:log.index("(XEN) Preparing system")] + "(XEN) Hardware Dom0 halted: halting machine\n"
    src = tmp_path / "log"
    src.write_text(log)
    q = stand_in(tmp_path, f"sys.stdout.write(open({str(src)!r}).read()); sys.stdout.flush(); time.sleep(60)")
    r = dom0.boot(*files, "1G", timeout=50, stall=40, qemu=q)
    assert r.status == "init"
    assert r.elapsed < dom0.FINAL_QUIET + 15


def test_boot_stalled_and_timeout(tmp_path, files, host_free):
    q = stand_in(tmp_path, "print('(XEN) Xen version 4.17.7 (x) debug=n', flush=True); time.sleep(60)")
    r = dom0.boot(*files, "1G", timeout=30, stall=2, qemu=q)
    assert r.status == "stalled" and r.elapsed < 15
    assert r.lines == ["(XEN) Xen version 4.17.7 (x) debug=n"]
    q = stand_in(tmp_path, "while True:\n    print('(XEN) tick', flush=True); time.sleep(0.3)")
    r = dom0.boot(*files, "1G", timeout=3, stall=2, qemu=q)
    assert r.status == "timeout" and r.elapsed < 15


def test_boot_qemu_error(tmp_path, files, host_free):
    q = stand_in(tmp_path, "sys.stderr.write('qemu-system-x86_64: -cpu nonsense: unknown CPU\\n'); "
                           "sys.exit(1)")
    r = dom0.boot(*files, "1G", timeout=30, stall=10, qemu=q)
    assert r.status == "qemu-error" and r.qemu_rc == 1
    assert r.lines == ["qemu-system-x86_64: -cpu nonsense: unknown CPU"]


def test_boot_failure_from_the_log(tmp_path, files, host_free):
    log = os.path.join(DATA, "xen-4.17-smap-dom0-died.log")
    q = stand_in(tmp_path, f"sys.stdout.write(open({log!r}).read()); sys.stdout.flush(); time.sleep(60)")
    r = dom0.boot(*files, "1G", timeout=50, stall=40, qemu=q)
    assert r.status == "dom0-died" and r.elapsed < dom0.FINAL_QUIET + 15
    assert r.lines[-1].startswith("Hardware Dom0 crashed")


def test_boot_refuses_missing_files(tmp_path, files):
    with pytest.raises(FileNotFoundError, match="nope"):
        dom0.boot(files[0], str(tmp_path / "nope"), files[2], "1G")
