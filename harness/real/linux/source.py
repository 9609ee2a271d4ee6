# SPDX-License-Identifier: MIT
"""Linux built from Debian's source package `linux` (trixie's 6.12, and
sid's 7.1 from its upstream tarball alone), with
the configuration of harness/real/linux/config.py and this project's
patch series (patches/linux/<release>/: the memory map's dump after
deferred init, bootheap_dump, and init_pages=, whose default leaves the
kernel as it was; `linux-src measure --series without` builds without them).

The source, the series, the lock, the build's folder and build.json come
from the shared layer of harness/real/source/kernel.py, as Xen's do. A
build is kept in
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
import json
import os
import shutil
import subprocess
import time

from harness import ROOT
from harness.real.linux import config as kconfig
from harness.real.source import build as srcbuild, package
from harness.real.source.kernel import SourceKernel
from harness.real.source.package import SourceError, SourceUnavailable  # noqa: F401

# 7.1 is sid's; its Debian tarball will not download from the project's
# mirror, so it is built from its upstream tarball, with Debian's config of
# the newest release that has one (CONFIG_FROM), said in build.json.
LINUX = SourceKernel("linux", "Linux", {"6.12": "trixie", "7.1": "sid"}, upstream=("7.1",))
RELEASES = LINUX.releases
DEFAULT = "6.12"
CONFIG_FROM = {"7.1": "6.12"}
ROUNDS = 6                  # olddefconfig passes that add what kept options need


def patches_of(release):
    """The release's series, or none when it has no folder yet."""
    return LINUX.series(release) if os.path.isdir(os.path.join(LINUX.patches, release)) else []


def measuring(release):
    """The series that measures `release`: patches/linux/<release>-measure/
    (the proposal with init_pages= and the dump) where the proposal is the
    only way, else the release's own series (6.12's measures itself)."""
    folder = os.path.join(LINUX.patches, release + "-measure")
    return LINUX.series(release, folder) if os.path.isdir(folder) else patches_of(release)


def series_marks(release, patches):
    """What a build's folder name says of a series other than the release's
    own (7.1-measure/ -> ("measure",)), so that the proposal's build and the
    measuring one are kept apart and do not prune each other."""
    folders = {os.path.basename(os.path.dirname(p)) for p in patches}
    return tuple(sorted(f[len(release) + 1:] for f in folders if f.startswith(release + "-")))


def config_recipe():
    """What decides the .config besides the tree: the derivation's code,
    and the settling and reading of a .config it uses."""
    text = ""
    for module in (kconfig, srcbuild):
        with open(module.__file__, "rb") as f:
            text += f.read().decode()
    return srcbuild.build_key("", [], text, {})


class Build(srcbuild.Build):
    """One built kernel: vmlinux and its System.map."""
    KERNEL, SYMBOLS = "vmlinux", "System.map"

    def files(self):
        return {"kernel": self.kernel, "symbols": self.symbols}


def build(release="6.12", patches=None, say=print, apt=None, jobs=None, refresh=False, flips=None):
    """Linux `release` built with `patches` (default: its series) -> Build,
    reused while its key holds. One process builds at a time. flips:
    {symbol: "y" or "n"} set on the derived .config before the build
    (`linux-src measure --no-defer`), each settled as `linux-src configs`
    does; a flip olddefconfig undoes fails the build."""
    LINUX.check(release)
    patches = patches_of(release) if patches is None else list(patches)
    with LINUX.lock():
        recipe = LINUX.recipe(release, patches, apt, say, refresh)
        known = srcbuild.build_key(recipe.version, patches, config_recipe() + (repr(sorted(flips.items())) if flips
                                                                                 else ""), recipe.tools)
        recipes = _recipes()
        folder = os.path.join(LINUX.src, recipes.get(known, "-"))
        if not srcbuild.complete(folder):
            work = os.path.join(LINUX.src, f"work-{known}")
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            try:
                folder = _build(recipe, work, say, jobs, flips or {})
            finally:
                shutil.rmtree(work, ignore_errors=True)
            recipes[known] = os.path.basename(folder)
            srcbuild.write_json(os.path.join(LINUX.src, "recipes.json"), recipes)
        return Build(folder)


