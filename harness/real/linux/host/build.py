# SPDX-License-Identifier: MIT
"""The host tester of Linux's memory init, built (`linux-src host-test`,
docs/testing-linux-host.md): the real objects of a patched tree's mm/ and
lib/ (memblock, sparse, the memmap and deferred init, the buddy
allocator's freeing path, the NUMA memblks), compiled by the kernel's own
command line for each and linked into a user-space program with the
stand-ins of hosted/linuxmm/ for the rest of the kernel.

Nothing of Linux is kept in this repository. Debian's source is unpacked
once and kept without any series (build/linux-src/tree-<release>-<key>/
src); a series (patches/linux/<release>/, a planted bug's copy of it, or
none for stock) is applied to copies of just the files it touches
(series_files()), so that any series builds a tester in seconds. The
.config is the one `make linux-src` derives (config.py), with the few
options the tester needs set as Debian sets them (FLIPS, recorded in
host.json with whatever else olddefconfig changed); the kernel's build
system prepares an object folder with it and builds each object once,
which leaves the object's command line in its .cmd file. Each object is
then compiled again by that command line, from the series' copy of its
file where there is one (its sibling headers first, as the compiler
looks beside a file for a quoted #include), with -ffunction-sections and
-fdata-sections, __init code kept out of .init.text
(hosted/linuxmm/ksections.h) so that the link keeps only what the tester
reaches, and the tables that would hold every function (the mcount and
patchable entries, alternatives, exports) taken out. A name the real code
reaches that neither the objects nor the stand-ins define fails the link
by that name.

Three testers are built, at x86's MAX_PAGE_ORDER (10) and at 4 and 2,
the objects all compiled with CONFIG_ARCH_FORCE_MAX_ORDER (and 7.x's
CONFIG_PAGE_BLOCK_MAX_ORDER) so set, so that small layouts hold many
MAX_PAGE_ORDER chunks."""
import hashlib
import os
import re
import shlex
import shutil
import subprocess

from harness import ROOT
from harness.real.linux import source
from harness.real.source import build as srcbuild, package
from harness.real.source.package import SourceError

HOSTED = os.path.join(ROOT, "hosted", "linuxmm")
# The objects of the tree the tester links, each compiled as the kernel compiles it.
REAL = ("mm/mm_init", "mm/page_alloc", "mm/memblock", "mm/sparse", "mm/sparse-vmemmap", "mm/page_poison",
        "mm/shuffle", "mm/numa", "mm/numa_memblks", "mm/mmzone", "lib/cmdline", "lib/kstrtox", "lib/ctype",
        "lib/bitmap")
KERNEL_HALF = ("k_cpu", "k_thread", "k_lib", "k_mm", "k_boot", "k_snap")
USER_HALF = ("u_main", "u_host", "u_seq", "u_child", "u_time")
# Sections that list every function of an object, and would keep them all
# in the link: ftrace's call sites, the patchable entries, alternatives,
# exports, initcalls, module parameters. The kernel patches or reads them;
# the tester does not.
STRIP = ("__patchable_function_entries", "__mcount_loc", ".export_symbol", ".discard.addressable", ".smp_locks",
         ".altinstructions", "__param", ".initcall*")
MAX_ORDERS = (10, 4, 2)
# What the tester needs of the configuration, each as Debian's amd64 config
# has it: CPUs for several threads on a node, the vm event counters (PGFREE),
# BUG() so that the kernel's own BUG_ON()s stop a run.
FLIPS = {"NR_CPUS": "64", "VM_EVENT_COUNTERS": "y", "BUG": "y"}
USER_CFLAGS = ["-O2", "-g", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-mstackrealign", "-fno-pie", "-pthread"]


class HostTestError(Exception):
    """A tester that cannot be built, with what went wrong."""


def _digest(paths, more=""):
    h = hashlib.sha256(more.encode())
    for p in paths:
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read())
    return h.hexdigest()[:12]


def hosted_files():
    return sorted(os.path.join(HOSTED, f) for f in os.listdir(HOSTED))


