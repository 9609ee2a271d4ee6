# SPDX-License-Identifier: MIT
"""The configuration of Linux built from source: minimal (tinyconfig and
what booting under QEMU needs), but with every option of Debian's own amd64
configuration that changes the memory-init path, that list derived from
the tree itself rather than written down:

- the memory-init sources: mm/mm_init.c, mm/page_alloc.c, mm/memblock.c and
  each header they include that MAINTAINERS files under memory management
  ("MEMBLOCK AND MEMORY MANAGEMENT INITIALIZATION", "MEMORY MANAGEMENT":
  mm/internal.h, mm.h, mmzone.h, memblock.h, gfp.h, ...), and mm/Makefile
  (which of mm's files are built);
- the code generation: the top-level Makefile's and arch/x86/Makefile's
  conditionals and flag lines (the return thunk, retpolines, stack
  protector, ftrace's call sites, the optimisation level);
- every CONFIG_ symbol those test (#if, #ifdef, IS_ENABLED(), $(CONFIG_)),
  kept where Debian's resolved configuration states a value for it: set,
  or "is not set" where tinyconfig's resolution would differ.

Debian's configuration is its fragments for the amd64 flavour
(debian/config/config, kernelarch-x86/config, amd64/config) resolved by
the tree's own `make olddefconfig`, as Debian's build resolves them.

The result is recorded: each kept symbol with Debian's value, the value the
minimal build ended with, where it is tested, and, where the two differ,
the symbol's `depends on` from its Kconfig (why olddefconfig refused it)."""
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import tempfile

from harness.real.source.build import config_line, parse_config  # noqa: F401 (the derivation's own)

INIT_SOURCES = ("mm/mm_init.c", "mm/page_alloc.c", "mm/memblock.c")
MM_SECTIONS = ("MEMBLOCK AND MEMORY MANAGEMENT INITIALIZATION", "MEMORY MANAGEMENT")
BUILD_FILES = ("mm/Makefile",)
CODEGEN_FILES = ("Makefile", "arch/x86/Makefile")
DEBIAN_FRAGMENTS = ("debian/config/config", "debian/config/kernelarch-x86/config", "debian/config/amd64/config")
# What booting under QEMU (PVH by -kernel, the 8250 console, an initramfs)
# and the measured path need, over tinyconfig: the list, and
# printk, without which the kernel says nothing; PVH needs HYPERVISOR_GUEST,
# and ACPI_NUMA (the SRAT of two nodes) X86_64_ACPI_NUMA, which needs PCI.
# The busybox init each variant boots to (harness/real/linux/initboot.py)
# needs its gzip'd archive unpacked, a script run as /init, /proc, /sys,
# /dev and the tmpfs it fills and reads back.
BASE = ("64BIT", "SMP", "NUMA", "ACPI", "PCI", "X86_64_ACPI_NUMA", "ACPI_NUMA", "TTY", "SERIAL_8250",
        "SERIAL_8250_CONSOLE", "BLK_DEV_INITRD", "BINFMT_ELF", "HYPERVISOR_GUEST", "PVH", "PRINTK",
        "EARLY_PRINTK", "RD_GZIP", "BINFMT_SCRIPT", "PROC_FS", "SYSFS", "DEVTMPFS", "SHMEM", "TMPFS")

CONDITIONAL = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b")
TESTS = re.compile(r"\b(?:IS_ENABLED|IS_BUILTIN|IS_REACHABLE|IS_MODULE)\(\s*CONFIG_([A-Z0-9_]+)")
# mm/Makefile: its conditionals and object lines (which files are built);
# the top and arch Makefiles: their conditionals and flag lines only.
MAKE_LINE = re.compile(r"^\s*(?:ifdef|ifndef|ifeq|ifneq)\b|FLAGS|-\$\(CONFIG_")
FLAG_LINE = re.compile(r"^\s*(?:ifdef|ifndef|ifeq|ifneq)\b|FLAGS|flags-")
# Derived, but left as the minimal build has them, each for its reason.
EXCLUDED = {
    "DEBUG_INFO": "debug sections only, and a build some times longer",
    "MODULES": "no module is loaded before the memory init (the build has none)",
    "MODULE_SIG": "modules only; signing needs a key",
    "MODVERSIONS": "modules only",
    "STRIP_ASM_SYMS": "symbols only",
    "LD_ORPHAN_WARN": "a linker diagnostic",
    "LD_ORPHAN_WARN_LEVEL": "a linker diagnostic",
    "CC_VERSION_TEXT": "the toolchain's own (build.json records the toolchain)",
    "CC_IS_GCC": "the toolchain's own",
    "LD_IS_BFD": "the toolchain's own",
    "PAGE_POOL": "the network stack's page pool: it needs the network stack, outside the memory init",
}
SYMBOL = re.compile(r"\bCONFIG_([A-Z0-9_]+)")
# Kept at Debian's value though the memory-init sources do not test them,
# each for what it changes in what the boots show or do.
BY_HAND = {
    "VM_EVENT_COUNTERS": "the vm events: the dump's pgfree and pgalloc, held to the free pages",
    "BUG": "BUG_ON()'s checks in the memory init, run as Debian runs them",
    "KFENCE_SAMPLE_INTERVAL": "KFENCE off at boot as in Debian (0): else a timer picks allocations by the "
                              "boot's timing",
}
# Values the boots need that are not Debian's: the dump boots' 2 and 4
# vCPUs need NR_CPUS of 4 or more (Debian's 8192 needs MAXSMP); 64, as the
# host tester (harness/real/linux/host/build.py) has it.
BOOT_VALUES = {"NR_CPUS": "64"}


