# SPDX-License-Identifier: MIT
"""The real binaries beside the models (`make peers`): Debian's packages
through a private apt (`apt`, `fetch`), booted under -icount with exact
brackets (`boot`), their own log lines (`logs`), function by function
(`profile`), the report (`report`), the command (`run`), and the Linux
models against the real Linux (`icount`, `linux_profile`, `peers-icount`).
`make xen-src` (`xen_src`): Xen built from Debian's source with the patch
series (`source`), its `heap-init=` variants measured and proven one heap
(`variants`, `heapdump`), dom0 to its init (`dom0`, `initramfs`), and the
report (`variants_report`)."""
