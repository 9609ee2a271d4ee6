# SPDX-License-Identifier: MIT
"""Linux built from Debian's source package `linux` (trixie's 6.12), with
the configuration of harness/real/linux/config.py and this project's
patch series (patches/linux/<release>/: the memory map's dump after
deferred init, bootheap_dump, and init_pages=, whose default leaves the
kernel as it was; `linux-src --unpatched` builds without them).

The source comes through the private apt with deb-src lines and the
fallback of harness/real/debian/source.py; dpkg-source unpacks it with
Debian's own patches. A build is kept in
build/linux-src/<release>-<key>/ (<release>-no-<option>-<key>/ for an
option flipped off, `--no-defer`), the key digesting the source version, the
patches, the .config and the toolchain. The .config is known only once the
tree is unpacked and configured (some minutes), so recipes.json maps what
decides it (the version, the patches, the derivation's code in config.py,
the toolchain) to the build it gave: a run whose recipe is known reuses its
build at once; another configures, and reuses a build of the same key
without compiling. Beside the kernel
(vmlinux, booted by its PVH note; bzImage) and System.map: build.json
(source version, patches, toolchain, time, warnings, the derived options,
Debian's value and ours for each) and the .config. The source tree and the
objects are removed after the build: they are 2 GB and come back from the
download."""
import fcntl
import os
import shutil
import subprocess
import time

from harness import ROOT
from harness.real.debian import source as debsrc
from harness.real.debian.apt import PrivateApt
from harness.real.debian.source import SourceError, SourceUnavailable  # noqa: F401
from harness.real.linux import config as kconfig

SRC = os.path.join(ROOT, "build", "linux-src")
PATCHES = os.path.join(ROOT, "patches", "linux")
# Linux release -> the Debian suite whose source package carries it.
RELEASES = {"6.12": "trixie"}
ROUNDS = 6                  # olddefconfig passes that add what kept options need


def patches_of(release):
    """The release's series, or none when it has no folder yet."""
    folder = os.path.join(PATCHES, release)
    return debsrc.series(folder, f"Linux {release}") if os.path.isdir(folder) else []


def source_apt(release):
    return PrivateApt(os.path.join(SRC, "apt", RELEASES[release]), [RELEASES[release]], kinds=("deb-src",))


def fetch(release, apt=None, say=print, refresh=False):
    """A linux source package of the release -> (version, .dsc path): the
    newest in build/linux-src/dl/ (no network), or the newest the mirror
    serves, falling back to older ones (harness/real/debian/source.fetch)."""
    if release not in RELEASES:
        raise SourceError(f"no Linux release {release}: the source builds are {', '.join(RELEASES)}")
    dl = os.path.join(SRC, "dl")
    have = [] if refresh else debsrc.downloaded("linux", release + ".", dl)
    if have:
        return have[0]
    return debsrc.fetch("linux", release + ".", f"Linux {release}", RELEASES[release],
                        apt or source_apt(release), dl, say, refresh=True, tag="linux-src")


def config_recipe():
    """What decides the .config besides the tree: the derivation's code."""
    with open(kconfig.__file__, "rb") as f:
        return debsrc.build_key("", [], f.read().decode(), {})


class Build(debsrc.Build):
    """One built kernel: vmlinux and its System.map."""
    KERNEL, SYMBOLS = "vmlinux", "System.map"

    def files(self):
        return {"kernel": self.kernel, "symbols": self.symbols}


