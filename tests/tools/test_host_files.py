# SPDX-License-Identifier: MIT
"""tools/host-files.txt is the one list of files outside the tree: every
absolute path in the Makefile, harness/, tools/, tests/ and .ci/ must be on
it, so must every command they look up on PATH, and setup.sh fails naming
a missing file and its package."""
import os
import re
import subprocess

import pytest

from harness import ROOT

LIST = os.path.join(ROOT, "tools", "host-files.txt")
SCANNED = ["Makefile", "harness", "tools", "tests", ".ci"]
SKIPPED_DIRS = {"__pycache__", "corpus", "data"}      # fuzz seeds and recorded logs: data, not code
SUFFIXES = (".py", ".sh", ".c", ".h", ".cfg", ".ini", ".txt", "Makefile", "run", "gdbinit")
# Absolute paths under the host's own folders. /boot is not among them: in
# this tree it is always a path inside the ISO or a loader's command line.
HOST_ROOTS = "usr|etc|lib|lib64|bin|sbin|opt|var|dev|proc|sys|srv|home|root|run|mnt|tmp"
ABSOLUTE = re.compile(r"(?<![\w.$)}/-])/(?:%s)(?:/[\w.+-]+)*/?" % HOST_ROOTS)


def load_list(path=LIST):
    """host-files.txt -> {path: package}."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split()
            assert len(cols) >= 3, f"host-files.txt line {n}: want path, package and what reads it"
            out[cols[0]] = cols[1]
    return out


def listed(path, entries):
    path = path.rstrip(".") or path         # a path that ends a sentence in a comment
    return path in entries or path.rstrip("/") + "/" in entries or \
        any(e.endswith("/") and path.startswith(e) for e in entries)


def scan(paths):
    """[(file, line number, absolute path)] in the given files and folders."""
    found = []
    for top in paths:
        files = [top] if os.path.isfile(top) else [
            os.path.join(d, f) for d, subdirs, names in os.walk(top)
            for f in names if not subdirs.__setitem__(slice(None), [s for s in subdirs if s not in SKIPPED_DIRS])]
        for name in files:
            # The list itself, and this file, whose strays are the scanner's own test data.
            if not name.endswith(SUFFIXES) or os.path.samefile(name, LIST) or \
                    os.path.samefile(name, os.path.abspath(__file__)):
                continue
            with open(name, errors="replace") as f:
                for n, line in enumerate(f, 1):
                    found += [(os.path.relpath(name, ROOT), n, m.group(0)) for m in ABSOLUTE.finditer(line)]
    return found


def test_list_is_well_formed():
    entries = load_list()
    assert "/usr/share/consolefonts/Lat15-VGA16.psf.gz" in entries
    # Debian 12 ships the console font in console-setup-linux, not kbd.
    assert entries["/usr/share/consolefonts/Lat15-VGA16.psf.gz"] == "console-setup-linux"
    # tests/tools/test_dom0.py reads dom0's initramfs back with it.
    assert entries["/bin/cpio"] == "cpio"
    for path, pkg in entries.items():
        assert path.startswith("/"), path
        assert re.fullmatch(r"\??[a-z0-9][a-z0-9+.-]+|\((kernel|system|fresh|guest)\)", pkg), (path, pkg)


def test_every_absolute_path_is_on_the_list():
    entries = load_list()
    found = scan([os.path.join(ROOT, p) for p in SCANNED])
    assert any(p == "/usr/share/qemu/qboot.rom" for _, _, p in found), "the scan found nothing it should"
    stray = [f"{f}:{n}: {p}" for f, n, p in found if not listed(p, entries)]
    assert not stray, "absolute paths not in tools/host-files.txt:\n" + "\n".join(stray)


# A command looked up on PATH, other than as a fallback (`which("gcc") or which("cc")`).
WHICH = re.compile(r"(?<!or )shutil\.which\(\s*[\"']([\w.+-]+)[\"']")


def test_every_command_looked_up_on_path_is_on_the_list():
    """A test that skips when a command is missing (cpio, valgrind) skips
    only where make setup has not run: the command's package is listed."""
    commands = {os.path.basename(p.rstrip("/")) for p in load_list()}
    found = {}
    for top in ("harness", "tools", "tests"):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(d, name)) as f:
                        for cmd in WHICH.findall(f.read()):
                            found.setdefault(cmd, os.path.relpath(os.path.join(d, name), ROOT))
    assert {"cpio", "valgrind"} <= set(found), found
    missing = [f"{cmd} ({where})" for cmd, where in sorted(found.items()) if cmd not in commands]
    assert not missing, "looked up on PATH but not in tools/host-files.txt: " + ", ".join(missing)


