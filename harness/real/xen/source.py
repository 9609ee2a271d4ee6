# SPDX-License-Identifier: MIT
"""Xen built from Debian's source packages, with this project's patch series
(patches/xen/<release>/) applied: bookworm's 4.17 and trixie's 4.20, the
hypervisor alone, non-debug and debug (CONFIG_DEBUG).

The source comes through the private apt of harness/real/debian/apt.py, with
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
import os
import re
import shutil
import time

from harness import ROOT
from harness.real.debian import source as debsrc
from harness.real.debian.apt import PrivateApt
# The shared pieces, by the names this module has always given them.
from harness.real.debian.source import (SourceError, SourceUnavailable, apply_series, build_key,  # noqa: F401
                                         log_tail, patch_failures, toolchain, warnings_in)

SRC = os.path.join(ROOT, "build", "xen-src")
PATCHES = os.path.join(ROOT, "patches", "xen")
# Xen release -> the Debian suite whose source package carries it.
RELEASES = {"4.17": "bookworm", "4.20": "trixie"}
CONFIGS = ("release", "debug")


def series(release, folder=None):
    """The patches of `release` in order, the cover letter left out -> [path]."""
    return debsrc.series(folder or os.path.join(PATCHES, release), f"Xen {release}")


def _make(tree, args, log, what):
    """make -C xen with args, its output appended to log; SourceError with
    the log's tail when it fails."""
    debsrc.make(os.path.join(tree, "xen"), args, log, what, shown="xen")


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


class Build(debsrc.Build):
    """One built hypervisor: the multiboot ELF QEMU boots, and the ELF with symbols."""
    KERNEL, SYMBOLS = "xen", "xen-syms"

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
    return debsrc.downloaded("xen", release + ".", os.path.join(SRC, "dl"))


def fetch(release, apt=None, say=print, refresh=False):
    """A xen source package of the release's suite -> (version, .dsc path):
    the newest already downloaded into build/xen-src/dl/ (no network), or
    else the newest the mirror serves, falling back to older versions
    (harness/real/debian/source.fetch)."""
    if not refresh and downloaded(release):
        return downloaded(release)[0]
    return debsrc.fetch("xen", release + ".", f"Xen {release}", RELEASES[release], apt or source_apt(release),
                        os.path.join(SRC, "dl"), say, refresh=True, tag="xen-src")


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
    debsrc.unpack(dsc, tree)
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
            "key": key, "patches": [{"name": os.path.basename(p), "sha256": debsrc.sha256(p)} for p in patches],
            "toolchain": tools, "build_s": round(took, 1), "warnings": warnings_in(log)}
    # The source tree is large and rebuilt from the .dsc when needed.
    shutil.rmtree(tree)
    debsrc.write_json(os.path.join(folder, "build.json"), info)
    _prune(folder)
    say(f"xen-src: Xen {version} ({config}) built in {took:.0f} s, {len(info['warnings'])} warnings")
    return Build(folder)


def _prune(keep):
    """Older builds of the same release, config and kind (with the series or
    without) go: they were built from patches, a source or a toolchain that
    are no longer these."""
    debsrc.prune(SRC, keep)
