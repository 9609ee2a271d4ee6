# SPDX-License-Identifier: MIT
"""Debian's Xen and Linux binaries beside the models: the command of
`make peers` (`run`), its report (`report`), and the Linux models against
the real Linux under -icount (`icount`, `linux_profile`: `peers-icount`)."""
