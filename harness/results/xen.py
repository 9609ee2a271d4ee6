# SPDX-License-Identifier: MIT
"""Xen's published end_boot_allocator() figures, and the ns/page derived from
them, for reports that may set them beside KVM results."""
from harness.common import GIB, PAGE

# Xen's published end_boot_allocator() times, x86 nested KVM on c5.metal, in
# ms: (GB, v1 before, v1 after, v2 before, v2 after). v2 is a non-debug build.
XEN_X86 = ((4, 60, 6, 62, 4), (8, 124, 12, 126, 8), (90, 1426, 166, 1445, 96))
# Arm64 Neoverse N1, 32 GB: (GB, before, after).
XEN_ARM = (32, 1180, 63)


def xen_pages(gb):
    """Pages in Xen's nominal RAM size: GB read as GiB, 4 KiB pages."""
    return gb * GIB // PAGE


def xen_ns_per_page(gb, ms):
    return ms * 1e6 / xen_pages(gb)


def xen_row(nbytes):
    for row in XEN_X86:
        if nbytes == row[0] * GIB:
            return row
    return None
