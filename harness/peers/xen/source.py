# SPDX-License-Identifier: MIT
"""Xen built from Debian's source packages, with this project's patch series
(patches/xen/<release>/) applied: bookworm's 4.17 and trixie's 4.20, the
hypervisor alone, non-debug and debug (CONFIG_DEBUG).

The source comes through the private apt of harness/peers/debian/apt.py, with
deb-src lines; dpkg-source unpacks it with Debian's own patches. A build is
kept in build/xen-src/<release>-<config>-<key>/, where the key digests what
decides the binary: the source package's version, every patch's bytes, the
config and the compiler. While that folder is complete a build is reused;
a changed patch makes a new one. Beside each binary: build.json (source
version, patches, config, toolchain, time taken, warnings) and the .config.

Each failure is a SourceError that names its cause: a source package apt
cannot get, a patch that does not apply (the patch, the file and the hunk),
a build that fails (the build log's tail)."""
import fcntl
import functools
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import time

from harness import ROOT
from harness.peers.debian.apt import FetchError, PrivateApt, compare_versions

SRC = os.path.join(ROOT, "build", "xen-src")
PATCHES = os.path.join(ROOT, "patches", "xen")
# Xen release -> the Debian suite whose source package carries it.
RELEASES = {"4.17": "bookworm", "4.20": "trixie"}
CONFIGS = ("release", "debug")
COVER = "0000-cover-letter.patch"
LOG_TAIL = 25


class SourceError(Exception):
    """A source build that cannot be had, with what went wrong."""


class SourceUnavailable(SourceError):
    """apt cannot get the release's source: the mirror lacks it, or apt
    cannot reach the mirror. Nothing about the series or the build."""


def series(release, folder=None):
    """The patches of `release` in order, the cover letter left out -> [path]."""
    folder = folder or os.path.join(PATCHES, release)
    paths = sorted(glob.glob(os.path.join(folder, "*.patch")))
    paths = [p for p in paths if os.path.basename(p) != COVER]
    if not paths:
        raise SourceError(f"no patches for Xen {release} in {os.path.relpath(folder, ROOT)}")
    return paths


def toolchain():
    """The compiler and assembler a build used, as they name themselves."""
    out = {}
    for tool in ("gcc", "as", "ld"):
        r = subprocess.run([tool, "--version"], capture_output=True, text=True)
        out[tool] = r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else "unknown"
    return out


def build_key(version, patches, config, tools):
    """What decides a binary, digested: a build is reused while it holds."""
    h = hashlib.sha256()
    h.update(f"{version}\0{config}\0{json.dumps(tools, sort_keys=True)}\0".encode())
    for p in patches:
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()[:12]