def test_scan_catches_a_stray_path(tmp_path):
    src = tmp_path / "tool.py"
    src.write_text('FONT = "/usr/share/fonts/other.psf"\nLOCAL = "build/x"\nREL = "a/usr/b"\n'
                   'ISO = "/boot/bootheap.elf"\nOVMF = "/usr/share/OVMF/OVMF_CODE_4M.fd"\n')
    found = [p for _, _, p in scan([str(src)])]
    assert found == ["/usr/share/fonts/other.psf", "/usr/share/OVMF/OVMF_CODE_4M.fd"]
    entries = load_list()
    assert not listed(found[0], entries) and listed(found[1], entries)
    assert listed("/usr/lib/grub/i386-pc/normal.mod", entries)


def test_setup_fails_naming_the_file_and_its_package(tmp_path):
    # make is installed wherever this runs, so setup installs nothing and
    # goes straight to checking the files.
    lst = tmp_path / "host-files.txt"
    lst.write_text("/usr/bin/make make everything\n/usr/share/nowhere/font.psf.gz make the font\n"
                   "/dev/not-here (kernel) never checked\n")
    r = subprocess.run(["sh", os.path.join(ROOT, "tools", "setup.sh")], capture_output=True, text=True,
                       env=dict(os.environ, BOOTHEAP_HOST_FILES=str(lst)))
    assert r.returncode == 1
    assert "missing /usr/share/nowhere/font.psf.gz (Debian package make)" in r.stderr
    assert "not-here" not in r.stderr


def test_setup_leaves_what_a_command_installs_on_demand_to_that_command(tmp_path):
    # "?make": installed (here: already there) only when ON_DEMAND=1 asks;
    # its file is checked only then, and the other entries not at all.
    lst = tmp_path / "host-files.txt"
    lst.write_text("/usr/bin/make make everything\n/usr/share/nowhere/arm-gcc ?make xen-src arm\n")
    env = dict(os.environ, BOOTHEAP_HOST_FILES=str(lst))
    setup = ["sh", os.path.join(ROOT, "tools", "setup.sh")]
    r = subprocess.run(setup, capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "nowhere" not in r.stderr, r.stderr
    r = subprocess.run(setup, capture_output=True, text=True, env=dict(env, ON_DEMAND="1"))
    assert r.returncode == 1
    assert "missing /usr/share/nowhere/arm-gcc (Debian package make)" in r.stderr


@pytest.mark.parametrize("target", ["run", "run BOOT=iso-bios", "run BOOT=iso-uefi", "run GDB=1", "bench",
                                    "bench QUICK=1", "bench-qr"])
def test_accel_reaches_every_boot_target(target):
    r = subprocess.run(["make", "-n", "--no-print-directory", *target.split(), "ACCEL=tcg"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "-m harness" in r.stdout and "--accel tcg" in r.stdout, r.stdout


def test_accel_and_stall_reach_the_tests_through_the_environment():
    r = subprocess.run(["make", "--no-print-directory", "--eval",
                        "show-env: ; @echo $$BOOTHEAP_ACCEL $$BOOTHEAP_STALL", "show-env",
                        "ACCEL=kvm", "STALL=7"], cwd=ROOT, capture_output=True, text=True)
    assert r.stdout.split() == ["kvm", "7"], r.stdout + r.stderr
