# SPDX-License-Identifier: MIT
"""Xen built from Debian's source packages, with this project's patch series
(patches/xen/<release>/) applied: bookworm's 4.17 and trixie's 4.20, the
hypervisor alone, non-debug and debug (CONFIG_DEBUG), through the shared
layer of harness/real/source/kernel.py (the source, the series, the lock,
the build's folder and build.json).

A build is kept in build/xen-src/<release>-<config>-<key>/, where the key
digests what decides the binary: the source package's version, every
patch's bytes, the config and the compiler. While that folder is complete
a build is reused; a changed patch makes a new one. Beside each binary:
build.json (source version, patches, config, toolchain, time taken,
warnings) and the .config."""
import os
import shutil
import time

from harness import ROOT
from harness.real.source import build as srcbuild
from harness.real.source.kernel import SourceKernel
from harness.real.source.package import SourceError, SourceUnavailable  # noqa: F401

XEN = SourceKernel("xen", "Xen", {"4.17": "bookworm", "4.20": "trixie"})
RELEASES = XEN.releases
CONFIGS = ("release", "debug")


def make(tree, args, log, what):
    """make -C xen with args, its output appended to log; SourceError with
    the log's tail when it fails."""
    srcbuild.make(os.path.join(tree, "xen"), args, log, what, shown="xen")


def configure(tree, config, log, arch=(), options=None):
    """xen/.config: the release's defconfig with CONFIG_DEBUG set as asked
    (a release's defconfig is non-debug; an -unstable tree's is debug).
    `arch`: make's words for another architecture (XEN_TARGET_ARCH=,
    CROSS_COMPILE=), given to every make of the build; `options`: more
    symbols to set ({name: value}), each checked kept."""
    make(tree, list(arch) + ["defconfig"], log, "make defconfig")
    path = os.path.join(tree, "xen", ".config")
    with open(path) as f:
        text = f.read()
    flips = {"DEBUG": "y" if config == "debug" else "n", **(options or {})}
    now = srcbuild.settle(path, text, flips, os.path.join(tree, "xen"), list(arch), log, "xen")
    lost = srcbuild.undone(flips, now)
    if lost:
        raise SourceError(f"{path} did not keep " + ", ".join(f"CONFIG_{k}={flips[k]} (it holds {v})"
                                                                for k, v in lost.items()))


def compile_tree(tree, config, log, jobs, what, arch=(), options=None):
    """A patched tree configured and built (for `arch`, with `options`, as
    configure() takes them) -> seconds taken, and the (file, name) pairs a
    build keeps: the image (x86's multiboot ELF, arm64's Image, arm32's
    zImage), the ELF with symbols, the .config."""
    t0 = time.monotonic()
    configure(tree, config, log, arch, options)
    make(tree, list(arch) + [f"-j{jobs or os.cpu_count() or 1}"], log, what)
    xen = os.path.join(tree, "xen")
    return time.monotonic() - t0, [(os.path.join(xen, "xen"), "xen"), (os.path.join(xen, "xen-syms"), "xen-syms"),
                                   (os.path.join(xen, ".config"), "config")]


class Build(srcbuild.Build):
    """One built hypervisor: the multiboot ELF QEMU boots, and the ELF with symbols."""
    KERNEL, SYMBOLS = "xen", "xen-syms"

    @property
    def release(self):
        return self.info["release"]

    @property
    def config(self):
        return self.info["config"]


def build(release, config="release", patches=None, say=print, apt=None, jobs=None, refresh=False):
    """Xen `release` built in `config` with `patches` (default: the
    release's series) -> Build, reused while its key holds. One process
    builds at a time; another waits and reuses its result."""
    XEN.check(release)
    if config not in CONFIGS:
        raise SourceError(f"no build config {config}: use {' or '.join(CONFIGS)}")
    patches = XEN.series(release) if patches is None else list(patches)
    with XEN.lock():
        recipe = XEN.recipe(release, patches, apt, say, refresh)
        key = srcbuild.build_key(recipe.version, patches, config, recipe.tools)
        folder = XEN.folder(release, key, patches, marks=(config,))
        if not srcbuild.complete(folder):
            shutil.rmtree(folder, ignore_errors=True)
            tree, log = os.path.join(folder, "src"), os.path.join(folder, "build.log")
            os.makedirs(folder)
            XEN.unpack(recipe, tree)
            say(f"xen-src: building Xen {recipe.version} ({config}) with {len(patches)} patches into "
                f"{os.path.relpath(folder, ROOT)}")
            took, copies = compile_tree(tree, config, log, jobs, f"the build of Xen {recipe.version} ({config})")
            info = XEN.info(recipe, key, took, log, head={"config": config})
            # The source tree is large and comes back from the .dsc when needed.
            XEN.keep(folder, copies, info, drop=[tree])
            say(f"xen-src: Xen {recipe.version} ({config}) built in {took:.0f} s, {len(info['warnings'])} warnings")
        return Build(folder)
