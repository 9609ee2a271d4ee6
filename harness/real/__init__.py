# SPDX-License-Identifier: MIT
"""The real Xen and Linux: Debian's binaries and builds from source, each
measured beside bootheap's models of them (the models themselves, the
"peers", live in the kernel: mm/peers/). A room a subject:
`debian/` Debian's packages through a private apt; `bracket/` booting a real
kernel under -icount and bracketing its hand-over, which every kernel uses;
`binaries/` Debian's Xen and Linux binaries measured beside the models
(`make peers`, `peers-icount`); `xen/` Xen built from Debian's source with
the project's patch series (`make xen-src`); `linux/` Linux built the same
way (`make linux-src`)."""