def patch_failures(output):
    """What `patch` says of the hunks that do not apply -> [(file, hunk, where)]."""
    out, current = [], None
    for line in output.splitlines():
        m = re.match(r"(?:checking|patching) file (\S+)", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"Hunk #(\d+) FAILED at (\d+)", line)
        if m:
            out.append((current, int(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"can't find file to patch|No file to patch", line)
        if m:
            out.append((current, 0, 0))
    return out


def apply_series(tree, patches, run=subprocess.run):
    """Applies the patches to the unpacked source tree, each checked first
    with --dry-run, so a patch that does not apply changes nothing and is
    named with its file and hunk. No fuzz: a hunk whose context lines are
    not all where they were does not apply (patch's default fuzz of 2 would
    land it, shifted, without a word)."""
    for p in patches:
        base = ["patch", "-p1", "--forward", "--batch", "--fuzz=0", "-d", tree, "-i", p]
        r = run(base + ["--dry-run"], capture_output=True, text=True)
        if r.returncode != 0:
            said = (r.stdout + r.stderr).strip()
            where = "; ".join(f"{f}, hunk #{h} at line {n}" if h else f"{f or 'a file'}: not in the tree"
                              for f, h, n in patch_failures(said)) or said.splitlines()[-1:]
            raise SourceError(f"{os.path.relpath(p, ROOT)} does not apply to {os.path.basename(tree)}: "
                              f"{where}\npatch said:\n{said}")
        r = run(base, capture_output=True, text=True)
        if r.returncode != 0:
            raise SourceError(f"{os.path.relpath(p, ROOT)}: patch failed after its dry run passed:\n"
                              f"{(r.stdout + r.stderr).strip()}")


def log_tail(path, n=LOG_TAIL):
    with open(path, errors="replace") as f:
        return "\n".join(f.read().rstrip().splitlines()[-n:])


def _make(tree, args, log, what):
    """make -C xen with args, its output appended to log; SourceError with
    the log's tail when it fails."""
    with open(log, "a") as f:
        f.write(f"\n$ make -C xen {' '.join(args)}\n")
        f.flush()
        r = subprocess.run(["make", "--no-print-directory", "-C", os.path.join(tree, "xen")] + args, stdout=f,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise SourceError(f"{what} failed (make exit {r.returncode}); {os.path.relpath(log, ROOT)} ends:\n"
                          f"{log_tail(log)}")


def configure(tree, config, log):
    """xen/.config: the release's defconfig with CONFIG_DEBUG set as asked
    (a release's defconfig is non-debug; an -unstable tree's is debug)."""
    _make(tree, ["defconfig"], log, "make defconfig")
    path = os.path.join(tree, "xen", ".config")
    with open(path) as f:
        text = f.read()
    want = "CONFIG_DEBUG=y" if config == "debug" else "# CONFIG_DEBUG is not set"
    text = re.sub(r"^(CONFIG_DEBUG=y|# CONFIG_DEBUG is not set)$", want, text, flags=re.M)
    if want not in text:
        text += want + "\n"
    with open(path, "w") as f:
        f.write(text)
    _make(tree, ["olddefconfig"], log, "make olddefconfig")
    with open(path) as f:
        if want not in f.read().splitlines():
            raise SourceError(f"CONFIG_DEBUG did not stay {'on' if config == 'debug' else 'off'} in {path}")


def warnings_in(log):
    """The compiler's warning lines of a build log."""
    with open(log, errors="replace") as f:
        return [line.rstrip() for line in f if re.search(r": warning: ", line)]


class Build:
    """One built hypervisor: the multiboot ELF QEMU boots (`kernel`), the
    ELF with symbols (`symbols`), and build.json's facts (`info`)."""

    def __init__(self, folder):
        self.folder = folder
        self.kernel = os.path.join(folder, "xen")
        self.symbols = os.path.join(folder, "xen-syms")
        with open(os.path.join(folder, "build.json")) as f:
            self.info = json.load(f)

    @property
    def release(self):
        return self.info["release"]

    @property
    def config(self):
        return self.info["config"]


def source_apt(release):
    return PrivateApt(os.path.join(SRC, "apt", RELEASES[release]), [RELEASES[release]], kinds=("deb-src",))


def downloaded(release):
    """[(version, .dsc)] of the release already in build/xen-src/dl/, newest first."""
    out = []
    for dsc in glob.glob(os.path.join(SRC, "dl", f"xen_{release}.*.dsc")):
        out.append((os.path.basename(dsc)[len("xen_"):-len(".dsc")], dsc))
    return sorted(out, key=functools.cmp_to_key(lambda x, y: compare_versions(x[0], y[0])), reverse=True)


def fetch(release, apt=None, say=print, refresh=False):
    """A xen source package of the release's suite -> (version, .dsc path):
    the newest already downloaded into build/xen-src/dl/ (no network), or
    else the newest the mirror serves, trying older versions of the suite
    (its security and point-release updates) when a newer one's files will
    not download. SourceError names every version tried and why."""
    have = [] if refresh else downloaded(release)
    if have:
        return have[0]
    apt = apt or source_apt(release)
    tried = []
    try:
        apt.update()
        versions = [v for v in apt.source_versions("xen") if v.startswith(release + ".")]
    except FetchError as e:
        raise SourceUnavailable(f"the source of Xen {release}: {e}")
    if not versions:
        raise SourceUnavailable(f"{RELEASES[release]}'s xen source packages hold no Xen {release}")
    for version in versions:
        try:
            say(f"xen-src: fetching xen {version} ({RELEASES[release]}) from the Debian mirror")
            return version, apt.source("xen", version, os.path.join(SRC, "dl"))
        except FetchError as e:
            lines = str(e).strip().splitlines() or [""]
            why = next((x for x in lines if "Failed to fetch http" in x), lines[-1])
            why = re.sub(r"\s*\[IP: [^]]*\]", "", why)       # the mirror's address: not the reason
            tried.append(f"{version}: {why.strip()}")
    raise SourceUnavailable(f"apt cannot get the source of Xen {release} from {apt.archive} "
                      f"({RELEASES[release]}): every version failed to download:\n  " + "\n  ".join(tried))


def build(release, config="release", patches=None, say=print, apt=None, jobs=None, refresh=False):
    """Xen `release` built in `config` with `patches` (default: the
    release's series) -> Build, reused while its key holds. One process
    builds at a time; another waits and reuses its result."""
    if release not in RELEASES:
        raise SourceError(f"no Xen release {release}: the source builds are {', '.join(RELEASES)}")
    if config not in CONFIGS:
        raise SourceError(f"no build config {config}: use {' or '.join(CONFIGS)}")
    patches = series(release) if patches is None else list(patches)
    os.makedirs(SRC, exist_ok=True)
    with open(os.path.join(SRC, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        version, dsc = fetch(release, apt, say, refresh)
        tools = toolchain()
        key = build_key(version, patches, config, tools)
        # A build with the series and one without are kept apart, each pruned of its own older keys.
        folder = os.path.join(SRC, f"{release}-{config}{'' if patches else '-unpatched'}-{key}")
        if os.path.isfile(os.path.join(folder, "build.json")):
            return Build(folder)
        return _build(release, config, version, dsc, patches, tools, key, folder, say, jobs)


def _build(release, config, version, dsc, patches, tools, key, folder, say, jobs):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tree, log = os.path.join(folder, "src"), os.path.join(folder, "build.log")
    r = subprocess.run(["dpkg-source", "--no-check", "-x", dsc, tree], capture_output=True, text=True)
    if r.returncode != 0:
        raise SourceError(f"dpkg-source cannot unpack {dsc}:\n{(r.stdout + r.stderr).strip()}")
    for copy in glob.glob(os.path.join(folder, "*.orig.tar.*")):
        os.remove(copy)                     # dpkg-source's copy beside the tree: dl/ has it
    apply_series(tree, patches)
    say(f"xen-src: building Xen {version} ({config}) with {len(patches)} patches into "
        f"{os.path.relpath(folder, ROOT)}")
    t0 = time.monotonic()
    configure(tree, config, log)
    _make(tree, [f"-j{jobs or os.cpu_count() or 1}"], log, f"the build of Xen {version} ({config})")
    took = time.monotonic() - t0
    for name in ("xen", "xen-syms"):
        shutil.copy(os.path.join(tree, "xen", name), os.path.join(folder, name))
    shutil.copy(os.path.join(tree, "xen", ".config"), os.path.join(folder, "config"))
    info = {"release": release, "suite": RELEASES[release], "source_version": version, "config": config,
            "key": key, "patches": [{"name": os.path.basename(p), "sha256": _sha256(p)} for p in patches],
            "toolchain": tools, "build_s": round(took, 1), "warnings": warnings_in(log)}
    # The source tree is large and rebuilt from the .dsc when needed.
    shutil.rmtree(tree)
    with open(os.path.join(folder, "build.json.tmp"), "w") as f:
        json.dump(info, f, indent=1)
    os.replace(os.path.join(folder, "build.json.tmp"), os.path.join(folder, "build.json"))
    _prune(folder)
    say(f"xen-src: Xen {version} ({config}) built in {took:.0f} s, {len(info['warnings'])} warnings")
    return Build(folder)


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _prune(keep):
    """Older builds of the same release, config and kind (with the series or
    without) go: they were built from patches, a source or a toolchain that
    are no longer these."""
    stem = os.path.basename(keep).rsplit("-", 1)[0]
    for old in glob.glob(os.path.join(SRC, f"{stem}-*")):
        if old != keep and os.path.basename(old).rsplit("-", 1)[0] == stem:
            shutil.rmtree(old, ignore_errors=True)