def _recipes():
    try:
        with open(os.path.join(LINUX.src, "recipes.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _olddefconfig(tree, obj, text, log, flips=None):
    return srcbuild.settle(os.path.join(obj, ".config"), text, flips or {}, tree, [f"O={obj}"], log, "linux")


def debian_config(release, tree, say=print):
    """Where the Debian config fragments come from -> (tree holding them,
    what the record says): the release's own tree, or for a release built
    from its upstream tarball, CONFIG_FROM's unpacked Debian tree."""
    if os.path.isfile(os.path.join(tree, kconfig.DEBIAN_FRAGMENTS[0])) or release not in CONFIG_FROM:
        return tree, {"release": release, "source": "the release's own source package"}
    other = CONFIG_FROM[release]
    version, _ = LINUX.fetch(other, say=say)
    return LINUX.patched_tree(other, patches=[], say=say), {
        "release": other, "source_version": version,
        "source": f"Linux {release}'s source package gave only its upstream tarball: Debian's config of "
                  f"{other} ({version}), settled on {release} by olddefconfig"}


def configure(tree, folder, log, patches=None, fragments=None):
    """The minimal .config in folder/obj -> the derivation's record: Debian's
    resolved amd64 config (folder/debian), tinyconfig, the kept symbols and,
    round by round, what they need (their plain dependencies, and for a
    symbol only `select` sets, a selector Debian sets), until no round adds
    any. patches: the series applied to the tree, whose symbols the record
    names (added: tested with the series and not without). fragments:
    (tree, record) of debian_config() when Debian's config is another
    release's."""
    obj, deb = os.path.join(folder, "obj"), os.path.join(folder, "debian")
    os.makedirs(obj)
    os.makedirs(deb)
    frags, debian_from = fragments or (tree, None)
    text = ""
    for frag in kconfig.DEBIAN_FRAGMENTS:
        path = os.path.join(frags, frag)
        if not os.path.isfile(path):
            raise SourceError(f"{frag} is not in the source package: no Debian config to derive from")
        with open(path) as f:
            text += f.read() + "\n"
    debian = _olddefconfig(tree, deb, text, log)
    srcbuild.make(tree, [f"O={obj}", "tinyconfig"], log, "make tinyconfig", shown="linux")
    with open(os.path.join(obj, ".config")) as f:
        tiny_text = f.read()
    tiny = kconfig.parse_config(tiny_text)
    try:
        derived = kconfig.derive(tree)
        series = kconfig.series_symbols(tree, patches) if patches else None
    except kconfig.ConfigError as e:
        raise SourceError(str(e))
    derived.update({s: [f"by hand: {why}"] for s, why in kconfig.BY_HAND.items() if s not in derived})
    selects = {}
    keep, index, needs = kconfig.kept(derived, debian, tiny), kconfig.kconfig_index(tree, selects), {}
    for _ in range(ROUNDS):
        final = _olddefconfig(tree, obj, tiny_text + kconfig.fragment(keep, needs), log)
        wanted = dict({s: "y" for s in kconfig.BASE}, **keep, **needs)
        more = dict(kconfig.missing_needs(wanted, final, debian, index),
                    **kconfig.selectors_needed(wanted, final, debian, selects))
        more = {s: v for s, v in more.items() if s not in needs and s not in keep}
        if not more:
            break
        needs.update(more)
    missing = kconfig.base_missing(final)
    if missing:
        raise SourceError(f"the minimal config lacks {', '.join(missing)}, which the boot needs: "
                          "their dependencies did not come on")
    shutil.rmtree(deb)
    return dict({"sources": kconfig.init_sources(tree) + list(kconfig.BUILD_FILES + kconfig.CODEGEN_FILES),
                 "base": list(kconfig.BASE), "boot_values": kconfig.BOOT_VALUES, "by_hand": kconfig.BY_HAND,
                 "excluded": kconfig.EXCLUDED, "needs": needs,
                 "options": kconfig.compare(keep, final, derived, index)},
                **({"series": series} if series is not None else {}),
                **({"debian_config": debian_from} if debian_from else {}))


def settle(tree, obj, base_text, flips, log):
    """obj/.config as the base with flips, settled by olddefconfig ->
    the flips olddefconfig undid ({symbol: value it left})."""
    os.makedirs(obj, exist_ok=True)
    return srcbuild.undone(flips, _olddefconfig(tree, obj, base_text, log, flips))


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


def _build(recipe, work, say, jobs, flips):
    """Unpacks and configures in `work`; reuses the build of the same key or
    compiles one -> its folder."""
    tree, log = os.path.join(work, "src"), os.path.join(work, "build.log")
    version, patches = recipe.version, recipe.patches
    say(f"linux-src: unpacking linux {version} (1.6 GB, " + ("its upstream tarball alone)"
        if recipe.dsc.endswith(package.UPSTREAM) else "with Debian's patches)"))
    LINUX.unpack(recipe, tree)
    t0 = time.monotonic()
    derivation = configure(tree, work, log, patches, debian_config(recipe.release, tree, say))
    obj = os.path.join(work, "obj")
    if flips:
        derivation["flipped"] = _flip(tree, obj, flips, log)
    with open(os.path.join(obj, ".config")) as f:
        key = srcbuild.build_key(version, patches, f.read(), recipe.tools)
    folder = LINUX.folder(recipe.release, key, patches, marks=series_marks(recipe.release, patches),
                          tail=flipped_name(flips))
    if srcbuild.complete(folder):
        say(f"linux-src: the same .config was built before: {os.path.relpath(folder, ROOT)}")
        return folder
    kept = derivation["options"]
    say(f"linux-src: building Linux {version} into {os.path.relpath(folder, ROOT)}: tinyconfig with "
        f"{len(kept)} of Debian's options that change the memory init "
        f"({sum('depends_on' not in o for o in kept)} as Debian has them), {len(patches)} patches"
        + "".join(f", {s}={v}" for s, v in flips.items()))
    srcbuild.make(tree, [f"O={obj}", f"-j{jobs or os.cpu_count() or 1}", "bzImage"], log,
                  f"the build of Linux {version}", shown="linux")
    took = time.monotonic() - t0
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    r = subprocess.run(["strip", "--strip-debug", "-o", os.path.join(folder, "vmlinux"), os.path.join(obj, "vmlinux")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SourceError(f"strip cannot read the built vmlinux: {r.stderr.strip()}")
    info = LINUX.info(recipe, key, took, log, tail={"config": derivation})
    LINUX.keep(folder, [(os.path.join(obj, "System.map"), "System.map"), (os.path.join(obj, ".config"), "config"),
                        (os.path.join(obj, "arch/x86/boot/bzImage"), "bzImage"), (log, "build.log")], info)
    say(f"linux-src: Linux {version} built in {took:.0f} s, {len(info['warnings'])} warnings")
    return folder