def prepared(release, say=print):
    """Debian's source of the release, unpacked without any series, and an
    object folder prepared with the tester's .config, each real object
    built once -> (tree, obj folder)."""
    tree = source.LINUX.patched_tree(release, patches=[], say=say)
    key = srcbuild.build_key(os.path.basename(os.path.dirname(tree)), [], source.config_recipe(),
                             dict(FLIPS, tools=repr(srcbuild.toolchain())))
    folder = os.path.join(source.LINUX.src, f"host-{release}-{key}")
    obj = os.path.join(folder, "obj")
    with source.LINUX.lock(".host-lock"):
        if not os.path.isfile(os.path.join(folder, "done")):
            _prepare(release, tree, folder, say)
            srcbuild.prune(source.LINUX.src, folder)
    return tree, obj


def series_files(release, patches=None, say=print):
    """The files a series touches, copied from the unpacked tree and the
    series applied to them without fuzz, once for its bytes -> {path in
    the tree: path of the copy}. patches: the release's series by default;
    [] for stock."""
    patches = source.patches_of(release) if patches is None else list(patches)
    if not patches:
        return {}
    tree, obj = prepared(release, say)
    folder = os.path.join(os.path.dirname(obj), "series-" + srcbuild.tree_key("", patches))
    files = package.touched(patches)
    with source.LINUX.lock(".host-lock"):
        if not os.path.isfile(os.path.join(folder, "done")):
            shutil.rmtree(folder, ignore_errors=True)
            for rel in files:
                os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
                if os.path.isfile(os.path.join(tree, rel)):
                    shutil.copy(os.path.join(tree, rel), os.path.join(folder, rel))
            package.apply_series(folder, patches)
            open(os.path.join(folder, "done"), "w").close()
    return {rel: os.path.join(folder, rel) for rel in files}


def _prepare(release, tree, folder, say):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    log = os.path.join(folder, "build.log")
    say(f"linux-src: the host tester's objects from {os.path.relpath(tree, ROOT)}: the derived .config, "
        f"then {', '.join(f'{s}={v}' for s, v in FLIPS.items())}")
    derivation = source.configure(tree, folder, log, fragments=source.debian_config(release, tree, say))
    obj = os.path.join(folder, "obj")
    with open(os.path.join(obj, ".config")) as f:
        before = f.read()
    undone = source.settle(tree, obj, before, FLIPS, log)
    if undone:
        raise SourceError("olddefconfig undid " + ", ".join(f"{s}={FLIPS[s]} (it left {v})" for s, v in undone.items()))
    with open(os.path.join(obj, ".config")) as f:
        after = srcbuild.parse_config(f.read())
    old = srcbuild.parse_config(before)
    srcbuild.make(tree, [f"O={obj}", f"-j{os.cpu_count() or 1}", "prepare"] + [r + ".o" for r in REAL], log,
                  "the host tester's objects", shown="linux")
    srcbuild.write_json(os.path.join(folder, "host.json"), {
        "tree": os.path.relpath(tree, ROOT), "flips": FLIPS,
        "also_changed": {s: after.get(s) for s in sorted(set(old) | set(after))
                         if old.get(s) != after.get(s) and s not in FLIPS},
        "derived_options": len(derivation["options"]),
        **({"debian_config": derivation["debian_config"]} if "debian_config" in derivation else {})})
    open(os.path.join(folder, "done"), "w").close()


def command_of(obj, rel):
    """The compiler's command line that built obj/<rel>.o, from its .cmd -> argv."""
    d, b = os.path.split(rel)
    with open(os.path.join(obj, d, f".{b}.o.cmd")) as f:
        for line in f:
            if line.startswith(f"savedcmd_{rel}.o := "):
                return shlex.split(line.split(" := ", 1)[1].split(";")[0])
    raise HostTestError(f"{rel}.o's .cmd holds no command line")


def _kernel_cc(obj, rel, src, out, extra):
    """src compiled to out by the command line of obj/<rel>.o, with extra flags."""
    argv, skip = [], False
    for a in command_of(obj, rel):
        if skip or a.startswith("-Wp,-MMD") or a == "-c" or (a.endswith(".c") and os.path.isabs(a)):
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        argv.append(a)
    r = subprocess.run(argv + extra + ["-c", "-o", out, src], cwd=obj, capture_output=True, text=True)
    if r.returncode != 0:
        raise HostTestError(f"{os.path.relpath(src, ROOT) if src.startswith(ROOT) else src} does not compile "
                            f"with the kernel's flags:\n{r.stderr.strip()[-3000:]}")


