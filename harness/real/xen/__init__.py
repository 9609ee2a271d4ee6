# SPDX-License-Identifier: MIT
"""Xen built from Debian's source with the patch series (`source`), the
command of `make xen-src` (`run`), its `heap-init=` variants booted and
measured (`variants`), proven one heap (`heapdump`), a real dom0 to its init
(`dom0`), and the report (`variants_report`)."""