class ConfigError(Exception):
    """A configuration that cannot be derived or did not come out as asked."""


def maintained_files(maintainers, sections=MM_SECTIONS):
    """The F: patterns of the named MAINTAINERS sections -> [pattern]."""
    out, inside = [], False
    for line in maintainers.splitlines():
        if not line.strip():
            inside = False
        elif not line.startswith(("\t", " ")) and ":" not in line[:3]:
            inside = line.strip() in sections
        elif inside and line.startswith("F:"):
            out.append(line[2:].strip())
    return out


def _maintained(path, patterns):
    for p in patterns:
        if p.endswith("/") and path.startswith(p):
            return True
        if fnmatch.fnmatch(path, p):
            return True
    return False


def _read(tree, path, over=None):
    """A file of the tree, or its copy in `over` where that folder has one."""
    full = os.path.join(over, path) if over and os.path.isfile(os.path.join(over, path)) else \
        os.path.join(tree, path)
    with open(full, errors="replace") as f:
        return f.read()


def includes(tree, source, over=None):
    """The headers `source` includes directly, as paths in the tree (those
    that resolve: a quoted name beside it, <linux/...> in include/,
    <asm/...> in arch/x86/include or asm-generic)."""
    text = _read(tree, source, over)
    out = []
    for kind, name in re.findall(r'^#\s*include\s+([<"])([^>"]+)[>"]', text, re.M):
        if kind == '"':
            cands = [os.path.join(os.path.dirname(source), name)]
        elif name.startswith("asm/"):
            cands = ["arch/x86/include/" + name, "include/asm-generic/" + name[4:]]
        else:
            cands = ["include/" + name]
        found = next((c for c in cands if os.path.isfile(os.path.join(tree, c))), None)
        if found:
            out.append(os.path.normpath(found))
    return out


def init_sources(tree, over=None):
    """The memory-init sources: INIT_SOURCES and the headers they include
    that MAINTAINERS files under memory management, in order, once each."""
    with open(os.path.join(tree, "MAINTAINERS"), errors="replace") as f:
        patterns = maintained_files(f.read())
    if not patterns:
        raise ConfigError(f"MAINTAINERS in {tree} has no section {' or '.join(MM_SECTIONS)}")
    out = list(INIT_SOURCES)
    for src in INIT_SOURCES:
        if not os.path.isfile(os.path.join(tree, src)):
            raise ConfigError(f"{src} is not in {tree}: not a Linux 6.x tree")
        out += [h for h in includes(tree, src, over) if _maintained(h, patterns) and h not in out]
    return out


def tested_symbols(text, make=False, flags_only=False):
    """{symbol: [line numbers]} of the CONFIG_ symbols a C source tests in
    its preprocessor conditionals and IS_ENABLED()-style tests, or a
    Makefile in its conditionals and flag or object lines."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        if make:
            found = SYMBOL.findall(line) if (FLAG_LINE if flags_only else MAKE_LINE).search(line) else []
        else:
            found = SYMBOL.findall(line) if CONDITIONAL.match(line) else TESTS.findall(line)
        for s in found:
            out.setdefault(s, []).append(n)
    return out


def derive(tree, over=None):
    """{symbol: [where]} the memory-init path and its code generation test,
    where is "file:line" of the first test in each file; over: a folder
    whose files stand for the tree's (the touched files without the series)."""
    out = {}
    files = [(p, False, False) for p in init_sources(tree, over)] + [(p, True, False) for p in BUILD_FILES] + \
        [(p, True, True) for p in CODEGEN_FILES]
    for path, make, flags_only in files:
        for s, lines in tested_symbols(_read(tree, path, over), make, flags_only).items():
            out.setdefault(s, []).append(f"{path}:{lines[0]}")
    return out


