# SPDX-License-Identifier: MIT
"""`xen-src --tree DIR`: a Xen source tree given by path (an upstream
checkout, staging or a tag) built and measured with the series of its
version, as harness/real/xen/source.py builds Debian's releases.

The version comes from the tree's xen/Makefile. A release with one series
(4.17, 4.20) is measured and proposed by the same patches; a tree with a
proposal series of its own (4.23, staging) has two: the proposal
(patches/xen/staging/), with no measuring options, and the measuring series
(patches/xen/staging-measure/: heap-init= and heap-dump), which the variant
boots need. The tree is copied before it is patched: the path given is only
read. A build is kept in
build/xen-src/bypath-<version>-<series>-<config>-<key>/, the key digesting
the tree's git commit (or, outside git, its page_alloc.c), the patches, the
config and the toolchain; this version's older builds of a series go.

Bad input is a SourceError naming what is wrong: a path that is no Xen tree
(the file it lacks), a version with no series, a patch that does not apply
(the patch, the file and the hunk)."""
import hashlib
import os
import re
import shutil
import subprocess
import time

from harness import ROOT
from harness.common import size_label
from harness.real.bracket import initramfs
from harness.real.source import build as srcbuild
from harness.real.source.kernel import Recipe
from harness.real.source.package import SourceError, apply_series
from harness.real.xen import dom0, source, variants
from harness.real.xen.source import XEN

# The tree's version -> (proposal series, measuring series), folders of patches/xen/.
SERIES = {"4.17": ("4.17", "4.17"), "4.20": ("4.20", "4.20"), "4.23": ("staging", "staging-measure")}
# A tree is a Xen tree when it has these.
MARKERS = ("xen/Makefile", "xen/common/page_alloc.c")
COPY_SKIP = shutil.ignore_patterns(".git", "*.o", ".*.cmd", "*.d")


def version_of(tree):
    """The Xen version of the source tree at `tree` -> "4.23". SourceError
    names the path or the file that makes it no Xen tree."""
    if not os.path.isdir(tree):
        raise SourceError(f"--tree {tree}: no such directory")
    for rel in MARKERS:
        if not os.path.isfile(os.path.join(tree, rel)):
            raise SourceError(f"--tree {tree} is not a Xen source tree: it has no {rel}")
    makefile = os.path.join(tree, "xen", "Makefile")
    with open(makefile, errors="replace") as f:
        text = f.read()
    got = {}
    for name in ("XEN_VERSION", "XEN_SUBVERSION"):
        m = re.search(rf"^\s*(?:export\s+)?{name}\s*\??=\s*(\d+)\s*$", text, re.M)
        if not m:
            raise SourceError(f"--tree {tree} is not a Xen source tree: {makefile} sets no {name}")
        got[name] = m.group(1)
    return f"{got['XEN_VERSION']}.{got['XEN_SUBVERSION']}"


def series_of(version, tree=""):
    """(proposal, measuring) series folders of patches/xen/ for `version`."""
    if version not in SERIES:
        known = ", ".join(f"{v} ({p})" if p != v else v for v, (p, _) in SERIES.items())
        raise SourceError(f"--tree {tree}: Xen {version} has no series in "
                                 f"{os.path.relpath(XEN.patches, ROOT)}/ (there are series for {known})")
    return SERIES[version]


def proposal(tree):
    """The tree's proposal series -> [patch path]; SourceError for a version without one."""
    name = series_of(version_of(tree), tree)[0]
    return XEN.series(name, os.path.join(XEN.patches, name))


def fingerprint(tree):
    """What identifies the tree's source: its git commit, with a digest of
    any local change, or outside git the digest of its page_alloc.c."""
    r = subprocess.run(["git", "-C", tree, "rev-parse", "HEAD"], capture_output=True, text=True)
    if r.returncode == 0:
        diff = subprocess.run(["git", "-C", tree, "diff", "HEAD"], capture_output=True).stdout
        return r.stdout.strip() + ("+" + hashlib.sha256(diff).hexdigest()[:12] if diff else "")
    with open(os.path.join(tree, "xen", "common", "page_alloc.c"), "rb") as f:
        return "page_alloc.c:" + hashlib.sha256(f.read()).hexdigest()[:12]


def build(tree, folder_name, config, say=print, jobs=None, with_series=True):
    """The tree built in `config` with the series folder `folder_name` of
    patches/xen/ (none when with_series is false) -> source.Build, reused
    while its key holds."""
    patches = XEN.series(folder_name, os.path.join(XEN.patches, folder_name)) if with_series else []
    return build_patched(tree, patches, folder_name if with_series else "unpatched", config, say, jobs)


