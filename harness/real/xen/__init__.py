# SPDX-License-Identifier: MIT
"""Xen built from Debian's source with the patch series (`source`), or a
tree given by path (`tree`); the command `xen-src` (`cli`) and its measure
run (`measure`): the `heap-init=` variants booted and measured
(`variants`), proven one heap (`heapdump`, `carveout`), a real dom0 to its
init (`dom0`, `afterboot`), and the report (`variants_report`); Xen's own
heap code tested and timed on the host (`host`); the proposal series on
Arm (`arm`)."""
