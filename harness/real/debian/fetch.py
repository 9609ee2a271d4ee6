# SPDX-License-Identifier: MIT
"""`binaries`, step one: Debian's Xen 4.14, Xen 4.17, Linux 6.1 (Debian
12) and Linux 6.12 (Debian 13) and their symbols, fetched with apt-get
download into build/binaries/, checked and unpacked into
build/binaries/bin/. A manifest records what was fetched (its `binaries`
key); while it and its files are intact, later runs use them without the
network. A cache made when it was build/peers/, its manifest's key
`peers`, moves to today's names at the first fetch: its downloads are
found and kept."""
import fcntl
import gzip
import hashlib
import json
import lzma
import os
import re
import shutil
import struct
import subprocess

from harness import ROOT
from harness.qemu.brackets import BracketError, load_symbols
from harness.real.debian.apt import FetchError, PrivateApt

CACHE = os.path.join(ROOT, "build", "binaries")
OLD_CACHE = os.path.join(ROOT, "build", "peers")     # its name before "peer" was left to the models
BIN = os.path.join(CACHE, "bin")
MANIFEST = os.path.join(BIN, "manifest.json")
SUITES = ("bookworm", "bullseye")
# Each Linux: the suite whose linux-image-amd64 names it, and the release its
# image package carries (linux-image-RELEASE). Debian 13 lives in a private
# apt folder of its own, so that bookworm's linux-image-amd64 stays 6.1's.
LINUX = {"6.1": ("bookworm", r"6\.1\.0-\d+-amd64", "6.1.0-N-amd64"),
         "6.12": ("trixie", r"6\.12\.\d+\+deb13-amd64", "6.12.N+deb13-amd64")}
XEN_SYMBOLS = ("end_boot_allocator", "init_heap_pages", "free_heap_pages", "printk",
               "total_avail_pages")
LINUX_SYMBOLS = ("free_area_init", "memmap_init_range", "memblock_free_all", "deferred_init_memmap",
                 "_printk", "__schedule", "_totalram_pages", "vm_zone_stat", "reserve_bootmem_region")
# defer_init()'s statics, named by GCC with a number that changes between builds.
LINUX_STATICS = ("nr_initialised.", "prev_end_pfn.")
LINUX_CONFIG = ("CONFIG_DEFERRED_STRUCT_PAGE_INIT", "CONFIG_NUMA", "CONFIG_SPARSEMEM_VMEMMAP")
DOM0_BYTES = 2 << 20            # Xen wants a dom0 module; it is built after the heap


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def deb_field(deb, field):
    r = subprocess.run(["dpkg-deb", "--field", deb, field], capture_output=True, text=True)
    if r.returncode != 0:
        raise FetchError(f"{deb} is not a readable Debian package: {r.stderr.strip()}")
    return r.stdout.strip()


def extract(deb, members, into, first_only=False):
    """Unpacks the named members of deb's data into `into`. first_only stops
    reading once each has been found, which saves decompressing a large
    package to its end."""
    os.makedirs(into, exist_ok=True)
    data = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    tar = ["tar", "-x", "-C", into] + (["--occurrence=1"] if first_only else [])
    r = subprocess.run(tar + list(members), stdin=data.stdout, capture_output=True, text=True)
    data.stdout.close()
    data.wait()     # dpkg-deb may die of the pipe tar closed early: the files decide
    if r.returncode != 0:
        raise FetchError(f"cannot unpack {', '.join(members)} from {deb}: {r.stderr.strip()}")


def xen_check(elf, syms_path, version):
    """A 32-bit ELF with a multiboot header, and its symbol file."""
    with open(elf, "rb") as f:
        head = f.read(8192)
    if head[:4] != b"\x7fELF" or head[4] != 1:
        raise FetchError(f"{elf} is not the 32-bit ELF Xen {version} should be")
    if struct.pack("<I", 0x1BADB002) not in head:
        raise FetchError(f"{elf} has no multiboot header")
    try:
        syms = load_symbols(syms_path)
    except BracketError as e:
        raise FetchError(str(e))
    missing = [s for s in XEN_SYMBOLS if s not in syms]
    if missing:
        raise FetchError(f"{syms_path} lacks {', '.join(missing)}")