def with_extra(label, extra):
    """A build's label with the number of `extra` (a patch's path, or None),
    a change on top of the patches the label names."""
    return label + (f"-{os.path.basename(extra).split('-', 1)[0]}" if extra else "")


def build_patched(tree, patches, label, config, say=print, jobs=None, cross=None, options=None):
    """The tree with `patches` (named `label` in the folder and the
    records) built in `config` -> source.Build, reused while its key holds.
    For x86 by default; `cross`, (arch, compiler prefix), builds for that
    architecture with the cross compiler, and `options` ({name: value})
    sets more kconfig symbols."""
    tree = os.path.abspath(tree)
    version = version_of(tree)
    ident = fingerprint(tree)
    arch, prefix = cross or (None, "")
    recipe = Recipe(f"{version}-{label}", f"{version} ({ident[:12]})", None, patches, srcbuild.toolchain(prefix))
    if arch:
        key = srcbuild.build_key(f"{version}\0{ident}\0{arch}", patches,
                                 f"{config} {sorted((options or {}).items())}", recipe.tools)
    else:
        key = srcbuild.build_key(f"{version}\0{ident}", patches, config, recipe.tools)
    folder = os.path.join(XEN.src, f"{arch or 'bypath'}-{version}-{label}-{config}-{key}")
    if srcbuild.complete(folder):
        return source.Build(folder)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(XEN.src, exist_ok=True)
    work, log = os.path.join(folder, "src"), os.path.join(folder, "build.log")
    shutil.copytree(tree, work, ignore=COPY_SKIP, symlinks=True)
    try:
        apply_series(work, patches)
    except SourceError as e:
        shutil.rmtree(folder, ignore_errors=True)
        raise SourceError(f"--tree {tree}: {e}")
    on = f" for {arch}" if arch else ""
    say(f"xen-src: building the tree {tree} (Xen {version}, {ident[:12]}, {config}){on} with "
        f"{len(patches)} patches of {label} into {os.path.relpath(folder, ROOT)}")
    words = (f"XEN_TARGET_ARCH={arch}", f"CROSS_COMPILE={prefix}") if arch else ()
    took, copies = source.compile_tree(work, config, log, jobs, f"the build of {tree} ({config}){on}", words, options)
    # `release` labels the records and the serial logs: the version and the series.
    head = {"config": config, **({"arch": arch, "options": options or {}} if arch else {})}
    info = XEN.info(recipe, key, took, log, suite="tree", head=head, tail={"series": label})
    XEN.keep(folder, copies, info, drop=[work])     # and this version's older builds of the series go
    say(f"xen-src: the tree's {label} build ({config}){on} took {took:.0f} s, {len(info['warnings'])} warnings")
    return source.Build(folder)


def series_tree(tree, which, say=print, only=None, extra=None):
    """A copy of the stock tree at `tree` with its version's proposal
    (which=0) or measuring (which=1) series applied (with `only`, just the
    patches whose file names start with one of those numbers, e.g.
    ("0003",)), kept in build/xen-src/tree-bypath-<version>-<series>[-<numbers>]-<key>/src
    while the tree's fingerprint and the patches hold -> its path.
    SourceError names what is wrong (no Xen tree, no series, a patch that
    does not apply, a number the series lacks). With `extra` (a patch's
    path), that patch on top of the whole series: a measured alternative."""
    version = version_of(tree)
    name = series_of(version, tree)[which]
    patches = XEN.series(name, os.path.join(XEN.patches, name))
    stem = f"tree-bypath-{version}-{name}"
    if only is not None:
        missing = [n for n in only if not any(os.path.basename(p).startswith(n + "-") for p in patches)]
        if missing:
            raise SourceError(f"--tree {tree}: patches/xen/{name}/ has no patch {', '.join(missing)}")
        patches = [p for p in patches if os.path.basename(p).split("-", 1)[0] in only]
        stem += "-" + "-".join(only)
    if extra is not None:
        # Named by its folder too: kept_tree() keeps one tree a stem.
        patches = patches + [extra]
        stem += f"-{os.path.basename(os.path.dirname(extra))}-{os.path.basename(extra).split('-', 1)[0]}"

    def fill(copy):
        # What the series patches (xen/ and docs/) and the tester reads.
        for top in ("xen", "docs"):
            shutil.copytree(os.path.join(tree, top), os.path.join(copy, top), ignore=COPY_SKIP, symlinks=True)
        try:
            apply_series(copy, patches)
        except SourceError as e:
            raise SourceError(f"--tree {tree}: {e}")
    return XEN.kept_tree(stem, srcbuild.tree_key(fingerprint(tree), patches), fill,
                         say, f"xen-src heap-test: {tree} (Xen {version}) with {len(patches)} patches of {name}")


