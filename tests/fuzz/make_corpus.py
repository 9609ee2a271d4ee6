#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus for tests/fuzz/fuzz_bootinfo.c: valid and nearly
valid multiboot2 infos and PVH start infos, in the fuzzer's input format
(selector byte, placement byte, then physical memory at BASE).
Usage: make_corpus.py [DIR]   (default: tests/fuzz/corpus beside this file)"""
import os
import struct
import sys

BASE = 0x100000
SEL_MB2, SEL_PVH, SEL_BAD_MAGIC = 0x00, 0x01, 0x02
PVH_MAGIC = 0x336EC578


def seed(sel, where, memory):
    return bytes([sel, where]) + bytes(memory)


# ---- multiboot2 -----------------------------------------------------------

def tag(ttype, body):
    raw = struct.pack("<II", ttype, 8 + len(body)) + body
    return raw + b"\0" * (-len(raw) % 8)


def end_tag(size=8):
    return struct.pack("<II", 0, size)


def info(*tags, total=None, pad=0, end=end_tag()):
    """A multiboot2 info pad bytes into memory: header, the tags, an end tag;
    total overrides the size in the header."""
    body = b"".join(tags) + end
    size = 8 + len(body)
    return b"\xee" * pad + struct.pack("<II", size if total is None else total, 0) + body


def cstr(ttype, text):
    return tag(ttype, text.encode() + b"\0")


def mmap(entries, esize=24):
    body = struct.pack("<II", esize, 0)
    for addr, length, etype in entries:
        e = struct.pack("<QQII", addr, length, etype, 0)
        body += e + b"\0" * (esize - len(e))
    return tag(6, body)


def efi_mmap(descs, dsize=48):
    body = struct.pack("<II", dsize, 1)
    for etype, start, pages in descs:
        d = struct.pack("<IIQQQQ", etype, 0, start, 0, pages, 0xF)
        body += d + b"\0" * (dsize - len(d))
    return tag(17, body)


def module(start, end, name):
    return tag(3, struct.pack("<II", start, end) + name.encode() + b"\0")


def framebuffer(addr, width, height):
    return tag(8, struct.pack("<QIIIBBH6B", addr, width * 4, width, height, 32, 1, 0,
                              16, 8, 8, 8, 0, 8))


def rsdp(revision):
    size = 36 if revision >= 2 else 20
    raw = bytearray(b"RSD PTR " + bytes(range(8, size)))
    raw[15] = revision
    return bytes(raw)


BIOS_MAP = [(0x0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0xF0000, 0x10000, 2),
            (0x100000, 0x1FEE0000, 1), (0x1FFE0000, 0x20000, 2),
            (0xB0000000, 0x10000000, 2), (0xFED1C000, 0x4000, 2), (0xFFFC0000, 0x40000, 2)]
EFI_MAP = [(3, 0x0, 0xA0), (7, 0x100000, 0x700), (1, 0x800000, 0x20), (2, 0x820000, 0x100),
           (4, 0x920000, 0x3000), (9, 0x3F000000, 0x10), (10, 0x3F010000, 0x20),
           (6, 0x3F030000, 0x40), (8, 0x3F070000, 0x10), (11, 0xFFC00000, 0x400)]


def mb2_seeds():
    grub_bios = info(cstr(1, "/boot/bootheap.elf selftest exit=auto"), cstr(2, "GRUB 2.06"),
                     tag(4, struct.pack("<II", 639, 523136)), mmap(BIOS_MAP),
                     tag(14, rsdp(0)), framebuffer(0xFD000000, 1024, 768))
    minimal = info(mmap(BIOS_MAP[:4]))
    yield "mb2-grub-bios", seed(SEL_MB2, 0, grub_bios)
    yield "mb2-grub-uefi", seed(SEL_MB2, 8, info(
        cstr(1, "/boot/bootheap.elf"), cstr(2, "GRUB 2.06"), efi_mmap(EFI_MAP),
        tag(15, rsdp(2)), framebuffer(0x80000000, 1280, 800), pad=8))
    yield "mb2-modules-both-rsdp", seed(SEL_MB2, 0, info(
        tag(14, rsdp(0)), mmap(BIOS_MAP, esize=32), module(0x200000, 0x212345, "/boot/initrd"),
        module(0x300000, 0x300000, ""), module(0x400000, 0x401000, "x" * 80),
        tag(15, rsdp(2))))
    yield "mb2-sixteen-modules", seed(SEL_MB2, 0, info(
        mmap(BIOS_MAP[:4]), *[module(0x1000000 + i * 0x10000, 0x1000100 + i * 0x10000, "m%d" % i)
                              for i in range(16)]))
    # GRUB's cutmem holes: more RAM ranges than the boot allocator keeps.
    holes = [(0x4000000 + i * 0x20000, 0x1f000 - (i % 7) * 0x1000, 1) for i in range(300)]
    yield "mb2-cutmem-holes", seed(SEL_MB2, 0, info(mmap(BIOS_MAP[:3] + holes)))
    yield "mb2-minimal", seed(SEL_MB2, 0, minimal)
    yield "mb2-bad-magic", seed(SEL_MB2 | SEL_BAD_MAGIC, 0, minimal)
    yield "mb2-misaligned", seed(SEL_MB2, 4, info(mmap(BIOS_MAP[:4]), pad=4))
    # Near misses: each breaks one rule of the format.
    short_map = mmap(BIOS_MAP[:2])
    yield "mb2-total-lies", seed(SEL_MB2, 0, info(short_map, total=8 + len(short_map) + 24)
                                 + b"\0" * 16)
    yield "mb2-end-tag-size", seed(SEL_MB2, 0, info(short_map, end=end_tag(16),
                                                     total=8 + len(short_map) + 16) + b"\0" * 8)
    yield "mb2-no-mmap", seed(SEL_MB2, 0, info(cstr(1, "selftest"),
                                               tag(4, struct.pack("<II", 639, 130048))))
    # Overlaps of every type over RAM, a loader's own type (GRUB's 20), edges
    # inside pages, and an entry that wraps past 2^64: each type priority matters.
    yield "mb2-overlaps", seed(SEL_MB2, 0, info(mmap(BIOS_MAP[:3] + [
        (0x100000, 0x3FF00000, 1), (0x2000800, 0x1000, 3), (0x3000000, 0x200000, 4),
        (0x30FF000, 0x2000, 3), (0x4000000, 0x10000, 5), (0x4008000, 0x10000, 2),
        (0x5000000, 0x400000, 20), (0x5200000, 0x400000, 1), (0x6000123, 0x5000, 2),
        (0xFFFFFFFFFFFFE000, 0x3000, 1), (0x40000000, 0x800, 1), (0x40000800, 0x800, 1)])))


# ---- PVH ------------------------------------------------------------------

def pvh(version=1, cmdline=b"console=ttyS0 selftest\0", modules=(), with_rsdp=True,
        entries=None, memmap=BIOS_MAP[:5]):
    """Start info at offset 0, then the memory map, the command line, the
    module list and the RSDP, each at a fixed offset."""
    mem = bytearray(0x300)
    off_map, off_cmd, off_mods, off_rsdp = 0x40, 0x140, 0x240, 0x2C0
    for i, (addr, length, etype) in enumerate(memmap):
        struct.pack_into("<QQII", mem, off_map + 24 * i, addr, length, etype, 0)
    mem[off_cmd:off_cmd + len(cmdline)] = cmdline
    for i, (paddr, size) in enumerate(modules):
        struct.pack_into("<QQQQ", mem, off_mods + 32 * i, paddr, size, 0, 0)
    mem[off_rsdp:off_rsdp + 36] = rsdp(2)
    struct.pack_into("<IIIIQQQQII", mem, 0, PVH_MAGIC, version, 0, len(modules),
                     BASE + off_mods if modules else 0,
                     BASE + off_cmd if cmdline else 0,
                     BASE + off_rsdp if with_rsdp else 0,
                     BASE + off_map, len(memmap) if entries is None else entries, 0)
    return bytes(mem)


def pvh_seeds():
    yield "pvh-full", seed(SEL_PVH, 0, pvh(modules=[(0x1F000000, 0x1234), (0x1E000000, 0x800000)]))
    yield "pvh-minimal", seed(SEL_PVH, 0, pvh(cmdline=b"", with_rsdp=False)[:0x40 + 5 * 24])
    yield "pvh-version-0", seed(SEL_PVH, 0, pvh(version=0))
    yield "pvh-memmap-runs-off", seed(SEL_PVH, 0, pvh(entries=40))
    # The command line is the last thing in memory, and unterminated.
    yield "pvh-cmdline-at-end", seed(SEL_PVH, 0, pvh(cmdline=b"selftest runs=3" + b"x" * 16)[:0x140 + 31])
    yield "pvh-module-wraps", seed(SEL_PVH, 0, pvh(modules=[(0xFFFFFFFFFFFFF000, 0x2000)]))


# ---- ACPI ------------------------------------------------------------------

SEL_ACPI, SEL_ACPI_20 = 0x04, 0x08


def sdt(sig, body, rev=1):
    """An ACPI table: a 36-byte header with a checksum that makes it sum to 0."""
    raw = bytearray(sig + struct.pack("<IBB", 36 + len(body), rev, 0) + b"BOOTHPFUZZTBL" + bytes(13)
                    + body)
    raw[9] = (-sum(raw)) & 0xFF
    return bytes(raw)


def acpi_memory(rev):
    """The RSDP at offset 0 and q35's tables behind it: an RSDT (and an XSDT
    for ACPI 2.0) listing a FADT with a 24-bit PM timer at 0x608 and an HPET
    at 0xfed00000."""
    off_rsdt, off_xsdt, off_fadt, off_hpet = 0x40, 0x80, 0x100, 0x300
    fadt = bytearray(244 - 36)
    struct.pack_into("<I", fadt, 76 - 36, 0x608)
    fadt[91 - 36] = 4
    hpet = bytearray(56 - 36)
    struct.pack_into("<BBBBQ", hpet, 40 - 36, 0, 64, 0, 0, 0xFED00000)
    mem = bytearray(0x400)
    mem[0:36] = rsdp(rev)[:36].ljust(36, b"\0")
    struct.pack_into("<I", mem, 16, BASE + off_rsdt)
    if rev >= 2:
        struct.pack_into("<IQ", mem, 20, 36, BASE + off_xsdt)
    mem[8] = 0
    mem[8] = (-sum(mem[0:20])) & 0xFF
    if rev >= 2:
        mem[32] = 0
        mem[32] = (-sum(mem[0:36])) & 0xFF
    rsdt = sdt(b"RSDT", struct.pack("<II", BASE + off_fadt, BASE + off_hpet))
    xsdt = sdt(b"XSDT", struct.pack("<QQ", BASE + off_fadt, BASE + off_hpet))
    mem[off_rsdt:off_rsdt + len(rsdt)] = rsdt
    mem[off_xsdt:off_xsdt + len(xsdt)] = xsdt
    f = sdt(b"FACP", bytes(fadt), rev=1)
    mem[off_fadt:off_fadt + len(f)] = f
    h = sdt(b"HPET", bytes(hpet))
    mem[off_hpet:off_hpet + len(h)] = h
    return bytes(mem)


def acpi_seeds():
    yield "acpi-q35-rsdt", seed(SEL_ACPI, 0, acpi_memory(0))
    yield "acpi-xsdt", seed(SEL_ACPI | SEL_ACPI_20, 0, acpi_memory(2))
    # The same tables with the RSDT cut short.
    yield "acpi-cut-short", seed(SEL_ACPI, 0, acpi_memory(0)[:0x60])


# ---- firmware tables (MADT, SRAT, SLIT back to back) -----------------------

SEL_TOPO = 0x10


def acpi_table(sig, rev, extra, body):
    raw = bytearray(sig + struct.pack("<IBB", 36 + len(extra) + len(body), rev, 0) + b"\0" * 26
                    + extra + body)
    raw[9] = (-sum(raw)) & 0xFF
    return bytes(raw)


def madt(cpus):
    body = b"".join(struct.pack("<BBBBI", 0, 8, i, apic, flags) for i, (apic, flags) in enumerate(cpus))
    return acpi_table(b"APIC", 4, struct.pack("<II", 0xFEE00000, 1), body)


def srat(cpus, mems):
    body = b"".join(struct.pack("<BBBBIB3sI", 0, 16, pxm & 0xFF, apic, 1, 0,
                                (pxm >> 8).to_bytes(3, "little"), 0) for apic, pxm in cpus)
    body += b"".join(struct.pack("<BBIHQQIIQ", 1, 40, pxm, 0, base, size, 0, flags, 0)
                     for pxm, base, size, flags in mems)
    return acpi_table(b"SRAT", 3, b"\0" * 12, body)


def slit(n, dist):
    return acpi_table(b"SLIT", 1, struct.pack("<Q", n), bytes(dist))


def topo_seeds():
    mib, gib = 1 << 20, 1 << 30
    cpus = [(0, 1), (1, 1), (2, 1), (3, 1)]
    two = [(0, 0, 0xA0000, 1), (0, mib, 1535 * mib, 1), (1, 1536 * mib, 512 * mib, 1)]
    yield "topo-two-nodes", seed(SEL_TOPO, 0, madt(cpus) + srat([(0, 0), (1, 0), (2, 1), (3, 1)], two)
                                 + slit(2, [10, 21, 21, 10]))
    yield "topo-cpuless-node", seed(SEL_TOPO, 0, madt(cpus[:2]) + srat(
        [(0, 0), (1, 0)], [(0, 0, gib, 1), (1, gib, gib, 1), (2, 4 * gib, gib, 3)]))
    yield "topo-madt-only", seed(SEL_TOPO, 0, madt(cpus + [(4, 0), (5, 2)]))
    yield "topo-overlap", seed(SEL_TOPO, 0, madt(cpus) + srat([(0, 0), (1, 1), (2, 0), (3, 1)],
                                                               [(0, 0, gib + mib, 1), (1, gib, gib, 1)]))


# ---- the boot allocator -----------------------------------------------------
SEL_BOOTMEM = 0x20
ADD, ZAP, ALLOC, CONTAINS, SEAL = 0, 3, 5, 7, 0xFF


def call(kind, a, b):
    return struct.pack("<BHH", kind, a, b)


def bootmem_seeds():
    yield "bootmem-split-and-take", seed(SEL_BOOTMEM, 0, b"".join([
        call(ADD, 256, 1024), call(ADD, 16, 64), call(ADD, 64, 100), call(ZAP, 300, 310),
        call(ZAP, 60, 70), call(ALLOC, 5, 3 | 0xFF00), call(ALLOC, 64, 6 | (60 << 8)),
        call(ALLOC, 3, 0x83), call(CONTAINS, 256, 300), call(CONTAINS, 16, 60),
        call(ADD, 300, 305), call(ZAP, 0, 1024), call(ALLOC, 1, 0)]))
    # Every other page: a full list of 256 regions, then a zap that must split one.
    yield "bootmem-full", seed(SEL_BOOTMEM, 0, b"".join(
        [call(ADD, 2 * i, 2 * i + 1) for i in range(256)]
        + [call(ADD, 1000, 1001), call(ZAP, 0, 1), call(ADD, 600, 1024), call(ZAP, 700, 701),
           call(ALLOC, 2, 1 | 0xFF00)]))
    yield "bootmem-sealed", seed(SEL_BOOTMEM, 0, call(ADD, 0, 1024) + call(SEAL, 0, 0)
                                 + call(ALLOC, 1, 0xFF00) + call(ZAP, 10, 20))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in list(mb2_seeds()) + list(pvh_seeds()) + list(acpi_seeds()) + list(topo_seeds()) + \
            list(bootmem_seeds()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