def linux_check(vmlinuz, sysmap, config, release):
    with open(vmlinuz, "rb") as f:
        head = f.read(0x20000)
    if head[0x202:0x206] != b"HdrS":
        raise FetchError(f"{vmlinuz} is not a bzImage")
    off = struct.unpack_from("<H", head, 0x20E)[0] + 0x200
    banner = head[off:off + 200].split(b"\0")[0].decode("ascii", "replace")
    if not banner.startswith(release):
        raise FetchError(f"{vmlinuz} says it is {banner!r}, not {release}")
    try:
        syms = load_symbols(sysmap)
    except BracketError as e:
        raise FetchError(f"{sysmap}: {e} (Debian's image package ships only a placeholder; "
                         "the real map comes from the -dbg package)")
    missing = [s for s in LINUX_SYMBOLS if s not in syms] + \
        [s + "N" for s in LINUX_STATICS if not any(n.startswith(s) for n in syms)]
    if missing:
        raise FetchError(f"{sysmap} lacks {', '.join(missing)}")
    with open(config) as f:
        text = f.read()
    off_opts = [c for c in LINUX_CONFIG if not re.search(rf"^{c}=y$", text, re.M)]
    if off_opts:
        raise FetchError(f"{config}: {', '.join(off_opts)} not set; the Linux phases need them "
                         "(the deferred init is the phase the models hold the real kernel to)")
    return banner


def pvh_entry(elf_bytes):
    """The 32-bit PVH entry of an ELF64 image (its Xen note of type 18,
    XEN_ELFNOTE_PHYS32_ENTRY), or None."""
    if elf_bytes[:5] != b"\x7fELF\x02":
        return None
    phoff, = struct.unpack_from("<Q", elf_bytes, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf_bytes, 0x36)
    for i in range(phnum):
        ptype, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", elf_bytes, phoff + i * phentsize)
        at, end = off, off + filesz
        while ptype == 4 and at + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf_bytes, at)
            name = elf_bytes[at + 12:at + 12 + namesz].rstrip(b"\0")
            desc = at + 12 + (namesz + 3) // 4 * 4
            if name == b"Xen" and ntype == 18 and descsz >= 4:
                return struct.unpack_from("<I", elf_bytes, desc)[0]
            at = desc + (descsz + 3) // 4 * 4
    return None


def bzimage_payload(data):
    """The compressed kernel of a bzImage: payload_offset and payload_length
    of its setup header (boot protocol 2.08), from the protected-mode part."""
    setup_sects = data[0x1F1] or 4
    offset, length = struct.unpack_from("<II", data, 0x248)
    start = (setup_sects + 1) * 512 + offset
    return data[start:start + length]


def unpack_payload(bzimage, payload):
    """The kernel ELF of a payload: XZ (Debian 12's CONFIG_KERNEL_XZ) or
    Zstandard (Debian 13's CONFIG_KERNEL_ZSTD, by the zstd program; the
    build appends the unpacked size, 4 bytes, after the frame)."""
    if payload[:6] == b"\xfd7zXZ\x00":
        try:
            return lzma.LZMADecompressor().decompress(payload)
        except lzma.LZMAError as e:
            raise FetchError(f"{bzimage}: its XZ payload does not unpack: {e}")
    if payload[:4] == b"\x28\xb5\x2f\xfd":
        try:
            r = subprocess.run(["zstd", "-dc"], input=payload[:-4], capture_output=True)
        except FileNotFoundError:
            raise FetchError(f"{bzimage}: its payload is Zstandard and the zstd program is missing "
                             "(`make setup` installs it)")
        if r.returncode != 0:
            raise FetchError(f"{bzimage}: its Zstandard payload does not unpack: "
                             f"{r.stderr.decode(errors='replace').strip()}")
        return r.stdout
    raise FetchError(f"{bzimage}: its payload is neither XZ nor Zstandard (starts {payload[:6].hex()})")


def vmlinux_from_bzimage(bzimage, out):
    """Unpacks the kernel ELF inside a bzImage, so that QEMU boots it by its
    PVH note under qboot, as bootheap boots, and skips the decompressor
    (seconds under TCG)."""
    with open(bzimage, "rb") as f:
        data = f.read()
    if data[0x202:0x206] != b"HdrS":
        raise FetchError(f"{bzimage} is not a bzImage")
    elf = unpack_payload(bzimage, bzimage_payload(data))
    if pvh_entry(elf) is None:
        raise FetchError(f"{bzimage}: the kernel inside has no PVH entry note (CONFIG_PVH)")
    with open(out, "wb") as f:
        f.write(elf)