def tester(release="6.12", max_order=10, say=print, patches=None):
    """The tester at max_order of the release with `patches` (its series by
    default, [] for stock), built once for its inputs -> its path."""
    tree, obj = prepared(release, say)
    files = series_files(release, patches, say)
    key = _digest(hosted_files() + [files[r] for r in sorted(files)],
                  f"{obj}|{max_order}|{sorted(files)}|{STRIP}|{USER_CFLAGS}")
    out = os.path.join(os.path.dirname(obj), f"bin-{max_order}-{key}")
    binary = os.path.join(out, "linuxmm")
    # A lock of its own: the testers of other orders build at the same time.
    with source.LINUX.lock(f".host-lock-{max_order}-{key}"):
        if os.path.isfile(binary):
            return binary
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        try:
            _link(tree, obj, out, binary, max_order, files)
        except HostTestError:
            shutil.rmtree(out, ignore_errors=True)
            raise
    return binary


def _order_header(out, max_order):
    """A header forced in after the kernel's own, so that its settings win:
    MAX_PAGE_ORDER, and the pageblocks' largest order (7.x) with it."""
    path = os.path.join(out, "max_order.h")
    with open(path, "w") as f:
        f.write(f"#undef CONFIG_ARCH_FORCE_MAX_ORDER\n#define CONFIG_ARCH_FORCE_MAX_ORDER {max_order}\n"
                f"#ifdef CONFIG_PAGE_BLOCK_MAX_ORDER\n#undef CONFIG_PAGE_BLOCK_MAX_ORDER\n"
                f"#define CONFIG_PAGE_BLOCK_MAX_ORDER {max_order}\n#endif\n")
    return path


def _link(tree, obj, out, binary, max_order, files):
    forced = [] if max_order == 10 else ["-include", _order_header(out, max_order)]
    sections = ["-ffunction-sections", "-fdata-sections"]
    objs = []
    for rel in REAL:
        o = os.path.join(out, os.path.basename(rel) + ".o")
        _kernel_cc(obj, rel, files.get(rel + ".c", os.path.join(tree, rel + ".c")), o + ".tmp",
                   sections + ["-include", os.path.join(HOSTED, "ksections.h")] + forced)
        subprocess.run(["objcopy"] + [x for s in STRIP for x in ("-R", s)] + [o + ".tmp", o], check=True)
        os.remove(o + ".tmp")
        objs.append(o)
    for k in KERNEL_HALF:
        o = os.path.join(out, k + ".o")
        _kernel_cc(obj, "mm/mm_init", os.path.join(HOSTED, k + ".c"), o,
                   sections + ["-I", HOSTED, "-Werror"] + forced)
        objs.append(o)
    objs.append(_cc(["-c", os.path.join(HOSTED, "k_traps.S")], os.path.join(out, "k_traps.o")))
    for u in USER_HALF:
        objs.append(_cc(USER_CFLAGS + ["-c", os.path.join(HOSTED, u + ".c")], os.path.join(out, u + ".o")))
    r = subprocess.run(["gcc", "-no-pie", "-pthread", "-Wl,--gc-sections", "-Wl,-T," + os.path.join(HOSTED, "lxt.ld"),
                        "-o", binary] + objs, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    if r.returncode != 0:
        missing = sorted(set(re.findall(r"undefined reference to `([^']+)'", r.stderr)))
        if missing:
            raise HostTestError("the real code reaches names the stand-ins of hosted/linuxmm/ lack: " +
                                ", ".join(missing))
        raise HostTestError(f"the tester does not link:\n{r.stderr.strip()[-3000:]}")


def _cc(argv, out):
    r = subprocess.run(["gcc"] + argv + ["-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        raise HostTestError(f"{argv[-1]} does not compile:\n{r.stderr.strip()[-3000:]}")
    return out
