# SPDX-License-Identifier: MIT
"""Debian's Xen and Linux binaries beside the models: the command
`binaries` and its measure run (`run`), its report (`report`), and the
Linux models held to the real Linux under -icount (`icount`,
`linux_profile`: `peers-icount`)."""