def _fetch_xen(apt, debs, tmp, ver):
    pkg = f"xen-hypervisor-{ver}-amd64"
    version, _ = apt.candidate(pkg)
    files = [apt.download(pkg, version, debs)]
    if ver != "4.14":                       # 4.14's symbols are in the package itself
        files.append(apt.download(pkg + "-dbg", version, debs))
    for deb in files:
        r = subprocess.run(["dpkg-deb", "-x", deb, tmp], capture_output=True, text=True)
        if r.returncode != 0:
            raise FetchError(f"cannot unpack {deb}: {r.stderr.strip()}")
    xen_gz = os.path.join(tmp, "boot", f"xen-{ver}-amd64.gz")
    debug = os.path.join(tmp, "usr", "lib", "debug")
    cands = [os.path.join(debug, "boot", f"xen-syms-{ver}-amd64")] + \
        [os.path.join(debug, n) for n in sorted(os.listdir(debug)) if n.startswith("xen-syms-") and
         not n.endswith(".map.gz") and not n.endswith(".map")]
    syms = next((c for c in cands if os.path.isfile(c)), None)
    if not os.path.isfile(xen_gz) or not syms:
        raise FetchError(f"{pkg} {version}: no boot/xen-{ver}-amd64.gz or xen-syms in the package")
    elf, syms_out = os.path.join(BIN, f"xen-{ver}"), os.path.join(BIN, f"xen-syms-{ver}")
    for src, dst in ((xen_gz, elf), (syms, syms_out)):
        opener = gzip.open if src.endswith(".gz") else open
        with opener(src, "rb") as i, open(dst, "wb") as o:
            shutil.copyfileobj(i, o)
    xen_check(elf, syms_out, ver)
    return {"package": pkg, "version": version, "files": {"kernel": elf, "symbols": syms_out}}


def _fetch_linux(apt, debs, tmp, ver):
    suite, release_re, shape = LINUX[ver]
    version, depends = apt.candidate("linux-image-amd64")
    m = re.search(rf"(linux-image-({release_re}))(?=[\s,(]|$)", depends)
    if not m:
        raise FetchError(f"linux-image-amd64 {version} in {suite} depends on {depends!r}, not a "
                         f"Linux {ver} image (linux-image-{shape})")
    pkg, release = m.group(1), m.group(2)
    img_version, _ = apt.candidate(pkg)
    deb = apt.download(pkg, img_version, debs)
    extract(deb, [f"./boot/vmlinuz-{release}", f"./boot/config-{release}"], tmp)
    dbg = apt.download(pkg + "-dbg", img_version, debs)
    extract(dbg, [f"./usr/lib/debug/boot/System.map-{release}"], tmp, first_only=True)
    os.remove(dbg)          # 0.9 to 1 GB for one map: the manifest keeps its name and version
    vmlinuz = os.path.join(tmp, "boot", f"vmlinuz-{release}")
    out = {"kernel": os.path.join(BIN, f"vmlinux-{ver}"), "symbols": os.path.join(BIN, f"System.map-{ver}"),
           "config": os.path.join(BIN, f"config-{ver}")}
    for src, dst in ((f"usr/lib/debug/boot/System.map-{release}", out["symbols"]),
                     (f"boot/config-{release}", out["config"])):
        if not os.path.isfile(os.path.join(tmp, src)):
            raise FetchError(f"{pkg}: {src} is not in the package")
        shutil.copyfile(os.path.join(tmp, src), dst)
    banner = linux_check(vmlinuz, out["symbols"], out["config"], release)
    vmlinux_from_bzimage(vmlinuz, out["kernel"])
    return {"package": pkg, "version": img_version, "banner": banner, "symbols_from": pkg + "-dbg",
            "files": out}


ALL = ("xen-4.14", "xen-4.17", "linux-6.1", "linux-6.12")


def _intact(binary):
    try:
        return all(os.path.isfile(p) and sha256(p) == binary["sha256"][p] for p in binary["files"].values())
    except (OSError, KeyError):
        return False


