# SPDX-License-Identifier: MIT
"""The source of a build from a Debian source package: the package fetched
through the private apt (harness/real/debian/apt.py, deb-src lines) with a
fallback to older versions when a newer one's files will not download, a
source once downloaded reused without the network, the tree unpacked by
dpkg-source with Debian's own patches, and this project's series applied
without fuzz (each patch checked by a dry run first).

Each failure is a SourceError that names its cause: a source package apt
cannot get (SourceUnavailable), a patch that does not apply (the patch, the
file and the hunk)."""
import functools
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import urllib.request

from harness import ROOT
from harness.real.debian.apt import FetchError, compare_versions

COVER = "0000-cover-letter.patch"


class SourceError(Exception):
    """A source build that cannot be had, with what went wrong."""


class SourceUnavailable(SourceError):
    """apt cannot get the release's source: the mirror lacks it, or apt
    cannot reach the mirror. Nothing about the series or the build."""


def series(folder, what):
    """The patches in `folder` in order, the cover letter left out -> [path];
    `what` names them in the error when there are none ("Xen 4.17")."""
    paths = sorted(glob.glob(os.path.join(folder, "*.patch")))
    paths = [p for p in paths if os.path.basename(p) != COVER]
    if not paths:
        raise SourceError(f"no patches for {what} in {os.path.relpath(folder, ROOT)}")
    return paths


def touched(patches):
    """The files a series changes, in order, once each."""
    out = []
    for p in patches:
        with open(p, errors="replace") as f:
            for m in re.finditer(r"^diff --git a/(\S+) b/", f.read(), re.M):
                if m.group(1) not in out:
                    out.append(m.group(1))
    return out


def adds(patches, text):
    """Whether any patch of the series has an added line starting with text."""
    for p in patches:
        with open(p, errors="replace") as f:
            if re.search("^\\+" + re.escape(text), f.read(), re.M):
                return True
    return False


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


UPSTREAM = ".upstream.json"      # what stands for a .dsc when only the upstream tarball could be had


def fetch_upstream(package, version, apt, dl, say, tag="source"):
    """Only the upstream (orig) tarball of package=version, checked against
    the sum in apt's signed index, when the rest of the source package
    cannot be had -> the path of a record standing for its .dsc (UPSTREAM):
    the tarball, and what could not be had."""
    files = apt.source_files(package, version)
    orig = [f for f in files if ".orig.tar." in f[1]]
    if not orig:
        raise FetchError(f"{package} {version} has no upstream tarball")
    url, name, size, sha = orig[0]
    path = os.path.join(dl, name)
    os.makedirs(dl, exist_ok=True)
    if not (os.path.isfile(path) and os.path.getsize(path) == size):
        say(f"{tag}: fetching only the upstream tarball of {package} {version} ({size >> 20} MB)")
        try:
            with urllib.request.urlopen(url, timeout=60) as r, open(path + ".part", "wb") as f:
                shutil.copyfileobj(r, f, 1 << 20)
        except OSError as e:
            raise FetchError(f"{url}: {e}")
        os.replace(path + ".part", path)
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    if digest != sha:
        os.remove(path)
        raise FetchError(f"{name}: its SHA256 {digest} is not the index's {sha}")
    record = os.path.join(dl, f"{package}_{version.split(':', 1)[-1]}{UPSTREAM}")
    with open(record, "w") as f:
        json.dump({"version": version, "upstream": name, "sha256": sha,
                   "missing": [n for _, n, _, _ in files if n != name]}, f, indent=1)
    return record


def unpack(dsc, tree):
    """dpkg-source unpacks the source package, Debian's patches applied,
    into `tree`; its copy of the orig tarball beside the tree is removed
    (the download folder has it). For an upstream tarball alone (a record
    of fetch_upstream()), the tarball unpacked, with no Debian patches."""
    if dsc.endswith(UPSTREAM):
        with open(dsc) as f:
            orig = os.path.join(os.path.dirname(dsc), json.load(f)["upstream"])
        os.makedirs(tree, exist_ok=True)
        r = subprocess.run(["tar", "-xf", orig, "-C", tree, "--strip-components=1"], capture_output=True, text=True)
        if r.returncode != 0:
            raise SourceError(f"tar cannot unpack {orig}:\n{(r.stdout + r.stderr).strip()}")
        return
    r = subprocess.run(["dpkg-source", "--no-check", "-x", dsc, tree], capture_output=True, text=True)
    if r.returncode != 0:
        raise SourceError(f"dpkg-source cannot unpack {dsc}:\n{(r.stdout + r.stderr).strip()}")
    for copy in glob.glob(os.path.join(os.path.dirname(tree), "*.orig.tar.*")):
        os.remove(copy)


def downloaded(package, prefix, dl):
    """[(version, .dsc)] of `package` versions starting with `prefix`
    already in the folder `dl`, newest first."""
    out = []
    for dsc in glob.glob(os.path.join(dl, f"{package}_{prefix}*.dsc")):
        out.append((os.path.basename(dsc)[len(package) + 1:-len(".dsc")], dsc))
    for record in glob.glob(os.path.join(dl, f"{package}_{prefix}*{UPSTREAM}")):
        out.append((os.path.basename(record)[len(package) + 1:-len(UPSTREAM)], record))
    return sorted(out, key=functools.cmp_to_key(lambda x, y: compare_versions(x[0], y[0])), reverse=True)


def fetch(package, prefix, what, suite, apt, dl, say, refresh=False, tag="source", upstream=False):
    """A source package whose version starts with `prefix` -> (version, .dsc
    path): the newest already in `dl` (no network), or else the newest the
    mirror serves, trying older versions of the suite (its security and
    point-release updates) when a newer one's files will not download; what
    a failed download left behind is removed. `what` names the release in
    messages ("Xen 4.20"). SourceUnavailable names every version tried and
    why."""
    have = [] if refresh else downloaded(package, prefix, dl)
    if have:
        return have[0]
    tried = []
    try:
        apt.update()
        versions = [v for v in apt.source_versions(package) if v.startswith(prefix)]
    except FetchError as e:
        raise SourceUnavailable(f"the source of {what}: {e}")
    if not versions:
        raise SourceUnavailable(f"{suite}'s {package} source packages hold no {what}")
    for version in versions:
        before = set(os.listdir(dl)) if os.path.isdir(dl) else set()
        try:
            say(f"{tag}: fetching {package} {version} ({suite}) from the Debian mirror")
            return version, apt.source(package, version, dl)
        except FetchError as e:
            for name in set(os.listdir(dl)) - before if os.path.isdir(dl) else ():
                if not (upstream and ".orig.tar." in name):     # kept for fetch_upstream(), which checks it
                    os.remove(os.path.join(dl, name))       # a part of this version: not a source to use
            lines = str(e).strip().splitlines() or [""]
            why = next((x for x in lines if "Failed to fetch http" in x), lines[-1])
            why = re.sub(r"\s*\[IP: [^]]*\]", "", why)       # the mirror's address: not the reason
            tried.append(f"{version}: {why.strip()}")
    if upstream:
        for version in versions:
            try:
                return version, fetch_upstream(package, version, apt, dl, say, tag)
            except FetchError as e:
                tried.append(f"{version}, its upstream tarball alone: {str(e).strip().splitlines()[-1]}")
    raise SourceUnavailable(f"apt cannot get the source of {what} from {apt.archive} "
                            f"({suite}): every version failed to download:\n  " + "\n  ".join(tried))