def measure(args, out, say, kernel=None):
    """`xen-src measure --tree`: the tree's measuring build through every
    variant (and the tree unpatched with --series both), its proposal series'
    build beside them as `series` where it has one, the proposal's debug
    build booting dom0 to its init, and the measuring series' debug build
    booting dom0 with each variant and `heap-dump`, its heaps at boot and
    after the boot modules were freed held variant against variant
    (variants.functional()) -> records. A build that cannot be had raises
    SourceError: the tree is the run's one subject."""
    t0 = time.monotonic()
    version = version_of(args.tree)
    proposal, measuring = series_of(version, args.tree)
    meter = build(args.tree, measuring, "release", say)
    plain = [build(args.tree, measuring, "release", say, with_series=False)] if args.series == "both" else []
    builds = [meter] + ([build(args.tree, proposal, "release", say)] if proposal != measuring else [])
    debug = [build(args.tree, proposal, "debug", say)] if kernel else []
    meter_debug = [build(args.tree, measuring, "debug", say)] if kernel else []
    for b in builds + plain + debug + meter_debug:
        b.info["release"] = version                     # one release in the tables, whatever the series
    records = [variants.header([meter], args.sizes, args.topologies, args.variants, args.jobs)]
    records += [dict(b.info, type="build") for b in builds + plain + debug +
                (meter_debug if proposal != measuring else [])]
    records += variants.measure([meter], args.sizes, args.topologies, args.variants, out, say, args.jobs,
                                not args.no_model, plain)
    for b in builds[1:]:
        for topology in args.topologies:
            for mem in args.sizes:
                nodes = variants.node_mib(mem, topology)
                log = os.path.join(out, f"serial-xen-{version}-series-{size_label(mem)}-{len(nodes)}n.log")
                try:
                    rec = variants.boot_unpatched(b, mem, nodes, log)
                except variants.VariantError as e:
                    rec = {"type": "error", "what": f"Xen {version} with the {proposal} series",
                           "mem_bytes": mem, "nodes": nodes, "message": str(e)}
                    say(f"xen-src: the {proposal} series at {size_label(mem)}: FAILED: {e}")
                else:
                    rec["variant"] = "series"
                    say(f"xen-src: xen {version} with the {proposal} series at {size_label(mem)}, "
                        f"{len(nodes)} node(s): {rec['instructions'] / rec['pages']:.2f} instructions a page")
                records.append(rec)
    for b in debug:
        initrd = os.path.join(out, "dom0.cpio.gz")
        initramfs.initramfs(initrd)
        log = os.path.join(out, f"serial-dom0-xen-{version}-{b.config}-series.log")
        r = dom0.boot(b.kernel, kernel, initrd, args.dom0_mem, log_path=log)
        records.append({"type": "dom0", "release": version, "config": b.config, "variant": "series",
                        "mem_bytes": args.dom0_mem, "status": r.status, "lines": r.lines,
                        "wall_s": round(r.elapsed, 1), "log": os.path.basename(log)})
        say(f"xen-src: dom0 on Xen {version} ({b.config}) with the {proposal} series: {r.status} in "
            f"{r.elapsed:.0f} s" + ("" if r.status == "init" else ": " + "; ".join(r.lines[:2])))
    records += variants.functional(meter_debug, args.variants, args.dom0_mem, out, kernel, say, args.jobs)
    records.append({"type": "end", "wall_s": round(time.monotonic() - t0, 1)})
    variants.write_records(out, records)
    return records


def build_only(path, say):
    """`xen-src build --tree DIR`: the proposal series in both configs
    and the measuring series (release) -> exit status."""
    proposal, measuring = series_of(version_of(path), path)
    for name, config in [(proposal, "release"), (proposal, "debug"), (measuring, "release")]:
        b = build(path, name, config, say)
        say(f"xen-src: {path} with {name} ({config}): {b.folder}, {len(b.info['warnings'])} warnings")
    return 0