def _moved(path):
    """A path of the old cache's, where the cache is now."""
    old = OLD_CACHE + os.sep
    return CACHE + os.sep + path[len(old):] if isinstance(path, str) and path.startswith(old) else path


def load_manifest():
    """The manifest, under today's names (a `peers` key and paths in
    build/peers/ read as `binaries` and build/binaries/), or None."""
    try:
        with open(MANIFEST) as f:
            man = json.load(f)
    except (OSError, ValueError):
        return None
    if "binaries" not in man and "peers" in man:
        man["binaries"] = man.pop("peers")
    if not isinstance(man.get("binaries"), dict):
        return None
    for binary in man["binaries"].values():
        binary["files"] = {k: _moved(p) for k, p in binary.get("files", {}).items()}
        binary["sha256"] = {_moved(p): h for p, h in binary.get("sha256", {}).items()}
    man["dom0"] = _moved(man.get("dom0"))
    return man


def _move_old_cache():
    """build/peers/ becomes build/binaries/ where only the old one is there."""
    if os.path.isdir(OLD_CACHE) and not os.path.exists(CACHE):
        os.rename(OLD_CACHE, CACHE)


def fetch(names=ALL, refresh=False, say=print, apt=None):
    """Makes build/binaries/bin/ hold the named binaries -> the manifest.
    `apt` (suites -> a PrivateApt) stands in for apt in tests. Binaries
    fetched before and intact are used as they are unless refresh is set;
    the others are fetched, which needs the network. One process fetches at
    a time (tests run in parallel); the others wait and use its result."""
    for n in names:
        if n not in ALL:
            raise FetchError(f"no binary named {n}: the binaries are {', '.join(ALL)}")
    _move_old_cache()
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _fetch(names, refresh, say, apt)


def _suites(name):
    """The suites a binary comes from: Debian 13 apart (see LINUX)."""
    ver = name.split("-")[1]
    return (LINUX[ver][0],) if name.startswith("linux") and LINUX[ver][0] not in SUITES else SUITES


def _fetch(names, refresh, say, apt):
    man = load_manifest() or {"binaries": {}}
    to_fetch = [n for n in names if refresh or n not in man["binaries"] or not _intact(man["binaries"][n])]
    if not to_fetch:
        say(f"binaries: using {', '.join(names)} as fetched on {man['fetched']} (build/binaries/bin; "
            "--refresh fetches again)")
        return man
    os.makedirs(BIN, exist_ok=True)
    apts = {}

    def apt_for(suites):
        if suites not in apts:
            folder = "apt" if suites == SUITES else "apt-" + "-".join(suites)
            apts[suites] = apt(suites) if apt else PrivateApt(os.path.join(CACHE, folder), suites)
            say(f"binaries: apt-get update of {', '.join(suites)} from the machine's Debian mirror "
                f"into build/binaries/{folder}")
            apts[suites].update()
        return apts[suites]

    debs, tmp = os.path.join(CACHE, "debs"), os.path.join(CACHE, "unpacked")
    for name in to_fetch:
        shutil.rmtree(tmp, ignore_errors=True)
        say(f"binaries: fetching {name}" + (" (and its System.map from the -dbg package, 0.9 to 1 GB)"
                                         if name.startswith("linux") else ""))
        source = apt_for(_suites(name))
        binary = _fetch_linux(source, debs, tmp, name.split("-")[1]) if name.startswith("linux") else \
            _fetch_xen(source, debs, tmp, name.split("-")[1])
        binary["sha256"] = {path: sha256(path) for path in binary["files"].values()}
        man["binaries"][name] = binary
        say(f"binaries: {name}: {binary['package']} {binary['version']}")
    shutil.rmtree(tmp, ignore_errors=True)
    dom0 = os.path.join(BIN, "dom0.img")
    with open(dom0, "wb") as f:
        f.truncate(DOM0_BYTES)
    man["dom0"] = dom0
    man.pop("mirror", None)
    man["fetched"] = subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M UTC"], capture_output=True,
                                    text=True).stdout.strip()
    with open(MANIFEST, "w") as f:
        json.dump(man, f, indent=1)
    return man


def files_of(man, name):
    """The files a boot of binary `name` needs: kernel, symbols (and dom0 for Xen)."""
    files = dict(man["binaries"][name]["files"])
    files["dom0"] = man["dom0"]
    return files
