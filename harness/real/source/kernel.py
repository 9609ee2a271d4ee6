# SPDX-License-Identifier: MIT
"""A kernel built from a Debian source package with a series of this
project: the one layer that Xen (harness/real/xen/source.py) and Linux
(harness/real/linux/source.py) build through, each a SourceKernel.

A SourceKernel knows its source package (`xen`, `linux`), the Debian
suite of each release, and its folders: build/<package>-src/ (apt/ the
private apt lists with deb-src lines, dl/ the downloads, then one folder a
build) and patches/<package>/<release>/ (the series). It does every step
that is not the kernel's own:

- the source: fetched with its fallbacks and reused without the network
  once downloaded (package.py);
- the tree: unpacked with Debian's patches and the series applied, a patch
  that does not apply named with its file and hunk; or kept so, unpacked
  once, for the tools that read the source rather than build it;
- one build at a time (a lock), the build's folder (<release>-<marks>-
  <key>, `-unpatched` for a build without the series), and what a build
  keeps: its files, build.json with the facts every build records (the
  release, suite, source version, key, each patch and its sha256, the
  toolchain, the time, the compiler's warnings), the older keys pruned.

What differs stays with each kernel: how its .config is made (settled by
build.settle() in both), what make builds, which files it keeps."""
import contextlib
import fcntl
import os
import shutil

from harness import ROOT
from harness.real.debian.apt import PrivateApt
from harness.real.source import build, package
from harness.real.source.package import SourceError


class Recipe:
    """What a build is made from, once fetched: the release, the source
    package's version and .dsc, the patches and the toolchain."""

    def __init__(self, release, version, dsc, patches, tools):
        self.release, self.version, self.dsc = release, version, dsc
        self.patches, self.tools = list(patches), tools


class SourceKernel:
    def __init__(self, package_name, title, releases, upstream=()):
        """releases: {release: Debian suite}; upstream: the releases that may
        be built from their upstream tarball alone when the suite's Debian
        files will not download (package.fetch_upstream())."""
        self.package, self.title, self.releases = package_name, title, dict(releases)
        self.upstream = tuple(upstream)
        self.src = os.path.join(ROOT, "build", f"{package_name}-src")
        self.patches = os.path.join(ROOT, "patches", package_name)
        self.tag = f"{package_name}-src"

    def check(self, release):
        if release not in self.releases:
            raise SourceError(f"no {self.title} release {release}: the source builds are "
                              f"{', '.join(self.releases)}")

    def series(self, release, folder=None):
        """The series of `release` (or the patches of `folder`) in order ->
        [path]; SourceError when there is none."""
        return package.series(folder or os.path.join(self.patches, release), f"{self.title} {release}")

    def apt(self, release):
        suite = self.releases[release]
        return PrivateApt(os.path.join(self.src, "apt", suite), [suite], kinds=("deb-src",))

    def downloaded(self, release):
        """[(version, .dsc)] of the release already in dl/, newest first."""
        return package.downloaded(self.package, release + ".", os.path.join(self.src, "dl"))

    def fetch(self, release, apt=None, say=print, refresh=False):
        """The release's source package -> (version, .dsc path): the newest
        in dl/ (no network), or the newest the mirror serves, falling back
        to older ones, and for an `upstream` release to the upstream tarball
        alone (package.fetch())."""
        self.check(release)
        have = [] if refresh else self.downloaded(release)
        if have:
            return have[0]
        return package.fetch(self.package, release + ".", f"{self.title} {release}", self.releases[release],
                             apt or self.apt(release), os.path.join(self.src, "dl"), say, refresh=True,
                             tag=self.tag, upstream=release in self.upstream)

    @contextlib.contextmanager
    def lock(self, name=".lock"):
        """One process at a time in build/<package>-src (tests run in
        parallel); another waits, then finds what the first made."""
        os.makedirs(self.src, exist_ok=True)
        with open(os.path.join(self.src, name), "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            yield

    def recipe(self, release, patches, apt=None, say=print, refresh=False):
        """Under the lock: the release's source fetched and the toolchain
        read -> Recipe."""
        version, dsc = self.fetch(release, apt, say, refresh)
        return Recipe(release, version, dsc, patches, build.toolchain())

    def folder(self, release, key, patches, marks=(), tail=""):
        """A build's folder: <release>[-mark...][-unpatched][tail]-<key>;
        a build with the series and one without are kept apart, each
        pruned of its own older keys."""
        name = "-".join((release,) + tuple(marks)) + ("" if patches else "-unpatched") + tail
        return os.path.join(self.src, f"{name}-{key}")

    def unpack(self, recipe, tree):
        """The source package unpacked into `tree` with the series applied."""
        package.unpack(recipe.dsc, tree)
        package.apply_series(tree, recipe.patches)

    def info(self, recipe, key, took, log, head=None, tail=None, suite=None, release=None, version=None):
        """build.json's facts, `head` after the source version and `tail` at the end."""
        return {"release": release or recipe.release, "suite": suite or self.releases.get(recipe.release),
                "source_version": version or recipe.version, **(head or {}), "key": key,
                "patches": [{"name": os.path.basename(p), "sha256": build.sha256(p)} for p in recipe.patches],
                "toolchain": recipe.tools, "build_s": round(took, 1), "warnings": build.warnings_in(log),
                **(tail or {})}

    def keep(self, folder, copies, info, drop=()):
        """A finished build: each (source, name) copied into the folder,
        what `drop` names removed, build.json written last, and the older
        builds of its kind pruned -> the folder."""
        os.makedirs(folder, exist_ok=True)
        for src, name in copies:
            shutil.copy(src, os.path.join(folder, name))
        for path in drop:
            shutil.rmtree(path, ignore_errors=True)
        build.write_json(os.path.join(folder, "build.json"), info)
        build.prune(self.src, folder)
        return folder

    def kept_tree(self, stem, key, fill, say=print, what=""):
        """A tree kept in build/<package>-src/<stem>-<key>/src once fill(src)
        has made it, marked done; this stem's older keys go -> its path."""
        folder = os.path.join(self.src, f"{stem}-{key}")
        tree = os.path.join(folder, "src")
        if os.path.isfile(os.path.join(folder, "done")):
            return tree
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        try:
            fill(tree)
        except SourceError:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        open(os.path.join(folder, "done"), "w").close()
        for old in os.listdir(self.src):
            if old.startswith(f"{stem}-") and old != os.path.basename(folder) and \
                    old[len(stem) + 1:].count("-") == 0:
                shutil.rmtree(os.path.join(self.src, old), ignore_errors=True)
        if what:
            say(f"{what} in {os.path.relpath(folder, ROOT)}")
        return tree

    def patched_tree(self, release, patches=None, say=print):
        """The release's source with `patches` (default: its series)
        applied, unpacked once and kept for the tools that read the tree
        (build/<package>-src/tree-<release>-<key>/src) -> its path."""
        patches = self.series(release) if patches is None else list(patches)
        with self.lock(".tree-lock"):
            version, dsc = self.fetch(release, say=say)
            recipe = Recipe(release, version, dsc, patches, {})
            return self.kept_tree(f"tree-{release}", build.tree_key(version, patches),
                                  lambda tree: self.unpack(recipe, tree))
