# SPDX-License-Identifier: MIT
"""The real kernels beside bootheap's models, a room a subject:
`debian/` Debian's packages through a private apt; `bracket/` booting a real
kernel under -icount and bracketing its hand-over, which every kernel uses;
`binaries/` Debian's Xen and Linux binaries measured beside the models
(`make peers`, `peers-icount`); `xen/` Xen built from Debian's source with
the project's patch series (`make xen-src`)."""