def build(release="6.12", patches=None, say=print, apt=None, jobs=None, refresh=False, flips=None):
    """Linux `release` built with `patches` (default: its series) -> Build,
    reused while its key holds. One process builds at a time. flips:
    {symbol: "y" or "n"} set on the derived .config before the build
    (`linux-src --no-defer`), each settled by settle() as
    `linux-src --configs` does; a flip it undoes fails the build."""
    if release not in RELEASES:
        raise SourceError(f"no Linux release {release}: the source builds are {', '.join(RELEASES)}")
    patches = patches_of(release) if patches is None else list(patches)
    os.makedirs(SRC, exist_ok=True)
    with open(os.path.join(SRC, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        version, dsc = fetch(release, apt, say, refresh)
        tools = debsrc.toolchain()
        recipe = debsrc.build_key(version, patches, config_recipe() + (repr(sorted(flips.items())) if flips else ""),
                                  tools)
        recipes = _recipes()
        known = os.path.join(SRC, recipes.get(recipe, "-"))
        if os.path.isfile(os.path.join(known, "build.json")):
            return Build(known)
        work = os.path.join(SRC, f"work-{recipe}")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        try:
            folder = _build(release, version, dsc, patches, tools, work, say, jobs, flips or {})
        finally:
            shutil.rmtree(work, ignore_errors=True)
        recipes[recipe] = os.path.basename(folder)
        debsrc.write_json(os.path.join(SRC, "recipes.json"), recipes)
        return Build(folder)


def _recipes():
    import json
    try:
        with open(os.path.join(SRC, "recipes.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _olddefconfig(tree, obj, text, log):
    with open(os.path.join(obj, ".config"), "w") as f:
        f.write(text)
    debsrc.make(tree, [f"O={obj}", "olddefconfig"], log, "make olddefconfig", shown="linux")
    with open(os.path.join(obj, ".config")) as f:
        return kconfig.parse_config(f.read())


def configure(tree, folder, log):
    """The minimal .config in folder/obj -> the derivation's record: Debian's
    resolved amd64 config (folder/debian), tinyconfig, the kept symbols and,
    round by round, what they need, until no round adds any."""
    obj, deb = os.path.join(folder, "obj"), os.path.join(folder, "debian")
    os.makedirs(obj)
    os.makedirs(deb)
    text = ""
    for frag in kconfig.DEBIAN_FRAGMENTS:
        path = os.path.join(tree, frag)
        if not os.path.isfile(path):
            raise SourceError(f"{frag} is not in the source package: no Debian config to derive from")
        with open(path) as f:
            text += f.read() + "\n"
    debian = _olddefconfig(tree, deb, text, log)
    debsrc.make(tree, [f"O={obj}", "tinyconfig"], log, "make tinyconfig", shown="linux")
    with open(os.path.join(obj, ".config")) as f:
        tiny_text = f.read()
    tiny = kconfig.parse_config(tiny_text)
    try:
        derived = kconfig.derive(tree)
    except kconfig.ConfigError as e:
        raise SourceError(str(e))
    keep, index, needs = kconfig.kept(derived, debian, tiny), kconfig.kconfig_index(tree), {}
    for _ in range(ROUNDS):
        final = _olddefconfig(tree, obj, tiny_text + kconfig.fragment(keep, needs), log)
        wanted = dict({s: "y" for s in kconfig.BASE}, **keep, **needs)
        more = {s: v for s, v in kconfig.missing_needs(wanted, final, debian, index).items()
                if s not in needs and s not in keep}
        if not more:
            break
        needs.update(more)
    missing = kconfig.base_missing(final)
    if missing:
        raise SourceError(f"the minimal config lacks {', '.join(missing)}, which the boot needs: "
                          "their dependencies did not come on")
    shutil.rmtree(deb)
    return {"sources": kconfig.init_sources(tree) + list(kconfig.BUILD_FILES + kconfig.CODEGEN_FILES),
            "base": list(kconfig.BASE), "excluded": kconfig.EXCLUDED, "needs": needs,
            "options": kconfig.compare(keep, final, derived, index)}


def settle(tree, obj, base_text, flips, log):
    """obj/.config as the base with flips, settled by olddefconfig ->
    the flips olddefconfig undid ({symbol: value it left})."""
    os.makedirs(obj, exist_ok=True)
    path = os.path.join(obj, ".config")
    with open(path, "w") as f:
        f.write(base_text)
    for sym, val in flips.items():
        opt = "--disable" if val == "n" else "--enable"
        r = subprocess.run([os.path.join(tree, "scripts", "config"), "--file", path, opt, sym],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SourceError(f"scripts/config {opt} {sym}: {(r.stdout + r.stderr).strip()}")
    debsrc.make(tree, [f"O={obj}", "olddefconfig"], log, "make olddefconfig", shown="linux")
    with open(path) as f:
        return undone(flips, kconfig.parse_config(f.read()))


def undone(flips, now):
    """The flips a settled .config (parsed: None for `is not set`, absent
    when not even that) does not hold -> {symbol: the value it holds}."""
    held = {s: now.get(s) or "n" for s in flips}
    return {s: v for s, v in held.items() if v != flips[s]}


def flipped_name(flips):
    """A build folder's mark of its flips: -no-deferred-struct-page-init."""
    return "".join(f"-{'no' if v == 'n' else 'with'}-{s.lower().replace('_', '-')}" for s, v in sorted(flips.items()))


def _flip(tree, obj, flips, log):
    """obj/.config with flips, settled -> the derivation's record of them:
    each flip and every other symbol olddefconfig changed with it."""
    path = os.path.join(obj, ".config")
    with open(path) as f:
        text = f.read()
    undone = settle(tree, obj, text, flips, log)
    if undone:
        raise SourceError("olddefconfig undid " + ", ".join(f"{s}={v} (it left {undone[s]})" for s, v in flips.items()
                                                             if s in undone))
    before = kconfig.parse_config(text)
    with open(path) as f:
        after = kconfig.parse_config(f.read())
    return {"flips": flips, "also_changed": {s: after.get(s) for s in sorted(set(before) | set(after))
                                             if before.get(s) != after.get(s) and s not in flips}}


def _build(release, version, dsc, patches, tools, work, say, jobs, flips):
    """Unpacks and configures in `work`; reuses the build of the same key or
    compiles one -> its folder."""
    tree, log = os.path.join(work, "src"), os.path.join(work, "build.log")
    say(f"linux-src: unpacking linux {version} (1.6 GB with Debian's patches)")
    debsrc.unpack(dsc, tree)
    debsrc.apply_series(tree, patches)
    t0 = time.monotonic()
    derivation = configure(tree, work, log)
    obj = os.path.join(work, "obj")
    if flips:
        derivation["flipped"] = _flip(tree, obj, flips, log)
    with open(os.path.join(obj, ".config")) as f:
        key = debsrc.build_key(version, patches, f.read(), tools)
    folder = os.path.join(SRC, f"{release}{'' if patches else '-unpatched'}{flipped_name(flips)}-{key}")
    if os.path.isfile(os.path.join(folder, "build.json")):
        say(f"linux-src: the same .config was built before: {os.path.relpath(folder, ROOT)}")
        return folder
    kept = derivation["options"]
    say(f"linux-src: building Linux {version} into {os.path.relpath(folder, ROOT)}: tinyconfig with "
        f"{len(kept)} of Debian's options that change the memory init "
        f"({sum('depends_on' not in o for o in kept)} as Debian has them), {len(patches)} patches"
        + "".join(f", {s}={v}" for s, v in flips.items()))
    debsrc.make(tree, [f"O={obj}", f"-j{jobs or os.cpu_count() or 1}", "bzImage"], log,
                f"the build of Linux {version}", shown="linux")
    took = time.monotonic() - t0
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for src, dst in (("vmlinux", "vmlinux"), ("System.map", "System.map"), (".config", "config"),
                     ("arch/x86/boot/bzImage", "bzImage")):
        shutil.copy(os.path.join(obj, src), os.path.join(folder, dst))
    shutil.copy(log, os.path.join(folder, "build.log"))
    r = subprocess.run(["strip", "--strip-debug", os.path.join(folder, "vmlinux")], capture_output=True, text=True)
    if r.returncode != 0:
        raise SourceError(f"strip cannot read the built vmlinux: {r.stderr.strip()}")
    info = {"release": release, "suite": RELEASES[release], "source_version": version, "key": key,
            "patches": [{"name": os.path.basename(p), "sha256": debsrc.sha256(p)} for p in patches],
            "toolchain": tools, "build_s": round(took, 1), "warnings": debsrc.warnings_in(log),
            "config": derivation}
    debsrc.write_json(os.path.join(folder, "build.json"), info)
    debsrc.prune(SRC, folder)
    say(f"linux-src: Linux {version} built in {took:.0f} s, {len(info['warnings'])} warnings")
    return folder
