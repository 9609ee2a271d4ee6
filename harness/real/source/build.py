# SPDX-License-Identifier: MIT
"""What a build from a Debian source package does once its tree is ready,
whatever the kernel: the .config settled by `make olddefconfig` with
options set on it (and the options it undid), make with its log, the key a
build is cached under, build.json written last (its presence marks a build
complete), and the pruning of builds an older key made.

A build that fails is a SourceError with the build log's tail."""
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess

from harness import ROOT
from harness.real.source.package import SourceError

LOG_TAIL = 25


class Build:
    """One build in its cache folder: the image QEMU boots (`kernel`), the
    file with its symbols (`symbols`), and build.json's facts (`info`).
    Each kernel names its two files."""
    KERNEL = SYMBOLS = None

    def __init__(self, folder):
        self.folder = folder
        self.kernel = os.path.join(folder, self.KERNEL)
        self.symbols = os.path.join(folder, self.SYMBOLS)
        with open(os.path.join(folder, "build.json")) as f:
            self.info = json.load(f)


def complete(folder):
    """Whether the folder holds a finished build (its build.json)."""
    return os.path.isfile(os.path.join(folder, "build.json"))


def toolchain(prefix=""):
    """The compiler and assembler a build used (a cross toolchain's with
    its `prefix`, "aarch64-linux-gnu-"), as they name themselves."""
    out = {}
    for tool in ("gcc", "as", "ld"):
        r = subprocess.run([prefix + tool, "--version"], capture_output=True, text=True)
        out[tool] = r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else "unknown"
    return out


def build_key(version, patches, config, tools):
    """What decides a binary, digested: a build is reused while it holds.
    `config` is a name or the text of a configuration."""
    h = hashlib.sha256()
    h.update(f"{version}\0{config}\0{json.dumps(tools, sort_keys=True)}\0".encode())
    for p in patches:
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()[:12]


def tree_key(ident, patches):
    """The key of a tree kept with its series applied: what the tree is
    (a source version, a checkout's fingerprint) and the patches' bytes."""
    h = hashlib.sha256(ident.encode())
    for p in patches:
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read())
    return h.hexdigest()[:12]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def log_tail(path, n=LOG_TAIL):
    with open(path, errors="replace") as f:
        return "\n".join(f.read().rstrip().splitlines()[-n:])


def make(directory, args, log, what, shown=None, env=None):
    """make -C directory with args, its output appended to log; SourceError
    with the log's tail when it fails. `shown` names the directory in the log."""
    with open(log, "a") as f:
        f.write(f"\n$ make -C {shown or directory} {' '.join(args)}\n")
        f.flush()
        r = subprocess.run(["make", "--no-print-directory", "-C", directory] + args, stdout=f,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    if r.returncode != 0:
        raise SourceError(f"{what} failed (make exit {r.returncode}); {os.path.relpath(log, ROOT)} ends:\n"
                          f"{log_tail(log)}")


def warnings_in(log):
    """The compiler's warning lines of a build log."""
    with open(log, errors="replace") as f:
        return [line.rstrip() for line in f if re.search(r": warning: ", line)]


def parse_config(text):
    """A .config's (or a fragment's) symbols -> {name: value}, None for
    `# CONFIG_X is not set`; a later line wins, as kconfig reads them."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"CONFIG_([A-Za-z0-9_]+)=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
            continue
        m = re.match(r"# CONFIG_([A-Za-z0-9_]+) is not set$", line)
        if m:
            out[m.group(1)] = None
    return out


def config_line(name, value):
    return f"CONFIG_{name}={value}" if value not in (None, "n") else f"# CONFIG_{name} is not set"


def set_option(text, name, value):
    """A .config's text with one symbol set ("y", "n", a value): its line
    replaced where it has one, else added at the end."""
    line = config_line(name, value)
    pattern = re.compile(rf"^(?:CONFIG_{name}=.*|# CONFIG_{name} is not set)$", re.M)
    if pattern.search(text):
        return pattern.sub(lambda m: line, text)
    return text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"


def settle(path, text, flips, directory, args, log, shown):
    """The .config at `path` written as `text` with each flip ({symbol: "y"
    or "n"}) set, then settled by `make -C directory ARGS olddefconfig` ->
    the .config as kconfig left it, parsed (undone() tells the flips it
    did not keep)."""
    for name, value in flips.items():
        text = set_option(text, name, value)
    with open(path, "w") as f:
        f.write(text)
    make(directory, list(args) + ["olddefconfig"], log, "make olddefconfig", shown=shown)
    with open(path) as f:
        return parse_config(f.read())


def undone(flips, now):
    """The flips a settled .config (parsed: None for `is not set`, absent
    when not even that) does not hold -> {symbol: the value it holds}."""
    held = {s: now.get(s) or "n" for s in flips}
    return {s: v for s, v in held.items() if v != flips[s]}


def prune(root, keep):
    """Older builds in `root` of the same stem as `keep` (the folder's name
    less its key) go: they were built from patches, a source, a config or a
    toolchain that are no longer these."""
    stem = os.path.basename(keep).rsplit("-", 1)[0]
    for old in glob.glob(os.path.join(root, f"{stem}-*")):
        if old != keep and os.path.basename(old).rsplit("-", 1)[0] == stem:
            shutil.rmtree(old, ignore_errors=True)


def write_json(path, info):
    """build.json written whole or not at all: its presence marks a build complete."""
    with open(path + ".tmp", "w") as f:
        json.dump(info, f, indent=1)
    os.replace(path + ".tmp", path)