def series_symbols(tree, patches):
    """What the series changes in the derivation: derive() of the tree as it
    is (the series applied) against derive() of the files the series touches
    with it reversed -> {"added": {symbol: [where]}, "dropped": [symbol]}."""
    touched = []
    for p in patches:
        with open(p, errors="replace") as f:
            touched += [t for t in re.findall(r"^\+\+\+ b/(\S+)", f.read(), re.M) if t not in touched]
    with tempfile.TemporaryDirectory(prefix="unpatched-") as over:
        for t in touched:
            if os.path.isfile(os.path.join(tree, t)):
                os.makedirs(os.path.dirname(os.path.join(over, t)), exist_ok=True)
                shutil.copy(os.path.join(tree, t), os.path.join(over, t))
        for p in reversed(patches):
            r = subprocess.run(["patch", "-R", "-p1", "-f", "--fuzz=0", "-s", "-r", "-", "--no-backup-if-mismatch",
                                "-d", over, "-i", p],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise ConfigError(f"{os.path.basename(p)} does not reverse: {(r.stdout + r.stderr).strip()}")
        without = derive(tree, over)
    with_series = derive(tree)
    return {"added": {s: w for s, w in sorted(with_series.items()) if s not in without},
            "dropped": sorted(s for s in without if s not in with_series)}


def kept(derived, debian, tiny):
    """The symbols to hold at Debian's value -> {symbol: Debian's value or
    None}: those derived that Debian's resolved config states, where it
    sets them or tinyconfig's resolution would differ."""
    out = {}
    for s in sorted(derived):
        if s not in debian or s in BASE or s in EXCLUDED:
            continue
        value = debian[s]
        if value == "m":
            value = None                # a module: not loaded before the memory init
        if value is not None or tiny.get(s) is not None:
            out[s] = value
    for s in BY_HAND:
        if s in debian:
            out[s] = debian[s]
    return out


def fragment(keep, needs=None):
    """The lines appended to tinyconfig's .config: BASE, the kept symbols at
    Debian's values, then what they need ({symbol: value})."""
    lines = [config_line(s, "y") for s in BASE] + [config_line(s, v) for s, v in BOOT_VALUES.items()] + \
        [config_line(s, v) for s, v in keep.items()]
    return "\n".join(lines + [config_line(s, v) for s, v in (needs or {}).items()]) + "\n"


def kconfig_index(tree, selects=None):
    """{symbol: [condition]} of every Kconfig entry in the tree: its
    `depends on` lines and the `if` blocks around it; and, into `selects`
    when given, {symbol: [each entry that selects it]}."""
    out = {}
    for path in sorted(glob.glob(os.path.join(tree, "**", "Kconfig*"), recursive=True)):
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
        ifs, current = [], None
        for raw in lines:
            line = raw.strip()
            m = re.match(r"(?:menu)?config\s+([A-Za-z0-9_]+)$", line)
            if m:
                name, current = m.group(1), out.setdefault(m.group(1), [])
                current += [c for c in ifs if c not in current]
                continue
            if re.match(r"(?:menu|endmenu|choice|endchoice|comment|source|mainmenu)\b", line):
                current = None
            if re.match(r"if\s", line) and not raw[:1].isspace():
                ifs.append(line[3:].strip())
                current = None
            elif re.match(r"endif\b", line) and ifs:
                ifs.pop()
                current = None
            elif current is not None and line.startswith("depends on "):
                current.append(line[len("depends on "):].strip())
            elif current is not None and selects is not None and re.match(r"select\s+[A-Z0-9_]+", line):
                by = selects.setdefault(line.split()[1], [])
                by += [] if name in by else [name]
    return out


def plain_needs(conditions):
    """The symbols a condition list needs on outright: the bare names its
    `&&` terms name (alternatives with `||`, negations and comparisons
    are left to kconfig)."""
    out = []
    for cond in conditions:
        if "||" in cond:
            continue
        for term in cond.split("&&"):
            term = term.strip().strip("()").strip()
            if re.fullmatch(r"[A-Z0-9_]+", term) and term not in out:
                out.append(term)
    return out


def missing_needs(wanted, final, debian, index):
    """Symbols to add so the unmet `wanted` ones ({symbol: value}) can take
    their value: each unmet one's plain needs that are off in `final` and
    that Debian has on -> {symbol: 'y'}."""
    add = {}
    for s, want in wanted.items():
        if want in (None, "n") or final.get(s) == want:
            continue
        for need in plain_needs(index.get(s, [])):
            if final.get(need) in (None, "n") and debian.get(need) == "y" and need not in EXCLUDED:
                add[need] = "y"
    return add


def selectors_needed(wanted, final, debian, selects):
    """For each wanted `y` that did not come on and that only `select` sets
    (a promptless symbol such as UNACCEPTED_MEMORY), the first of its
    selectors that Debian sets, when none of them is on -> {symbol: 'y'}."""
    add = {}
    for s, want in wanted.items():
        if want != "y" or final.get(s) == "y":
            continue
        by = sorted(b for b in selects.get(s, []) if debian.get(b) == "y" and b not in EXCLUDED)
        if by and not any(final.get(b) == "y" for b in by):
            add[by[0]] = "y"
    return add


def compare(keep, final, derived, index=None):
    """[record] of each kept symbol: Debian's value, ours, where tested, and
    for a symbol that did not come out as Debian has it, its dependencies."""
    rows = []
    for s, want in keep.items():
        got = final.get(s)
        row = {"symbol": s, "debian": want, "built": got, "tested_in": derived[s]}
        if (want or None) != (got or None):
            row["depends_on"] = " && ".join(f"({c})" for c in (index or {}).get(s, []))
        rows.append(row)
    return rows


def base_missing(final):
    """The BASE symbols and BOOT_VALUES the final config lacks (the boot
    would not work)."""
    return [s for s in BASE if final.get(s) != "y"] + [s for s, v in BOOT_VALUES.items() if final.get(s) != v]
